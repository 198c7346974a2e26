/**
 * One claimed name: DNS first (a delegated name is registered without an RDAP request), otherwise the
 * full check with the DNS answer already in hand. Says what to record; writes nothing itself.
 */
import type { CheckResult } from "../availability/check_domain.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import type { ClaimedDomain } from "./domain_queue.ts";
import { needsRegistryCheck } from "./dns_first.ts";
import { failedPendingDeleteRetryMs, pendingDeleteCheckDelayMs, predictedDropAt } from "./drop_schedule.ts";

export interface DomainCheckDeps {
  lookupDns(domainName: string): Promise<DnsOutcome>;
  /**
   * The full check (RDAP, classification) given the DNS answer; waits at most `maxHostWaitMs` for a host,
   * ahead of this process's other checks of that host when `urgent` (a name in pending delete).
   */
  checkDomain(
    domainName: string,
    dns: DnsOutcome,
    maxHostWaitMs: number,
    urgent?: boolean,
  ): Promise<CheckResult>;
  /** Epoch ms until which the RDAP host of `serverUrl` is paused (429 or back-off), or null. */
  hostPausedUntil(serverUrl: string): number | null;
  now(): number;
}

export type DomainCheckOutcome =
  | { kind: "delegated"; checkedAt: Date }
  | {
    kind: "checked";
    result: CheckResult;
    pendingDeleteNextCheckAt?: Date;
    notBefore?: Date;
  }
  /** The registry was not asked (its host is paused, or the run's time ran out): no check to record. */
  | { kind: "not_asked"; notBefore: Date };

const REFUSED_BEFORE_ASKING = new Set(["rdap_host_busy", "rdap_rate_limited", "rdap_host_backoff"]);
/**
 * How long a name not in pending delete waits for its RDAP host's turn before it is handed back (deferred to
 * the next run): a worker stuck behind a busy host neither claims nor checks anything else, and a name in
 * pending delete coming due meanwhile would wait for a free worker. Names in pending delete wait up to the
 * run's end, ahead of the others.
 */
export const ROUTINE_HOST_WAIT_MS = 4_000;
const RETRY_PAUSED_HOST_AFTER_MS = 60_000;

/**
 * `checksEndAt` (epoch ms): when this run stops checking. An RDAP host's turn is awaited until then at the
 * latest; a name that did not get one is due again from then on (the next run), not earlier in this run.
 */
export async function checkClaimedDomain(
  deps: DomainCheckDeps,
  domain: ClaimedDomain,
  checksEndAt: number,
  /** The DNS answer when the caller already has it (a batch looked up together). */
  knownDns?: DnsOutcome,
): Promise<DomainCheckOutcome> {
  const dns = knownDns ?? await deps.lookupDns(domain.name);
  if (!needsRegistryCheck(domain, dns, new Date(deps.now()))) {
    return { kind: "delegated", checkedAt: new Date(deps.now()) };
  }

  const urgent = domain.status === "pending_delete";
  const untilRunEnd = Math.max(0, checksEndAt - deps.now());
  const result = await deps.checkDomain(
    domain.name,
    dns,
    urgent ? untilRunEnd : Math.min(untilRunEnd, ROUTINE_HOST_WAIT_MS),
    urgent,
  );
  const rdap = result.rdap;
  if (
    result.status === "unknown" && rdap !== null && rdap.http_status === null &&
    REFUSED_BEFORE_ASKING.has(result.reason)
  ) {
    const pausedUntil = deps.hostPausedUntil(rdap.server);
    const notBefore = result.reason === "rdap_host_busy"
      ? Math.max(checksEndAt, deps.now())
      : pausedUntil ?? deps.now() + RETRY_PAUSED_HOST_AFTER_MS;
    return { kind: "not_asked", notBefore: new Date(notBefore) };
  }

  const outcome: DomainCheckOutcome = { kind: "checked", result };
  if (rdap !== null && rdap.http_status === 429) {
    const pausedUntil = deps.hostPausedUntil(rdap.server);
    if (pausedUntil !== null) outcome.notBefore = new Date(pausedUntil);
  }
  if (result.status === "pending_delete") {
    const checkedAt = new Date(result.checked_at);
    const delay = pendingDeleteCheckDelayMs(predictedDropAt(rdap), checkedAt);
    outcome.pendingDeleteNextCheckAt = new Date(checkedAt.getTime() + delay);
  } else if (result.status === "unknown" && domain.status === "pending_delete") {
    // Undecided: the name stays in pending delete and keeps its cadence (drop_schedule.ts).
    const checkedAt = new Date(result.checked_at);
    const delay = failedPendingDeleteRetryMs(domain.lastCheckedAt, checkedAt);
    outcome.pendingDeleteNextCheckAt = new Date(checkedAt.getTime() + delay);
  }
  return outcome;
}
