/**
 * One WHOIS look-up under the evidence rules: ask the row's server, read the answer in its phrasing, tell
 * the host limiter what happened (a limit text pauses the host; an unreadable answer counts as a failure),
 * and accept a "not found" only from a server whose canary proof holds (the proof rules of
 * availability/server_proof.ts, kept under the key `whois://<host>:<port>`).
 */
import type { AcquireOptions, HostLimiter } from "../rdap/host_limiter.ts";
import { type CanaryAnswer, proofStateBy, type ServerProofStore } from "./server_proof.ts";
import type { CanaryProof } from "./evidence.ts";
import { decodeWhoisBytes, readWhoisAnswer, type WhoisReading } from "../whois/answer.ts";
import type { WhoisClient, WhoisFailure, WhoisLookup } from "../whois/client.ts";
import type { WhoisRoute } from "../whois/server_table.ts";

export type WhoisOutcome =
  /** `proof`: with a `not_found` reading, the canary proof that lets it count. */
  | { kind: "read"; reading: WhoisReading; proof?: CanaryProof }
  /** The server said "not found" but its canary proof does not hold. */
  | { kind: "unverified" }
  | { kind: "failed"; reason: WhoisFailure };

export interface WhoisCheckDeps {
  client: WhoisClient;
  limiter: HostLimiter;
  proof: ServerProofStore;
  now?: () => number;
}

/** How long a limit text ("too many queries", "try again later") pauses the host. */
/**
 * What a failed query says of the server's answer: an answer too large or cut short is an unrecognised text,
 * a limit is a limit, anything else (timeout, network, busy host) is no answer at all.
 */
export function answerOfFailure(reason: WhoisFailure): "unrecognized" | "rate_limited" | null {
  if (reason === "whois_too_large" || reason === "whois_truncated") return "unrecognized";
  return reason === "whois_rate_limited" ? "rate_limited" : null;
}

export const LIMIT_TEXT_PAUSE_MS = 10 * 60_000;

/** The proof key of a WHOIS route in `public.rdap_server_proofs`. */
export function whoisProofKey(route: WhoisRoute) {
  return { server: `whois://${route.server}`, suffix: route.suffix, canaryName: route.canaryName };
}

/** What an answer to the canary proves: only a record the row recognises proves the server. */
export function whoisCanaryOutcome(lookup: WhoisLookup, reading: WhoisReading | null): CanaryAnswer {
  if (lookup.outcome === "failed" || reading === null) {
    const reason = lookup.outcome === "failed" ? lookup.reason : "no answer";
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

async function askAndRead(
  deps: WhoisCheckDeps,
  route: WhoisRoute,
  domainName: string,
  wait: AcquireOptions,
): Promise<{ lookup: WhoisLookup; reading: WhoisReading | null }> {
  const lookup = await deps.client.query(route, domainName, wait);
  if (lookup.outcome === "failed") return { lookup, reading: null };
  const reading = readWhoisAnswer(route, decodeWhoisBytes(lookup.bytes, route.encoding), domainName);
  const now = deps.now ?? Date.now;
  if (reading.answer === "rate_limited") {
    await deps.limiter.pause(route.server, now() + LIMIT_TEXT_PAUSE_MS, "rdap_rate_limited");
  } else if (reading.answer === "unrecognized") {
    await deps.limiter.reportFailure(route.server);
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
  const { lookup, reading } = await askAndRead(deps, route, domainName, wait);
  if (lookup.outcome === "failed") return { kind: "failed", reason: lookup.reason };
  if (reading!.answer !== "not_found") return { kind: "read", reading: reading! };
  const state = await proofStateBy(deps.proof, whoisProofKey(route), async () => {
    const canary = await askAndRead(deps, route, route.canaryName, {
      maxWaitMs: wait.maxWaitMs,
      urgent: wait.urgent,
    });
    return whoisCanaryOutcome(canary.lookup, canary.reading);
  }, { maxHostWaitMs: wait.maxWaitMs, urgent: wait.urgent });
  if (!state.proven) return { kind: "unverified" };
  return {
    kind: "read",
    reading: reading!,
    proof: { canaryName: route.canaryName, provedAt: state.provedAt },
  };
}
