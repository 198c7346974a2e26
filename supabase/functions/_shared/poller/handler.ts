/** rdap-poller's HTTP side: the bearer-secret check, and one run answered with its summary. */
import type { Context, MiddlewareHandler } from "hono";
import { config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { bearerToken, secretsEqual } from "../http/bearer.ts";
import { defaultPollerDeps } from "./default_poller.ts";
import { runPoller } from "./run_poller.ts";
import { pollerSettings } from "./settings.ts";

/** 401 unless `Authorization: Bearer <POLLER_SECRET>` (always 401 while POLLER_SECRET is unset). */
export const requirePollerSecret: MiddlewareHandler = async (c, next) => {
  const expected = config.pollerSecret();
  const given = bearerToken(c.req.header("authorization"));
  if (expected === undefined || given === null || !(await secretsEqual(given, expected))) {
    throw new ApiError("unauthorized", "The poller needs its bearer secret.");
  }
  await next();
};

export async function pollerHandler(c: Context): Promise<Response> {
  const settings = pollerSettings();
  const summary = await runPoller(defaultPollerDeps(), settings);
  console.log(
    `[rdap-poller] checked ${summary.checked} (${summary.registered_by_dns} by DNS alone), ` +
      `deferred ${summary.deferred}, became available ${summary.became_available}, errors ${summary.errors}; ` +
      `${summary.duration_ms} ms (${summary.stopped_because})`,
  );
  return c.json(summary);
}
