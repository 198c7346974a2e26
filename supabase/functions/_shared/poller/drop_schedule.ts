/**
 * When to look again at a name in pending delete. Most gTLDs drop a name 35 days after it enters the
 * redemption period (30 days of redemption, then 5 of pending delete), or 5 days after it enters pending
 * delete; RDAP's "last changed" event is when the current status began. So:
 *   - more than 2 days before the predicted drop: every 30 minutes;
 *   - within 2 days of it: every 5 minutes;
 *   - from 2 hours before to 6 hours after it: every minute (the pg_cron tick), except that the check whose
 *     next one would come up to 70 s after the predicted drop is instead moved to `DROP_CHECK_AFTER_MS`
 *     after it (an interval of 60-130 s once, never under the minute the database enforces), so a name
 *     that drops on time is seen seconds later rather than up to a minute;
 *   - no prediction, or more than 6 hours late: every 5 minutes.
 */
import type { RdapSummary } from "../availability/check_domain.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const REDEMPTION_PERIOD_MS = 30 * DAY;
export const PENDING_DELETE_PERIOD_MS = 5 * DAY;

/** The predicted drop time from the registry's answer, or null when it cannot be predicted. */
export function predictedDropAt(rdap: RdapSummary | null): Date | null {
  if (rdap === null || rdap.last_changed_date === null) return null;
  const changedAt = Date.parse(rdap.last_changed_date);
  if (Number.isNaN(changedAt)) return null;
  if (rdap.status.includes("redemption period")) {
    return new Date(changedAt + REDEMPTION_PERIOD_MS + PENDING_DELETE_PERIOD_MS);
  }
  if (rdap.status.includes("pending delete")) return new Date(changedAt + PENDING_DELETE_PERIOD_MS);
  return null;
}

/** How long after the predicted drop the check aimed at it is due. */
export const DROP_CHECK_AFTER_MS = 1_000;

export function pendingDeleteCheckDelayMs(dropAt: Date | null, now: Date): number {
  if (dropAt === null) return 5 * MINUTE;
  const untilDrop = dropAt.getTime() - now.getTime();
  if (untilDrop > 2 * DAY) return 30 * MINUTE;
  if (untilDrop > 2 * HOUR) return 5 * MINUTE;
  // 60-130 s: wider than one minute, so that a check arriving a few seconds late cannot step over it.
  const untilAimed = untilDrop + DROP_CHECK_AFTER_MS;
  if (untilAimed >= MINUTE && untilAimed < 2 * MINUTE + 10_000) return untilAimed;
  if (untilDrop > -6 * HOUR) return 1 * MINUTE;
  return 5 * MINUTE;
}
