/** The dispatcher's decisions, with an in-memory outbox and scripted channels (no network, no database). */
import { assert, assertEquals } from "../support/assert.ts";
import type {
  ClaimedDelivery,
  DeliveryQueue,
} from "../../supabase/functions/_shared/alerts/delivery_queue.ts";
import {
  dispatchDueDeliveries,
  type DispatcherDeps,
} from "../../supabase/functions/_shared/alerts/dispatcher.ts";
import type { TelegramOutcome } from "../../supabase/functions/_shared/alerts/telegram_client.ts";
import type { WebhookOutcome } from "../../supabase/functions/_shared/alerts/webhook_sender.ts";

interface Row {
  delivery: ClaimedDelivery;
  status: "pending" | "delivered" | "failed";
  dueAt: number;
  leased: boolean;
  history: string[];
}

function memoryQueue(clock: { now: number }, deliveries: ClaimedDelivery[]) {
  const rows = new Map<string, Row>(
    deliveries.map((d) => [d.id, { delivery: d, status: "pending", dueAt: 0, leased: false, history: [] }]),
  );
  const queue: DeliveryQueue = {
    claim(limit) {
      const due = [...rows.values()].filter((r) =>
        r.status === "pending" && !r.leased && r.dueAt <= clock.now
      )
        .slice(0, limit);
      for (const row of due) row.leased = true;
      return Promise.resolve(due.map((row) => ({ ...row.delivery, failureCount: failures(row) })));
    },
    delivered(id, httpStatus) {
      const row = rows.get(id)!;
      Object.assign(row, { status: "delivered", leased: false });
      row.history.push(`delivered ${httpStatus}`);
      return Promise.resolve();
    },
    retry(id, outcome, _status, error, _ms, next) {
      const row = rows.get(id)!;
      Object.assign(row, { dueAt: next.getTime(), leased: false });
      row.history.push(`${outcome} ${error}`);
      return Promise.resolve();
    },
    fail(id, outcome, _status, error) {
      const row = rows.get(id)!;
      Object.assign(row, { status: "failed", leased: false });
      row.history.push(`${outcome} ${error} (final)`);
      return Promise.resolve();
    },
    defer(id, notBefore) {
      const row = rows.get(id)!;
      Object.assign(row, { dueAt: notBefore.getTime(), leased: false });
      row.history.push("deferred");
      return Promise.resolve();
    },
  };
  return { queue, rows };
}

function failures(row: Row): number {
  return row.history.filter((entry) => entry.startsWith("failed")).length;
}

function delivery(
  id: string,
  channel: "telegram" | "webhook",
  overrides: Partial<ClaimedDelivery> = {},
): ClaimedDelivery {
  return {
    id,
    channel,
    attemptCount: 0,
    failureCount: 0,
    createdAt: new Date(0),
    event: {
      id: `evt_${id}`,
      type: "domain.available",
      createdAt: new Date(0),
      domainName: "drop.test",
      unicodeName: null,
      previousStatus: "pending_delete",
      status: "available",
      checkedAt: new Date(0),
    },
    webhook: channel === "webhook"
      ? { endpointId: "e1", url: "https://hooks.example.com/a", secret: "0123456789abcdef", enabled: true }
      : { endpointId: null, url: null, secret: null, enabled: null },
    telegram: channel === "telegram" ? { chatId: "42", enabled: true } : { chatId: null, enabled: null },
    ...overrides,
  };
}

function harness(
  deliveries: ClaimedDelivery[],
  scripts: { telegram?: TelegramOutcome[]; webhook?: WebhookOutcome[] },
) {
  const clock = { now: 1_000_000 };
  const { queue, rows } = memoryQueue(clock, deliveries);
  const telegramCalls: number[] = [];
  const webhookCalls: Record<string, string>[] = [];
  const deps: DispatcherDeps = {
    queue,
    sendTelegram: () => {
      telegramCalls.push(clock.now);
      return Promise.resolve(scripts.telegram?.shift() ?? { kind: "sent", httpStatus: 200 });
    },
    postWebhook: (_url, _body, headers) => {
      webhookCalls.push(headers);
      return Promise.resolve(scripts.webhook?.shift() ?? { kind: "delivered", httpStatus: 204 });
    },
    checkTarget: () => Promise.resolve({ verdict: "allowed" }),
    now: () => clock.now,
    sleep: (ms) => {
      clock.now += ms;
      return Promise.resolve();
    },
  };
  return { deps, rows, clock, telegramCalls, webhookCalls };
}

Deno.test("a failed webhook is rescheduled a minute later with the same delivery id", async () => {
  const h = harness([delivery("d1", "webhook")], {
    webhook: [{ kind: "failed", httpStatus: 500, error: "http_500" }],
  });
  const summary = await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 10_000 });
  assertEquals(summary, { delivered: 0, retried: 1, failed: 0, deferred: 0 });
  assertEquals(h.rows.get("d1")!.dueAt - h.clock.now, 60_000);
  h.clock.now += 60_000;
  await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 10_000 });
  assertEquals(h.rows.get("d1")!.status, "delivered");
  assertEquals(h.webhookCalls.map((headers) => headers["X-Service-Delivery"]), ["d1", "d1"]);
});

Deno.test("after the eighth failure a webhook delivery is failed for good", async () => {
  const failure: WebhookOutcome = { kind: "failed", httpStatus: 503, error: "http_503" };
  const h = harness([delivery("d1", "webhook")], { webhook: Array(8).fill(failure) });
  for (let attempt = 0; attempt < 8; attempt++) {
    h.clock.now = Math.max(h.clock.now, h.rows.get("d1")!.dueAt);
    await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 1 });
  }
  assertEquals(h.rows.get("d1")!.status, "failed");
  assertEquals(h.webhookCalls.length, 8);
  assert(h.clock.now - 1_000_000 < 26 * 3_600_000);
});

Deno.test("Telegram 429: retry_after is waited out in the run when it fits, and pauses other messages", async () => {
  const h = harness([delivery("t1", "telegram"), delivery("t2", "telegram")], {
    telegram: [{ kind: "rate_limited", httpStatus: 429, retryAfterMs: 3_000 }],
  });
  const summary = await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 20_000, concurrency: 1 });
  assertEquals(h.rows.get("t1")!.status, "delivered");
  assertEquals(h.rows.get("t2")!.status, "delivered");
  assertEquals(h.telegramCalls.length, 3);
  assert(h.telegramCalls[1] - h.telegramCalls[0] >= 3_000, "the retry waits retry_after");
  assertEquals(summary.deferred, 1, "the second message waited for the pause instead of being sent");
});

Deno.test("Telegram 429 longer than the run: the delivery stays pending until retry_after", async () => {
  const h = harness([delivery("t1", "telegram")], {
    telegram: [{ kind: "rate_limited", httpStatus: 429, retryAfterMs: 120_000 }],
  });
  const start = h.clock.now;
  await dispatchDueDeliveries(h.deps, { deadline: start + 20_000 });
  const row = h.rows.get("t1")!;
  assertEquals(row.status, "pending");
  assertEquals(row.dueAt - start, 120_000);
  assertEquals(h.telegramCalls.length, 1);
});

Deno.test("refused targets, removed channels and permanent Telegram errors fail without retries", async () => {
  const h = harness([
    delivery("refused", "webhook"),
    delivery("deleted", "webhook", {
      webhook: { endpointId: null, url: null, secret: null, enabled: null },
    }),
    delivery("no-chat", "telegram", { telegram: { chatId: null, enabled: null } }),
    delivery("blocked", "telegram"),
  ], { telegram: [{ kind: "failed", httpStatus: 403, error: "telegram_403", permanent: true }] });
  h.deps.checkTarget = () => Promise.resolve({ verdict: "refused", reason: "target_not_allowed: private" });
  await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 10_000, concurrency: 1 });
  for (const id of ["refused", "deleted", "no-chat", "blocked"]) {
    assertEquals(h.rows.get(id)!.status, "failed", id);
  }
  assertEquals(h.webhookCalls.length, 0, "nothing is sent to a refused target");
  assert(h.rows.get("refused")!.history[0].startsWith("refused"));
});

Deno.test("nothing starts after the deadline: claimed deliveries are given back", async () => {
  const h = harness([delivery("late", "webhook")], {});
  const claim = h.deps.queue.claim;
  h.deps.queue = {
    ...h.deps.queue,
    claim: async (limit, lease) => {
      const batch = await claim(limit, lease);
      h.clock.now += 5; // the claim itself took the last of the time
      return batch;
    },
  };
  const summary = await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 1 });
  assertEquals(summary, { delivered: 0, retried: 0, failed: 0, deferred: 1 });
  assertEquals(h.rows.get("late")!.status, "pending");
  assertEquals(h.rows.get("late")!.history, ["deferred"]);
  assertEquals(h.webhookCalls.length, 0);
});

Deno.test("a run sends at most maxDeliveries", async () => {
  const deliveries = Array.from({ length: 12 }, (_, i) => delivery(`w${i}`, "webhook"));
  const h = harness(deliveries, {});
  const summary = await dispatchDueDeliveries(h.deps, { deadline: h.clock.now + 10_000, maxDeliveries: 5 });
  assertEquals(summary.delivered, 5);
  assertEquals([...h.rows.values()].filter((row) => row.status === "pending").length, 7);
});
