/**
 * End-to-end tests drive the real gateway over HTTP against the real database that `deno task test`
 * prepared (SUPABASE_DB_URL). Each test file starts the gateway on a free port in its own process.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { createAccount, type CreatedAccount, type PlanId } from "../../scripts/lib/accounts.ts";
import { type RunningGateway, startGateway } from "../../platform/gateway.ts";
import { applyFunctionEnvironment } from "../../platform/stack.ts";
import { databaseUrl } from "./database.ts";

export interface TestStack {
  gateway: RunningGateway;
  /** `<gateway>/functions/v1/api-v1` */
  apiBase: string;
  functionsBase: string;
  sql: postgres.Sql;
  /**
   * A new account on `plan`. Its own email channel (on for every real account) is switched off unless
   * `email` is true: the files that test the other channels count their deliveries, and email has its own
   * (tests/e2e/email_alerts.test.ts).
   */
  account(plan?: PlanId, options?: { email?: boolean }): Promise<CreatedAccount>;
  close(): Promise<void>;
}

export { databaseUrl };

export function uniqueEmail(label = "user"): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;
}

/** A domain name under `tld` no other run uses. */
export function uniqueDomain(label: string, tld: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.${tld}`;
}

/**
 * Starts the functions gateway; `env` is applied to this process before the functions are loaded, and put
 * back as it was by `close()` (test files share one process: a file's settings must not leak into the next).
 */
export async function startStack(env: Record<string, string> = {}): Promise<TestStack> {
  const restoreEnv = rememberEnv({ ...env, SUPABASE_URL: Deno.env.get("SUPABASE_URL") ?? "" });
  for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
  const gateway = await startGateway({ port: 0 });
  await applyFunctionEnvironment({ supabaseUrl: gateway.url, databaseUrl: databaseUrl() });
  Deno.env.set("SUPABASE_URL", gateway.url);
  const sql = postgres.connect(databaseUrl(), { max: 4, onnotice: () => {} });
  return {
    gateway,
    apiBase: `${gateway.url}/functions/v1/api-v1`,
    functionsBase: `${gateway.url}/functions/v1`,
    sql,
    account: async (plan: PlanId = "pro", options: { email?: boolean } = {}) => {
      const created = await createAccount(sql, uniqueEmail(plan), plan);
      if (!options.email) {
        await sql`update public.email_addresses set enabled = false where user_id = ${created.user_id} and is_account`;
      }
      return created;
    },
    async close() {
      await gateway.close();
      await sql.end({ timeout: 2 });
      restoreEnv();
    },
  };
}

/** Remembers the current values of `names`' keys; the returned function puts them back (or unsets them). */
function rememberEnv(names: Record<string, string>): () => void {
  const previous = Object.keys(names).map((name) => [name, Deno.env.get(name)] as const);
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
}
