/**
 * Fair delivery end to end: the delivery run (`POST /rdap-poller/deliveries`) through the real
 * gateway and database, with a local webhook receiver (endpoints that never answer, fail, or answer
 * late) and the fake Telegram Bot API. Alerts are written straight into the outbox, as the poller's
 * transition trigger does, so each step controls exactly what is due. Timeouts are shortened so every
 * step is bounded (a never-answering receiver costs 1.5 s per attempt here instead of 10 s).
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { startNetWorker } from "../../platform/pg_net/worker.ts";
import {
  removePollerVaultSecrets,
  setWebhookTargetPolicy,
  storePollerVaultSecrets,
} from "../../platform/postgres/vault.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl, startStack, type TestStack } from "../support/stack.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook_receiver.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface DeliverySummary {
  delivered: number;
  retried: number;
  failed: number;
  deferred: number;
  probes: number;
  stopped_because: string;
  duration_ms: number;
}

async function createWebhook(sql: postgres.Sql, account: CreatedAccount, url: string): Promise<string> {
  const [row] = await asAccount(
    sql,
    account,
    (tx) => tx<{ id: string }[]>`select public.create_webhook_endpoint(${url}, 'fair', null) as id`,
  );
  return row.id;
}

/**
 * Writes `count` due `domain.available` alerts (one event and one delivery each) for the account on one
 * channel, `ageSeconds` old, oldest first. Returns the delivery ids in that order.
 */
async function queueAlerts(
  sql: postgres.Sql,
  account: CreatedAccount,
  channel: { webhook: string } | "telegram",
  count: number,
  ageSeconds = 0,
): Promise<string[]> {
  const endpointId = channel === "telegram" ? null : channel.webhook;
  const rows = await sql<{ id: string; created_at: Date }[]>`
    with events as (
      insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at, created_at)
      select ${account.user_id}, 'domain.available', 'fair-' || i || '-' || substr(md5(random()::text), 1, 8) || '.com',
             'pending_delete', 'available', now(), now() - make_interval(secs => ${ageSeconds} - i * 0.001)
        from generate_series(1, ${count}) as i
      returning id, created_at
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, next_attempt_at, created_at)
    select e.id, ${account.user_id}, ${channel === "telegram" ? "telegram" : "webhook"}, ${endpointId}::uuid,
           e.created_at, e.created_at
      from events as e
    returning id, created_at`;
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime()).map((row) => row.id);
}

/** The account's Telegram chat, written directly (how the app links a chat is not this file's concern). */
async function saveChat(sql: postgres.Sql, account: CreatedAccount, chatId: string): Promise<void> {
  await sql`insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
            values (${account.user_id}, ${chatId}, now())
            on conflict (user_id) do update set telegram_chat_id = excluded.telegram_chat_id,
              telegram_linked_at = now(), telegram_enabled = true`;
}

async function runDeliveries(stack: TestStack): Promise<DeliverySummary> {
  const response = await fetch(`${stack.functionsBase}/rdap-poller/deliveries`, {
    method: "POST",
    headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}`, "content-type": "application/json" },
    body: "{}",
  });
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  return body as DeliverySummary;
}

async function statusOf(sql: postgres.Sql, ids: string[]) {
  return await sql<{ id: string; status: string; attempt_count: number; failure_count: number }[]>`
    select id, status, attempt_count, failure_count from public.alert_deliveries
     where id = any(${ids}::uuid[]) order by created_at, id`;
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("fair delivery end to end", options, async (t) => {
  const telegram: FakeTelegram = startFakeTelegram();
  const receiver: WebhookReceiver = startWebhookReceiver();
  const stack = await startStack({
    TELEGRAM_API_BASE: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    WEBHOOK_CONNECT_TIMEOUT_MS: "500",
    WEBHOOK_TIMEOUT_MS: "1500",
    DELIVERY_TIME_BUDGET_MS: "4000",
    DELIVERY_IDLE_LINGER_MS: "200",
  });
  const { sql } = stack;
  const accounts: string[] = [];
  const account = async () => {
    const created = await stack.account("pro");
    accounts.push(created.user_id);
    return created;
  };
  const chatBase = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
  await setWebhookTargetPolicy(sql, true);
  // Another file's Telegram 429 may have paused Telegram for this database; start from a clean pace.
  await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;

  try {
    await t.step("200 deliveries to 10 never-answering endpoints delay nobody else's alerts", async () => {
      const dead = await account();
      const deadHooks: string[] = [];
      for (let i = 0; i < 10; i++) {
        deadHooks.push(await createWebhook(sql, dead, receiver.endpoint(`dead${i}`, { hang: true })));
      }
      for (const hook of deadHooks) await queueAlerts(sql, dead, { webhook: hook }, 20, 120);

      const others: string[] = [];
      for (let i = 0; i < 3; i++) {
        const other = await account();
        const hook = await createWebhook(sql, other, receiver.endpoint(`healthy${i}`));
        others.push(...await queueAlerts(sql, other, { webhook: hook }, 1));
      }
      for (let i = 0; i < 2; i++) {
        const other = await account();
        await saveChat(sql, other, String(chatBase + i));
        others.push(...await queueAlerts(sql, other, "telegram", 1));
      }

      const startedAt = Date.now();
      const summary = await runDeliveries(stack);
      assertEquals(
        (await statusOf(sql, others)).map((row) => row.status),
        ["delivered", "delivered", "delivered", "delivered", "delivered"],
        JSON.stringify(summary),
      );
      for (let i = 0; i < 3; i++) {
        const [hook] = receiver.accepted(`healthy${i}`);
        assert(hook.at - startedAt < 1_500, `healthy${i} waited ${hook.at - startedAt} ms`);
      }
      for (let i = 0; i < 2; i++) assertEquals(telegram.delivered(String(chatBase + i)).length, 1);
      for (let i = 0; i < 10; i++) {
        // One at a time: the next request to a dead endpoint only after the last one timed out (1.5 s) and
        // its connection closed. Counted by the receiver itself: arrival gaps also hold the sender's own
        // delays (the first request of an isolate loads the HTTP client after its timeout started).
        const arrivals = receiver.received.filter((r) => r.endpoint === `dead${i}`).length;
        assert(arrivals >= 1 && arrivals <= 4, `dead${i}: ${arrivals} requests`);
        assertEquals(receiver.mostInFlight(`dead${i}`), 1, `dead${i}: two requests in flight`);
      }
      // (The bench runs the dead endpoints until their breakers open; here they would only cost time.)
      await sql`update public.alert_deliveries set status = 'failed', failed_at = now(), last_error = 'e2e cleanup'
                where status = 'pending' and user_id = ${dead.user_id}`;
    });

    await t.step(
      "a breaker opens after 5 failures, waits, and its probe lets the rest out once",
      async () => {
        const owner = await account();
        const hook = await createWebhook(
          sql,
          owner,
          receiver.endpoint("flaky", { failWith: [500, 500, 503, 500, 500] }),
        );
        const ids = await queueAlerts(sql, owner, { webhook: hook }, 8, 60);
        const requests = () => receiver.received.filter((r) => r.endpoint === "flaky");

        await runDeliveries(stack);
        assertEquals(requests().length, 5, "five failures, then nothing");
        const breaker = async () => {
          const [row] = await asAccount(
            sql,
            owner,
            (tx) =>
              tx<{ breaker_state: string; consecutive_failures: number; next_probe_at: Date | null }[]>`
              select breaker_state, consecutive_failures, next_probe_at
                from public.webhook_endpoint_breakers where webhook_endpoint_id = ${hook}`,
          );
          return row;
        };
        const open = await breaker();
        assertEquals([open.breaker_state, open.consecutive_failures], ["open", 5]);
        const probeInMs = open.next_probe_at!.getTime() - Date.now();
        assert(probeInMs > 50_000 && probeInMs <= 60_000, `next probe in ${probeInMs} ms`);
        const waiting = (await statusOf(sql, ids)).slice(5);
        assertEquals(
          waiting.map((row) => [row.status, row.attempt_count, row.failure_count]),
          [["pending", 0, 0], ["pending", 0, 0], ["pending", 0, 0]],
          "waiting deliveries keep their whole retry budget",
        );

        // While it is open, nothing is attempted, even though three deliveries are due.
        await runDeliveries(stack);
        assertEquals(requests().length, 5);

        // The probe time comes: one probe succeeds, the breaker closes, the waiting deliveries go out.
        await sql`update public.alert_delivery_lanes set next_probe_at = now() where webhook_endpoint_id = ${hook}`;
        const probed = await runDeliveries(stack);
        assertEquals(probed.probes, 1);
        assertEquals((await breaker()).breaker_state, "closed");
        assertEquals(requests().length, 8);

        // The five that failed come back on their own retry schedule.
        await sql`update public.alert_deliveries set next_attempt_at = now() where id = any(${ids}::uuid[])`;
        await runDeliveries(stack);
        const finalRows = await statusOf(sql, ids);
        assert(finalRows.every((row) => row.status === "delivered"), JSON.stringify(finalRows));
        const accepted = receiver.accepted("flaky").map((r) => r.headers["x-service-delivery"]);
        assertEquals(accepted.length, 8, "each delivered exactly once");
        assertEquals([...accepted].sort(), [...ids].sort(), "under their original delivery ids");
      },
    );

    await t.step("two parallel delivery runs never send the same delivery twice", async () => {
      const ids: string[] = [];
      const names: string[] = [];
      for (let i = 0; i < 12; i++) {
        const owner = await account();
        const name = `parallel${i}`;
        names.push(name);
        const hook = await createWebhook(sql, owner, receiver.endpoint(name, { delayMs: 20 }));
        ids.push(...await queueAlerts(sql, owner, { webhook: hook }, 4));
        if (i < 3) {
          await saveChat(sql, owner, String(chatBase + 10 + i));
          ids.push(...await queueAlerts(sql, owner, "telegram", 2));
        }
      }
      await Promise.all([runDeliveries(stack), runDeliveries(stack)]);
      const rows = await statusOf(sql, ids);
      assert(
        rows.every((row) => row.status === "delivered" && row.attempt_count === 1),
        JSON.stringify(rows),
      );
      const sent = names.flatMap((name) => receiver.received.filter((r) => r.endpoint === name));
      const sentIds = sent.map((r) => r.headers["x-service-delivery"]);
      assertEquals(sentIds.length, new Set(sentIds).size, "no delivery id twice");
      assertEquals(sentIds.length, 48);
      for (const name of names) assertEquals(receiver.mostInFlight(name), 1, `one at a time to ${name}`);
      for (let i = 0; i < 3; i++) assertEquals(telegram.delivered(String(chatBase + 10 + i)).length, 2);
      const calls = telegram.calls.filter((call) => call.chatId === String(chatBase + 10));
      // Sends start a second apart (the pace's exact spacing is tested in tests/database); arrivals at the
      // fake can be closer when the first request was slowed down on a busy machine.
      assertEquals(calls.length, 2);
      assert(
        calls[1].at - calls[0].at >= 500,
        `one message per second to a chat (${calls[1].at - calls[0].at} ms)`,
      );
    });

    await t.step("new alerts wake a delivery run at once; pg_cron runs one every minute", async () => {
      const [job] = await sql<{ schedule: string; command: string }[]>`
        select schedule, command from cron.job where jobname = 'alert-delivery'`;
      assertEquals(job.schedule, "* * * * *");
      assertEquals(job.command.trim(), "select private.invoke_alert_delivery()");

      const owner = await account();
      const hook = await createWebhook(sql, owner, receiver.endpoint("woken"));
      await storePollerVaultSecrets(sql, {
        projectUrl: stack.gateway.url,
        pollerSecret: Deno.env.get("POLLER_SECRET")!,
      });
      await sql`update public.alert_delivery_wake set last_wake_at = '-infinity'`;
      const worker = await startNetWorker(databaseUrl(), 100);
      try {
        const startedAt = Date.now();
        const [id] = await queueAlerts(sql, owner, { webhook: hook }, 1);
        await waitFor("the woken run to deliver", () => receiver.accepted("woken").length === 1, 10_000);
        assertEquals(receiver.accepted("woken")[0].headers["x-service-delivery"], id);
        assert(Date.now() - startedAt < 5_000);
      } finally {
        await removePollerVaultSecrets(sql);
        await worker.close();
      }
    });
  } finally {
    await sql`update public.alert_deliveries set status = 'failed', failed_at = now(), last_error = 'e2e cleanup'
              where status = 'pending' and user_id = any(${accounts}::uuid[])`.catch(() => {});
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await receiver.close();
    await telegram.close();
  }
});
