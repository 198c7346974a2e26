/**
 * What the end-to-end poller and alert tests do to the running stack: make names due, run the poller and a
 * delivery run as pg_cron would (POST with the poller's bearer secret), watch names, read a name's status,
 * and catch a statement's SQLSTATE.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assertEquals } from "./assert.ts";
import type { TestStack } from "./stack.ts";

/** Makes the names due now (one second apart from `base`, in order) and frees their leases. */
export async function makeDue(
  sql: postgres.Sql,
  names: string[],
  base = "2000-01-01T00:00:00Z",
): Promise<void> {
  for (const [index, name] of names.entries()) {
    await sql`update public.domains
              set next_check_at = ${base}::timestamptz + make_interval(secs => ${index}), lease_until = null
              where name = ${name}`;
  }
}

/** POSTs `{}` to a path of the poller function with its bearer secret; the body of its 200. */
export async function postToPoller(stack: TestStack, path: "/rdap-poller" | "/rdap-poller/deliveries") {
  const response = await fetch(`${stack.functionsBase}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}`, "content-type": "application/json" },
    body: "{}",
  });
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  return body;
}

/** Checks the names now (one poller run, without errors), then sends what that wrote (one delivery run). */
export async function checkNow(stack: TestStack, ...names: string[]): Promise<void> {
  await makeDue(stack.sql, names);
  const run = await postToPoller(stack, "/rdap-poller");
  assertEquals(run.errors, 0, JSON.stringify(run));
  await postToPoller(stack, "/rdap-poller/deliveries");
}

export async function watch(sql: postgres.Sql, account: CreatedAccount, names: string[]): Promise<void> {
  await asAccount(sql, account, (tx) => tx`select * from public.add_watchlist_domains(${names})`);
}

export async function domainStatus(sql: postgres.Sql, name: string): Promise<string> {
  const [row] = await sql<{ status: string }[]>`select status from public.domains where name = ${name}`;
  return row.status;
}

/** The SQLSTATE `work` fails with, or null when it succeeds. */
export async function sqlState(work: () => Promise<unknown>): Promise<string | null> {
  try {
    await work();
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/**
 * Leaves nothing due for a later test file on the same database: unwatches this file's names (those under
 * `tlds`) and closes the pending deliveries of its accounts. Never throws (it runs in `finally`).
 */
export async function leaveNothingDue(
  sql: postgres.Sql,
  tlds: string[],
  accountIds: string[],
): Promise<void> {
  const suffixes = tlds.map((tld) => `%.${tld}`);
  await sql`update public.watchlist_entries set deleted_at = now()
            where domain_name like any(${suffixes}::text[]) and deleted_at is null`.catch(() => {});
  await sql`update public.alert_deliveries set status = 'failed', failed_at = now(), last_error = 'e2e cleanup'
            where status = 'pending' and user_id = any(${accountIds}::uuid[])`.catch(() => {});
}
