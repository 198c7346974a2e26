/**
 * Delivery log and redelivery under concurrency: parallel redeliver calls of one delivery queue
 * it exactly once, and parallel log requests are allowed exactly up to the account's limit. Each call runs
 * in its own transaction as the account (role authenticated + request.jwt.claims), as PostgREST does.
 *
 * Runs against SUPABASE_DB_URL (`deno task test` sets it; fails without it); creates its own accounts and deletes them.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

type Sql = postgres.Sql;

async function createAccount(sql: Sql): Promise<string> {
  const email = `redelivery-${crypto.randomUUID()}@test.local`;
  const [user] = await sql<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${email}, now()) returning id`;
  await sql`update public.profiles set plan_id = 'pro' where id = ${user.id}`;
  return user.id;
}

/** A webhook with one finished (failed) delivery; returns both ids. */
async function failedDelivery(sql: Sql, userId: string): Promise<{ webhookId: string; deliveryId: string }> {
  const [hook] = await sql<{ id: string }[]>`
    insert into public.webhook_endpoints (user_id, url)
    values (${userId}, ${`https://hooks.example.com/${crypto.randomUUID()}`}) returning id`;
  const [row] = await sql<{ id: string }[]>`
    with event as (
      insert into public.alert_events (user_id, type, domain_name, status, checked_at)
      values (${userId}, 'domain.available', 'redelivery-race.com', 'available', now())
      returning id
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, status, failed_at,
                                         attempt_count, failure_count)
    select id, ${userId}, 'webhook', ${hook.id}::uuid, 'failed', now(), 1, 1 from event
    returning id`;
  return { webhookId: hook.id, deliveryId: row.id };
}

function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => "ok", (error) => String((error as { code?: string }).code));
}

Deno.test({
  name: "redeliver_webhook_delivery: 20 parallel calls queue the delivery once",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 20, onnotice: () => {}, idle_timeout: 5 });
    const userId = await createAccount(sql);
    try {
      const { deliveryId } = await failedDelivery(sql, userId);
      const results = await Promise.all(
        Array.from(
          { length: 20 },
          () =>
            outcome(
              asAccount(sql, userId, (tx) => tx`select public.redeliver_webhook_delivery(${deliveryId})`),
            ),
        ),
      );
      assertEquals(results.filter((r) => r === "ok").length, 1, JSON.stringify(results));
      assertEquals(results.filter((r) => r === "DW409").length, 19, "the others: still pending");
      const [row] = await sql<{ status: string; redelivery_count: number; counted: number }[]>`
        select d.status, d.redelivery_count,
               (select count(*)::int from public.session_request_log as l
                 where l.user_id = ${userId} and l.action = 'webhook-redelivery') as counted
          from public.alert_deliveries as d where d.id = ${deliveryId}`;
      assertEquals([row.status, row.redelivery_count, row.counted], ["pending", 1, 1]);
    } finally {
      await sql`update public.alert_deliveries set status = 'failed', failed_at = now() where user_id = ${userId}`;
      await sql`delete from auth.users where id = ${userId}`;
      await sql.end();
    }
  },
});

Deno.test({
  name: "list_webhook_deliveries: 80 parallel requests, exactly 60 allowed in the minute",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 20, onnotice: () => {}, idle_timeout: 5 });
    const userId = await createAccount(sql);
    try {
      const { webhookId } = await failedDelivery(sql, userId);
      const results = await Promise.all(
        Array.from(
          { length: 80 },
          () =>
            outcome(
              asAccount(sql, userId, (tx) => tx`select public.list_webhook_deliveries(${webhookId}, 1)`),
            ),
        ),
      );
      assertEquals(results.filter((r) => r === "ok").length, 60);
      assertEquals(results.filter((r) => r === "DW429").length, 20);
    } finally {
      await sql`delete from auth.users where id = ${userId}`;
      await sql.end();
    }
  },
});
