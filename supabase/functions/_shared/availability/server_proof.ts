/**
 * Canary proof: a registry's RDAP server may say "not found" only after it proved it can say "found" —
 * its canary name (default `nic.<suffix>`) answered 200 with a domain object. The proof is kept per server
 * and suffix in `public.rdap_server_proofs`, shared by every isolate, asked on first use and renewed daily;
 * `claim_rdap_server_proof` lets exactly one caller ask the canary per renewal. The canary request goes
 * through the same RDAP client (and so the same per-host politeness) as every other request.
 */
import type { RdapClient, RdapLookup } from "../rdap/client.ts";
import { asService, type TransactionRunner } from "../db/client.ts";
import { errorForLog } from "../log_text.ts";

export type ProofOutcome = "verified" | "failed" | "inconclusive";

export interface ServerKey {
  /** The base URL the bootstrap or the server table gave. */
  server: string;
  suffix: string;
  canaryName: string;
}

export interface ProofClaim {
  /** Non-null: this caller must ask the canary and record the outcome. */
  claimId: string | null;
  proven: boolean;
  claimedElsewhere: boolean;
  /** When the canary last answered as registered (null: never, or not known to this store). */
  provedAt?: Date | null;
}

/** Whether a server may say "not found", and since when it is proven (for the evidence of an alert). */
export interface ServerProofState {
  proven: boolean;
  /** When the canary last answered as registered, when known. */
  provedAt: Date | null;
}

export interface ServerProofStore {
  claim(key: ServerKey, leaseSeconds: number): Promise<ProofClaim>;
  record(
    key: ServerKey,
    claimId: string,
    outcome: ProofOutcome,
    httpStatus: number | null,
    detail: string,
  ): Promise<void>;
}

export interface ProveOptions {
  /** How long the canary may wait for its host's turn (the check's own bound). */
  maxHostWaitMs?: number;
  /** The canary goes before this process's other waiters for the host. */
  urgent?: boolean;
  /** How long to wait for another caller's canary on first use before answering "not proven". */
  waitForOtherMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Long enough for a canary request (limiter wait + RDAP_TIMEOUT_MS) to finish. */
export const PROOF_LEASE_SECONDS = 60;
const WAIT_FOR_OTHER_MS = 5_000;
const POLL_MS = 250;

/** What a canary answer proves. Only a 200 with a domain object is proof; a 404 or a non-domain disproves. */
export function canaryOutcome(lookup: RdapLookup): { outcome: ProofOutcome; detail: string } {
  switch (lookup.outcome) {
    case "found":
      return { outcome: "verified", detail: "canary answered 200 with a domain object" };
    case "not_found":
      return { outcome: "failed", detail: "canary answered 404: the server says no name exists" };
    case "failed":
      if (lookup.reason === "rdap_invalid_response" || lookup.reason === "rdap_unexpected_status") {
        return { outcome: "failed", detail: `canary answer was not a domain object (${lookup.reason})` };
      }
      return { outcome: "inconclusive", detail: `canary could not be asked (${lookup.reason})` };
    case "refused":
      return { outcome: "inconclusive", detail: `canary was not asked (${lookup.reason})` };
  }
}

/**
 * True when `key`'s server holds a valid proof for its canary, asking the canary first when this caller
 * wins the renewal claim. Never throws: when the proofs cannot be read (database down), the server counts
 * as unproven, so its 404 stays `unknown`.
 */
export async function isServerProven(
  store: ServerProofStore,
  rdap: RdapClient,
  key: ServerKey,
  options: ProveOptions = {},
): Promise<boolean> {
  return (await serverProofState(store, rdap, key, options)).proven;
}

/** `isServerProven`, with when the proof was made (for the evidence of an alert). Never throws. */
export function serverProofState(
  store: ServerProofStore,
  rdap: RdapClient,
  key: ServerKey,
  options: ProveOptions = {},
): Promise<ServerProofState> {
  return proofStateBy(store, key, async () => {
    const lookup = await rdap.lookupDomain(key.server, key.canaryName, {
      maxWaitMs: options.maxHostWaitMs,
      urgent: options.urgent,
    });
    return { ...canaryOutcome(lookup), httpStatus: lookup.httpStatus };
  }, options);
}

/** What asking a canary proved: the outcome, the HTTP status (null for WHOIS or no answer), a detail. */
export interface CanaryAnswer {
  outcome: ProofOutcome;
  httpStatus: number | null;
  detail: string;
}

/**
 * The proof rules for any protocol (RDAP above, WHOIS in availability/whois_check.ts): `askCanary` is called
 * only by the caller that wins the renewal claim. Never throws (see `isServerProven`).
 */
export async function proofStateBy(
  store: ServerProofStore,
  key: ServerKey,
  askCanary: () => Promise<CanaryAnswer>,
  options: ProveOptions = {},
): Promise<ServerProofState> {
  try {
    return await prove(store, key, askCanary, options);
  } catch (error) {
    console.error(`canary proof of ${key.server} (${key.suffix}) unavailable: ${errorForLog(error)}`);
    return { proven: false, provedAt: null };
  }
}

async function prove(
  store: ServerProofStore,
  key: ServerKey,
  askCanary: () => Promise<CanaryAnswer>,
  options: ProveOptions,
): Promise<ServerProofState> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + (options.waitForOtherMs ?? WAIT_FOR_OTHER_MS);
  const standing = (claim: ProofClaim): ServerProofState => ({
    proven: claim.proven,
    provedAt: claim.proven ? claim.provedAt ?? null : null,
  });
  for (;;) {
    const claim = await store.claim(key, PROOF_LEASE_SECONDS);
    if (claim.claimId !== null) {
      const { outcome, httpStatus, detail } = await askCanary();
      await store.record(key, claim.claimId, outcome, httpStatus, detail);
      if (outcome === "verified") return { proven: true, provedAt: new Date() };
      if (outcome === "failed") return { proven: false, provedAt: null };
      return standing(claim); // inconclusive: the earlier proof, if still valid, stands
    }
    if (claim.proven || !claim.claimedElsewhere || Date.now() >= deadline) return standing(claim);
    // First use elsewhere: wait briefly for that caller's canary rather than answer "unverified" at once.
    await sleep(options.pollMs ?? POLL_MS);
  }
}

/** The proofs in `public.rdap_server_proofs`, as service_role. */
export function databaseServerProofStore(run: TransactionRunner = asService): ServerProofStore {
  return {
    claim: (key, leaseSeconds) =>
      run(async (tx) => {
        const rows = await tx<
          { claim_id: string | null; proven: boolean; claimed_elsewhere: boolean; verified_at: Date | null }[]
        >`
          select c.*, p.verified_at
            from private.claim_rdap_server_proof(${key.server}, ${key.suffix}, ${key.canaryName}, ${leaseSeconds})
                   as c
            left join public.rdap_server_proofs as p on p.server_url = ${key.server} and p.suffix = ${key.suffix}`;
        const row = rows[0];
        return {
          claimId: row?.claim_id ?? null,
          proven: row?.proven === true,
          claimedElsewhere: row?.claimed_elsewhere === true,
          provedAt: row?.verified_at ?? null,
        };
      }),
    record: (key, claimId, outcome, httpStatus, detail) =>
      run(async (tx) => {
        await tx`select private.record_rdap_server_proof(
          ${key.server}, ${key.suffix}, ${claimId}, ${key.canaryName}, ${outcome}, ${httpStatus}, ${detail})`;
      }),
  };
}

interface MemoryProof {
  canaryName: string;
  state: "unverified" | "verified" | "failed";
  validUntil: number;
  renewAfter: number;
  verifiedAt: number | null;
  claimId: string | null;
  claimedUntil: number;
}

/** The same rules in memory, for tests and tools without a database (one process only). */
export function memoryServerProofStore(now: () => number = Date.now): ServerProofStore & {
  proofs: Map<string, MemoryProof>;
} {
  const proofs = new Map<string, MemoryProof>();
  const id = (key: ServerKey) => `${key.server} ${key.suffix}`;
  return {
    proofs,
    claim(key, leaseSeconds) {
      const proof = proofs.get(id(key)) ??
        {
          canaryName: key.canaryName,
          state: "unverified",
          validUntil: 0,
          renewAfter: -Infinity,
          verifiedAt: null,
          claimId: null,
          claimedUntil: 0,
        } satisfies MemoryProof;
      proofs.set(id(key), proof);
      let claimId: string | null = null;
      if ((proof.renewAfter <= now() || proof.canaryName !== key.canaryName) && proof.claimedUntil <= now()) {
        claimId = crypto.randomUUID();
        proof.claimId = claimId;
        proof.claimedUntil = now() + leaseSeconds * 1000;
      }
      return Promise.resolve({
        claimId,
        proven: proof.state === "verified" && proof.validUntil > now() && proof.canaryName === key.canaryName,
        claimedElsewhere: claimId === null && proof.claimedUntil > now(),
        provedAt: proof.verifiedAt === null ? null : new Date(proof.verifiedAt),
      });
    },
    record(key, claimId, outcome) {
      const proof = proofs.get(id(key));
      if (!proof || proof.claimId !== claimId) return Promise.resolve();
      const hour = 60 * 60_000;
      if (outcome === "verified") {
        Object.assign(proof, {
          state: "verified",
          canaryName: key.canaryName,
          validUntil: now() + 26 * hour,
          renewAfter: now() + 24 * hour,
          verifiedAt: now(),
        });
      } else if (outcome === "failed") {
        Object.assign(proof, {
          state: "failed",
          canaryName: key.canaryName,
          validUntil: 0,
          renewAfter: now() + hour,
        });
      } else {
        proof.renewAfter = now() + 5 * 60_000;
      }
      proof.claimId = null;
      proof.claimedUntil = 0;
      return Promise.resolve();
    },
  };
}
