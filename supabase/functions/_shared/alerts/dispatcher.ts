/**
 * One delivery run: keeps up to `concurrency` sends in flight, claiming due deliveries fairly from the
 * database (round-robin across accounts then endpoints, one in flight per endpoint or chat, open breakers
 * skipped) whenever a slot is free, and recording each outcome at once. It stops claiming at the deadline
 * or after `maxDeliveries`, and ends when nothing was due for `idleLingerMs` (so alerts written just after
 * a wake-up are still taken); what is in flight then finishes within its own timeout.
 *
 * A crash before an outcome is recorded leaves the delivery (and its lane) to come back when the lease
 * ends, sent again with the same X-Service-Delivery id. Telegram sends take a slot of the project-wide
 * pace first (Postgres); a slot too far away gives the delivery back until then, and a 429 pauses every
 * Telegram send until `retry_after`.
 *
 * Nothing secret is logged: no webhook URL or secret, no chat ID, no bot token.
 */
import type { AlertEvent } from "./alert_event.ts";
import type { Attempt, ClaimedDelivery, DeliveryQueue, TelegramPace } from "./delivery_queue.ts";
import { nextAttemptAfterFailure, nextAttemptAfterRateLimit } from "./retry_schedule.ts";
import { type JudgedTarget, type TargetVerdict, webhookKindProblem } from "../net/url_policy.ts";
import { chatWebhookBody, chatWebhookHeaders, type ChatWebhookKind } from "./chat_webhooks.ts";
import type { TelegramOutcome } from "./telegram_client.ts";
import { telegramAlertText } from "./telegram_message.ts";
import type { WebhookOutcome } from "./webhook_sender.ts";
import { webhookBody, webhookHeaders } from "./webhook_payload.ts";
import { standardWebhookSignature, webhookSignature } from "./signature.ts";
import { errorForLog } from "../log_text.ts";

export interface DispatcherDeps {
  queue: DeliveryQueue;
  /** Null when no bot token is configured. */
  sendTelegram: ((chatId: string, text: string) => Promise<TelegramOutcome>) | null;
  telegramPace: TelegramPace;
  /** Sends to the target `checkTarget` judged, connected to an address it judged. */
  postWebhook: (
    target: JudgedTarget,
    body: string,
    headers: Record<string, string>,
  ) => Promise<WebhookOutcome>;
  checkTarget: (url: string) => Promise<TargetVerdict>;
  /**
   * Where a Slack or Discord endpoint's saved URL is sent: its documented origin swapped for the
   * configured one (`SLACK_WEBHOOK_BASE_URL`, `DISCORD_WEBHOOK_BASE_URL`). Default: the saved URL.
   */
  routeChatWebhook?: (url: string, kind: ChatWebhookKind) => string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface DispatchOptions {
  /** Epoch ms after which no new claim or send starts. */
  deadline: number;
  concurrency: number;
  /** Longer than one send can take (DNS check + the webhook timeout). */
  leaseSeconds: number;
  /** Deliveries this run claims at most (a CPU bound for the Edge runtime). */
  maxDeliveries: number;
  /** How long to keep looking for new work once nothing is due and nothing is in flight. */
  idleLingerMs: number;
  /** How often to look for work while sends are in flight (default 200 ms). */
  pollMs?: number;
}

export interface DispatchSummary {
  delivered: number;
  retried: number;
  failed: number;
  deferred: number;
  /** Attempts that tested an open breaker. */
  probes: number;
  stopped_because: "no_due_work" | "time_budget" | "delivery_limit";
}

export async function dispatchDueDeliveries(
  deps: DispatcherDeps,
  options: DispatchOptions,
): Promise<DispatchSummary> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pollMs = options.pollMs ?? 200;
  const summary: DispatchSummary = {
    delivered: 0,
    retried: 0,
    failed: 0,
    deferred: 0,
    probes: 0,
    stopped_because: "no_due_work",
  };
  /** The earliest moment a delivery given back by this run is due again. */
  let wakeAt = Infinity;

  const settle = async (delivery: ClaimedDelivery, attempt: Attempt, next: Date | null) => {
    await deps.queue.settle(delivery.id, attempt, next);
    if (attempt.outcome === "delivered") summary.delivered++;
    else if (next === null) summary.failed++;
    else summary.retried++;
  };

  const giveBack = async (delivery: ClaimedDelivery, at: number) => {
    await deps.queue.defer(delivery.id, new Date(at));
    summary.deferred++;
    if (at < wakeAt) wakeAt = at;
  };

  async function failure(
    delivery: ClaimedDelivery,
    httpStatus: number | null,
    error: string,
    startedAt: number,
  ) {
    const next = nextAttemptAfterFailure(delivery.failureCount + 1, delivery.createdAt, new Date(now()));
    await settle(delivery, { outcome: "failed", httpStatus, error, durationMs: now() - startedAt }, next);
  }

  async function final(delivery: ClaimedDelivery, outcome: "refused" | "skipped" | "failed", error: string) {
    await settle(delivery, { outcome, httpStatus: null, error, durationMs: 0 }, null);
  }

  async function deliverWebhook(delivery: ClaimedDelivery, event: AlertEvent) {
    const { url, secret, enabled } = delivery.webhook;
    if (delivery.webhook.endpointId === null || url === null) {
      return await final(delivery, "skipped", "webhook_deleted");
    }
    if (enabled === false && event.type !== "test") {
      return await final(delivery, "skipped", "webhook_disabled");
    }
    const kind = delivery.webhook.kind ?? "generic";
    const kindProblem = webhookKindProblem(url, kind);
    if (kindProblem !== null) return await final(delivery, "refused", `target_not_allowed: ${kindProblem}`);
    const startedAt = now();
    const sendUrl = kind === "generic" ? url : deps.routeChatWebhook?.(url, kind) ?? url;
    const verdict = await deps.checkTarget(sendUrl);
    if (verdict.verdict === "refused") return await final(delivery, "refused", verdict.reason);
    if (verdict.verdict === "unresolved") return await failure(delivery, null, verdict.reason, startedAt);
    const { target } = verdict;
    if (kind !== "generic") {
      // Slack and Discord do not verify our HMAC: their own message shape, no signature headers.
      const chatBody = chatWebhookBody(kind, event);
      const chatOutcome = await deps.postWebhook(target, chatBody, chatWebhookHeaders(event, delivery.id));
      return await settleWebhook(delivery, chatOutcome, startedAt);
    }

    const body = webhookBody(event);
    let headers = webhookHeaders(event, delivery.id, null);
    if (secret !== null) {
      const timestamp = Math.floor(now() / 1000);
      const keys = delivery.webhook.previousSecret === null
        ? [secret]
        : [secret, delivery.webhook.previousSecret];
      headers = webhookHeaders(event, delivery.id, await webhookSignature(secret, body), {
        timestamp,
        signature: await standardWebhookSignature(keys, delivery.id, timestamp, body),
      });
    }
    await settleWebhook(delivery, await deps.postWebhook(target, body, headers), startedAt);
  }

  async function settleWebhook(delivery: ClaimedDelivery, outcome: WebhookOutcome, startedAt: number) {
    if (outcome.kind === "delivered") {
      const durationMs = now() - startedAt;
      await settle(delivery, {
        outcome: "delivered",
        httpStatus: outcome.httpStatus,
        error: null,
        durationMs,
      }, null);
    } else {
      await failure(delivery, outcome.httpStatus, outcome.error, startedAt);
    }
  }

  async function deliverTelegram(delivery: ClaimedDelivery, event: AlertEvent) {
    const { chatId, enabled } = delivery.telegram;
    if (chatId === null) return await final(delivery, "skipped", "telegram_chat_removed");
    if (enabled === false && event.type !== "test") {
      return await final(delivery, "skipped", "telegram_disabled");
    }
    const startedAt = now();
    if (deps.sendTelegram === null) {
      return await failure(delivery, null, "telegram_bot_token_missing", startedAt);
    }
    const slot = await deps.telegramPace.reserve(chatId);
    if (!slot.granted) return await giveBack(delivery, slot.sendAt.getTime());
    const waitMs = slot.sendAt.getTime() - now();
    if (waitMs > 0) await sleep(waitMs);

    const sentAt = now();
    const outcome = await deps.sendTelegram(chatId, telegramAlertText(event));
    const durationMs = now() - sentAt;
    if (outcome.kind === "sent") {
      await settle(delivery, {
        outcome: "delivered",
        httpStatus: outcome.httpStatus,
        error: null,
        durationMs,
      }, null);
    } else if (outcome.kind === "rate_limited") {
      await deps.telegramPace.pause(new Date(now() + outcome.retryAfterMs));
      const next = nextAttemptAfterRateLimit(outcome.retryAfterMs, delivery.createdAt, new Date(now()));
      const error = `telegram_429: retry after ${Math.ceil(outcome.retryAfterMs / 1000)} s`;
      await settle(delivery, { outcome: "rate_limited", httpStatus: 429, error, durationMs }, next);
      if (next !== null && next.getTime() < wakeAt) wakeAt = next.getTime();
    } else if (outcome.permanent) {
      await settle(delivery, {
        outcome: "failed",
        httpStatus: outcome.httpStatus,
        error: outcome.error,
        durationMs,
      }, null);
    } else {
      await failure(delivery, outcome.httpStatus, outcome.error, sentAt);
    }
  }

  async function deliver(delivery: ClaimedDelivery) {
    try {
      if (now() >= options.deadline) return await giveBack(delivery, now());
      if (delivery.probe) summary.probes++;
      if (delivery.channel === "webhook") await deliverWebhook(delivery, delivery.event);
      else await deliverTelegram(delivery, delivery.event);
    } catch (error) {
      // Left to its lease: the delivery comes back to a later run.
      console.error(`[alerts] delivery ${delivery.id} could not be completed: ${errorForLog(error)}`);
    }
  }

  const inFlight = new Set<Promise<void>>();
  let claimed = 0;
  let idleSince: number | null = null;

  while (true) {
    if (now() >= options.deadline) {
      summary.stopped_because = "time_budget";
      break;
    }
    if (claimed >= options.maxDeliveries) {
      summary.stopped_because = "delivery_limit";
      break;
    }
    const free = options.concurrency - inFlight.size;
    const batch = free > 0
      ? await deps.queue.claim(Math.min(free, options.maxDeliveries - claimed), options.leaseSeconds)
      : [];
    claimed += batch.length;
    for (const delivery of batch) {
      const sending: Promise<void> = deliver(delivery).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
    if (inFlight.size >= options.concurrency) {
      await Promise.race(inFlight);
      continue;
    }
    if (inFlight.size > 0 || batch.length > 0) {
      idleSince = null;
      await Promise.race([...inFlight, sleep(pollMs)]);
      continue;
    }
    // Nothing due and nothing in flight: linger a little for alerts written just now, and wait for a
    // delivery this run gave back if it comes due before the deadline.
    idleSince ??= now();
    const lingerLeft = idleSince + options.idleLingerMs - now();
    const wakeIn = wakeAt < options.deadline ? wakeAt - now() : Infinity;
    if (lingerLeft <= 0 && wakeIn === Infinity) break;
    if (wakeIn <= 0) wakeAt = Infinity;
    await sleep(Math.max(10, Math.min(pollMs, lingerLeft > 0 ? lingerLeft : wakeIn)));
  }
  await Promise.all(inFlight);
  return summary;
}
