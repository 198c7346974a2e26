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

/**
 * A routine name whose answer could not be read (`whois_unrecognized`: a reserved or blocked name's text, a
 * phrasing the row does not know) is asked again between these two delays, spread by name and check time:
 * it says nothing of the host (it never backs the host off, availability/whois_check.ts), so the names that
 * get such answers come back seldom and never together.
 */
export const UNREADABLE_RETRY_MIN_MS = 2 * 60 * MINUTE;
export const UNREADABLE_RETRY_MAX_MS = 8 * 60 * MINUTE;

/** The delay before a routine name whose answer could not be read is asked again (spread, see above). */
export function unreadableRetryDelayMs(domainName: string, checkedAt: string): number {
  const key = `${domainName}|${checkedAt}`;
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619) >>> 0;
  const span = UNREADABLE_RETRY_MAX_MS - UNREADABLE_RETRY_MIN_MS;
  return UNREADABLE_RETRY_MIN_MS + hash % (span + 1);
}

/** When the next WHOIS check of a routine name may come at the earliest; null for pending delete. */
export function whoisRoutineNotBefore(
  previousStatus: DomainStatus,
  result: { domain_name: string; status: DomainStatus; checked_at: string; reason?: string },
): Date | null {
  if (previousStatus === "pending_delete" || result.status === "pending_delete") return null;
  const checkedAt = Date.parse(result.checked_at);
  if (result.reason === "whois_unrecognized") {
    return new Date(checkedAt + unreadableRetryDelayMs(result.domain_name, result.checked_at));
  }
  return new Date(checkedAt + whoisRoutineMinDelayMs(result.status));
}
