/**
 * The database's limits are exact under concurrency. Each call runs in its own transaction on a pool of
 * 40 connections, as the edge functions do: as the account (role authenticated + request.jwt.claims) or
 * as service_role.
 *
 * Needs SUPABASE_DB_URL (a superuser URL of a database with bootstrap, migrations and seed applied);
 * they fail without it (`deno task test` sets it). They create their own accounts (random emails) and delete them.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

type Sql = postgres.Sql;
type Tx = postgres.TransactionSql;

function connect(): Sql {
  return postgres.connect(databaseUrl(), { max: 40, onnotice: () => {}, idle_timeout: 5 });
}

async function createAccount(sql: Sql, plan: string): Promise<string> {
  const email = `concurrency-${crypto.randomUUID()}@test.local`;
  const [user] = await sql<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${email}, now()) returning id`;
  await sql`update public.profiles set plan_id = ${plan} where id = ${user.id}`;
  return user.id;
}

async function deleteAccounts(sql: Sql, userIds: string[]): Promise<void> {
  if (userIds.length > 0) await sql`delete from auth.users where id = any(${userIds}::uuid[])`;
}

/** Runs `work` in its own transaction as service_role. */
async function asServiceRole<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  return await sql.begin(async (tx) => {
    await tx`select set_config('role', 'service_role', true)`;
    return await work(tx);
  }) as T;
}

interface AddResult {
  added: number;
  skipped_duplicates: number;
  rejected_over_limit: number;
  remaining_quota: number;
}

Deno.test({
  name: "add_watchlist_domains: 50 parallel calls never push a Pro account past its quota",
  ...options,
  fn: async () => {
    const sql = connect();
    const run = crypto.randomUUID().slice(0, 8);
    const userIds: string[] = [];
    try {
      const userId = await createAccount(sql, "pro");
      userIds.push(userId);
      const [{ watchlist_quota: quota }] = await sql<{ watchlist_quota: number }[]>`
        select watchlist_quota from public.plans where id = 'pro'`;

      // Fill the watchlist to 5 below the quota.
      const initial = Array.from({ length: quota - 5 }, (_, i) => `fill-${run}-${i}.test`);
      const [filled] = await asAccount(
        sql,
        userId,
        (tx) => tx<AddResult[]>`select * from public.add_watchlist_domains(${initial}::text[])`,
      );
      assertEquals(filled.added, quota - 5);
      assertEquals(filled.remaining_quota, 5);

      // 50 concurrent requests, each with 3 distinct new names: 150 candidates for 5 free slots.
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, call) => {
          const names = [0, 1, 2].map((i) => `race-${run}-${call}-${i}.test`);
          return asAccount(sql, userId, async (tx) => {
            const [result] = await tx<
              AddResult[]
            >`select * from public.add_watchlist_domains(${names}::text[])`;
            return result;
          });
        }),
      );

      const sum = (key: keyof AddResult) => results.reduce((total, result) => total + result[key], 0);
      assertEquals(sum("added"), 5, "exactly the 5 free slots were filled");
      assertEquals(sum("rejected_over_limit"), 150 - 5, "every other name was rejected over the limit");
      assertEquals(sum("skipped_duplicates"), 0);
      for (const result of results) {
        assertEquals(result.remaining_quota >= 0, true);
      }
      const [{ active }] = await sql<{ active: number }[]>`
        select count(*)::int as active from public.watchlist_entries
         where user_id = ${userId} and deleted_at is null`;
      assertEquals(active, quota, "the watchlist holds exactly the quota");
    } finally {
      await deleteAccounts(sql, userIds);
      await sql`delete from public.domains where name like ${`%-${run}-%`}`.catch(() => {});
      await sql.end();
    }
  },
});

Deno.test({
  name: "consume_api_request: 1,050 parallel requests on a fresh Pro day give exactly 1,000 successes",
  ...options,
  fn: async () => {
    const sql = connect();
    const userIds: string[] = [];
    try {
      const userId = await createAccount(sql, "pro");
      userIds.push(userId);

      const results = await Promise.all(
        Array.from({ length: 1050 }, () =>
          asServiceRole(sql, async (tx) => {
            const [result] = await tx<{ allowed: boolean; request_limit: number; remaining: number }[]>`
              select * from private.consume_api_request(${userId})`;
            return result;
          })),
      );

      const allowed = results.filter((result) => result.allowed);
      const refused = results.filter((result) => !result.allowed);
      assertEquals(allowed.length, 1000);
      assertEquals(refused.length, 50);
      assertEquals(refused.every((result) => result.remaining === 0), true);
      assertEquals(results.every((result) => result.request_limit === 1000), true);
      // Each allowed request saw its own count: remaining takes every value 0..999 exactly once.
      const remaining = allowed.map((result) => result.remaining).sort((a, b) => a - b);
      assertEquals(remaining, Array.from({ length: 1000 }, (_, i) => i));

      const [{ request_count }] = await sql<{ request_count: number }[]>`
        select request_count from public.api_request_counters where user_id = ${userId}`;
      assertEquals(request_count, 1000);
    } finally {
      await deleteAccounts(sql, userIds);
      await sql.end();
    }
  },
});

Deno.test({
  name: "consume_session_request: 20 parallel exports in one window allow exactly 3",
  ...options,
  fn: async () => {
    const sql = connect();
    const userIds: string[] = [];
    try {
      const userId = await createAccount(sql, "free");
      userIds.push(userId);

      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          asServiceRole(sql, async (tx) => {
            const [result] = await tx<{ allowed: boolean; remaining: number; reset_at: Date }[]>`
              select * from private.consume_session_request(${userId}, 'export-account')`;
            return result;
          })),
      );

      assertEquals(results.filter((result) => result.allowed).length, 3);
      assertEquals(results.filter((result) => !result.allowed).length, 17);
      const [{ logged }] = await sql<{ logged: number }[]>`
        select count(*)::int as logged from public.session_request_log
         where user_id = ${userId} and action = 'export-account'`;
      assertEquals(logged, 3);
    } finally {
      await deleteAccounts(sql, userIds);
      await sql.end();
    }
  },
});

Deno.test({
  name: "webhooks: 20 concurrent creations, or 15 concurrent direct inserts, leave at most 10 per account",
  ...options,
  fn: async () => {
    const sql = connect();
    const userIds: string[] = [];
    try {
      const creator = await createAccount(sql, "pro");
      const writer = await createAccount(sql, "pro");
      userIds.push(creator, writer);

      const created = await Promise.allSettled(
        Array.from(
          { length: 20 },
          (_, i) =>
            asAccount(
              sql,
              creator,
              (tx) =>
                tx`select public.create_webhook_endpoint(${`https://hooks.example.com/c-${i}`}, null,
                                                     ${`secret-${crypto.randomUUID()}`})`,
            ),
        ),
      );
      assertEquals(created.filter((result) => result.status === "fulfilled").length, 10);

      // Direct inserts: refused outright for the account; as service_role (which bypasses row-level
      // security) the table's own trigger still holds the cap.
      const direct = await Promise.allSettled(
        Array.from(
          { length: 15 },
          (_, i) =>
            asAccount(sql, writer, (tx) =>
              tx`insert into public.webhook_endpoints (user_id, url)
               values (${writer}, ${`https://hooks.example.com/d-${i}`})`),
        ),
      );
      assertEquals(direct.filter((result) => result.status === "fulfilled").length, 0);
      const service = await Promise.allSettled(
        Array.from(
          { length: 15 },
          (_, i) =>
            asServiceRole(sql, (tx) =>
              tx`insert into public.webhook_endpoints (user_id, url)
               values (${writer}, ${`https://hooks.example.com/s-${i}`})`),
        ),
      );
      assertEquals(service.filter((result) => result.status === "fulfilled").length, 10);

      const counts = await sql<{ user_id: string; count: number }[]>`
        select user_id, count(*)::int as count from public.webhook_endpoints
         where user_id = any(${userIds}::uuid[]) group by user_id order by user_id`;
      assertEquals(counts.map((row) => row.count), [10, 10]);

      const shortSecret = await asServiceRole(
        sql,
        (tx) => tx`update public.webhook_endpoints set secret = 'x' where user_id = ${writer}`,
      ).then(() => "stored", (error) => String(error.code));
      assertEquals(shortSecret, "23514", "a direct write cannot store a secret shorter than 16 characters");
    } finally {
      await deleteAccounts(sql, userIds);
      await sql.end();
    }
  },
});
