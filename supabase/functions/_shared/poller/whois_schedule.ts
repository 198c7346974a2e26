/**
 * Routine names under WHOIS TLDs are checked less often than RDAP names (registries ban far sooner over
 * WHOIS): after a WHOIS check, the next one is at least this far away. `defer_domain_check` only ever
 * moves a check later, so the database's own schedule (next_check_delay) stands where it is longer
 * (e.g. a week for a registered name far from expiry). Names in pending delete keep their drop cadence
 * (drop_schedule.ts): this applies neither to them nor to a name whose check just found it there.
 */
import type { DomainStatus } from "../contract/schemas.ts";

const MINUTE = 60_000;

/** The shortest time between two WHOIS checks of a routine name, by the status the check found. */
export function whoisRoutineMinDelayMs(status: DomainStatus): number {
  // An undecided answer (limit text, timeout, unverified server) is tried again sooner, but not at
  // RDAP's 5 minutes; the database's failure back-off grows from there.
  if (status === "unknown") return 30 * MINUTE;
  return 6 * 60 * MINUTE;
}

/** When the next WHOIS check of a routine name may come at the earliest; null for pending delete. */
export function whoisRoutineNotBefore(
  previousStatus: DomainStatus,
  result: { status: DomainStatus; checked_at: string },
): Date | null {
  if (previousStatus === "pending_delete" || result.status === "pending_delete") return null;
  return new Date(Date.parse(result.checked_at) + whoisRoutineMinDelayMs(result.status));
}
