/**
 * The delivery run's decisions, with an in-memory outbox (one in flight per lane, like the database's
 * claim), a scripted Telegram pace and scripted channels (no network, no database).
 */
import { assert, assertEquals } from "../support/assert.ts";
import type {
  Attempt,
  ClaimedDelivery,
  DeliveryQueue,
  TelegramPace,
} from "../../supabase/functions/_shared/alerts/delivery_queue.ts";
import {
  dispatchDueDeliveries,
  type DispatcherDeps,
  type DispatchOptions,
} from "../../supabase/functions/_shared/alerts/dispatcher.ts";
import { standardWebhookSignature } from "../../supabase/functions/_shared/alerts/signature.ts";
import { webhookBody } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import type { TelegramOutcome } from "../../supabase/functions/_shared/alerts/telegram_client.ts";
import type { WebhookOutcome } from "../../supabase/functions/_shared/alerts/webhook_sender.ts";
import type { JudgedTarget } from "../../supabase/functions/_shared/net/url_policy.ts";

interface Row {
  delivery: ClaimedDelivery;
  status: "pending" | "delivered" | "failed";
  dueAt: number;
  leased: boolean;
  settledAt: number;
  history: string[];
}

function memoryQueue(clock: { now: number }, deliveries: ClaimedDelivery[]) {
  const rows = new Map<string, Row>(
    deliveries.map((
      d,
    ) => [d.id, { delivery: d, status: "pending", dueAt: 0, leased: false, settledAt: 0, history: [] }]),
  );
  const busyLanes = new Set<string>();
  const release = (row: Row) => {
    row.leased = false;
    busyLanes.delete(row.delivery.laneKey);
  };
  const queue: DeliveryQueue = {
    claim(limit) {
      const batch: Row[] = [];
      for (const row of rows.values()) {
        if (batch.length >= limit) break;
        if (row.status !== "pending" || row.leased || row.dueAt > clock.now) continue;
        if (busyLanes.has(row.delivery.laneKey)) continue;
        row.leased = true;
        busyLanes.add(row.delivery.laneKey);
        batch.push(row);
      }
      return Promise.resolve(batch.map((row) => ({ ...row.delivery, failureCount: failures(row) })));
    },
    settle(id, attempt: Attempt, next) {
      const row = rows.get(id)!;
      release(row);
      row.settledAt = clock.now;
      if (attempt.outcome === "delivered") {
        row.status = "delivered";
        row.history.push(`delivered ${attempt.httpStatus}`);
      } else if (next === null) {
        row.status = "failed";
        row.history.push(`${attempt.outcome} ${attempt.error} (final)`);
      } else {
        row.dueAt = next.getTime();
        row.history.push(`${attempt.outcome} ${attempt.error}`);
      }
      return Promise.resolve();
    },
    defer(id, notBefore) {
      const row = rows.get(id)!;
      release(row);
      row.dueAt = notBefore.getTime();
      row.history.push("deferred");
      return Promise.resolve();
    },
    handOver: () => Promise.resolve(),
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
      ? {
        endpointId: "e1",
        url: "https://hooks.example.com/a",
        secret: "0123456789abcdef",
        previousSecret: null,
        enabled: true,
      }
      : { endpointId: null, url: null, secret: null, previousSecret: null, enabled: null },
    telegram: channel === "telegram" ? { chatId: "42", enabled: true } : { chatId: null, enabled: null },
    laneKey: `${channel}:${id}`,
    probe: false,
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
  const webhookTargets: JudgedTarget[] = [];
  const pace = { pausedUntil: 0, nextFree: 0, intervalMs: 0, maxWaitMs: 1_000, pauses: [] as number[] };
  const telegramPace: TelegramPace = {
    reserve() {
      const at = Math.max(clock.now, pace.pausedUntil, pace.nextFree);
      if (at > clock.now + pace.maxWaitMs) return Promise.resolve({ granted: false, sendAt: new Date(at) });
      pace.nextFree = at + pace.intervalMs;
      return Promise.resolve({ granted: true, sendAt: new Date(at) });
    },
    pause(until) {
      pace.pausedUntil = Math.max(pace.pausedUntil, until.getTime());
      pace.pauses.push(until.getTime());
      return Promise.resolve();
    },
  };
  const deps: DispatcherDeps = {
    queue,
    telegramPace,
    sendTelegram: () => {
      telegramCalls.push(clock.now);
      return Promise.resolve(scripts.telegram?.shift() ?? { kind: "sent", httpStatus: 200 });
    },
    postWebhook: (target, _body, headers) => {
      webhookTargets.push(target);
      webhookCalls.push(headers);
      return Promise.resolve(scripts.webhook?.shift() ?? { kind: "delivered", httpStatus: 204 });
    },
    checkTarget: (url) =>
      Promise.resolve({
        verdict: "allowed",
        target: { url, host: new URL(url).hostname, addresses: [{ address: "192.0.2.10", family: 4 }] },
      }),
    now: () => clock.now,
    // Time passes when the run waits; a macrotask lets every send in flight settle first.
    sleep: (ms) => {
      clock.now += ms;
      return new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
  const run = async (options: Partial<DispatchOptions> = {}) => {
    const summary = await dispatchDueDeliveries(deps, {
      deadline: clock.now + 10_000,
      concurrency: 32,
      leaseSeconds: 60,
      maxDeliveries: 1_000,
      idleLingerMs: 0,
      ...options,
    });
    // A fake sleep that lost its race is a 0 ms timer still pending: let it fire inside the test.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return summary;
  };
  return { deps, rows, clock, pace, telegramCalls, webhookCalls, webhookTargets, run };
}

Deno.test("a failed webhook is rescheduled a minute later with the same delivery id", async () => {
  const h = harness([delivery("d1", "webhook")], {
    webhook: [{ kind: "failed", httpStatus: 500, error: "http_500" }],
  });
  const summary = await h.run();
  assertEquals([summary.delivered, summary.retried, summary.failed, summary.deferred], [0, 1, 0, 0]);
  const row = h.rows.get("d1")!;
  assertEquals(row.dueAt - row.settledAt, 60_000);
  h.clock.now = row.dueAt;
  await h.run();
  assertEquals(row.status, "delivered");
  assertEquals(h.webhookCalls.map((headers) => headers["X-Service-Delivery"]), ["d1", "d1"]);
  // Each attempt is sent to the target its own check judged (URL, host and the addresses it resolved to).
  assertEquals(h.webhookTargets[1], {
    url: "https://hooks.example.com/a",
    host: "hooks.example.com",
    addresses: [{ address: "192.0.2.10", family: 4 }],
  });
  // Standard Webhooks: the same webhook-id, a fresh timestamp, and a signature valid for that timestamp.
  const [first, retry] = h.webhookCalls;
  assertEquals([first["webhook-id"], retry["webhook-id"]], ["d1", "d1"]);
  // Unix seconds of each attempt: the retry was sent a minute (plus the run's own idle waits) later.
  const gap = Number(retry["webhook-timestamp"]) - Number(first["webhook-timestamp"]);
  assert(gap >= 60 && gap <= 62, `timestamps ${gap} s apart`);
  assert(Number(retry["webhook-timestamp"]) <= Math.floor(h.clock.now / 1000));
  const body = webhookBody(h.rows.get("d1")!.delivery.event);
  const expected = await standardWebhookSignature(
    ["0123456789abcdef"],
    "d1",
    Number(retry["webhook-timestamp"]),
    body,
  );
  assertEquals(retry["webhook-signature"], expected);
  assert(first["webhook-signature"] !== retry["webhook-signature"]);
});

Deno.test("after the eighth failure a webhook delivery is failed for good", async () => {
  const failure: WebhookOutcome = { kind: "failed", httpStatus: 503, error: "http_503" };
  const h = harness([delivery("d1", "webhook")], { webhook: Array(8).fill(failure) });
  for (let attempt = 0; attempt < 8; attempt++) {
    h.clock.now = Math.max(h.clock.now, h.rows.get("d1")!.dueAt);
    await h.run({ deadline: h.clock.now + 1 });
  }
  assertEquals(h.rows.get("d1")!.status, "failed");
  assertEquals(h.webhookCalls.length, 8);
  assert(h.clock.now - 1_000_000 < 26 * 3_600_000);
});

Deno.test("dozens of sends are in flight at once, one per lane", async () => {
  const deliveries = [
    ...Array.from({ length: 40 }, (_, i) => delivery(`w${i}`, "webhook")),
    // three more on lane w0: they wait for it
    ...Array.from({ length: 3 }, (_, i) => delivery(`w0-${i}`, "webhook", { laneKey: "webhook:w0" })),
  ];
  const h = harness(deliveries, {});
  let inFlight = 0;
  let most = 0;
  const lanesInFlight = new Set<string>();
  // Sends are held until 32 are in flight at once (or 1 s has passed), then answer.
  let open = () => {};
  const gate = new Promise<void>((resolve) => open = resolve);
  const timer = setTimeout(() => open(), 1_000);
  h.deps.postWebhook = async (_target, _body, headers) => {
    const lane = h.rows.get(headers["X-Service-Delivery"])!.delivery.laneKey;
    assert(!lanesInFlight.has(lane), `two sends in flight on ${lane}`);
    lanesInFlight.add(lane);
    inFlight++;
    most = Math.max(most, inFlight);
    if (inFlight >= 32) open();
    await gate;
    inFlight--;
    lanesInFlight.delete(lane);
    return { kind: "delivered", httpStatus: 200 };
  };
  const summary = await h.run({ concurrency: 32, pollMs: 1 });
  clearTimeout(timer);
  assertEquals(summary.delivered, 43);
  assertEquals(most, 32, "the pool is full, not four at a time");
});

Deno.test("a probe of an open breaker is counted", async () => {
  const h = harness([delivery("p1", "webhook", { probe: true })], {});
  const summary = await h.run();
  assertEquals([summary.delivered, summary.probes], [1, 1]);
});

Deno.test("Telegram: a send waits for its slot of the project-wide pace", async () => {
  const h = harness([delivery("t1", "telegram"), delivery("t2", "telegram")], {});
  h.pace.intervalMs = 400;
  const start = h.clock.now;
  await h.run();
  assertEquals(h.telegramCalls.length, 2);
  assert(h.telegramCalls[1] - start >= 400, "the second message waited for its slot");
});

Deno.test("Telegram: a slot further away than the wait limit gives the delivery back, unattempted", async () => {
  const h = harness([delivery("t1", "telegram")], {});
  h.pace.pausedUntil = h.clock.now + 5_000;
  const summary = await h.run({ deadline: h.clock.now + 2_000 });
  assertEquals(summary.deferred, 1);
  assertEquals(h.telegramCalls.length, 0);
  const row = h.rows.get("t1")!;
  assertEquals([row.status, row.history], ["pending", ["deferred"]]);
  assertEquals(row.dueAt, h.pace.pausedUntil);
});

Deno.test("Telegram 429: every Telegram send pauses for retry_after, and the message is sent after it", async () => {
  const h = harness([delivery("t1", "telegram"), delivery("t2", "telegram")], {
    telegram: [{ kind: "rate_limited", httpStatus: 429, retryAfterMs: 3_000 }],
  });
  const summary = await h.run({ deadline: h.clock.now + 20_000, concurrency: 1 });
  assertEquals(h.rows.get("t1")!.status, "delivered");
  assertEquals(h.rows.get("t2")!.status, "delivered");
  assertEquals(h.telegramCalls.length, 3);
  assertEquals(h.pace.pauses.length, 1, "the pause is shared (Postgres)");
  assert(h.telegramCalls[1] - h.telegramCalls[0] >= 3_000, "nothing is sent during retry_after");
  assert(summary.deferred >= 1, "a message waited for the pause instead of being sent");
  assertEquals(h.rows.get("t1")!.history[0], "rate_limited telegram_429: retry after 3 s");
});

Deno.test("Telegram 429 longer than the run: the delivery stays pending until retry_after", async () => {
  const h = harness([delivery("t1", "telegram")], {
    telegram: [{ kind: "rate_limited", httpStatus: 429, retryAfterMs: 120_000 }],
  });
  await h.run({ deadline: h.clock.now + 20_000 });
  const row = h.rows.get("t1")!;
  assertEquals(row.status, "pending");
  assertEquals(row.dueAt - row.settledAt, 120_000);
  assertEquals(h.telegramCalls.length, 1);
});

Deno.test("refused targets, removed channels and permanent Telegram errors fail without retries", async () => {
  const h = harness([
    delivery("refused", "webhook"),
    delivery("deleted", "webhook", {
      webhook: { endpointId: null, url: null, secret: null, previousSecret: null, enabled: null },
    }),
    delivery("no-chat", "telegram", { telegram: { chatId: null, enabled: null } }),
    delivery("blocked", "telegram"),
  ], { telegram: [{ kind: "failed", httpStatus: 403, error: "telegram_403", permanent: true }] });
  h.deps.checkTarget = () => Promise.resolve({ verdict: "refused", reason: "target_not_allowed: private" });
  await h.run({ concurrency: 1 });
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
  const summary = await h.run({ deadline: h.clock.now + 1 });
  assertEquals([summary.delivered, summary.retried, summary.failed, summary.deferred], [0, 0, 0, 1]);
  assertEquals(h.rows.get("late")!.status, "pending");
  assertEquals(h.rows.get("late")!.history, ["deferred"]);
  assertEquals(h.webhookCalls.length, 0);
});

Deno.test("a run sends at most maxDeliveries", async () => {
  const deliveries = Array.from({ length: 12 }, (_, i) => delivery(`w${i}`, "webhook"));
  const h = harness(deliveries, {});
  const summary = await h.run({ maxDeliveries: 5 });
  assertEquals([summary.delivered, summary.stopped_because], [5, "delivery_limit"]);
  assertEquals([...h.rows.values()].filter((row) => row.status === "pending").length, 7);
});

Deno.test("an idle run lingers for alerts written just after it started", async () => {
  const h = harness([], {});
  const late = delivery("late", "webhook");
  let claims = 0;
  const claim = h.deps.queue.claim;
  h.deps.queue = {
    ...h.deps.queue,
    claim: (limit, lease) => {
      if (++claims === 3) return Promise.resolve([late]);
      return claim(limit, lease);
    },
    settle: () => Promise.resolve(),
  };
  const summary = await h.run({ idleLingerMs: 1_000 });
  assertEquals(summary.delivered, 1);
  assertEquals(h.webhookCalls.length, 1);
});
