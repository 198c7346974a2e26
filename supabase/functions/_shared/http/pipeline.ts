/**
 * The pieces every function's Hono app shares: a request id on each response, errors as the API's JSON
 * bodies (500 `internal` logged with the request id, never a stack trace in the body), JSON 404s and 405s.
 */
import type { Context, Env, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { isUnreachable, retryAfterSeconds } from "../db/failures.ts";
import { ApiError } from "./errors.ts";
import { errorForLog, redactForLog } from "../log_text.ts";

export interface RequestIdEnv extends Env {
  Variables: { requestId: string };
}

export function requestId<E extends RequestIdEnv>(): MiddlewareHandler<E> {
  return async (c, next) => {
    const id = crypto.randomUUID();
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
  };
}

export function errorResponse(c: Context, error: ApiError): Response {
  if (error.code === "service_unavailable") c.header("Retry-After", String(retryAfterSeconds));
  return c.json(error.toJSON(), error.status as 400);
}

/** The 503 for a database that cannot be reached (docs/decisions.md): JSON, `Retry-After`, never a 500. */
export function serviceUnavailableError(): ApiError {
  return new ApiError(
    "service_unavailable",
    `The service cannot reach its database right now; try again in ${retryAfterSeconds} seconds.`,
  );
}

let lastUnavailableLogAt = 0;

/**
 * Known errors become their JSON body; an unreachable database is a 503 `service_unavailable`; anything
 * else is a 500 `internal`, logged under `label`.
 */
export function errorHandler<E extends RequestIdEnv>(label: string): ErrorHandler<E> {
  return (error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    const id = c.get("requestId") ?? "unknown";
    if (isUnreachable(error)) {
      // One line per 10 s, not one per request, while an outage lasts.
      if (Date.now() - lastUnavailableLogAt > 10_000) {
        lastUnavailableLogAt = Date.now();
        console.warn(
          `[${label}] ${c.req.method} ${redactForLog(c.req.path)} request ${id} answered 503: ${
            errorForLog(error)
          }`,
        );
      }
      return errorResponse(c, serviceUnavailableError());
    }
    console.error(
      `[${label}] ${c.req.method} ${redactForLog(c.req.path)} request ${id} failed: ` +
        redactForLog(String(error?.stack ?? error)),
    );
    return errorResponse(
      c,
      new ApiError(
        "internal",
        "Something went wrong on our side. Quote the request id when you contact us.",
        {
          request_id: id,
        },
      ),
    );
  };
}

export function notFound<E extends Env>(): NotFoundHandler<E> {
  return (c) =>
    errorResponse(
      c,
      new ApiError("not_found", `There is no ${c.req.method} ${new URL(c.req.url).pathname}.`),
    );
}

/** A path that exists, asked with a method it does not serve. */
export function methodNotAllowed<E extends Env>(allowed: string[]): MiddlewareHandler<E> {
  return (c) => {
    c.header("Allow", allowed.join(", "));
    return Promise.resolve(
      errorResponse(c, new ApiError("method_not_allowed", `Use ${allowed.join(" or ")} on this path.`)),
    );
  };
}

/** Whole seconds from `now` until `resetAt`, never negative (for `RateLimit-Reset` and `Retry-After`). */
export function secondsUntil(resetAt: Date, now = new Date()): number {
  return Math.max(0, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
}
