/** The delivery run's settings from the environment, read at call time (README documents them). */
import { intEnv } from "../config.ts";

export interface BreakerSettings {
  /** Consecutive failed attempts that open an endpoint's breaker (`BREAKER_FAILURE_THRESHOLD`). */
  threshold: number;
  /** First pause of an open breaker; it doubles each time a probe fails (`BREAKER_BASE_BACKOFF_SECONDS`). */
  baseSeconds: number;
  /** The longest pause (`BREAKER_MAX_BACKOFF_SECONDS`). */
  maxSeconds: number;
}

export interface TelegramPaceSettings {
  /** Messages per second for the whole project (`TELEGRAM_MESSAGES_PER_SECOND`; Telegram allows ~30). */
  messagesPerSecond: number;
  /** Gap between two messages to one chat (`TELEGRAM_CHAT_INTERVAL_MS`; Telegram allows 1 per second). */
  chatIntervalMs: number;
  /** A send slot further away than this is not waited for: the delivery is given back until then. */
  maxWaitMs: number;
}

export interface DeliverySettings {
  /** Wall time after which a run starts no new send (`DELIVERY_TIME_BUDGET_MS`). */
  timeBudgetMs: number;
  /** Sends in flight at once (`DELIVERY_CONCURRENCY`); one per endpoint or chat at most. */
  concurrency: number;
  /**
   * Deliveries one run claims at most (`DELIVERY_MAX_PER_RUN`): about 1 ms of CPU each, so the default
   * stays inside the Edge runtime's 2 s of CPU per invocation.
   */
  maxPerRun: number;
  /** How long a claimed delivery (and its lane) stays reserved (`DELIVERY_LEASE_SECONDS`). */
  leaseSeconds: number;
  /** How long a run keeps looking for new work once the queue is empty (`DELIVERY_IDLE_LINGER_MS`). */
  idleLingerMs: number;
  /** Connecting to a webhook receiver (`WEBHOOK_CONNECT_TIMEOUT_MS`). */
  webhookConnectTimeoutMs: number;
  /** The whole webhook request, connect included (`WEBHOOK_TIMEOUT_MS`; success is a 2xx within it). */
  webhookTimeoutMs: number;
  breaker: BreakerSettings;
  telegram: TelegramPaceSettings;
}

export function deliverySettings(): DeliverySettings {
  const baseSeconds = intEnv("BREAKER_BASE_BACKOFF_SECONDS", 60, 1, 86_400);
  return {
    timeBudgetMs: intEnv("DELIVERY_TIME_BUDGET_MS", 40_000, 1_000, 300_000),
    concurrency: intEnv("DELIVERY_CONCURRENCY", 32, 1, 256),
    maxPerRun: intEnv("DELIVERY_MAX_PER_RUN", 1_000, 1, 100_000),
    leaseSeconds: intEnv("DELIVERY_LEASE_SECONDS", 60, 20, 3_600),
    idleLingerMs: intEnv("DELIVERY_IDLE_LINGER_MS", 2_000, 0, 60_000),
    webhookConnectTimeoutMs: intEnv("WEBHOOK_CONNECT_TIMEOUT_MS", 3_000, 100, 60_000),
    webhookTimeoutMs: intEnv("WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000),
    breaker: {
      threshold: intEnv("BREAKER_FAILURE_THRESHOLD", 5, 1, 1_000),
      baseSeconds,
      maxSeconds: Math.max(baseSeconds, intEnv("BREAKER_MAX_BACKOFF_SECONDS", 3_600, 1, 7 * 86_400)),
    },
    telegram: {
      messagesPerSecond: intEnv("TELEGRAM_MESSAGES_PER_SECOND", 30, 1, 1_000),
      chatIntervalMs: intEnv("TELEGRAM_CHAT_INTERVAL_MS", 1_000, 0, 60_000),
      maxWaitMs: 1_000,
    },
  };
}
