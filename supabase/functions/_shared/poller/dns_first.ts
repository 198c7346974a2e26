/**
 * DNS first: a name delegated in DNS is registered, so most checks need no registry request. The registry is
 * asked (RDAP, or WHOIS where a TLD has no RDAP) only when its answer can say more than "registered", and
 * each such question is asked a bounded number of times (docs/alerts.md "What the registry is asked"):
 *
 * - `not_delegated`: DNS shows no delegation, or could not be read: only the registry can decide.
 * - `pending_delete`: still delegated while it may be restored or drop.
 * - `past_expiry`: past its known expiry (renewed, or entering redemption).
 * - `turned_registered`: it was `available` (or `unknown` after a check) and is delegated now, so that
 *   `domain.registered` carries the registrar and the expiration date.
 * - `never_asked`: the registry has never answered for it (its expiry and registrar are not known).
 * - `reminder_window`: its expiry is within a day of one of the reminder days its watchers' channels ask for
 *   (`domain.expiring`), and the registry has not answered since: once per reminder day, so each reminder is
 *   sent on the registry's current date (a renewal re-arms them instead).
 * - `refresh`: the registry's last answer is older than `REGISTRY_REFRESH_MS` (a registrar change, an expiry
 *   the registry did not publish last time).
 */
import type { DnsOutcome } from "../dns/nameservers.ts";
import type { CheckReason } from "../contract/schemas.ts";

const DAY = 86_400_000;

/** The slow refresh: a delegated name's registry is asked again after this long whatever else holds. */
export const REGISTRY_REFRESH_MS = 90 * DAY;
/** Inside a reminder window, the registry is asked this long before each reminder day. */
export const REMINDER_LEAD_MS = DAY;

export interface KnownState {
  status: string;
  expiresAt: Date | null;
  /** When the last check was recorded (null: never checked). */
  lastCheckedAt?: Date | null;
  /** When the registry last answered for the name (null: never). */
  registryAskedAt?: Date | null;
  /** The reminder days (`domain.expiring`) of every channel of every account watching the name. */
  reminderDays?: number[];
}

export type RegistryQuestion =
  | "not_delegated"
  | "pending_delete"
  | "past_expiry"
  | "turned_registered"
  | "never_asked"
  | "reminder_window"
  | "refresh";

/** Questions about a delegated name that only learn what DNS cannot tell (its registration stays certain). */
export const LEARNING_QUESTIONS: ReadonlySet<RegistryQuestion> = new Set([
  "turned_registered",
  "never_asked",
  "reminder_window",
  "refresh",
]);

/**
 * A question that only learns more (expiry, registrar) and raises no event: it takes the registry's spare
 * turns. `turned_registered` learns too, but raises `domain.registered`, so it goes in the urgent line.
 */
export function onlyLearns(question: RegistryQuestion): boolean {
  return LEARNING_QUESTIONS.has(question) && question !== "turned_registered";
}

/** Why the registry must be asked about this name now, or null when DNS decides it. */
export function registryQuestion(known: KnownState, dns: DnsOutcome, now: Date): RegistryQuestion | null {
  if (dns.outcome !== "delegated") return "not_delegated";
  if (known.status === "pending_delete") return "pending_delete";
  const at = now.getTime();
  const expiresAt = known.expiresAt?.getTime() ?? null;
  if (expiresAt !== null && expiresAt <= at) return "past_expiry";
  if (
    known.status === "available" || (known.status === "unknown" && (known.lastCheckedAt ?? null) !== null)
  ) {
    return "turned_registered";
  }
  const askedAt = known.registryAskedAt?.getTime() ?? null;
  if (askedAt === null) return "never_asked";
  if (expiresAt !== null) {
    // The latest moment at which the registry should have been asked for a reminder: a day before the most
    // recent reminder day that has come within a day.
    let askPoint: number | null = null;
    for (const days of known.reminderDays ?? []) {
      const point = expiresAt - days * DAY - REMINDER_LEAD_MS;
      if (point <= at && (askPoint === null || point > askPoint)) askPoint = point;
    }
    if (askPoint !== null && askedAt < askPoint) return "reminder_window";
  }
  if (at - askedAt >= REGISTRY_REFRESH_MS) return "refresh";
  return null;
}

/**
 * Reasons of a check in which the registry answered about the name itself (or there is no registry to ask):
 * such a check sets the name's `registry_asked_at`. A check decided by DNS because the registry could not be
 * read does not, so the registry is asked again.
 */
const REGISTRY_ANSWERED: ReadonlySet<CheckReason> = new Set<CheckReason>([
  "rdap_found",
  "rdap_pending_delete",
  "rdap_not_found",
  "rdap_404_but_delegated",
  "no_rdap_server_for_tld",
  "whois_found",
  "whois_pending_delete",
  "whois_not_found",
  "whois_not_found_but_delegated",
]);

export function registryAnswered(reason: CheckReason): boolean {
  return REGISTRY_ANSWERED.has(reason);
}

/**
 * What a check says of the registry's answer for the name's page (`domains.registry_unreadable_at`): true
 * when the registry answered and its answer could not be read (`whois_unrecognized`), false when it answered
 * readably, null when the check says neither (no answer, a limit text, an unproven server).
 */
export function registryUnreadable(reason: CheckReason): boolean | null {
  if (reason === "whois_unrecognized") return true;
  return registryAnswered(reason) ? false : null;
}
