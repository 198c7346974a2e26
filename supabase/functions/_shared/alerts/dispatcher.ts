/**
 * Sends due deliveries until there are none or the deadline passes. A few workers each claim a small
 * batch (lease: nobody else takes those meanwhile), send each delivery, and record the outcome at once;
 * a crash before the record leaves the delivery to come back when its lease ends (sent again with the
 * same X-Service-Delivery id). Telegram's 429 pauses Telegram for this run and reschedules the delivery
 * at `retry_after`; a wait that ends before the deadline is waited out in this run.
 *
 * Nothing secret is logged: no webhook URL or secret, no chat ID, no bot token.
 */
import type { AlertEvent } from "./alert_event.ts";
import type { ClaimedDelivery, DeliveryQueue } from "./delivery_queue.ts";
import { nextAttemptAfterFailure, nextAttemptAfterRateLimit } from "./retry_schedule.ts";
import type { TargetVerdict } from "../net/url_policy.ts";
import type { TelegramOutcome } from "./telegram_client.ts";
import { telegramAlertText } from "./telegram_message.ts";
import type { WebhookOutcome } from "./webhook_sender.ts";
import { webhookBody, webhookHeaders } from "./webhook_payload.ts";
import { webhookSignature } from "./signature.ts";

export interface DispatcherDeps {
  queue: DeliveryQueue;
  /** Null when no bot token is configured. */
  sendTelegram: ((chatId: string, text: string) => Promise<TelegramOutcome>) | null;
  postWebhook: (url: string, body: string, headers: Record<string, string>) => Promise<WebhookOutcome>;
  checkTarget: (url: string) => Promise<TargetVerdict>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface DispatchOptions {
  /** Epoch ms after which no new send starts. */
  deadline: number;
  concurrency?: number;
  batchSize?: number;
  /** Longer than one send can take (DNS check + 10 s timeout). */
  leaseSeconds?: number;
  /** Deliveries this call claims at most (a CPU bound for the Edge runtime). */
  maxDeliveries?: number;
}

export interface DispatchSummary {
  delivered: number;
  retried: number;
  failed: number;
  deferred: number;
}

const DEFAULTS = { concurrency: 4, batchSize: 5, leaseSeconds: 60, maxDeliveries: 500 };

export async function dispatchDueDeliveries(
  deps: DispatcherDeps,
  options: DispatchOptions,
): Promise<DispatchSummary> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const concurrency = options.concurrency ?? DEFAULTS.concurrency;
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const leaseSeconds = options.leaseSeconds ?? DEFAULTS.leaseSeconds;
  const maxDeliveries = options.maxDeliveries ?? DEFAULTS.maxDeliveries;
  let claimed = 0;
  const summary: DispatchSummary = { delivered: 0, retried: 0, failed: 0, deferred: 0 };
  let telegramPausedUntil = 0;
  /** The earliest moment a delivery rescheduled by this run is due again. */
  let wakeAt = Infinity;

  const dueAgainAt = (at: number) => {
    wakeAt = Math.min(wakeAt, at);
  };

  async function failure(
    delivery: ClaimedDelivery,
    httpStatus: number | null,
    error: string,
    startedAt: number,
  ) {
    const next = nextAttemptAfterFailure(delivery.failureCount + 1, delivery.createdAt, new Date(now()));
    if (next === null) {
      await deps.queue.fail(delivery.id, "failed", httpStatus, error, now() - startedAt);
      summary.failed++;
    } else {
      await deps.queue.retry(delivery.id, "failed", httpStatus, error, now() - startedAt, next);
      summary.retried++;
    }
  }

  async function skip(delivery: ClaimedDelivery, error: string) {
    await deps.queue.fail(delivery.id, "skipped", null, error, 0);
    summary.failed++;
  }

  async function deliverWebhook(delivery: ClaimedDelivery, event: AlertEvent) {
    const { url, secret, enabled } = delivery.webhook;
    if (delivery.webhook.endpointId === null || url === null) return await skip(delivery, "webhook_deleted");
    if (enabled === false && event.type !== "test") return await skip(delivery, "webhook_disabled");
    const startedAt = now();
    const target = await deps.checkTarget(url);
    if (target.verdict === "refused") {
      await deps.queue.fail(delivery.id, "refused", null, target.reason, now() - startedAt);
      summary.failed++;
      return;
    }
    if (target.verdict === "unresolved") return await failure(delivery, null, target.reason, startedAt);

    const body = webhookBody(event);
    const signature = secret === null ? null : await webhookSignature(secret, body);
    const outcome = await deps.postWebhook(url, body, webhookHeaders(event, delivery.id, signature));
    if (outcome.kind === "delivered") {
      await deps.queue.delivered(delivery.id, outcome.httpStatus, now() - startedAt);
      summary.delivered++;
    } else {
      await failure(delivery, outcome.httpStatus, outcome.error, startedAt);
    }
  }

  async function deliverTelegram(delivery: ClaimedDelivery, event: AlertEvent) {
    const { chatId, enabled } = delivery.telegram;
    if (chatId === null) return await skip(delivery, "telegram_chat_removed");
    if (enabled === false && event.type !== "test") return await skip(delivery, "telegram_disabled");
    const startedAt = now();
    if (deps.sendTelegram === null) {
      return await failure(delivery, null, "telegram_bot_token_missing", startedAt);
    }
    if (telegramPausedUntil > now()) {
      await deps.queue.defer(delivery.id, new Date(telegramPausedUntil));
      summary.deferred++;
      dueAgainAt(telegramPausedUntil);
      return;
    }

    const outcome = await deps.sendTelegram(chatId, telegramAlertText(event));
    if (outcome.kind === "sent") {
      await deps.queue.delivered(delivery.id, outcome.httpStatus, now() - startedAt);
      summary.delivered++;
    } else if (outcome.kind === "rate_limited") {
      telegramPausedUntil = Math.max(telegramPausedUntil, now() + outcome.retryAfterMs);
      const next = nextAttemptAfterRateLimit(outcome.retryAfterMs, delivery.createdAt, new Date(now()));
      const error = `telegram_429: retry after ${Math.ceil(outcome.retryAfterMs / 1000)} s`;
      if (next === null) {
        await deps.queue.fail(delivery.id, "rate_limited", 429, error, now() - startedAt);
        summary.failed++;
      } else {
        await deps.queue.retry(delivery.id, "rate_limited", 429, error, now() - startedAt, next);
        summary.retried++;
        dueAgainAt(next.getTime());
      }
    } else if (outcome.permanent) {
      await deps.queue.fail(delivery.id, "failed", outcome.httpStatus, outcome.error, now() - startedAt);
      summary.failed++;
    } else {
      await failure(delivery, outcome.httpStatus, outcome.error, startedAt);
    }
  }

  async function deliver(delivery: ClaimedDelivery) {
    try {
      if (now() >= options.deadline) {
        await deps.queue.defer(delivery.id, new Date(now()));
        summary.deferred++;
        return;
      }
      if (delivery.channel === "webhook") await deliverWebhook(delivery, delivery.event);
      else await deliverTelegram(delivery, delivery.event);
    } catch (error) {
      // Left to its lease: the delivery comes back to a later run.
      console.error(`[alerts] delivery ${delivery.id} could not be completed: ${(error as Error).message}`);
    }
  }

  async function worker() {
    while (now() < options.deadline) {
      const limit = Math.min(batchSize, maxDeliveries - claimed);
      if (limit <= 0) return;
      claimed += limit;
      const batch = await deps.queue.claim(limit, leaseSeconds);
      claimed -= limit - batch.length;
      if (batch.length === 0) {
        if (wakeAt === Infinity || wakeAt >= options.deadline) return;
        const waitMs = wakeAt - now();
        wakeAt = Infinity;
        if (waitMs > 0) await sleep(waitMs + 20);
        continue;
      }
      for (const delivery of batch) await deliver(delivery);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, () => worker()));
  return summary;
}
