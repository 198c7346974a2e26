// send-org-invite: emails a pending organisation invitation through Supabase Auth (session JWT). Wiring only.
import { Hono } from "hono";
import { sendOrgInviteHandler } from "../_shared/invitations/send_invite.ts";
import { announceServiceKey } from "../_shared/invitations/auth_admin.ts";
import { errorHandler, methodNotAllowed, notFound, requestId } from "../_shared/http/pipeline.ts";
import { cors, requireSession, type SessionEnv, sessionRateLimit } from "../_shared/session/middleware.ts";

const app = new Hono<SessionEnv>().basePath("/send-org-invite");

app.use("*", requestId(), cors);
app.onError(errorHandler("send-org-invite"));
app.notFound(notFound());

app.post("/", requireSession, sessionRateLimit("send-org-invite"), sendOrgInviteHandler);
app.all("/", methodNotAllowed(["POST", "OPTIONS"]));

announceServiceKey();
Deno.serve(app.fetch);
