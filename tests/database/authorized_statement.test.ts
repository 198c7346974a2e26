/**
 * authorizeAndQuery: the key check, the count and one statement as the account in one round
 * trip. The statement runs as the account only for an allowed request, never for a refused one, and a
 * failing statement rolls the count back. With a pool of one connection, so every call reuses it.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { databaseUrl, uniqueEmail } from "../support/stack.ts";
import { createAccount } from "../../scripts/lib/accounts.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";

Deno.env.set("DB_POOL_SIZE", "1");
const { database } = await import("../../supabase/functions/_shared/db/client.ts");
const { authorizeAndQuery } = await import("../../supabase/functions/_shared/api/api_access.ts");
const { credentialOf } = await import("../../supabase/functions/_shared/api/credential.ts");
const byKey = (apiKey: string | null) =>
  credentialOf({ apiKey: apiKey ?? undefined, authorization: undefined }, false);

const whoAmI = "select auth.uid()::text as uid, current_user::text as role";

Deno.test({
  name: "authorizeAndQuery counts and runs the statement as the account, only when the request is allowed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const pro = await createAccount(sql, uniqueEmail("one-trip"), "pro");
      // A key kept from a paid plan by an account now on Free.
      const free = await createAccount(sql, uniqueEmail("one-trip-free"), "pro");
      await sql`update public.profiles set plan_id = 'free' where id = ${free.user_id}`;
      const todayCount = async () =>
        (await sql<{ n: number | null }[]>`
          select (select request_count from public.api_request_counters
                   where user_id = ${pro.user_id} and day = (now() at time zone 'UTC')::date) as n`)[0].n ??
          0;

      const first = await authorizeAndQuery<{ uid: string; role: string }>(await byKey(pro.api_key), whoAmI);
      assertEquals(first.authorized.account.userId, pro.user_id);
      assertEquals(first.authorized.allowance.allowed, true);
      assertEquals(first.authorized.allowance.remaining, 999);
      assertEquals(first.rows, [{ uid: pro.user_id, role: "authenticated" }]);
      assertEquals(await todayCount(), 1);

      // 401 and 403: nothing counted, the statement never runs.
      for (const [key, code] of [["dwl_unknown", "unauthorized"], [free.api_key, "upgrade_required"]]) {
        const error = await assertRejects(async () => authorizeAndQuery(await byKey(key), whoAmI));
        assert(error instanceof ApiError, String(error));
        assertEquals(error.code, code);
      }
      assertEquals(await todayCount(), 1);

      // A failing statement rolls the count back with it.
      await assertRejects(async () => authorizeAndQuery(await byKey(pro.api_key), "select 1 / 0"));
      assertEquals(await todayCount(), 1);

      // Limit used up: refused, and the statement (a write here) does not run.
      await sql`update public.api_request_counters set request_count = 1000
                 where user_id = ${pro.user_id} and day = (now() at time zone 'UTC')::date`;
      const refused = await authorizeAndQuery(
        await byKey(pro.api_key),
        "select * from public.add_watchlist_domains(array['one-trip.test'])",
      );
      assertEquals(refused.authorized.allowance.allowed, false);
      assertEquals(refused.rows, []);
      const [written] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.watchlist_entries where user_id = ${pro.user_id}`;
      assertEquals(written.n, 0);

      // The same single connection afterwards: outside any transaction, back to its own role, no claims.
      const [after] = await database()<{ role: string; claims: string | null; idle: boolean }[]>`
        select current_user::text as role, nullif(current_setting('request.jwt.claims', true), '') as claims,
               pg_current_xact_id_if_assigned() is null as idle`;
      assert(after.role !== "authenticated", `role ${after.role}`);
      assertEquals(after.claims, null);
      assert(after.idle);
    } finally {
      await sql.end({ timeout: 2 });
      await database().end({ timeout: 2 });
    }
  },
});
