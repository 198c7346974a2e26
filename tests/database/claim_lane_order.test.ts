/**
 * A delivery claim never deadlocks with another writer of new lanes. The claim creates the missing lanes of
 * its due deliveries in lane_key order before it claims any, so while it waits for another transaction's
 * uncommitted lane it holds no new lane of its own. Here the claim's round-robin order (the older delivery
 * first) is the reverse of lane_key order, and another transaction holds the uncommitted lane the claim
 * reaches second in its turns: a claim that created lanes in turn order held the first one and deadlocked
 * with that transaction's insert of it. Runs against SUPABASE_DB_URL (set by `deno task test`).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };
type Sql = postgres.Sql;

async function endpointOfNewAccount(sql: Sql): Promise<{ userId: string; endpointId: string }> {
  const [user] = await sql<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${`lanes-${crypto.randomUUID()}@test.local`}, now())
    returning id`;
  await sql`update public.profiles set plan_id = 'pro' where id = ${user.id}`;
  const [endpoint] = await sql<{ id: string }[]>`
    insert into public.webhook_endpoints (user_id, url)
    values (${user.id}, ${`https://hooks.example.com/${crypto.randomUUID()}`}) returning id`;
  return { userId: user.id, endpointId: endpoint.id };
}

/** One due delivery on the endpoint, created `ageSeconds` ago. */
async function queueOne(sql: Sql, owner: { userId: string; endpointId: string }, ageSeconds: number) {
  const [row] = await sql<{ id: string }[]>`
    with event as (
      insert into public.alert_events (user_id, type, domain_name, status, checked_at, created_at)
      values (${owner.userId}, 'domain.available', 'lanes.com', 'available', now(),
              now() - make_interval(secs => ${ageSeconds}))
      returning id, created_at
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, next_attempt_at, created_at)
    select e.id, ${owner.userId}, 'webhook', ${owner.endpointId}::uuid, e.created_at, e.created_at from event as e
    returning id`;
  return row.id;
}

const insertLane = (tx: postgres.TransactionSql, owner: { userId: string; endpointId: string }) =>
  tx`insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
     values (${`webhook:${owner.endpointId}`}, ${owner.userId}, 'webhook', ${owner.endpointId})`;

Deno.test({
  name: "a claim waiting for another transaction's new lane holds none of its own (no deadlock)",
  ...options,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 4, onnotice: () => {} });
    try {
      const pair = [await endpointOfNewAccount(sql), await endpointOfNewAccount(sql)];
      // turnFirst's delivery is older, so the claim's loop reaches its lane first; it sorts last by lane_key.
      pair.sort((a, b) => (a.endpointId < b.endpointId ? 1 : -1));
      const [turnFirst, turnSecond] = pair;
      const ids = [await queueOne(sql, turnFirst, 120), await queueOne(sql, turnSecond, 60)];

      let releaseOther!: () => void;
      const otherMayCommit = new Promise<void>((resolve) => (releaseOther = resolve));
      let otherHoldsLane!: () => void;
      const otherHasLane = new Promise<void>((resolve) => (otherHoldsLane = resolve));
      const other = sql.begin(async (tx) => {
        await insertLane(tx, turnSecond);
        otherHoldsLane();
        await otherMayCommit;
        await insertLane(tx, turnFirst); // waited for the claim's lane, forever, before the fix
      });
      await otherHasLane;

      const claim = sql.begin(async (tx) => {
        await tx`select set_config('role', 'service_role', true)`;
        return await tx<{ delivery_id: string }[]>`
          select delivery_id from private.claim_fair_alert_deliveries(1000, 60)`;
      });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the claim is now waiting for the lane
      releaseOther();

      await other; // rejects with "deadlock detected" when the claim held turnFirst's lane
      const claimed = (await claim).map((row) => row.delivery_id);
      assertEquals(ids.filter((id) => claimed.includes(id)).sort(), [...ids].sort());
      for (const id of claimed.filter((id) => !ids.includes(id))) { // other files' deliveries go back as they were
        await sql.begin(async (tx) => {
          await tx`select set_config('role', 'service_role', true)`;
          await tx`select private.defer_alert_delivery(${id}, now())`;
        });
      }
      await sql`delete from public.alert_deliveries where id = any(${ids}::uuid[])`;
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
});
