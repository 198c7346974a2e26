/** The deliveries outbox in the database (service_role): claim due deliveries, record each attempt. */
import { asService, type TransactionRunner } from "../db/client.ts";
import type { AlertEvent, AlertEventType } from "./alert_event.ts";

export interface ClaimedDelivery {
  id: string;
  channel: "telegram" | "webhook";
  attemptCount: number;
  /** Failed attempts so far that count towards the retry schedule. */
  failureCount: number;
  createdAt: Date;
  event: AlertEvent;
  /** Null fields when the webhook was deleted since (or for a Telegram delivery). */
  webhook: { endpointId: string | null; url: string | null; secret: string | null; enabled: boolean | null };
  /** Null fields when the account has no Telegram settings (or for a webhook delivery). */
  telegram: { chatId: string | null; enabled: boolean | null };
}

export type FinalOutcome = "failed" | "rate_limited" | "refused" | "skipped";

export interface DeliveryQueue {
  claim(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]>;
  delivered(id: string, httpStatus: number, durationMs: number): Promise<void>;
  retry(
    id: string,
    outcome: "failed" | "rate_limited",
    httpStatus: number | null,
    error: string,
    durationMs: number,
    nextAttemptAt: Date,
  ): Promise<void>;
  fail(
    id: string,
    outcome: FinalOutcome,
    httpStatus: number | null,
    error: string,
    durationMs: number,
  ): Promise<void>;
  /** Gives the delivery back without an attempt, due again at `notBefore`. */
  defer(id: string, notBefore: Date): Promise<void>;
}

interface ClaimRow {
  delivery_id: string;
  channel: "telegram" | "webhook";
  attempt_count: number;
  failure_count: number;
  delivery_created_at: Date;
  event_id: string;
  event_type: AlertEventType;
  event_created_at: Date;
  domain_name: string;
  unicode_name: string | null;
  previous_status: string | null;
  status: string;
  checked_at: Date;
  webhook_endpoint_id: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_enabled: boolean | null;
  telegram_chat_id: string | null;
  telegram_enabled: boolean | null;
}

export function databaseDeliveryQueue(run: TransactionRunner = asService): DeliveryQueue {
  return {
    claim: (limit, leaseSeconds) =>
      run(async (tx) => {
        const rows = await tx<
          ClaimRow[]
        >`select * from public.claim_alert_deliveries(${limit}, ${leaseSeconds})`;
        return rows.map(toClaimedDelivery);
      }),
    delivered: (id, httpStatus, durationMs) =>
      run(async (tx) => {
        await tx`select public.mark_alert_delivery_delivered(${id}, ${httpStatus}, ${
          Math.round(durationMs)
        })`;
      }),
    retry: (id, outcome, httpStatus, error, durationMs, nextAttemptAt) =>
      run(async (tx) => {
        await tx`select public.schedule_alert_delivery_retry(
          ${id}, ${outcome}, ${httpStatus}, ${error}, ${Math.round(durationMs)}, ${nextAttemptAt})`;
      }),
    fail: (id, outcome, httpStatus, error, durationMs) =>
      run(async (tx) => {
        await tx`select public.fail_alert_delivery(${id}, ${outcome}, ${httpStatus}, ${error}, ${
          Math.round(durationMs)
        })`;
      }),
    defer: (id, notBefore) =>
      run(async (tx) => {
        await tx`select public.defer_alert_delivery(${id}, ${notBefore})`;
      }),
  };
}

function toClaimedDelivery(row: ClaimRow): ClaimedDelivery {
  return {
    id: row.delivery_id,
    channel: row.channel,
    attemptCount: row.attempt_count,
    failureCount: row.failure_count,
    createdAt: row.delivery_created_at,
    event: {
      id: row.event_id,
      type: row.event_type,
      createdAt: row.event_created_at,
      domainName: row.domain_name,
      unicodeName: row.unicode_name,
      previousStatus: row.previous_status,
      status: row.status,
      checkedAt: row.checked_at,
    },
    webhook: {
      endpointId: row.webhook_endpoint_id,
      url: row.webhook_url,
      secret: row.webhook_secret,
      enabled: row.webhook_enabled,
    },
    telegram: { chatId: row.telegram_chat_id, enabled: row.telegram_enabled },
  };
}
