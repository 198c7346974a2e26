/** api-v1's own middleware: the API key (401/403) and the daily request limit (429), in one round trip. */
import type { MiddlewareHandler } from "hono";
import { authorizeApiRequest, rateLimitedError, rateLimitHeaders } from "./api_access.ts";
import type { ApiEnv } from "./context.ts";

/**
 * 401 for a missing, unknown or revoked key and 403 for plans without API access (neither counted);
 * otherwise counts the request against the account's daily limit, reports it in `RateLimit-*` headers and
 * refuses it with 429 when the limit is used up.
 */
export const authorizeRequest: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const { account, allowance } = await authorizeApiRequest(c.req.header("x-api-key"), { count: true });
  c.set("account", account);
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
  if (!allowance.allowed) throw rateLimitedError(allowance);
  await next();
};
