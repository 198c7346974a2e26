/**
 * The delivery queue's SQL under concurrency: round-robin claiming across accounts then lanes,
 * one delivery in flight per lane across parallel claims, the breaker's states, and Telegram's
 * project-wide pace. Runs against SUPABASE_DB_URL (set by `deno task test`; fails without it); creates its own accounts.
 *
 * Other files' deliveries may be due in the same database: claims here take only what they find, keep
 * this file's own, and give the rest back untouched (defer to now, no attempt).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";

const options = { sanitizeResources: false, sanitizeOps: false };
const BREAKER = { threshold: 5, base: 60, max: 3_600 };

type Sql = postgres.Sql;

interface Claimed {
  delivery_id: string;
  lane_key: string;
  probe: boolean;
  user_id?: string;
}

async function account(sql: Sql): Promise<string> {
  const [user] = await sql<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${`fair-${crypto.randomUUID()}@test.local`}, now())
    returning id`;
  await sql`update public.profiles set plan_id = 'pro' where id = ${user.id}`;
  return user.id;
}

async function endpoint(sql: Sql, userId: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into public.webhook_endpoints (user_id, url) values (${userId}, ${`https://hooks.example.com/${crypto.randomUUID()}`})
    returning id`;
  return row.id;
}

/** `count` due deliveries on one channel, created `ageSeconds` ago (1 ms apart, oldest first). */
async function queue(
  sql: Sql,
  userId: string,
  endpointId: string | null,
  count: number,
  ageSeconds: number,
): Promise<string[]> {
  const rows = await sql<{ id: string; created_at: Date }[]>`
    with events as (
      insert into public.alert_events (user_id, type, domain_name, status, checked_at, created_at)
      select ${userId}, 'domain.available', 'fair' || i || '.com', 'available', now(),
             now() - make_interval(secs => ${ageSeconds} - i * 0.001)
        from generate_series(1, ${count}) as i
      returning id, created_at
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, next_attempt_at, created_at)
    select e.id, ${userId}, ${
    endpointId === null ? "telegram" : "webhook"
  }, ${endpointId}::uuid, e.created_at,
           e.created_at
      from events as e
    returning id, created_at`;
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime()).map((row) => row.id);
}

async function asService<T>(sql: Sql, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return await sql.begin(async (tx) => {
    await tx`select set_config('role', 'service_role', true)`;
    return await work(tx);
  }) as T;
}

/** Claims as service_role; returns this file's claims (in claim order) and gives the others back. */
async function claim(sql: Sql, limit: number, mine: Set<string>): Promise<Claimed[]> {
  const rows = await asService(
    sql,
    (tx) =>
      tx<
        Claimed[]
      >`select delivery_id, lane_key, probe from private.claim_fair_alert_deliveries(${limit}, 60)`,
  );
  const foreign = rows.filter((row) => !mine.has(row.delivery_id));
  for (const row of foreign) {
    await asService(sql, (tx) => tx`select private.defer_alert_delivery(${row.delivery_id}, now())`);
  }
  return rows.filter((row) => mine.has(row.delivery_id));
}

async function settle(sql: Sql, id: string, outcome: "delivered" | "failed", next: Date | null = null) {
  const [row] = await asService(
    sql,
    (tx) =>
      tx<{ breaker_state: string; next_probe_at: Date | null }[]>`
        select * from private.settle_alert_delivery(${id}, ${outcome}, ${outcome === "delivered" ? 200 : 500},
          ${outcome === "delivered" ? null : "http_500"}, 5, ${next}, ${BREAKER.threshold}, ${BREAKER.base},
          ${BREAKER.max})`,
  );
  return row;
}

Deno.test({
  name: "fair claim: account B's first delivery goes before account A's second; one per lane",
  ...options,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 4, onnotice: () => {} });
    try {
      const a = await account(sql);
      const b = await account(sql);
      const c = await account(sql);
      await sql`insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
                  values (${c}, '999001', now())`;
      const aLanes = [await endpoint(sql, a), await endpoint(sql, a), await endpoint(sql, a)];
      const bLane = await endpoint(sql, b);
      const aIds = [
        ...await queue(sql, a, aLanes[0], 3, 300),
        ...await queue(sql, a, aLanes[1], 3, 290),
        ...await queue(sql, a, aLanes[2], 3, 280),
      ];
      const bIds = await queue(sql, b, bLane, 2, 10);
      const cIds = await queue(sql, c, null, 1, 5);
      const mine = new Set([...aIds, ...bIds, ...cIds]);

      const first = await claim(sql, 1_000, mine);
      const order = first.map((row) => row.delivery_id);
      assertEquals(order.length, 5, "one per lane: 3 of A's lanes, B's, C's");
      assertEquals(new Set(first.map((row) => row.lane_key)).size, 5);
      const secondOfA = order.filter((id) => aIds.includes(id))[1];
      assert(order.indexOf(bIds[0]) < order.indexOf(secondOfA), "B before A's second");
      assert(order.indexOf(cIds[0]) < order.indexOf(secondOfA), "C before A's second");
      assertEquals(
        order.filter((id) => aIds.includes(id)),
        [aIds[0], aIds[3], aIds[6]],
        "each lane's oldest",
      );

      assertEquals(await claim(sql, 1_000, mine), [], "every lane is busy");
      await settle(sql, bIds[0], "delivered");
      const next = await claim(sql, 1_000, mine);
      assertEquals(next.map((row) => row.delivery_id), [bIds[1]], "B's lane is free again");
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
});

Deno.test({
  name: "fair claim: parallel claimers never take one delivery twice nor two of one lane at once",
  ...options,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 12, onnotice: () => {} });
    try {
      const owners = await Promise.all(Array.from({ length: 5 }, () => account(sql)));
      const ids: string[] = [];
      for (const owner of owners) {
        for (let lane = 0; lane < 2; lane++) {
          ids.push(...await queue(sql, owner, await endpoint(sql, owner), 6, 60));
        }
      }
      const mine = new Set(ids);
      const taken: string[] = [];
      const busyLanes = new Set<string>();
      const worker = async () => {
        for (let idle = 0; idle < 5;) {
          const batch = await claim(sql, 3, mine);
          if (batch.length === 0) {
            idle++;
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          idle = 0;
          for (const row of batch) {
            assert(!busyLanes.has(row.lane_key), `two deliveries in flight on ${row.lane_key}`);
            busyLanes.add(row.lane_key);
            taken.push(row.delivery_id);
          }
          for (const row of batch) {
            busyLanes.delete(row.lane_key); // before the lane is freed in the database
            await settle(sql, row.delivery_id, "delivered");
          }
        }
      };
      await Promise.all(Array.from({ length: 10 }, () => worker()));
      assertEquals(taken.length, 60);
      assertEquals(new Set(taken).size, 60, "no delivery claimed twice");
      const [row] = await sql<{ delivered: number; attempts: number }[]>`
        select count(*) filter (where status = 'delivered')::int as delivered, sum(attempt_count)::int as attempts
          from public.alert_deliveries where id = any(${ids}::uuid[])`;
      assertEquals([row.delivered, row.attempts], [60, 60]);
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
});

Deno.test({
  name:
    "breaker: opens after 5 failures, holds its deliveries, backs off when a probe fails, closes on success",
  ...options,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 4, onnotice: () => {} });
    try {
      const owner = await account(sql);
      const stranger = await account(sql);
      const hook = await endpoint(sql, owner);
      const ids = await queue(sql, owner, hook, 8, 60);
      const mine = new Set(ids);
      const later = new Date(Date.now() + 60_000);
      for (let i = 0; i < 5; i++) {
        const [claimed] = await claim(sql, 10, mine);
        assertEquals(claimed.delivery_id, ids[i]);
        const state = await settle(sql, claimed.delivery_id, "failed", later);
        assertEquals(state.breaker_state, i < 4 ? "closed" : "open");
      }
      assertEquals(await claim(sql, 10, mine), [], "no attempt while open");

      const lane = async () =>
        (await sql<{ breaker_state: string; opened_count: number; next_probe_at: Date }[]>`
          select breaker_state, opened_count, next_probe_at from public.alert_delivery_lanes
           where webhook_endpoint_id = ${hook}`)[0];
      await sql`update public.alert_delivery_lanes set next_probe_at = now() where webhook_endpoint_id = ${hook}`;
      const [probe] = await claim(sql, 10, mine);
      assertEquals([probe.delivery_id, probe.probe], [ids[5], true]);
      assertEquals((await lane()).breaker_state, "half_open");
      assertEquals(await claim(sql, 10, mine), [], "one probe at a time");
      const failedProbe = await settle(sql, probe.delivery_id, "failed", later);
      const backoffMs = failedProbe.next_probe_at!.getTime() - Date.now();
      assertEquals(failedProbe.breaker_state, "open");
      assert(backoffMs > 110_000 && backoffMs <= 120_000, `doubled backoff: ${backoffMs} ms`);

      await sql`update public.alert_delivery_lanes set next_probe_at = now() where webhook_endpoint_id = ${hook}`;
      const [second] = await claim(sql, 10, mine);
      assertEquals([second.delivery_id, second.probe], [ids[6], true]);
      assertEquals((await settle(sql, second.delivery_id, "delivered")).breaker_state, "closed");
      const [after] = await claim(sql, 10, mine);
      assertEquals([after.delivery_id, after.probe], [ids[7], false]);
      await settle(sql, after.delivery_id, "delivered");
      assertEquals((await lane()).opened_count, 0);

      // The owner sees the breaker through RLS; nobody else does.
      const seen = async (userId: string) =>
        await asAccount(sql, userId, async (tx) => {
          return await tx`select breaker_state, next_probe_at from public.webhook_endpoint_breakers
                          where webhook_endpoint_id = ${hook}`;
        });
      assertEquals((await seen(owner)).length, 1);
      assertEquals((await seen(stranger)).length, 0);
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
});

Deno.test({
  name: "Telegram pace: 30 per second for the project, 1 per second per chat, a 429 pauses everyone",
  ...options,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 4, onnotice: () => {} });
    const reset = () =>
      sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;
    const reserve = async (chat: string, maxWaitMs = 5_000) =>
      (await asService(
        sql,
        (tx) =>
          tx<{ granted: boolean; send_at: Date }[]>`
            select * from private.reserve_telegram_send(${chat}, 30, 1000, ${maxWaitMs})`,
      ))[0];
    try {
      await reset();
      const tag = crypto.randomUUID();
      const slots = await Promise.all(Array.from({ length: 30 }, (_, i) => reserve(`${tag}-${i}`)));
      const times = slots.map((slot) => slot.send_at.getTime()).sort((x, y) => x - y);
      assert(slots.every((slot) => slot.granted));
      for (let i = 1; i < times.length; i++) assert(times[i] - times[i - 1] >= 33, "1/30 s apart");
      assert(times[29] - times[0] < 1_100, "30 within about a second");

      const first = await reserve(`${tag}-0`, 0);
      assertEquals(first.granted, false, "a second message to the same chat within 1 s is not sent now");
      assert(first.send_at.getTime() - slots[0].send_at.getTime() >= 1_000 - 50);

      await reset();
      const pausedUntil = new Date(Date.now() + 3_000);
      await asService(sql, (tx) => tx`select private.pause_telegram_sends(${pausedUntil})`);
      const afterPause = await reserve(`${tag}-new`, 0);
      assertEquals(afterPause.granted, false);
      assert(afterPause.send_at.getTime() >= pausedUntil.getTime() - 5, "nobody sends before retry_after");
    } finally {
      await reset();
      await sql.end({ timeout: 2 });
    }
  },
});
