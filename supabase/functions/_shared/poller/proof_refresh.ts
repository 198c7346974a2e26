/**
 * Canary proofs refreshed ahead of need, in the poller's spare turns: each run asks the canary of every
 * server whose proof is due (never proved, renewal due — 24 h after the last proof, 2 h before it lapses —
 * or failed an hour ago), so a live check of a free name needs one query, not the name's and then the
 * canary's (issue 34, point 0). Every WHOIS row's server is proved from the first run on; an RDAP server is
 * kept proven once a 404 made it need a proof. A canary waits for its host only briefly and never queues
 * behind a congested host: the names of the run come first. The proof rules themselves (claims, outcomes,
 * validity) are availability/server_proof.ts's.
 */
import type { AcquireOptions } from "../rdap/host_limiter.ts";
import { errorForLog } from "../log_text.ts";
import { asService, type TransactionRunner } from "../db/client.ts";

/** A server and suffix whose canary proof is due. */
export type DueProof =
  | { kind: "whois"; suffix: string; canaryName: string }
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
 * The proofs due now in `public.rdap_server_proofs`: every enabled WHOIS row whose server has no proof yet
 * or one due for renewal, and every RDAP server proven before whose renewal is due. Claimed ones are left
 * to their claimer.
 */
export function databaseDueProofs(run: TransactionRunner = asService): () => Promise<DueProof[]> {
  return () =>
    run(async (tx) => {
      const rows = await tx<
        { kind: "whois" | "rdap"; server: string | null; suffix: string; canary_name: string }[]
      >`
        select 'whois' as kind, null as server, lower(w.suffix) as suffix, w.canary_name
          from public.whois_servers as w
          left join public.rdap_server_proofs as p
            on p.server_url = 'whois://' || w.host || ':' || w.port and p.suffix = lower(w.suffix)
         where w.enabled and w.host is not null and w.canary_name is not null
           and (p.server_url is null or p.renew_after <= now() or p.canary_name is distinct from w.canary_name)
           and (p.claimed_until is null or p.claimed_until <= now())
        union all
        select 'rdap', p.server_url, p.suffix, p.canary_name
          from public.rdap_server_proofs as p
         where p.server_url not like 'whois://%' and p.state = 'verified' and p.renew_after <= now()
           and (p.claimed_until is null or p.claimed_until <= now())`;
      return rows.map((row): DueProof =>
        row.kind === "whois"
          ? { kind: "whois", suffix: row.suffix, canaryName: row.canary_name }
          : { kind: "rdap", server: row.server!, suffix: row.suffix, canaryName: row.canary_name }
      );
    });
}
