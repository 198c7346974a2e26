/**
 * When to look again at a name in pending delete, from its predicted drop (availability/drop_prediction.ts):
 *   - more than 2 days before the predicted drop: every 30 minutes;
 *   - within 2 days of it: every 5 minutes;
 *   - from 2 hours before to 6 hours after it: every minute (the pg_cron tick), except that a check made
 *     less than 130 s before `DROP_CHECK_AFTER_MS` after the predicted drop has its next check there (the
 *     aimed check), at least `MIN_PENDING_DELETE_DELAY_MS` later (the database's floor too), so a name that
 *     drops on time is seen seconds after it, even when the check before came just ahead of the drop;
 *   - no prediction, or more than 6 hours late: every 5 minutes.
 */
import type { RdapSummary } from "../availability/check_domain.ts";
import { dropPrediction } from "../availability/drop_prediction.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The predicted drop time from the registry's answer, or null when it cannot be predicted. */
export function predictedDropAt(rdap: RdapSummary | null): Date | null {
  return dropPrediction(rdap).at;
}

/** How long after the predicted drop the check aimed at it is due. */
export const DROP_CHECK_AFTER_MS = 1_000;
/** The shortest time between two checks of a name in pending delete (`schedule_pending_delete_check`). */
export const MIN_PENDING_DELETE_DELAY_MS = 5_000;

export function pendingDeleteCheckDelayMs(dropAt: Date | null, now: Date): number {
  if (dropAt === null) return 5 * MINUTE;
  const untilDrop = dropAt.getTime() - now.getTime();
  if (untilDrop > 2 * DAY) return 30 * MINUTE;
  if (untilDrop > 2 * HOUR) return 5 * MINUTE;
  // Up to 130 s: wider than one minute, so that a check arriving a few seconds late cannot step over it.
  const untilAimed = untilDrop + DROP_CHECK_AFTER_MS;
  if (untilAimed > 0 && untilAimed < 2 * MINUTE + 10_000) {
    return Math.max(untilAimed, MIN_PENDING_DELETE_DELAY_MS);
  }
  if (untilDrop > -6 * HOUR) return 1 * MINUTE;
  return 5 * MINUTE;
}

/**
 * When to try again after a check of a name in pending delete could not decide (`unknown`: the registry
 * timed out, answered 5xx, its proof was pending…). The name keeps the cadence it had, measured as the time
 * since its previous check, between 1 and 5 minutes: a name checked every minute around its drop is not
 * left for 5 minutes by one failed answer, and a failure never makes a name's checks more frequent than they
 * were. Never checked before: 5 minutes. (Registry politeness is the host limiter's: a failing host backs
 * off for every name.)
 */
export function failedPendingDeleteRetryMs(lastCheckedAt: Date | null, checkedAt: Date): number {
  if (lastCheckedAt === null) return 5 * MINUTE;
  const sincePrevious = checkedAt.getTime() - lastCheckedAt.getTime();
  return Math.min(5 * MINUTE, Math.max(1 * MINUTE, sincePrevious));
}
