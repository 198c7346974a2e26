/**
 * The deliveries outbox in the database (service_role): claim due deliveries fairly, record each attempt
 * (and the endpoint's breaker), and Telegram's project-wide pace.
 */
import { asService, type TransactionRunner } from "../db/client.ts";
import type { AlertEvent, AlertEventType } from "./alert_event.ts";
import type { BreakerSettings, TelegramPaceSettings } from "./delivery_settings.ts";
import type { WebhookKind } from "../net/url_policy.ts";
import type { PredictionBasis } from "../availability/drop_prediction.ts";
import type { AvailabilityEvidence } from "../contract/webhook_event.ts";

export interface ClaimedDelivery {
  id: string;
  channel: "telegram" | "webhook";
  attemptCount: number;
  /** Failed attempts so far that count towards the retry schedule. */
  failureCount: number;
  createdAt: Date;
  event: AlertEvent;
  /**
   * Null fields when the webhook was deleted since (or for a Telegram delivery). `previousSecret`: the
   * secret before the last rotation, while it still signs (24 h).
   */
  webhook: {
    endpointId: string | null;
    url: string | null;
    secret: string | null;
    previousSecret: string | null;
    enabled: boolean | null;
    /** generic (signed JSON), slack or discord; absent or null is read as generic. */
    kind?: WebhookKind | null;
  };
  /** Null fields when the account has no Telegram settings (or for a webhook delivery). */
  telegram: { chatId: string | null; enabled: boolean | null };
  /** `webhook:<endpoint id>`, `telegram:<account id>` or `delivery:<id>`: one in flight per lane. */
  laneKey: string;
  /** The single attempt that tests an open breaker. */
  probe: boolean;
}

export type AttemptOutcome = "delivered" | "failed" | "rate_limited" | "refused" | "skipped";

export interface Attempt {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryQueue {
  /** Due deliveries, round-robin across accounts then lanes, at most one in flight per lane. */
  claim(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]>;
  /**
   * Records one attempt and frees the lane: delivered; pending again at `nextAttemptAt`; or failed for
   * good when `nextAttemptAt` is null. A `failed` attempt counts towards the endpoint's breaker.
   */
  settle(id: string, attempt: Attempt, nextAttemptAt: Date | null): Promise<void>;
  /** Gives the delivery back without an attempt, due again at `notBefore`. */
  defer(id: string, notBefore: Date): Promise<void>;
  /** Starts another delivery run (pg_net), for work this run had no budget left for. */
  handOver(): Promise<void>;
}

/** Telegram's project-wide pace (counters in Postgres, shared by every isolate). */
export interface TelegramPace {
  /** The send slot for this chat: granted (wait until `sendAt`, then send) or not (too far away). */
  reserve(chatId: string): Promise<{ granted: boolean; sendAt: Date }>;
  /** After a 429: nobody sends before `until`. */
  pause(until: Date): Promise<void>;
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
  webhook_previous_secret: string | null;
  webhook_enabled: boolean | null;
  telegram_chat_id: string | null;
  telegram_enabled: boolean | null;
  lane_key: string;
  probe: boolean;
  webhook_kind: WebhookKind | null;
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

export function databaseDeliveryQueue(
  breaker: BreakerSettings,
  run: TransactionRunner = asService,
): DeliveryQueue {
  return {
    claim: (limit, leaseSeconds) =>
      run(async (tx) => {
        // The event's own fields (evidence, registrar, expiry, reminder) are read beside the claim, in the
        // same statement, in the claim's order.
        const rows = await tx<ClaimRow[]>`
          select c.*, ev.evidence, ev.registrar, ev.expires_at, ev.days_before,
                 ev.organization_id, ev.organization_name, ev.claimed_by_name
            from private.claim_fair_alert_deliveries(${limit}, ${leaseSeconds}) with ordinality as c
            join public.alert_events as ev on ev.id = c.event_id
           order by c.ordinality`;
        return rows.map(toClaimedDelivery);
      }),
    settle: (id, attempt, nextAttemptAt) =>
      run(async (tx) => {
        await tx`select * from private.settle_alert_delivery(
          ${id}, ${attempt.outcome}, ${attempt.httpStatus}, ${attempt.error}, ${
          Math.round(attempt.durationMs)
        },
          ${nextAttemptAt}, ${breaker.threshold}, ${breaker.baseSeconds}, ${breaker.maxSeconds})`;
      }),
    defer: (id, notBefore) =>
      run(async (tx) => {
        await tx`select private.defer_alert_delivery(${id}, ${notBefore})`;
      }),
    handOver: () =>
      run(async (tx) => {
        await tx`select private.invoke_alert_delivery()`;
      }),
  };
}

export function databaseTelegramPace(
  settings: TelegramPaceSettings,
  run: TransactionRunner = asService,
): TelegramPace {
  return {
    reserve: (chatId) =>
      run(async (tx) => {
        const [row] = await tx<{ granted: boolean; send_at: Date }[]>`
          select granted, send_at from private.reserve_telegram_send(
            ${chatId}, ${settings.messagesPerSecond}, ${settings.chatIntervalMs}, ${settings.maxWaitMs})`;
        return { granted: row.granted, sendAt: row.send_at };
      }),
    pause: (until) =>
      run(async (tx) => {
        await tx`select private.pause_telegram_sends(${until})`;
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
      predictedDropAt: row.predicted_drop_at,
      predictionBasis: row.prediction_basis,
      evidence: row.evidence,
      registrar: row.registrar,
      expiresAt: row.expires_at,
      daysBefore: row.days_before,
      organization: row.organization_id
        ? { id: row.organization_id, name: row.organization_name ?? "" }
        : null,
      claimedBy: row.claimed_by_name,
    },
    webhook: {
      endpointId: row.webhook_endpoint_id,
      url: row.webhook_url,
      secret: row.webhook_secret,
      previousSecret: row.webhook_previous_secret,
      enabled: row.webhook_enabled,
      kind: row.webhook_kind,
    },
    telegram: { chatId: row.telegram_chat_id, enabled: row.telegram_enabled },
    laneKey: row.lane_key,
    probe: row.probe,
  };
}
