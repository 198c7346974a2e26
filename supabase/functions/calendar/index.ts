// calendar: the account's calendar feed, GET /calendar/<token>.ics (the secret token is the credential).
// Wiring only; the feed is built in _shared/calendar.
import { Hono } from "hono";
import { calendarFeedHandler, calendarIndexHandler } from "../_shared/calendar/feed.ts";
import {
  errorHandler,
  methodNotAllowed,
  notFound,
  requestId,
  type RequestIdEnv,
} from "../_shared/http/pipeline.ts";

const app = new Hono<RequestIdEnv>().basePath("/calendar");

app.use("*", requestId());
app.onError(errorHandler("calendar"));
app.notFound(notFound());

app.get("/", calendarIndexHandler);
app.all("/", methodNotAllowed(["GET"]));
app.get("/:file", calendarFeedHandler);
app.all("/:file", methodNotAllowed(["GET"]));

Deno.serve(app.fetch);
