/**
 * One claimed name: DNS first (a delegated name is registered without an RDAP request), otherwise the
 * full check with the DNS answer already in hand. Says what to record; writes nothing itself.
 */
import type { CheckedDomain, CheckOptions, CheckResult } from "../availability/check_domain.ts";
import type { AvailabilityEvidence } from "../availability/evidence.ts";
import {
  type CorrectedPrediction,
  type DropCorrections,
  NO_CORRECTIONS,
  predictDrop,
} from "../availability/drop_prediction.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import type { ClaimedDomain } from "./domain_queue.ts";
import { needsRegistryCheck } from "./dns_first.ts";
import { failedPendingDeleteRetryMs, pendingDeleteCheckDelayMs } from "./drop_schedule.ts";
import { whoisRoutineNotBefore } from "./whois_schedule.ts";

export interface DomainCheckDeps {
  lookupDns(domainName: string): Promise<DnsOutcome>;
  /**
   * The full check (RDAP, classification) given the DNS answer, waiting for its RDAP host as `wait` says; a
   * bare result has no evidence.
   */
  checkDomain(domainName: string, dns: DnsOutcome, wait: CheckOptions): Promise<CheckedDomain | CheckResult>;
  /** The registries' drop-prediction corrections (default: none). */
  dropCorrections?(): Promise<DropCorrections>;
  /** Epoch ms until which the RDAP host of `serverUrl` is paused (429 or back-off), or null. */
  hostPausedUntil(serverUrl: string): number | null;
  /** Epoch ms until which the WHOIS host `server` (`host:port`) is paused, or null. */
  whoisHostPausedUntil?(server: string): number | null;
  now(): number;
}

export type DomainCheckOutcome =
  | { kind: "delegated"; checkedAt: Date }
  | {
    kind: "checked";
    result: CheckResult;
    /** An `available` result's evidence, recorded with it for its alerts. */
    evidence?: AvailabilityEvidence | null;
    /** A `pending_delete` result's predicted drop (correction included). */
    dropPrediction?: CorrectedPrediction;
    pendingDeleteNextCheckAt?: Date;
    notBefore?: Date;
  }
  /**
   * The registry was not asked (the limiter refused the turn: host busy, paused, backing off): a refusal is
   * not a check, so nothing is recorded and no failure counts; the name keeps its place, due again then.
   */
  | { kind: "not_asked"; notBefore: Date };

const RETRY_PAUSED_HOST_AFTER_MS = 60_000;

export interface ClaimedCheckOptions {
  /** When this run stops checking (epoch ms). */
  checksEndAt: number;
  /**
   * How many of this process's checks may wait for one congested RDAP host (`POLLER_HOST_QUEUE`; the shared
   * limiter's `maxQueued`); a name beyond that, not in pending delete, is handed back to the next run at once.
   */
  hostQueue?: number;
}

/**
 * A name waits for its RDAP host's turn until the run's end at the latest; a name that did not get one is
 * due again from then on (the next run), not earlier in this run. A name in pending delete asks as
 * `urgent` (ahead of the routine names, and never refused for the queue's length).
 */
export async function checkClaimedDomain(
  deps: DomainCheckDeps,
  domain: ClaimedDomain,
  { checksEndAt, hostQueue }: ClaimedCheckOptions,
  /** The DNS answer when the caller already has it (a batch looked up together). */
  knownDns?: DnsOutcome,
): Promise<DomainCheckOutcome> {
  const dns = knownDns ?? await deps.lookupDns(domain.name);
  if (!needsRegistryCheck(domain, dns, new Date(deps.now()))) {
    return { kind: "delegated", checkedAt: new Date(deps.now()) };
  }

  const urgent = domain.status === "pending_delete";
  const checked = await deps.checkDomain(domain.name, dns, {
    maxHostWaitMs: Math.max(0, checksEndAt - deps.now()),
    urgent,
    maxHostQueue: urgent ? undefined : hostQueue,
  });
  const { result, evidence, refusal } = "result" in checked
    ? checked
    : { result: checked, evidence: null, refusal: undefined };
  const rdap = result.rdap;
  const whois = result.whois ?? null;
  if (refusal) {
    const busy = refusal.reason === "rdap_host_busy" || refusal.reason === "whois_host_busy";
    const notBefore = busy
      ? Math.max(checksEndAt, deps.now())
      : refusal.until ?? deps.now() + RETRY_PAUSED_HOST_AFTER_MS;
    return { kind: "not_asked", notBefore: new Date(notBefore) };
  }

  const outcome: DomainCheckOutcome = { kind: "checked", result, evidence };
  if (rdap !== null && rdap.http_status === 429) {
    const pausedUntil = deps.hostPausedUntil(rdap.server);
    if (pausedUntil !== null) outcome.notBefore = new Date(pausedUntil);
  }
  if (whois !== null) {
    const pausedUntil = whois.answer === "rate_limited"
      ? deps.whoisHostPausedUntil?.(whois.server) ?? null
      : null;
    const routine = whoisRoutineNotBefore(domain.status, result);
    const later = Math.max(pausedUntil ?? 0, routine?.getTime() ?? 0);
    if (later > 0) outcome.notBefore = new Date(later);
  }
  if (result.status === "pending_delete") {
    const checkedAt = new Date(result.checked_at);
    const corrections = deps.dropCorrections ? await deps.dropCorrections() : NO_CORRECTIONS;
    outcome.dropPrediction = predictDrop(domain.name, rdap, corrections);
    const delay = pendingDeleteCheckDelayMs(outcome.dropPrediction.at, checkedAt);
    outcome.pendingDeleteNextCheckAt = new Date(checkedAt.getTime() + delay);
  } else if (result.status === "unknown" && domain.status === "pending_delete") {
    // Undecided: the name stays in pending delete and keeps its cadence (drop_schedule.ts).
    const checkedAt = new Date(result.checked_at);
    const delay = failedPendingDeleteRetryMs(domain.lastCheckedAt, checkedAt);
    outcome.pendingDeleteNextCheckAt = new Date(checkedAt.getTime() + delay);
  }
  return outcome;
}
