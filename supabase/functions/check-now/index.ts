// check-now: "Check now" in the app, a live check within the plan's daily allowance (session JWT). Wiring only.
import { Hono } from "hono";
import { appCheckHandler } from "../_shared/check/app_check.ts";
import { errorHandler, methodNotAllowed, notFound, requestId } from "../_shared/http/pipeline.ts";
import { cors, requireSession, type SessionEnv } from "../_shared/session/middleware.ts";

const app = new Hono<SessionEnv>().basePath("/check-now");

app.use("*", requestId(), cors);
app.onError(errorHandler("check-now"));
app.notFound(notFound());

app.post("/", requireSession, appCheckHandler);
app.all("/", methodNotAllowed(["POST", "OPTIONS"]));

Deno.serve(app.fetch);
