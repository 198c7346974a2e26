/** Watched names in the database (service_role): claim the due ones, record what a check found. */
import { asService, database, type Sql, type TransactionRunner } from "../db/client.ts";
import type { CheckResult } from "../availability/check_domain.ts";
import type { DomainStatus } from "../availability/classify.ts";
import { recordDomainCheck } from "../availability/live_check.ts";
import type { AvailabilityEvidence } from "../availability/evidence.ts";
import type { CorrectedPrediction } from "../availability/drop_prediction.ts";
import { registryAnswered, registryUnreadable } from "./dns_first.ts";

export interface ClaimedDomain {
  name: string;
  status: DomainStatus;
  expiresAt: Date | null;
  registrar: string | null;
  lastCheckedAt: Date | null;
  /** When the registry last answered for the name (null: never); see poller/dns_first.ts. */
  registryAskedAt: Date | null;
  /** The `domain.expiring` reminder days of every channel of every account watching the name. */
  reminderDays: number[];
}

export interface CheckFollowUp {
  /** An `available` result's evidence (carried to its alerts). */
  evidence?: AvailabilityEvidence | null;
  /** A `pending_delete` result's predicted drop, correction included. */
  dropPrediction?: CorrectedPrediction;
  /** A pending-delete name's next check (the denser schedule around its predicted drop). */
  pendingDeleteNextCheckAt?: Date;
  /** Not before this (an RDAP host's 429 pause). */
  notBefore?: Date;
}

export interface DomainQueue {
  claim(limit: number, leaseSeconds: number): Promise<ClaimedDomain[]>;
  /** Records a full check (RDAP and DNS), and its follow-ups, in one transaction. */
  recordCheck(result: CheckResult, followUp: CheckFollowUp): Promise<void>;
  /** Records "registered" from DNS alone, keeping the known expiry and registrar. */
  recordDelegated(domain: ClaimedDomain, checkedAt: Date): Promise<void>;
  /** The same for several names in one round trip (optional: without it, one by one). */
  recordDelegatedBatch?(domains: ClaimedDomain[], checkedAt: Date): Promise<void>;
  /** Releases a claimed name without a check, due again at `notBefore`. */
  defer(name: string, notBefore: Date): Promise<void>;
  /** The same for several names in one round trip (optional: without it, one by one). */
  deferBatch?(deferrals: { name: string; notBefore: Date }[]): Promise<void>;
}

interface ClaimRow {
  domain_name: string;
  status: DomainStatus;
  expires_at: Date | null;
  registrar: string | null;
  last_checked_at: Date | null;
  registry_asked_at: Date | null;
  reminder_days: number[] | null;
}

/**
 * `run`: the transaction runner for multi-statement writes (a check and its follow-ups). `statement`: where
 * a single call of a SQL function runs — by default straight on the pool as the connection's own role (the
 * owner of those definer functions), one round trip instead of begin / role / call / commit, which is what
 * the poller does hundreds of times a second. A caller passing its own `run` gets it for both.
 */
export function databaseDomainQueue(
  run: TransactionRunner = asService,
  statement: <T>(
    work: (sql: Sql | Parameters<Parameters<TransactionRunner>[0]>[0]) => Promise<T>,
  ) => Promise<T> = run === asService ? (work) => work(database()) : run,
): DomainQueue {
  return {
    claim: (limit, leaseSeconds) =>
      statement(async (tx) => {
        const rows = await tx<ClaimRow[]>`select * from private.claim_due_domains(${limit}, ${leaseSeconds})`;
        return rows.map((row) => ({
          name: row.domain_name,
          status: row.status,
          expiresAt: row.expires_at,
          registrar: row.registrar,
          lastCheckedAt: row.last_checked_at,
          registryAskedAt: row.registry_asked_at,
          reminderDays: row.reminder_days ?? [],
        }));
      }),
    recordCheck: (result, followUp) =>
      run(async (tx) => {
        await recordDomainCheck(tx, result, "poller", {
          evidence: followUp.evidence,
          dropPrediction: followUp.dropPrediction,
        });
        if (registryAnswered(result.reason)) {
          await tx`select private.record_registry_answer(${result.domain_name}, ${result.checked_at})`;
        }
        if (registryUnreadable(result.reason) === true) {
          // The name's page says when the registry's answer could not be read; the next answer the registry
          // gives about the name clears it (record_registry_answer, above).
          await tx`select private.note_registry_reading(${result.domain_name}, ${result.checked_at}, true)`;
        }
        if (followUp.pendingDeleteNextCheckAt) {
          await tx`select private.schedule_pending_delete_check(
            ${result.domain_name}, ${result.checked_at}, ${followUp.pendingDeleteNextCheckAt})`;
        }
        if (followUp.notBefore) {
          await tx`select private.defer_domain_check(${result.domain_name}, ${followUp.notBefore})`;
        }
      }),
    recordDelegated: (domain, checkedAt) =>
      statement(async (tx) => {
        await tx`select private.record_domain_check(
          ${domain.name}, 'registered', ${checkedAt}, ${domain.expiresAt}, ${domain.registrar}, true, 'poller')`;
      }),
    recordDelegatedBatch: (domains, checkedAt) =>
      statement(async (tx) => {
        const names = domains.map((domain) => domain.name);
        const expiries = domains.map((domain) => domain.expiresAt?.toISOString() ?? null);
        const registrars = domains.map((domain) => domain.registrar);
        await tx`select private.record_domain_check(
                   t.name, 'registered', ${checkedAt}, t.expires_at, t.registrar, true, 'poller')
                 from unnest(${names}::text[], ${expiries}::timestamptz[], ${registrars}::text[])
                   as t(name, expires_at, registrar)`;
      }),
    defer: (name, notBefore) =>
      statement(async (tx) => {
        await tx`select private.defer_domain_check(${name}, ${notBefore})`;
      }),
    deferBatch: (deferrals) =>
      statement(async (tx) => {
        const names = deferrals.map((d) => d.name);
        const times = deferrals.map((d) => d.notBefore.toISOString());
        await tx`select private.defer_domain_check(t.name, t.not_before)
                 from unnest(${names}::text[], ${times}::timestamptz[]) as t(name, not_before)`;
      }),
  };
}
