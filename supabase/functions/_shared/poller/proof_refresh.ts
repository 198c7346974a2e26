/**
 * Canary proofs refreshed ahead of need, in the poller's spare turns: each run renews every proof that holds
 * and is due for renewal (24 h after the last proof, 2 h before it lapses), RDAP and WHOIS alike, so a server
 * in use stays proven and a live check of a free name needs one query, not the name's and then the canary's
 * (issue 34, point 0). A canary waits for its host only briefly and never queues behind a congested host: the
 * names of the run come first. The proof rules themselves (claims, outcomes, validity) are
 * availability/server_proof.ts's.
 */
import type { AcquireOptions } from "../rdap/host_limiter.ts";
import { errorForLog } from "../log_text.ts";
import { asService, type TransactionRunner } from "../db/client.ts";

/** A server and suffix whose canary proof is due (`server`: an RDAP base URL, or a WHOIS `host:port`). */
export type DueProof =
  | { kind: "whois"; server: string; suffix: string; canaryName: string }
  | { kind: "rdap"; server: string; suffix: string; canaryName: string };

export interface ProofRefreshDeps {
  /** The proofs due now (a claim elsewhere excluded). */
  dueProofs(): Promise<DueProof[]>;
  /** Claims the proof, asks the canary within `wait` and records the outcome. */
  refresh(proof: DueProof, wait: AcquireOptions): Promise<void>;
  now(): number;
}

/** The longest a canary waits for its host's turn: a spare turn, or none this run. */
export const SPARE_TURN_WAIT_MS = 6_000;

/** Refreshes every due proof, each in its host's next spare turn before `endsAt`. Never throws. */
export async function refreshDueProofs(deps: ProofRefreshDeps, endsAt: number): Promise<number> {
  let due: DueProof[];
  try {
    due = await deps.dueProofs();
  } catch (error) {
    console.error(`[rdap-poller] listing due canary proofs failed: ${errorForLog(error)}`);
    return 0;
  }
  await Promise.all(due.map(async (proof) => {
    const left = endsAt - deps.now();
    if (left <= 0) return;
    try {
      await deps.refresh(proof, { maxWaitMs: Math.min(SPARE_TURN_WAIT_MS, left), maxQueued: 1 });
    } catch (error) {
      console.error(`[rdap-poller] refreshing the canary of ${proof.suffix} failed: ${errorForLog(error)}`);
    }
  }));
  return due.length;
}

/**
 * The proofs due now in `public.rdap_server_proofs`: every proof that holds (verified) and is due for renewal,
 * RDAP and WHOIS (`whois://host:port`) alike. A server never proven, or whose canary failed, is proven by the
 * first check that needs it: only servers in use are asked, and an unused or broken one is not asked every
 * run. Claimed ones are left to their claimer.
 */
export function databaseDueProofs(run: TransactionRunner = asService): () => Promise<DueProof[]> {
  return () =>
    run(async (tx) => {
      const rows = await tx<{ server_url: string; suffix: string; canary_name: string }[]>`
        select p.server_url, p.suffix, p.canary_name
          from public.rdap_server_proofs as p
         where p.state = 'verified' and p.valid_until > now() and p.renew_after <= now()
           and (p.claimed_until is null or p.claimed_until <= now())`;
      return rows.map((row): DueProof =>
        row.server_url.startsWith(WHOIS_PROOF_PREFIX)
          ? {
            kind: "whois",
            server: row.server_url.slice(WHOIS_PROOF_PREFIX.length),
            suffix: row.suffix,
            canaryName: row.canary_name,
          }
          : { kind: "rdap", server: row.server_url, suffix: row.suffix, canaryName: row.canary_name }
      );
    });
}

/** How a WHOIS server's proof is keyed in `public.rdap_server_proofs` (availability/whois_check.ts). */
const WHOIS_PROOF_PREFIX = "whois://";
