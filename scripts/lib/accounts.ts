/**
 * Creating accounts the way sign-up does (a row in auth.users; the profile follows by trigger), for the
 * admin command, the demo account and tests.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { actAsAccount } from "../../supabase/functions/_shared/db/client.ts";

export const planIds = ["free", "pro", "business", "enterprise"] as const;
export type PlanId = typeof planIds[number];

export interface CreatedAccount {
  user_id: string;
  email: string;
  plan: PlanId;
  api_key: string | null;
}

export async function createAccount(
  sql: postgres.Sql,
  email: string,
  plan: PlanId,
  keyName = "default",
): Promise<CreatedAccount> {
  return await sql.begin(async (tx) => {
    const [user] = await tx<{ id: string }[]>`
      insert into auth.users (email, email_confirmed_at, raw_app_meta_data)
      values (${email}, now(), '{"provider":"email","providers":["email"]}')
      returning id`;
    await tx`update public.profiles set plan_id = ${plan} where id = ${user.id}`;
    const apiKey = plan === "free" ? null : await createApiKey(tx, user.id, keyName);
    return { user_id: user.id, email, plan, api_key: apiKey };
  }) as CreatedAccount;
}

/** Creates an API key through the same SQL function the app uses, as the account itself. */
export async function createApiKey(
  tx: postgres.TransactionSql,
  userId: string,
  name: string,
): Promise<string> {
  await actAsAccount(tx, userId);
  const [key] = await tx<{ api_key: string }[]>`select api_key from public.create_api_key(${name})`;
  await tx`select set_config('role', 'postgres', true)`;
  return key.api_key;
}

/**
 * Runs `work` in one transaction on `sql` as the account, exactly as the functions do (`actAsAccount`: role
 * authenticated with the same JWT claims). The helper every script and test uses to act as an account.
 */
export function asAccount<T>(
  sql: postgres.Sql,
  account: string | Pick<CreatedAccount, "user_id">,
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  const userId = typeof account === "string" ? account : account.user_id;
  return sql.begin(async (tx) => {
    await actAsAccount(tx, userId);
    return await work(tx);
  });
}

export async function findUserByEmail(
  sql: postgres.Sql,
  email: string,
): Promise<{ id: string; email: string }> {
  const [user] = await sql<{ id: string; email: string }[]>`
    select id, email from auth.users where lower(email) = lower(${email})`;
  if (!user) throw new Error(`No account with email ${email}`);
  return user;
}
