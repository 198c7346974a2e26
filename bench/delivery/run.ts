/**
 * `deno task bench:delivery`: the delivery targets (fairness, breakers, throughput), side by side in one run, on a throwaway stack with the
 * default delivery settings (connect 3 s, request 10 s, breaker after 5 failures, 32 in flight).
 *
 *  - one account with 10 webhook endpoints that accept the request and never answer, 1,000 due deliveries;
 *  - 50 other accounts, each with one fresh alert (25 on a healthy webhook, 25 on a Telegram chat):
 *    every one must be delivered within one poll interval (60 s) + 5 s of its event;
 *  - the dead endpoints' breakers must open within 5 minutes;
 *  - then 2,000 deliveries to 200 healthy endpoints: throughput must be at least 50 deliveries per second.
 *
 * Delivery runs are started as on Supabase: the database wakes one when alerts are written (trigger →
 * `invoke_alert_delivery()` → pg_net, here the local stand-in) and the pg_cron job `alert-delivery`
 * (simulated: its command every 60 s). Prints the figures as JSON and exits non-zero when a target is missed.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { createAccount } from "../../scripts/lib/accounts.ts";
import { startGateway } from "../../platform/gateway.ts";
import { startNetWorker } from "../../platform/pg_net/worker.ts";
import { clusterAt, freePort, stopCluster } from "../../platform/postgres/cluster.ts";
import { applyFunctionEnvironment, prepareDatabase } from "../../platform/stack.ts";
import { setWebhookTargetPolicy, storePollerVaultSecrets } from "../../platform/postgres/vault.ts";
import { startFakeTelegram } from "../../tests/fakes/telegram_server.ts";
import { startWebhookReceiver } from "../../tests/fakes/webhook_receiver.ts";

const POLL_INTERVAL_MS = 60_000;
const log = (text: string) => console.log(`[bench:delivery] ${text}`);

async function main(): Promise<void> {
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-bench-" });
  const cluster = clusterAt(baseDir, freePort());
  const cleanups: (() => Promise<unknown>)[] = [
    () => Deno.remove(baseDir, { recursive: true }),
    () => stopCluster(cluster),
  ];
  let failed = false;
  try {
    await prepareDatabase(cluster);
    const telegram = startFakeTelegram();
    const receiver = startWebhookReceiver();
    cleanups.unshift(() => telegram.close(), () => receiver.close());
    Deno.env.set("TELEGRAM_API_BASE", telegram.url);
    Deno.env.set("TELEGRAM_BOT_TOKEN", telegram.token);
    Deno.env.set("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true");
    Deno.env.set("SUPABASE_DB_URL", cluster.url);
    const gateway = await startGateway({ port: 0 });
    const environment = await applyFunctionEnvironment({
      supabaseUrl: gateway.url,
      databaseUrl: cluster.url,
    });
    const sql = postgres.connect(cluster.url, { max: 4, onnotice: () => {} });
    const netWorker = await startNetWorker(cluster.url, 1_000);
    cleanups.unshift(() => netWorker.close(), () => sql.end({ timeout: 2 }), () => gateway.close());
    await storePollerVaultSecrets(sql, { projectUrl: gateway.url, pollerSecret: environment.POLLER_SECRET });
    await setWebhookTargetPolicy(sql, true);

    log("setting up: 1 account with 10 never-answering endpoints, 50 other accounts");
    const dead = await createAccount(sql, "dead@bench.test", "pro");
    const deadHooks: string[] = [];
    for (let i = 0; i < 10; i++) {
      deadHooks.push(await webhook(sql, dead.user_id, receiver.endpoint(`dead${i}`, { hang: true })));
    }
    const others: { userId: string; channel: { webhook: string } | "telegram" }[] = [];
    for (let i = 0; i < 50; i++) {
      const account = await createAccount(sql, `other${i}@bench.test`, "pro");
      if (i % 2 === 0) {
        others.push({
          userId: account.user_id,
          channel: { webhook: await webhook(sql, account.user_id, receiver.endpoint(`healthy${i}`)) },
        });
      } else {
        await sql`insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at) values
                  (${account.user_id}, ${String(5_000_000 + i)}, now())
                  on conflict (user_id) do update set telegram_chat_id = excluded.telegram_chat_id,
                    telegram_linked_at = now()`;
        others.push({ userId: account.user_id, channel: "telegram" });
      }
    }

    const startedAt = Date.now();
    const cron = setInterval(
      () => void sql`select private.invoke_alert_delivery()`.catch(() => {}),
      POLL_INTERVAL_MS,
    );
    cleanups.unshift(() => Promise.resolve(clearInterval(cron)));
    for (const hook of deadHooks) await queue(sql, dead.user_id, { webhook: hook }, 100);
    log("1,000 deliveries to the dead endpoints are due; the database woke a delivery run");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const otherIds: string[] = [];
    for (const other of others) otherIds.push(...await queue(sql, other.userId, other.channel, 1));
    log("50 fresh alerts for 50 other accounts written");

    await waitUntil(async () => (await count(sql, otherIds, "delivered")) === 50, 5 * POLL_INTERVAL_MS);
    const latencies = await sql<{ ms: number }[]>`
      select (extract(epoch from (delivered_at - created_at)) * 1000)::float8 as ms
        from public.alert_deliveries where id = any(${otherIds}::uuid[]) and status = 'delivered'
       order by ms`;
    const latencyMs = latencies.map((row) => Math.round(row.ms));
    log(`50 alerts delivered: median ${latencyMs[24]} ms, max ${latencyMs[49]} ms after their event`);

    await waitUntil(async () => {
      const [row] = await sql<{ open: number }[]>`
        select count(*)::int as open from public.alert_delivery_lanes
         where user_id = ${dead.user_id} and breaker_state in ('open', 'half_open')`;
      return row.open === 10;
    }, 6 * 60_000);
    const [breakers] = await sql<{ last_opened_ms: number; attempts: number }[]>`
      select max(extract(epoch from l.opened_at) * 1000 - ${startedAt})::float8 as last_opened_ms,
             (select count(*)::int from public.alert_delivery_attempts a where a.user_id = ${dead.user_id}) as attempts
        from public.alert_delivery_lanes as l where l.user_id = ${dead.user_id}`;
    log(
      `all 10 dead breakers open; the last ${Math.round(breakers.last_opened_ms / 1000)} s after the start`,
    );

    log("throughput: 2,000 deliveries to 200 healthy endpoints");
    const bulkHooks: { userId: string; hook: string }[] = [];
    for (let i = 0; i < 200; i++) {
      const account = await createAccount(sql, `bulk${i}@bench.test`, "pro");
      bulkHooks.push({
        userId: account.user_id,
        hook: await webhook(sql, account.user_id, receiver.endpoint(`bulk${i}`)),
      });
    }
    const bulkStart = Date.now();
    // One statement: one wake-up; a run that reaches DELIVERY_MAX_PER_RUN hands over to a fresh one.
    const bulkIds = (await sql<{ id: string }[]>`
      with targets as (
        select * from unnest(${bulkHooks.map((h) => h.userId)}::uuid[], ${
      bulkHooks.map((h) => h.hook)
    }::uuid[])
          as t(user_id, hook)
      ),
      events as (
        insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
        select t.user_id, 'domain.available', 'bulk-' || i || '-' || t.hook || '.com', 'pending_delete',
               'available', now()
          from targets as t, generate_series(1, 10) as i
        returning id, user_id, domain_name
      )
      insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
      select e.id, e.user_id, 'webhook', t.hook
        from events as e join targets as t on e.domain_name like '%-' || t.hook || '.com'
      returning id`).map((row) => row.id);
    if (bulkIds.length !== 2_000) throw new Error(`bench: ${bulkIds.length} bulk deliveries written`);
    await waitUntil(async () => (await count(sql, bulkIds, "delivered")) === 2_000, 5 * POLL_INTERVAL_MS);
    const [span] = await sql<{ seconds: number }[]>`
      select extract(epoch from max(delivered_at) - min(a.first_at))::float8 as seconds
        from public.alert_deliveries as d,
             lateral (select min(attempted_at) as first_at from public.alert_delivery_attempts
                       where delivery_id = any(${bulkIds}::uuid[])) as a
       where d.id = any(${bulkIds}::uuid[])`;
    const throughput = 2_000 / span.seconds;
    log(
      `2,000 delivered in ${span.seconds.toFixed(1)} s (${Date.now() - bulkStart} ms wall) = ${
        throughput.toFixed(0)
      }/s`,
    );

    const figures = {
      other_alerts: 50,
      other_alert_latency_ms: { median: latencyMs[24], max: latencyMs[49] },
      target_latency_ms: POLL_INTERVAL_MS + 5_000,
      dead_breakers_open_after_s: Math.round(breakers.last_opened_ms / 1000),
      dead_endpoint_attempts: breakers.attempts,
      target_breakers_open_s: 300,
      healthy_throughput_per_s: Math.round(throughput),
      target_throughput_per_s: 50,
    };
    console.log(JSON.stringify(figures, null, 2));
    failed = latencyMs[49] > figures.target_latency_ms || figures.dead_breakers_open_after_s > 300 ||
      throughput < 50;
    log(failed ? "a target was missed" : "every target met");
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
  Deno.exit(failed ? 1 : 0);
}

async function webhook(sql: postgres.Sql, userId: string, url: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into public.webhook_endpoints (user_id, url, description) values (${userId}, ${url}, 'bench') returning id`;
  return row.id;
}

/** `count` due domain.available alerts (event + delivery), `ageSeconds` old; returns the delivery ids. */
async function queue(
  sql: postgres.Sql,
  userId: string,
  channel: { webhook: string } | "telegram",
  count: number,
  ageSeconds = 0,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    with events as (
      insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at, created_at)
      select ${userId}, 'domain.available', 'bench-' || i || '-' || substr(md5(random()::text), 1, 8) || '.com',
             'pending_delete', 'available', now(), clock_timestamp() - make_interval(secs => ${ageSeconds})
        from generate_series(1, ${count}) as i
      returning id, created_at
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, next_attempt_at, created_at)
    select e.id, ${userId}, ${channel === "telegram" ? "telegram" : "webhook"},
           ${channel === "telegram" ? null : channel.webhook}::uuid, e.created_at, e.created_at
      from events as e
    returning id`;
  return rows.map((row) => row.id);
}

async function count(sql: postgres.Sql, ids: string[], status: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from public.alert_deliveries where id = any(${ids}::uuid[]) and status = ${status}`;
  return row.n;
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`bench: a condition did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

await main();
