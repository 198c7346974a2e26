/**
 * A name's history has one row per transition under concurrency: parallel checks (poller and live, each in
 * its own transaction, as the functions run them) that decide the same status write one row between them,
 * and the first decided status is one "first seen" row.
 *
 * Needs SUPABASE_DB_URL (a superuser URL of a database with bootstrap, migrations and seed applied);
 * `deno task test` sets it.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

Deno.test("domain_status_changes: 40 parallel checks of one transition write one row", options, async () => {
  const sql = postgres.connect(databaseUrl(), { max: 20, onnotice: () => {}, idle_timeout: 5 });
  const name = `history-${crypto.randomUUID().slice(0, 8)}.test`;
  const email = `history-${crypto.randomUUID()}@test.local`;
  let userId = "";
  try {
    [{ id: userId }] = await sql<{ id: string }[]>`
      insert into auth.users (email, email_confirmed_at) values (${email}, now()) returning id`;
    await asAccount(sql, userId, (tx) => tx`select * from public.add_watchlist_domains(${[name]})`);

    const checkAll = (status: string, base: number) =>
      Promise.all(Array.from({ length: 40 }, (_, i) =>
        sql.begin(async (tx) => {
          await tx`select set_config('role', 'service_role', true)`;
          await tx`select private.record_domain_check(${name}, ${status},
                     ${new Date(base + i * 1000)}, null, null, true, ${i % 2 === 0 ? "poller" : "live"})`;
        })));
    const history = () =>
      sql<{ previous_status: string | null; status: string }[]>`
        select previous_status, status from public.domain_status_changes
         where domain_name = ${name} order by changed_at, id`;

    await checkAll("registered", Date.parse("2026-03-01T00:00:00Z"));
    assertEquals(await history(), [{ previous_status: null, status: "registered" }]);
    await checkAll("available", Date.parse("2026-03-02T00:00:00Z"));
    assertEquals(await history(), [
      { previous_status: null, status: "registered" },
      { previous_status: "registered", status: "available" },
    ]);
  } finally {
    await sql`update public.watchlist_entries set deleted_at = now() where domain_name = ${name}`;
    if (userId) await sql`delete from auth.users where id = ${userId}`;
    await sql.end({ timeout: 2 });
  }
});
