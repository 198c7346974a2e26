/** api-v1's request pipeline: request id, API key (401/403), daily limit (429), errors as JSON. */
import type { MiddlewareHandler, NotFoundHandler } from "hono";
import { ApiError } from "../http/errors.ts";
import { authenticateApiKey, consumeDailyRequest, rateLimitedError, rateLimitHeaders } from "./api_access.ts";
import type { ApiContext, ApiEnv } from "./context.ts";

export const requestId: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const id = crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
};

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

export function errorResponse(c: ApiContext, error: ApiError): Response {
  return c.json(error.toJSON(), error.status as 400);
}

/** Known errors become their JSON body; anything else is a 500 `internal`, logged with the request id. */
export function handleError(error: Error, c: ApiContext): Response {
  if (error instanceof ApiError) return errorResponse(c, error);
  const id = c.get("requestId") ?? "unknown";
  console.error(`[api-v1] request ${id} failed: ${error?.stack ?? error}`);
  return errorResponse(
    c,
    new ApiError("internal", "Something went wrong on our side. Quote the request id when you contact us.", {
      request_id: id,
    }),
  );
}

export const notFound: NotFoundHandler<ApiEnv> = (c) =>
  errorResponse(c, new ApiError("not_found", `There is no ${c.req.method} ${new URL(c.req.url).pathname}.`));

/** A route that exists, asked with a method it does not serve. */
export function methodNotAllowed(allowed: string[]): MiddlewareHandler<ApiEnv> {
  return (c) => {
    c.header("Allow", allowed.join(", "));
    return Promise.resolve(errorResponse(
      c,
      new ApiError("method_not_allowed", `Use ${allowed.join(" or ")} on this path.`),
    ));
  };
}
