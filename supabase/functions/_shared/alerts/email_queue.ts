/**
 * The email side of the outbox in the database (service_role): confirmation mails due, alert mails due
 * (an address's digest, claimed whole: `private.claim_email_mails`), and each outcome.
 */
import { asService, type TransactionRunner } from "../db/client.ts";
import type { AlertEvent, AlertEventType } from "./alert_event.ts";
import type { PredictionBasis } from "../availability/drop_prediction.ts";
import type { AvailabilityEvidence } from "../contract/webhook_event.ts";

export interface ClaimedEmailDelivery {
  id: string;
  attemptCount: number;
  failureCount: number;
  createdAt: Date;
  event: AlertEvent;
}

export interface ClaimedMail {
  /** The first delivery's id: the mail's `X-Service-Delivery` and Message-ID. */
  mailId: string;
  /** Null when the address was deleted since. */
  addressId: string | null;
  /** Null when the address was deleted, or the account's own address is not confirmed by Auth. */
  to: string | null;
  addressStatus: "pending" | "active" | "stopped" | null;
  addressEnabled: boolean | null;
  /** This mail's one-click unsubscribe token (stored hashed), or null without an address. */
  unsubscribeToken: string | null;
  /** Oldest first. */
  deliveries: ClaimedEmailDelivery[];
}

export interface DueConfirmation {
  addressId: string;
  to: string;
  token: string;
  expiresAt: Date;
}

export type MailOutcome = "delivered" | "failed" | "skipped";

export interface EmailQueue {
  claimConfirmations(limit: number): Promise<DueConfirmation[]>;
  /** A confirmation mail that did not go: again at `retryAt`, or (null) the address stops (bounced). */
  confirmationNotSent(addressId: string, retryAt: Date | null, error: string): Promise<void>;
  claimMails(
    limit: number,
    leaseSeconds: number,
    windowSeconds: number,
    maxEvents: number,
  ): Promise<ClaimedMail[]>;
  /** Settles every delivery of one mail; the address's status after it. */
  settleMail(
    deliveryIds: string[],
    attempt: { outcome: MailOutcome; smtpCode: number | null; error: string | null; durationMs: number },
    nextAttemptAt: Date | null,
    permanent: boolean,
  ): Promise<string | null>;
}

interface MailRow {
  mail_id: string;
  delivery_id: string;
  attempt_count: number;
  failure_count: number;
  delivery_created_at: Date;
  email_address_id: string | null;
  to_address: string | null;
  address_status: "pending" | "active" | "stopped" | null;
  address_enabled: boolean | null;
  unsubscribe_token: string | null;
  event_id: string;
  type: AlertEventType;
  created_at: Date;
  domain_name: string;
  unicode_name: string | null;
  previous_status: string | null;
  status: string;
  checked_at: Date;
  predicted_drop_at: Date | null;
  prediction_basis: PredictionBasis | null;
  evidence: AvailabilityEvidence | null;
  registrar: string | null;
  expires_at: Date | null;
  days_before: number | null;
  organization_id: string | null;
  organization_name: string | null;
  claimed_by_name: string | null;
}

export function databaseEmailQueue(run: TransactionRunner = asService): EmailQueue {
  return {
    claimConfirmations: (limit) =>
      run(async (tx) => {
        const rows = await tx<
          { email_address_id: string; address: string; token: string; expires_at: Date }[]
        >`
          select * from private.claim_email_confirmations(${limit})`;
        return rows.map((row) => ({
          addressId: row.email_address_id,
          to: row.address,
          token: row.token,
          expiresAt: row.expires_at,
        }));
      }),
    confirmationNotSent: (addressId, retryAt, error) =>
      run(async (tx) => {
        await tx`select private.email_confirmation_not_sent(${addressId}, ${retryAt}, ${error})`;
      }),
    claimMails: (limit, leaseSeconds, windowSeconds, maxEvents) =>
      run(async (tx) => {
        const rows = await tx<MailRow[]>`
          select c.mail_id, c.delivery_id, c.attempt_count, c.failure_count, c.delivery_created_at,
                 c.email_address_id, c.to_address, c.address_status, c.address_enabled, c.unsubscribe_token,
                 ev.id as event_id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status,
                 ev.status, ev.checked_at, ev.predicted_drop_at, ev.prediction_basis, ev.evidence, ev.registrar,
                 ev.expires_at, ev.days_before, ev.organization_id, ev.organization_name, ev.claimed_by_name
            from private.claim_email_mails(${limit}, ${leaseSeconds}, ${windowSeconds}, ${maxEvents})
                 with ordinality as c
            join public.alert_events as ev on ev.id = c.event_id
           order by c.ordinality`;
        return toMails(rows);
      }),
    settleMail: (deliveryIds, attempt, nextAttemptAt, permanent) =>
      run(async (tx) => {
        const [row] = await tx<{ status: string | null }[]>`
          select private.settle_email_mail(${deliveryIds}::uuid[], ${attempt.outcome}, ${attempt.smtpCode},
            ${attempt.error}, ${Math.round(attempt.durationMs)}, ${nextAttemptAt}, ${permanent}) as status`;
        return row?.status ?? null;
      }),
  };
}

function toMails(rows: MailRow[]): ClaimedMail[] {
  const mails = new Map<string, ClaimedMail>();
  for (const row of rows) {
    let mail = mails.get(row.mail_id);
    if (!mail) {
      mail = {
        mailId: row.mail_id,
        addressId: row.email_address_id,
        to: row.to_address,
        addressStatus: row.address_status,
        addressEnabled: row.address_enabled,
        unsubscribeToken: row.unsubscribe_token,
        deliveries: [],
      };
      mails.set(row.mail_id, mail);
    }
    mail.deliveries.push({
      id: row.delivery_id,
      attemptCount: row.attempt_count,
      failureCount: row.failure_count,
      createdAt: row.delivery_created_at,
      event: {
        id: row.event_id,
        type: row.type,
        createdAt: row.created_at,
        domainName: row.domain_name,
        unicodeName: row.unicode_name,
        previousStatus: row.previous_status,
        status: row.status,
        checkedAt: row.checked_at,
        predictedDropAt: row.predicted_drop_at,
        predictionBasis: row.prediction_basis,
        evidence: row.evidence,
        registrar: row.registrar,
        expiresAt: row.expires_at,
        daysBefore: row.days_before,
        // A team address's alert names the organization and the claimer (docs/organizations.md).
        organization: row.organization_id
          ? { id: row.organization_id, name: row.organization_name ?? "" }
          : null,
        claimedBy: row.claimed_by_name,
      },
    });
  }
  return [...mails.values()];
}
