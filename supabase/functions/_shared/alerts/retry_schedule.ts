/**
 * When a failed delivery is tried again: after 1 min, 5 min, 15 min, 1 h, 3 h, 6 h and 12 h (about 22½ h in
 * all, with the first attempt eight attempts over roughly a day); after the eighth failure it is failed
 * for good. Telegram's 429s wait for `retry_after` and do not count, but no delivery is retried once it
 * is older than `MAX_DELIVERY_AGE_MS`.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS: readonly number[] = [
  1 * MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  1 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

export const MAX_DELIVERY_AGE_MS = 26 * HOUR;

/** The delay after the `failures`-th failed attempt, or null when the delivery has failed for good. */
export function retryDelayMs(failures: number): number | null {
  if (!Number.isInteger(failures) || failures < 1) return RETRY_DELAYS_MS[0];
  return failures <= RETRY_DELAYS_MS.length ? RETRY_DELAYS_MS[failures - 1] : null;
}

/** The next attempt after a failure, or null (give up): the schedule, and never past the age limit. */
export function nextAttemptAfterFailure(failures: number, createdAt: Date, now: Date): Date | null {
  const delay = retryDelayMs(failures);
  if (delay === null) return null;
  const next = new Date(now.getTime() + delay);
  return next.getTime() - createdAt.getTime() > MAX_DELIVERY_AGE_MS ? null : next;
}

/** After a rate limit: at `retryAfterMs`, unless that is past the age limit (null: give up). */
export function nextAttemptAfterRateLimit(retryAfterMs: number, createdAt: Date, now: Date): Date | null {
  const next = new Date(now.getTime() + Math.max(0, retryAfterMs));
  return next.getTime() - createdAt.getTime() > MAX_DELIVERY_AGE_MS ? null : next;
}
