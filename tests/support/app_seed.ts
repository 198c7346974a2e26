/**
 * Accounts and data for the browser tasks that are not tests (`deno task screenshots`, `deno task
 * bench:app`): an account signed up through the local Auth (as the app does), its plan set as the operator
 * sets it, names added through add_watchlist_domains as the account, and states written as the poller
 * writes them.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { localPublishableKey } from "../../platform/secrets.ts";
import { password } from "./app_journey.ts";

/** Signs up through /auth/v1/signup (no confirmation locally); returns the user's id. */
export async function signUpAccount(supabaseUrl: string, email: string): Promise<string> {
  const response = await fetch(`${supabaseUrl}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: localPublishableKey, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`sign-up of ${email}: ${response.status} ${JSON.stringify(body)}`);
  return body.user?.id ?? body.id;
}

export async function setPlan(sql: postgres.Sql, userId: string, plan: string): Promise<void> {
  await sql`update public.profiles set plan_id = ${plan} where id = ${userId}`;
}

/** Adds names as the account (in requests of at most 10,000). */
export async function addNames(sql: postgres.Sql, userId: string, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 10_000) {
    const chunk = names.slice(i, i + 10_000);
    await asAccount(sql, userId, (tx) => tx`select * from public.add_watchlist_domains(${chunk})`);
  }
}
