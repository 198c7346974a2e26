/**
 * When to look again at a name in pending delete, from its predicted drop (availability/drop_prediction.ts):
 *   - more than 2 days before the predicted drop: every 30 minutes;
 *   - within 2 days of it: every 5 minutes;
 *   - from 2 hours before to 6 hours after it: every minute (the pg_cron tick);
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

export function pendingDeleteCheckDelayMs(dropAt: Date | null, now: Date): number {
  if (dropAt === null) return 5 * MINUTE;
  const untilDrop = dropAt.getTime() - now.getTime();
  if (untilDrop > 2 * DAY) return 30 * MINUTE;
  if (untilDrop > 2 * HOUR) return 5 * MINUTE;
  if (untilDrop > -6 * HOUR) return 1 * MINUTE;
  return 5 * MINUTE;
}
