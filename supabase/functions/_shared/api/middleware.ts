/** api-v1's own middleware: the API key (401/403) and the daily request limit (429). */
import type { MiddlewareHandler } from "hono";
import { authenticateApiKey, consumeDailyRequest, rateLimitedError, rateLimitHeaders } from "./api_access.ts";
import type { ApiEnv } from "./context.ts";

/** 401 for a missing, unknown or revoked key; 403 for plans without API access. Counts nothing. */
export const requireApiKey: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set("account", await authenticateApiKey(c.req.header("x-api-key")));
  await next();
};

/** Counts the request against the account's daily limit and reports it in `RateLimit-*` headers. */
export const countDailyRequest: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const allowance = await consumeDailyRequest(c.get("account"));
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
  if (!allowance.allowed) throw rateLimitedError(allowance);
  await next();
};
