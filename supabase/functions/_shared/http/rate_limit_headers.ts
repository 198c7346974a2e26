/**
 * The one builder of `RateLimit-*` headers (and `Retry-After` when a request is refused), for the API's
 * daily limit and the session endpoints' per-action limits alike. Pure.
 */
import { secondsUntil } from "./pipeline.ts";

export interface RateLimitState {
  allowed: boolean;
  /** null when the plan is unlimited: then there is nothing to report and no header is sent. */
  limit: number | null;
  remaining: number | null;
  resetAt: Date;
}

/** `RateLimit-Limit`, `-Remaining`, `-Reset` (seconds); `Retry-After` too when refused; none when unlimited. */
export function rateLimitHeaders(state: RateLimitState, now = new Date()): Record<string, string> {
  if (state.limit === null) return {};
  const resetSeconds = secondsUntil(state.resetAt, now);
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining ?? 0),
    "RateLimit-Reset": String(resetSeconds),
  };
  if (!state.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}
