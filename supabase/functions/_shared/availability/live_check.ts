/**
 * The live check behind `GET /check/{domain}` and the `check_domain` tool: a per-name cache of about
 * `LIVE_CHECK_CACHE_SECONDS` in the database (so it holds across isolates) protects registries from
 * repeated checks; a fresh result also updates the shared state of a watched name (`public.domains`).
 */
import {
  checkDomainWithEvidence,
  type CheckedDomain,
  type CheckResult,
  defaultCheckDeps,
  type Refusal,
} from "./check_domain.ts";
import { asService, type Transaction, type TransactionRunner } from "../db/client.ts";
import { config } from "../config.ts";
import { type CorrectedPrediction, dropPrediction, predictDrop } from "./drop_prediction.ts";
import { sharedDropCorrections } from "./drop_corrections.ts";
import type { AvailabilityEvidence } from "./evidence.ts";
import { errorForLog } from "../log_text.ts";

export interface LiveCheckStore {
  /** A cached result younger than its expiry, or null. */
  cached(domainName: string): Promise<CheckResult | null>;
  /** Records the result in the shared state of a watched name, and caches it for `cacheSeconds`. */
  save(result: CheckResult, cacheSeconds: number, details?: CheckDetails): Promise<void>;
}

/** What a check knows beyond its API result, recorded with it. */
export interface CheckDetails {
  /** An `available` result's evidence (carried to its `domain.available` alerts). */
  evidence?: AvailabilityEvidence | null;
  /** A `pending_delete` result's prediction, correction included (default: uncorrected). */
  dropPrediction?: CorrectedPrediction;
  /**
   * A live check: the account that asked (its id). A change of the name's state that the check records is
   * noted as caused by it: no other account reads that change in the name's history (issue 40).
   */
  account?: string;
}

/** A live check's result and what is recorded with it. */
export type LiveChecked = CheckedDomain & { dropPrediction?: CorrectedPrediction };

export interface LiveCheckDeps {
  /** `account`: who asked (the live checks' share of each host is kept per account). */
  check: (domainName: string, unicodeName: string | null, account: string) => Promise<LiveChecked>;
  store: LiveCheckStore;
  cacheSeconds: () => number;
}

/** How long a live check waits for its turn at a busy RDAP host before answering `rdap_host_busy`. */
export const LIVE_CHECK_MAX_HOST_WAIT_MS = 8_000;

/**
 * How long a live check waits for its turn at a WHOIS host (one query per 5 s) before answering
 * `whois_host_busy`: the whole check, a canary proof included (docs/whois.md).
 */
export const LIVE_CHECK_MAX_WHOIS_WAIT_MS = 15_000;

export type LiveCheck = (
  domainName: string,
  unicodeName: string | null,
  account: string,
) => Promise<CheckResult>;

export function createLiveCheck(deps: LiveCheckDeps): LiveCheck {
  const inFlight = new Map<string, Promise<CheckResult>>();

  async function checkAndSave(
    domainName: string,
    unicodeName: string | null,
    account: string,
  ): Promise<CheckResult> {
    const { result, evidence, dropPrediction, refusal } = await deps.check(domainName, unicodeName, account);
    // A refused turn is not a check: nothing was asked, so nothing is recorded or cached (the next caller
    // may find the host free). An undecided answer says when to ask again.
    if (refusal) {
      return result.status === "unknown"
        ? { ...result, retry_after_seconds: retryAfterSeconds(refusal, Date.now()) }
        : result;
    }
    try {
      await deps.store.save(result, deps.cacheSeconds(), { evidence, dropPrediction, account });
    } catch (error) {
      console.error(`live check of ${domainName}: saving the result failed: ${errorForLog(error)}`);
    }
    return result;
  }

  return async (domainName, unicodeName, account) => {
    const cached = await deps.store.cached(domainName);
    if (cached) return { ...cached, unicode_name: unicodeNameFor(domainName, unicodeName) };
    // Concurrent checks of one name in this process share one registry request.
    let pending = inFlight.get(domainName);
    if (!pending) {
      pending = checkAndSave(domainName, unicodeName, account).finally(() => inFlight.delete(domainName));
      inFlight.set(domainName, pending);
    }
    const result = await pending;
    return { ...result, unicode_name: unicodeNameFor(domainName, unicodeName) };
  };
}

/**
 * When a refused live check may be asked again (`retry_after_seconds`, REST, MCP and the app alike): until
 * the host's pause ends when it is known, else one more full wait for a turn (the live check's bound on it:
 * 8 s at an RDAP host, 15 s at a WHOIS host); at least 1 s. Pure.
 */
export function retryAfterSeconds(refusal: Refusal, nowMs: number): number {
  if (refusal.until !== null && Number.isFinite(refusal.until)) {
    return Math.max(1, Math.ceil((refusal.until - nowMs) / 1000));
  }
  const waitMs = refusal.reason.startsWith("whois_")
    ? LIVE_CHECK_MAX_WHOIS_WAIT_MS
    : LIVE_CHECK_MAX_HOST_WAIT_MS;
  return Math.max(1, Math.ceil(waitMs / 1000));
}

function unicodeNameFor(domainName: string, unicodeName: string | null): string | null {
  return unicodeName !== null && unicodeName !== domainName ? unicodeName : null;
}

/**
 * Who recorded a check: the poller (which owns the schedule) or a live check (which may record a decided
 * result and bring the next check earlier, nothing more: `record_domain_check`, docs/decisions.md).
 */
export type CheckSource = "poller" | "live";

/**
 * Whether a result may change a watched name's state: decided by the registry. `dns_delegated` (a live
 * check's answer from DNS alone while the registry could not be read) is not: a name in pending delete stays
 * delegated until it drops, so DNS cannot tell it from a registered one.
 */
export function isDecidedByRegistry(result: CheckResult): boolean {
  return result.status !== "unknown" && result.reason !== "dns_delegated";
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Writes one check result into the shared state of `public.domains` (no-op for a name nobody watches). */
export async function recordDomainCheck(
  tx: Transaction,
  result: CheckResult,
  source: CheckSource,
  details: CheckDetails = {},
): Promise<void> {
  await tx`
    select private.record_domain_check(
      ${result.domain_name},
      ${result.status},
      ${result.checked_at},
      ${result.rdap?.expiration_date ?? result.whois?.expiration_date ?? null},
      ${result.rdap?.registrar ?? result.whois?.registrar ?? null},
      ${isDecidedByRegistry(result)},
      ${source}
    )`;
  if (source === "live" && details.account !== undefined && UUID.test(details.account)) {
    // The history row of a transition this live check just wrote (if any) names who asked.
    await tx`select private.note_live_change_account(
      ${result.domain_name}, ${result.checked_at}, ${details.account}::uuid)`;
  }
  if (source === "poller" && result.status === "unknown") {
    // Why the name is still unknown, for the app's radar (only the poller's checks: an unknown live result
    // leaves the shared state as it was).
    await tx`select private.note_unknown_reason(${result.domain_name}, ${result.reason})`;
  }
  if (result.status === "available" && details.evidence) {
    // A transition into available raised `domain.available` events just now: they carry the evidence
    // (only events still without it are touched).
    await tx`select private.note_check_evidence(
      ${result.domain_name}, ${result.checked_at}, ${tx.json(details.evidence)}::jsonb)`;
  }
  if (result.status === "pending_delete") {
    // A transition into pending delete raised `domain.pending_delete` events just now: they carry the
    // predicted drop (only events still without one are touched); the domain row keeps the latest.
    const prediction = details.dropPrediction ?? { ...dropPrediction(result.rdap), correctionSeconds: 0 };
    await tx`select private.note_drop_prediction(
      ${result.domain_name}, ${result.checked_at}, ${prediction.at}, ${prediction.basis},
      ${prediction.correctionSeconds})`;
  }
}

/** The cache in `public.live_check_cache` and the state in `public.domains`, as service_role. */
export function databaseLiveCheckStore(
  run: TransactionRunner = asService,
): LiveCheckStore {
  return {
    cached: (domainName) =>
      run(async (tx) => {
        const rows = await tx<{ result: CheckResult }[]>`
          select result from public.live_check_cache
          where domain_name = ${domainName} and expires_at > now()`;
        return rows.length > 0 ? rows[0].result : null;
      }),
    save: (result, cacheSeconds, details) =>
      run(async (tx) => {
        await recordDomainCheck(tx, result, "live", details);
        if (cacheSeconds <= 0) return;
        // Sent as text and cast to json (not jsonb) so the cached answer keeps the result's key order.
        await tx`
          insert into public.live_check_cache (domain_name, result, checked_at, expires_at)
          values (${result.domain_name}, ${JSON.stringify(result)}::text::json, ${result.checked_at},
                  now() + make_interval(secs => ${cacheSeconds}))
          on conflict (domain_name) do update
            set result = excluded.result, checked_at = excluded.checked_at, expires_at = excluded.expires_at`;
        await tx`delete from public.live_check_cache where expires_at < now() - interval '1 hour'`;
      }),
  };
}

let shared: LiveCheck | undefined;

/**
 * Live check of one name for `account` (its id). The caller has validated and normalised `domainName`
 * (ASCII) and authenticated the account. Upstream trouble gives `status: "unknown"` with a reason, never an
 * exception.
 */
export function liveCheck(
  domainName: string,
  unicodeName: string | null,
  account: string,
): Promise<CheckResult> {
  shared ??= createLiveCheck({
    check: async (name, unicode, who) => {
      const checked = await checkDomainWithEvidence(defaultCheckDeps(), name, unicode, {
        maxHostWaitMs: LIVE_CHECK_MAX_HOST_WAIT_MS,
        maxWhoisHostWaitMs: LIVE_CHECK_MAX_WHOIS_WAIT_MS,
        liveAccount: who,
      });
      if (checked.result.status !== "pending_delete") return checked;
      return {
        ...checked,
        dropPrediction: predictDrop(name, checked.result.rdap, await sharedDropCorrections()),
      };
    },
    store: databaseLiveCheckStore(),
    cacheSeconds: config.liveCheckCacheSeconds,
  });
  return shared(domainName, unicodeName, account);
}
