/**
 * authorizeAndReadPage: the key check, the count and the watchlist page in ONE call (issue 43). The page
 * is the one list_watchlist gives the account (keyset, cursor, offset), it is read only for an admitted
 * request, a refused one is counted as before, and an organization's key keeps its own path. With a pool
 * of one connection, so every call reuses it (and the plans the function keeps for it).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { databaseUrl, uniqueEmail } from "../support/stack.ts";
import { createAccount } from "../../scripts/lib/accounts.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";

Deno.env.set("DB_POOL_SIZE", "1");
const { asAccountStatement, database } = await import("../../supabase/functions/_shared/db/client.ts");
const { authorizeAndReadPage } = await import("../../supabase/functions/_shared/api/api_access.ts");
const { credentialOf } = await import("../../supabase/functions/_shared/api/credential.ts");
const { listWatchlistStatement, watchlistPageFrom } = await import(
  "../../supabase/functions/_shared/watchlist/service.ts"
);
const byKey = (apiKey: string | null) =>
  credentialOf({ apiKey: apiKey ?? undefined, authorization: undefined }, false);

Deno.test({
  name: "authorizeAndReadPage reads list_watchlist's page for the admitted account, in one statement",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const pro = await createAccount(sql, uniqueEmail("one-statement"), "pro");
      const other = await createAccount(sql, uniqueEmail("one-statement-other"), "pro");
      const free = await createAccount(sql, uniqueEmail("one-statement-free"), "pro");
      await sql`update public.profiles set plan_id = 'free' where id = ${free.user_id}`;
      const names = ["a-one.test", "b-two.test", "c-three.test", "d-four.test", "e-five.test"];
      await sql`insert into public.domains (name) select unnest(${names}::text[]) on conflict do nothing`;
      await sql`insert into public.watchlist_entries (user_id, domain_name, tags, note)
                select ${pro.user_id}, n, array['t'], 'a note' from unnest(${names}::text[]) as n`;
      await sql`insert into public.watchlist_entries (user_id, domain_name)
                select ${other.user_id}, n from unnest(${names.slice(0, 2)}::text[]) as n`;
      await sql`update public.watchlist_entries set deleted_at = now()
                 where user_id = ${pro.user_id} and domain_name = 'c-three.test'`;
      const todayCount = async () =>
        (await sql<{ n: number | null }[]>`
          select (select request_count from public.api_request_counters
                   where user_id = ${pro.user_id} and day = (now() at time zone 'UTC')::date) as n`)[0].n ??
          0;

      // Every way of paging gives list_watchlist's rows, column for column; each request counted once.
      const pages = [
        { limit: 2 },
        { limit: 2, cursor: "b-two.test" },
        { limit: 10, offset: 1 },
        { limit: 1, offset: 0 },
        { limit: 3, cursor: "zzz" },
        { limit: 50 },
        { limit: 200, cursor: "a-one.test" },
        { limit: 100, offset: 2 },
        { limit: 100, cursor: "zzz" },
      ];
      for (const [index, options] of pages.entries()) {
        const page = listWatchlistStatement(options);
        const { authorized, rows } = await authorizeAndReadPage<Record<string, unknown>>(
          await byKey(pro.api_key),
          page,
        );
        assertEquals(authorized.account.userId, pro.user_id);
        assertEquals(authorized.allowance.remaining, 999 - index);
        // The page as the API answers it, against list_watchlist's rows as the account through the same mapping
        // (its moments are Dates; the API's read has the database write them: private.iso_timestamp).
        const expected = await asAccountStatement<Record<string, unknown>>(pro.user_id, page.statement);
        assertEquals(
          watchlistPageFrom(rows, page.limit),
          watchlistPageFrom(expected, page.limit),
          JSON.stringify(options),
        );
      }
      assertEquals(await todayCount(), pages.length);

      // Another account on the same connection, after the plans were kept: its own rows (limit + 1 of them).
      for (const limit of [1, 10]) {
        const { authorized, rows } = await authorizeAndReadPage<{ domain_name: string }>(
          await byKey(other.api_key),
          listWatchlistStatement({ limit }),
        );
        assertEquals(authorized.account.userId, other.user_id);
        assertEquals(rows.map((row) => row.domain_name), names.slice(0, 2));
      }

      // 401 and 403: nothing counted, nothing read.
      for (const limit of [2, 200]) {
        for (const [key, code] of [["dwl_unknown", "unauthorized"], [free.api_key, "upgrade_required"]]) {
          const error = await assertRejects(async () =>
            authorizeAndReadPage(await byKey(key), listWatchlistStatement({ limit }))
          );
          assert(error instanceof ApiError, String(error));
          assertEquals(error.code, code);
        }
      }
      assertEquals(await todayCount(), pages.length);

      // Limit used up: refused, no rows, not counted further.
      await sql`update public.api_request_counters set request_count = 1000
                 where user_id = ${pro.user_id} and day = (now() at time zone 'UTC')::date`;
      for (const limit of [2, 200]) {
        const refused = await authorizeAndReadPage(
          await byKey(pro.api_key),
          listWatchlistStatement({ limit }),
        );
        assertEquals(refused.authorized.allowance.allowed, false);
        assertEquals(refused.rows, []);
      }
      assertEquals(await todayCount(), 1000);

      // The same single connection afterwards: outside any transaction, its own role, no claims.
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
