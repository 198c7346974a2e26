// export-account: the signed-in user's whole account as a JSON download (session JWT). Wiring only.
import { Hono } from "hono";
import { exportAccountHandler } from "../_shared/account/export.ts";
import { errorHandler, methodNotAllowed, notFound, requestId } from "../_shared/http/pipeline.ts";
import { cors, requireSession, type SessionEnv, sessionRateLimit } from "../_shared/session/middleware.ts";

const app = new Hono<SessionEnv>().basePath("/export-account");

app.use("*", requestId(), cors);
app.onError(errorHandler("export-account"));
app.notFound(notFound());

app.post("/", requireSession, sessionRateLimit("export-account"), exportAccountHandler);
app.all("/", methodNotAllowed(["POST", "OPTIONS"]));

Deno.serve(app.fetch);
