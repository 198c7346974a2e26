/**
 * One claimed name: DNS first (a delegated name is registered without a registry request unless
 * `registryQuestion` in dns_first.ts says the registry can tell more), otherwise the full check with the DNS
 * answer already in hand. Says what to record; writes nothing itself.
 */
import type { CheckedDomain, CheckOptions, CheckResult, Refusal } from "../availability/check_domain.ts";
import type { AvailabilityEvidence } from "../availability/evidence.ts";
import {
  type CorrectedPrediction,
  type DropCorrections,
  NO_CORRECTIONS,
  predictDrop,
} from "../availability/drop_prediction.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import type { ClaimedDomain } from "./domain_queue.ts";
import { LEARNING_QUESTIONS, onlyLearns, type RegistryQuestion, registryQuestion } from "./dns_first.ts";
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
  /**
   * Registered by DNS alone. `registryQuestion`: set when the registry was asked to learn more (expiry,
   * registrar) but could not answer; the name is still recorded as registered.
   */
  | { kind: "delegated"; checkedAt: Date; registryQuestion?: RegistryQuestion }
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
/**
 * A delegated name whose registry could not take a question that only learns more (`LEARNING_QUESTIONS`,
 * not a transition) is asked again within this long (`learningRetryAt`): during a first registry pass the
 * names come back spread over the hour, at about the pace their registry can answer, instead of being
 * claimed again every run or all at once.
 */
export const LEARNING_RETRY_MS = 60 * 60_000;
const LEARNING_RETRY_MIN_MS = 60_000;

/** A refusal because the host was busy beyond the wait (not paused or backing off): its turn comes soon. */
function onlyBusy(refusal: Refusal): boolean {
  return refusal.reason === "rdap_host_busy" || refusal.reason === "whois_host_busy";
}

/** When a learning question its registry could not take is tried again: 1 to 60 minutes, spread by name. */
export function learningRetryAt(name: string, now: number): Date {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  return new Date(now + LEARNING_RETRY_MIN_MS + hash % (LEARNING_RETRY_MS - LEARNING_RETRY_MIN_MS + 1));
}
/** The longest a question that only learns more waits for its registry's turn (spare turns only). */
export const LEARNING_MAX_WAIT_MS = 2_000;

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
  const question = registryQuestion(domain, dns, new Date(deps.now()));
  if (question === null) return { kind: "delegated", checkedAt: new Date(deps.now()) };

  // A transition to registered is rare and raises an event: it takes the urgent line, as a drop does. A
  // question that only learns more takes the registry's spare turns: a short wait, one in this process's line.
  const urgent = domain.status === "pending_delete" || question === "turned_registered";
  const learning = onlyLearns(question);
  const untilEnd = Math.max(0, checksEndAt - deps.now());
  const checked = await deps.checkDomain(domain.name, dns, {
    maxHostWaitMs: learning ? Math.min(LEARNING_MAX_WAIT_MS, untilEnd) : untilEnd,
    urgent,
    maxHostQueue: urgent ? undefined : learning ? 1 : hostQueue,
  });
  const { result, evidence, refusal } = "result" in checked
    ? checked
    : { result: checked, evidence: null, refusal: undefined };
  if (LEARNING_QUESTIONS.has(question) && result.status === "unknown") {
    return learningUnanswered(deps, question, result, refusal, checksEndAt);
  }
  const rdap = result.rdap;
  const whois = result.whois ?? null;
  if (refusal) {
    const notBefore = onlyBusy(refusal)
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

/**
 * A delegated name asked about only to learn more, whose registry did not answer: it is registered all the
 * same (DNS decides that). Refused before asking (host busy or paused): a transition waits for the next run
 * while its host is only busy, so `domain.registered` can carry the registrar; anything else waits
 * `LEARNING_RETRY_MS` (or the pause). Asked without an answer (timeout, unreadable, unproven): recorded as
 * registered by DNS; the registry is asked again at a later check.
 */
function learningUnanswered(
  deps: DomainCheckDeps,
  question: RegistryQuestion,
  result: CheckResult,
  refusal: Refusal | undefined,
  checksEndAt: number,
): DomainCheckOutcome {
  const now = deps.now();
  if (refusal) {
    if (question === "turned_registered") {
      if (onlyBusy(refusal)) return { kind: "not_asked", notBefore: new Date(Math.max(checksEndAt, now)) };
      return { kind: "delegated", checkedAt: new Date(now), registryQuestion: question };
    }
    const retryAt = learningRetryAt(result.domain_name, now).getTime();
    return { kind: "not_asked", notBefore: new Date(Math.max(refusal.until ?? 0, retryAt)) };
  }
  return { kind: "delegated", checkedAt: new Date(now), registryQuestion: question };
}
