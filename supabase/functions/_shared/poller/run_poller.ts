/**
 * One poller run: workers claim due names in small batches (SKIP LOCKED + lease), check each (DNS first),
 * and record the result, which also writes the alert outbox on a transition into `available`. Claiming
 * stops when no name is due or when the time budget is used. A name claimed but not checked in time is
 * released at once; a name whose worker died comes back when its lease ends. Alerts are sent by a
 * delivery run of their own (`POST /rdap-poller/deliveries`), woken by the database as soon as a check
 * writes them.
 *
 * A worker does not wait for RDAP hosts: the names of a batch that need the registry wait for their host's
 * turn on their own (in the host limiter's line), and the worker claims its next batch meanwhile. So every
 * registry has names waiting for it while others are slow, and names in pending delete coming due are
 * claimed at once. A congested host's line is bounded (`hostQueue`, names in pending delete excepted): a
 * name beyond it is handed back to the next run. A worker with nothing due keeps claiming while the run's
 * names still wait.
 *
 * Time bound: no new claim or RDAP turn starts after the budget; what is in flight then finishes within
 * its own timeout (RDAP_TIMEOUT_MS per request). CPU bound: at most `maxChecksPerRun` names per run.
 */
import { checkClaimedDomain, type DomainCheckDeps } from "./check_claimed_domain.ts";
import type { ClaimedDomain, DomainQueue } from "./domain_queue.ts";
import type { PollerSettings } from "./settings.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import { onlyLearns, registryQuestion } from "./dns_first.ts";
import { registryOf } from "../availability/drop_prediction.ts";
import { learningRetryAt } from "./check_claimed_domain.ts";
import { errorForLog } from "../log_text.ts";
import { type ProofRefreshDeps, refreshDueProofs } from "./proof_refresh.ts";

export interface PollerDeps {
  domains: DomainQueue;
  check: DomainCheckDeps;
  now(): number;
  /** Waits `ms` (a worker with nothing due, while names of its run still wait for their registries). */
  sleep(ms: number): Promise<void>;
  /** Canary proofs refreshed ahead of need in the run's spare turns (poller/proof_refresh.ts). */
  proofs?: ProofRefreshDeps;
}

/** How often a worker with nothing due looks again while the run's names still wait for their registries. */
export const IDLE_CLAIM_EVERY_MS = 1_000;

/**
 * Questions that only learn more about a delegated name (`onlyLearns`) one run keeps
 * in its line for one TLD at a time. The rest of the batch's such names wait `LEARNING_RETRY_MS` without
 * touching the host limiter (1 to 60 minutes, `learningRetryAt`), so a first registry pass (every delegated name never asked) goes at the
 * registry's pace instead of flooding the limiter and holding back the drops' turns.
 */
export const LEARNING_IN_LINE_PER_TLD = 1;

export interface PollerSummary {
  /** Names whose check was recorded. */
  checked: number;
  /** Of those, registered from DNS delegation alone (no registry request). */
  registered_by_dns: number;
  /** Names the DNS-first rule sent to their registry (`registryQuestion`), whatever came of it. */
  registry_questions: number;
  /** Names released unchecked (RDAP host paused, or out of time). */
  deferred: number;
  /** Recorded checks that moved a name into `available` (each wrote its alerts). */
  became_available: number;
  /** Names whose check failed unexpectedly (left to their lease). */
  errors: number;
  stopped_because: "no_due_work" | "time_budget" | "check_limit";
  duration_ms: number;
}

export async function runPoller(deps: PollerDeps, settings: PollerSettings): Promise<PollerSummary> {
  const startedAt = deps.now();
  const checksEndAt = startedAt + settings.timeBudgetMs;
  const summary: Omit<PollerSummary, "duration_ms"> = {
    checked: 0,
    registered_by_dns: 0,
    registry_questions: 0,
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
      const outcome = await checkClaimedDomain(
        deps.check,
        domain,
        { checksEndAt, hostQueue: settings.hostQueue },
        dns,
      );
      if (outcome.kind === "delegated") {
        await deps.domains.recordDelegated(domain, outcome.checkedAt);
        summary.checked++;
        if (!outcome.registryQuestion) summary.registered_by_dns++;
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
      console.error(`[rdap-poller] checking ${domain.name} failed: ${errorForLog(error)}`);
    }
  }

  /** The checks waiting for (or at) their RDAP host: the run ends when they have. */
  const atRegistry = new Set<Promise<void>>();
  function toRegistry(domain: ClaimedDomain, dns: DnsOutcome, done?: () => void): void {
    summary.registry_questions++;
    const check = checkOne(domain, dns).finally(() => {
      atRegistry.delete(check);
      done?.();
    });
    atRegistry.add(check);
  }

  /**
   * DNS for the whole batch at once; the delegated names (registered, no RDAP request) are recorded together
   * in one round trip; the others go to their registries without the worker waiting for them.
   */
  async function checkBatch(batch: ClaimedDomain[]): Promise<void> {
    if (deps.now() >= checksEndAt) {
      for (const domain of batch) await checkOne(domain);
      return;
    }
    const answers = await Promise.all(batch.map((domain) => deps.check.lookupDns(domain.name)));
    const checkedAt = new Date(deps.now());
    const questions = batch.map((domain, i) => registryQuestion(domain, answers[i], checkedAt));
    const delegated = batch.filter((_, i) => questions[i] === null);
    if (delegated.length > 0) {
      try {
        if (deps.domains.recordDelegatedBatch) await deps.domains.recordDelegatedBatch(delegated, checkedAt);
        else for (const domain of delegated) await deps.domains.recordDelegated(domain, checkedAt);
        summary.checked += delegated.length;
        summary.registered_by_dns += delegated.length;
      } catch (error) {
        summary.errors += delegated.length;
        console.error(
          `[rdap-poller] recording ${delegated.length} delegated names failed: ${errorForLog(error)}`,
        );
      }
    }
    const later: ClaimedDomain[] = [];
    for (const [i, domain] of batch.entries()) {
      const question = questions[i];
      if (question === null) continue;
      if (!onlyLearns(question)) {
        toRegistry(domain, answers[i]);
        continue;
      }
      const tld = registryOf(domain.name);
      const inLine = learningInLine.get(tld) ?? 0;
      if (inLine >= LEARNING_IN_LINE_PER_TLD) {
        later.push(domain);
        continue;
      }
      learningInLine.set(tld, inLine + 1);
      toRegistry(domain, answers[i], () => learningInLine.set(tld, (learningInLine.get(tld) ?? 1) - 1));
    }
    if (later.length > 0) {
      const now = deps.now();
      try {
        if (deps.domains.deferBatch) {
          await deps.domains.deferBatch(
            later.map((d) => ({ name: d.name, notBefore: learningRetryAt(d.name, now) })),
          );
        } else {
          for (const domain of later) {
            await deps.domains.defer(domain.name, learningRetryAt(domain.name, now));
          }
        }
        summary.deferred += later.length;
      } catch (error) {
        summary.errors += later.length;
        console.error(`[rdap-poller] deferring ${later.length} names failed: ${errorForLog(error)}`);
      }
    }
  }

  /** This run's questions that only learn more, per TLD, in their registry's line. */
  const learningInLine = new Map<string, number>();

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
        // Names still wait for their registries: the run goes on until they are done, so it keeps claiming
        // meanwhile (a name in pending delete coming due now is not left for the next run).
        if (atRegistry.size === 0) return;
        await Promise.race([...atRegistry, deps.sleep(IDLE_CLAIM_EVERY_MS)]);
        continue;
      }
      summary.stopped_because = "time_budget";
      await checkBatch(batch);
    }
  }

  const refreshingProofs = deps.proofs ? refreshDueProofs(deps.proofs, checksEndAt) : Promise.resolve(0);
  await Promise.all(Array.from({ length: settings.concurrency }, () => worker()));
  await refreshingProofs;
  // The workers are done, so no check joins the set any more.
  await Promise.all(atRegistry);
  return { ...summary, duration_ms: deps.now() - startedAt };
}
