/**
 * One WHOIS look-up under the evidence rules: ask the row's server, read the answer in its phrasing, tell
 * the host limiter what happened, and accept a "not found" only from a server whose canary proof holds (the
 * proof rules of availability/server_proof.ts, kept under the key `whois://<host>:<port>`). A turn the
 * limiter refused is its own outcome (`refused`): nothing was asked, so it is not a check.
 *
 * What counts against the host (docs/whois.md "Politeness and cadence"): a limit notice pauses it (whoever
 * asked); a timeout, a refused or dropped connection counts as a failure (the client, not a live check's).
 * An answer that could not be read counts against the host only when it answers the service's own canary:
 * to an account's name it says something of that name (reserved and blocked names get such texts), so it
 * counts neither way and the poller asks that name again later (poller/whois_schedule.ts).
 */
import type { AcquireOptions, HostLimiter } from "../rdap/host_limiter.ts";
import {
  type CanaryAnswer,
  proofStateBy,
  type ServerProofState,
  type ServerProofStore,
} from "./server_proof.ts";
import type { CanaryProof } from "./evidence.ts";
import { decodeWhoisBytes, readWhoisAnswer, type WhoisReading } from "../whois/answer.ts";
import type { WhoisClient, WhoisFailure, WhoisLookup, WhoisRefusal } from "../whois/client.ts";
import type { WhoisRoute } from "../whois/server_table.ts";

export type WhoisOutcome =
  /** `proof`: with a `not_found` reading, the canary proof that lets it count. */
  | { kind: "read"; reading: WhoisReading; proof?: CanaryProof }
  /** The server said "not found" but its canary proof does not hold. */
  | { kind: "unverified" }
  | { kind: "failed"; reason: WhoisFailure }
  /** Not asked: this service's politeness refused the turn (`until`: the host's pause end, epoch ms). */
  | { kind: "refused"; reason: WhoisRefusal; until: number | null };

export interface WhoisCheckDeps {
  client: WhoisClient;
  limiter: HostLimiter;
  proof: ServerProofStore;
  now?: () => number;
}

/**
 * What a failed query says of the server's answer: an answer too large or cut short is an unrecognised text;
 * anything else (timeout, network) is no answer at all.
 */
export function answerOfFailure(reason: WhoisFailure): "unrecognized" | null {
  return reason === "whois_too_large" || reason === "whois_truncated" ? "unrecognized" : null;
}

/** How long a limit text ("too many queries", "try again later") pauses the host. */
export const LIMIT_TEXT_PAUSE_MS = 10 * 60_000;

/** The proof key of a WHOIS route in `public.rdap_server_proofs`. */
export function whoisProofKey(route: WhoisRoute) {
  return { server: `whois://${route.server}`, suffix: route.suffix, canaryName: route.canaryName };
}

/** What an answer to the canary proves: only a record the row recognises proves the server. */
export function whoisCanaryOutcome(lookup: WhoisLookup, reading: WhoisReading | null): CanaryAnswer {
  if (lookup.outcome !== "answered" || reading === null) {
    const reason = lookup.outcome !== "answered" ? lookup.reason : "no answer";
    return { outcome: "inconclusive", httpStatus: null, detail: `canary could not be asked (${reason})` };
  }
  switch (reading.answer) {
    case "found":
    case "pending_delete":
      return { outcome: "verified", httpStatus: null, detail: "canary answered with a record (WHOIS)" };
    case "not_found":
      return {
        outcome: "failed",
        httpStatus: null,
        detail: "canary answered not found: the server says no name exists",
      };
    case "unrecognized":
      return {
        outcome: "failed",
        httpStatus: null,
        detail: "canary answer matched none of the row's phrasings (stale patterns or a different server)",
      };
    case "rate_limited":
      return { outcome: "inconclusive", httpStatus: null, detail: "canary answer was a limit text" };
  }
}

/** Whose question: an account's name, or the row's canary (the service's own). */
type Asking = "name" | "canary";

async function askAndRead(
  deps: WhoisCheckDeps,
  route: WhoisRoute,
  domainName: string,
  wait: AcquireOptions,
  asking: Asking,
): Promise<{ lookup: WhoisLookup; reading: WhoisReading | null }> {
  const lookup = await deps.client.query(route, domainName, wait);
  if (lookup.outcome !== "answered") return { lookup, reading: null };
  // The canary is the service's own name: a limit notice naming it (the registry's own domain) is a notice.
  const reading = readWhoisAnswer(route, decodeWhoisBytes(lookup.bytes, route.encoding), domainName, {
    canary: asking === "canary",
  });
  const now = deps.now ?? Date.now;
  if (reading.answer === "rate_limited") {
    // The service's address is limited, whoever asked: a live check's limit text pauses the host too.
    await deps.limiter.pause(route.server, now() + LIMIT_TEXT_PAUSE_MS, "rdap_rate_limited");
  } else if (reading.answer === "unrecognized") {
    // An unreadable answer to a name counts neither way: it neither backs the host off for every account
    // nor clears the failures counted before it. The canary is a known record: not reading it is the host's.
    if (asking === "canary") await deps.limiter.reportFailure(route.server, wait);
  } else {
    await deps.limiter.reportSuccess(route.server);
  }
  return { lookup, reading };
}

export async function checkWhois(
  deps: WhoisCheckDeps,
  route: WhoisRoute,
  domainName: string,
  wait: AcquireOptions = {},
): Promise<WhoisOutcome> {
  const now = deps.now ?? Date.now;
  // The wait is one bound for the whole check: a canary asked after the name waits only what is left.
  const deadline = wait.maxWaitMs === undefined ? undefined : now() + wait.maxWaitMs;
  const { lookup, reading } = await askAndRead(deps, route, domainName, wait, "name");
  if (lookup.outcome === "refused") {
    return {
      kind: "refused",
      reason: lookup.reason,
      until: lookup.retryAt === null ? null : Date.parse(lookup.retryAt),
    };
  }
  if (lookup.outcome === "failed") return { kind: "failed", reason: lookup.reason };
  if (reading!.answer !== "not_found") return { kind: "read", reading: reading! };
  const left = () => deadline === undefined ? undefined : Math.max(0, deadline - now());
  // The canary proves the server for every check, so it is the service's request, not the live check's: it
  // keeps to the host's spacing, not to the live share (as the RDAP canary does).
  const state = await proofStateBy(deps.proof, whoisProofKey(route), () =>
    askCanary(deps, route, {
      maxWaitMs: left(),
      urgent: wait.urgent,
      maxQueued: wait.maxQueued,
    }), { maxHostWaitMs: left(), urgent: wait.urgent, waitForOtherMs: Math.min(left() ?? 5_000, 15_000) });
  if (!state.proven) return { kind: "unverified" };
  return {
    kind: "read",
    reading: reading!,
    proof: { canaryName: route.canaryName, provedAt: state.provedAt },
  };
}

/**
 * Proves the route's server ahead of need (poller/proof_refresh.ts): claims its proof when due, asks the
 * canary within `wait`, and records the outcome (a refused turn is inconclusive: asked again in 5 minutes).
 */
export function proveWhoisServer(
  deps: WhoisCheckDeps,
  route: WhoisRoute,
  wait: AcquireOptions,
): Promise<ServerProofState> {
  return proofStateBy(deps.proof, whoisProofKey(route), () => askCanary(deps, route, wait), {
    waitForOtherMs: 0,
  });
}

/** Asks the route's canary name and says what its answer proves. */
async function askCanary(
  deps: WhoisCheckDeps,
  route: WhoisRoute,
  wait: AcquireOptions,
): Promise<CanaryAnswer> {
  const canary = await askAndRead(deps, route, route.canaryName, wait, "canary");
  return whoisCanaryOutcome(canary.lookup, canary.reading);
}
