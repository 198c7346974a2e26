/** api-v1's own middleware: the API key (401/403) and the daily request limit (429), in one round trip. */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimitedError } from "../daily_limit/allowance.ts";
import { rateLimitHeaders } from "../http/rate_limit_headers.ts";
import { authorizeApiRequest, type AuthorizedRequest } from "./api_access.ts";
import type { ApiEnv } from "./context.ts";

/** Puts the account on the context and the allowance in `RateLimit-*` headers; 429 when refused. */
export function admitAuthorized(c: Context<ApiEnv>, { account, allowance }: AuthorizedRequest): void {
  c.set("account", account);
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
  if (!allowance.allowed) throw rateLimitedError(allowance);
}

/**
 * 401 for a missing, unknown or revoked key and 403 for plans without API access (neither counted);
 * otherwise counts the request against the account's daily limit, reports it in `RateLimit-*` headers and
 * refuses it with 429 when the limit is used up.
 */
export const authorizeRequest: MiddlewareHandler<ApiEnv> = async (c, next) => {
  admitAuthorized(c, await authorizeApiRequest(c.req.header("x-api-key"), { count: true }));
  await next();
};
