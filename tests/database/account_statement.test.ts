/**
 * asAccountStatement: one statement as the account in one pipelined transaction (begin, identity,
 * statement, commit in one write). With a pool of one connection, so every call reuses it.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { databaseUrl, uniqueEmail } from "../support/stack.ts";
import { createAccount } from "../../scripts/lib/accounts.ts";

Deno.env.set("DB_POOL_SIZE", "1");
const { asAccountStatement, database } = await import("../../supabase/functions/_shared/db/client.ts");

Deno.test({
  name: "asAccountStatement runs as the account, leaves nothing behind and survives a failing statement",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const account = await createAccount(sql, uniqueEmail("pipelined"), "pro");
      const [me] = await asAccountStatement<{ uid: string; role: string }>(
        account.user_id,
        "select auth.uid()::text as uid, current_user::text as role",
      );
      assertEquals(me.uid, account.user_id);
      assertEquals(me.role, "authenticated");

      await assertRejects(() => asAccountStatement(account.user_id, "select 1 / 0"));
      await assertRejects(() => asAccountStatement(account.user_id, "select * from public.no_such_table"));

      // The same single connection afterwards: usable, outside any transaction, back to its own role.
      const [after] = await database()<{ role: string; claims: string | null; idle: boolean }[]>`
        select current_user::text as role, nullif(current_setting('request.jwt.claims', true), '') as claims,
               pg_current_xact_id_if_assigned() is null as idle`;
      assert(after.role !== "authenticated", `role ${after.role}`);
      assertEquals(after.claims, null);
      assert(after.idle);
      const [again] = await asAccountStatement<{ uid: string }>(
        account.user_id,
        "select auth.uid()::text as uid",
      );
      assertEquals(again.uid, account.user_id);

      // A write in the statement commits.
      await asAccountStatement(
        account.user_id,
        "select * from public.add_watchlist_domains(array['pipelined.test'])",
      );
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.watchlist_entries
        where user_id = ${account.user_id} and domain_name = 'pipelined.test'`;
      assertEquals(row.n, 1);
    } finally {
      await sql.end({ timeout: 2 });
      await database().end({ timeout: 2 });
    }
  },
});
