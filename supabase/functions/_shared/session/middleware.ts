/**
 * The session endpoints' own middleware (export-account, send-org-invite): CORS for the app's origins,
 * the session JWT (401) and the per-user rolling-window limit (429). The limits are server data
 * (`session_action_limits`): this code names the action only.
 */
import type { Context, MiddlewareHandler } from "hono";
import { asService } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { inDatabase } from "../http/in_database.ts";
import { errorResponse } from "../http/pipeline.ts";
import { rateLimitHeaders } from "../http/rate_limit_headers.ts";
import { allowedOrigin, preflightHeaders, responseHeaders } from "./cors.ts";
import { verifySession } from "./jwt.ts";

/** What the session middleware puts on each request's context. */
export interface SessionEnv {
  Variables: {
    requestId: string;
    /** The signed-in user (the JWT's `sub`). */
    userId: string;
  };
}

export type SessionContext = Context<SessionEnv>;

/**
 * Answers preflights (204 for an allowed origin, 403 without CORS headers otherwise) and adds the CORS
 * headers to every other response for an allowed origin, errors included.
 */
export const cors: MiddlewareHandler<SessionEnv> = async (c, next) => {
  const origin = allowedOrigin(c.req.header("origin"));
  if (c.req.method === "OPTIONS") {
    if (origin) return c.body(null, 204, preflightHeaders(origin));
    if (c.req.header("origin")) {
      c.header("Vary", "Origin");
      return errorResponse(c, new ApiError("forbidden", "This origin may not call this function."));
    }
    return c.body(null, 204, { Allow: "POST, OPTIONS", Vary: "Origin" });
  }
  await next();
  c.header("Vary", "Origin");
  if (origin) {
    for (const [name, value] of Object.entries(responseHeaders(origin))) c.header(name, value);
  }
};

/** 401 unless the request carries a valid session JWT; puts the user id on the context. */
export const requireSession: MiddlewareHandler<SessionEnv> = async (c, next) => {
  try {
    c.set("userId", (await verifySession(c.req.header("authorization"))).userId);
  } catch (error) {
    if (error instanceof ApiError && error.code === "unauthorized") c.header("WWW-Authenticate", "Bearer");
    throw error;
  }
  await next();
};

interface SessionAllowance {
  allowed: boolean;
  remaining: number;
  resetAt: Date;
  limit: number;
  windowSeconds: number;
}

interface SessionAllowanceRow {
  allowed: boolean;
  remaining: number;
  reset_at: Date;
  request_limit: number;
  window_seconds: number;
}

/** Counts one request as service_role for the verified user; the limit is the server's. */
async function consumeSessionRequest(userId: string, action: string): Promise<SessionAllowance> {
  const [row] = await inDatabase(() =>
    asService((tx) =>
      tx<SessionAllowanceRow[]>`
        select allowed, remaining, reset_at, request_limit, window_seconds
          from private.consume_session_request(${userId}, ${action})`
    )
  ).catch((error) => {
    // A still-valid token of an account that has been deleted: its log row has no profile to point to.
    if ((error as { code?: string })?.code === "23503") {
      throw new ApiError("unauthorized", "The account no longer exists.");
    }
    throw error;
  });
  return {
    allowed: row.allowed,
    remaining: row.remaining,
    resetAt: new Date(row.reset_at),
    limit: row.request_limit,
    windowSeconds: row.window_seconds,
  };
}

/** `10 minutes`, `1 hour`, `90 seconds`: a window length for messages. */
export function describeWindow(seconds: number): string {
  const [size, unit] = seconds % 3600 === 0
    ? [seconds / 3600, "hour"]
    : seconds % 60 === 0
    ? [seconds / 60, "minute"]
    : [seconds, "second"];
  return size === 1 ? `1 ${unit}` : `${size} ${unit}s`;
}

/**
 * Counts the request against the user's limit for `action` (the maximum and window are the server's,
 * decided in SQL) and reports it in `RateLimit-*` headers; 429 with `reset_at` and `Retry-After` when used up.
 */
export function sessionRateLimit(action: string): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const allowance = await consumeSessionRequest(c.get("userId"), action);
    const max = allowance.limit;
    for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
    if (!allowance.allowed) {
      const resetAt = allowance.resetAt.toISOString();
      throw new ApiError(
        "rate_limited",
        `At most ${max} ${action} requests are allowed per ${
          describeWindow(allowance.windowSeconds)
        }; try again at ${resetAt}.`,
        { reset_at: resetAt },
      );
    }
    await next();
  };
}
