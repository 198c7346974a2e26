// rdap-poller: one polling run per POST / and one alert delivery run per POST /deliveries, each from its
// pg_cron job (bearer secret from Vault). Wiring only.
import { Hono } from "hono";
import {
  errorHandler,
  methodNotAllowed,
  notFound,
  requestId,
  type RequestIdEnv,
} from "../_shared/http/pipeline.ts";
import { pollerHandler, requirePollerSecret } from "../_shared/poller/handler.ts";
import { deliveriesHandler } from "../_shared/alerts/delivery_handler.ts";

const app = new Hono<RequestIdEnv>().basePath("/rdap-poller");

app.use("*", requestId());
app.onError(errorHandler("rdap-poller"));
app.notFound(notFound());

app.post("/", requirePollerSecret, pollerHandler);
app.all("/", methodNotAllowed(["POST"]));
app.post("/deliveries", requirePollerSecret, deliveriesHandler);
app.all("/deliveries", methodNotAllowed(["POST"]));

Deno.serve(app.fetch);
