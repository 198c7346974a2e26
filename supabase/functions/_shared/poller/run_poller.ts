/**
 * One poller run: workers claim due names in small batches (SKIP LOCKED + lease), check each (DNS first),
 * and record the result, which also writes the alert outbox on a transition into `available`. Claiming
 * stops when no name is due or when the check phase's share of the time budget is used; the rest of the
 * budget sends due alert deliveries. A name claimed but not checked in time is released at once; a name
 * whose worker died comes back when its lease ends.
 *
 * Time bound: no new claim, RDAP turn or send starts after the budget; what is in flight then finishes
 * within its own timeout (RDAP_TIMEOUT_MS per request, 10 s per webhook or Telegram call). CPU bound: at
 * most `maxChecksPerRun` names and `maxDeliveriesPerRun` deliveries per run.
 */
import type { DispatchSummary } from "../alerts/dispatcher.ts";
import { checkClaimedDomain, type DomainCheckDeps } from "./check_claimed_domain.ts";
import type { ClaimedDomain, DomainQueue } from "./domain_queue.ts";
import type { PollerSettings } from "./settings.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import { needsRegistryCheck } from "./dns_first.ts";

export interface PollerDeps {
  domains: DomainQueue;
  check: DomainCheckDeps;
  dispatch: (deadline: number) => Promise<DispatchSummary>;
  now(): number;
}

export interface PollerSummary {
  /** Names whose check was recorded. */
  checked: number;
  /** Of those, registered from DNS delegation alone (no RDAP request). */
  registered_by_dns: number;
  /** Names released unchecked (RDAP host paused, or out of time). */
  deferred: number;
  /** Recorded checks that moved a name into `available` (each wrote its alerts). */
  became_available: number;
  /** Names whose check failed unexpectedly (left to their lease). */
  errors: number;
  stopped_because: "no_due_work" | "time_budget" | "check_limit";
  deliveries: DispatchSummary;
  duration_ms: number;
}

/** The share of the budget kept for sending alerts: 20 %, at most 5 s. */
export function checkPhaseEnd(startedAt: number, budgetMs: number): number {
  return startedAt + budgetMs - Math.min(5_000, Math.floor(budgetMs * 0.2));
}

export async function runPoller(deps: PollerDeps, settings: PollerSettings): Promise<PollerSummary> {
  const startedAt = deps.now();
  const deadline = startedAt + settings.timeBudgetMs;
  const checksEndAt = checkPhaseEnd(startedAt, settings.timeBudgetMs);
  const summary: Omit<PollerSummary, "deliveries" | "duration_ms"> = {
    checked: 0,
    registered_by_dns: 0,
    deferred: 0,
    became_available: 0,
    errors: 0,
    stopped_because: "time_budget",
  };

  async function checkOne(domain: ClaimedDomain, dns?: DnsOutcome): Promise<void> {
    try {
      if (deps.now() >= checksEndAt) {
        await deps.domains.defer(domain.name, new Date(deps.now()));
        summary.deferred++;
        return;
      }
      const outcome = await checkClaimedDomain(deps.check, domain, checksEndAt, dns);
      if (outcome.kind === "delegated") {
        await deps.domains.recordDelegated(domain, outcome.checkedAt);
        summary.checked++;
        summary.registered_by_dns++;
      } else if (outcome.kind === "checked") {
        await deps.domains.recordCheck(outcome.result, outcome);
        summary.checked++;
        if (outcome.result.status === "available" && domain.status !== "available") {
          summary.became_available++;
        }
      } else {
        await deps.domains.defer(domain.name, outcome.notBefore);
        summary.deferred++;
      }
    } catch (error) {
      summary.errors++;
      console.error(`[rdap-poller] checking ${domain.name} failed: ${(error as Error).message}`);
    }
  }

  /**
   * DNS for the whole batch at once; the delegated names (registered, no RDAP request) are recorded together
   * in one round trip; the others are checked one by one.
   */
  async function checkBatch(batch: ClaimedDomain[]): Promise<void> {
    if (deps.now() >= checksEndAt) {
      for (const domain of batch) await checkOne(domain);
      return;
    }
    const answers = await Promise.all(batch.map((domain) => deps.check.lookupDns(domain.name)));
    const checkedAt = new Date(deps.now());
    const delegated = batch.filter((domain, i) => !needsRegistryCheck(domain, answers[i], checkedAt));
    if (delegated.length > 0) {
      try {
        if (deps.domains.recordDelegatedBatch) await deps.domains.recordDelegatedBatch(delegated, checkedAt);
        else for (const domain of delegated) await deps.domains.recordDelegated(domain, checkedAt);
        summary.checked += delegated.length;
        summary.registered_by_dns += delegated.length;
      } catch (error) {
        summary.errors += delegated.length;
        console.error(
          `[rdap-poller] recording ${delegated.length} delegated names failed: ${(error as Error).message}`,
        );
      }
    }
    for (const [i, domain] of batch.entries()) {
      if (!delegated.includes(domain)) await checkOne(domain, answers[i]);
    }
  }

  let claimed = 0;

  async function worker(): Promise<void> {
    while (deps.now() < checksEndAt) {
      const limit = Math.min(settings.batchSize, settings.maxChecksPerRun - claimed);
      if (limit <= 0) {
        summary.stopped_because = "check_limit";
        return;
      }
      claimed += limit;
      const batch = await deps.domains.claim(limit, settings.leaseSeconds);
      claimed -= limit - batch.length;
      if (batch.length === 0) {
        summary.stopped_because = "no_due_work";
        return;
      }
      await checkBatch(batch);
    }
  }

  await Promise.all(Array.from({ length: settings.concurrency }, () => worker()));
  const deliveries = await deps.dispatch(deadline);
  return { ...summary, deliveries, duration_ms: deps.now() - startedAt };
}
