/**
 * `deno task admin`: local operator commands against the running local stack (or the database in
 * SUPABASE_DB_URL). Each prints one JSON line.
 *
 *   deno task admin create-account --email <e> --plan <free|pro|business|enterprise>
 *   deno task admin session-token --email <e>
 *   deno task admin add-webhook --email <e> --url <u> [--secret <s>]
 *   deno task admin set-telegram --email <e> --chat-id <id>
 *   deno task admin poll-now
 */
import * as postgres from "../supabase/functions/_shared/db/sql.ts";
import { parseArgs } from "node:util";
import { asAccount, createAccount, findUserByEmail, type PlanId, planIds } from "./local/accounts.ts";
import { stackStateFile } from "./local/paths.ts";
import { localJwtSecret, sessionToken } from "./local/secrets.ts";

interface StackState {
  supabaseUrl: string;
  databaseUrl: string;
  jwtSecret: string;
}

async function stackState(): Promise<StackState> {
  let saved: Partial<StackState> = {};
  try {
    saved = JSON.parse(await Deno.readTextFile(stackStateFile));
  } catch {
    // No local stack has been started here; the environment must say where things are.
  }
  const databaseUrl = Deno.env.get("SUPABASE_DB_URL") || saved.databaseUrl ||
    "postgresql://postgres:postgres@127.0.0.1:54322/postgres";
  return {
    databaseUrl,
    supabaseUrl: Deno.env.get("SUPABASE_URL") || saved.supabaseUrl || "http://127.0.0.1:54321",
    jwtSecret: Deno.env.get("AUTH_JWT_SECRET") || saved.jwtSecret || localJwtSecret,
  };
}

function fail(message: string): never {
  console.error(JSON.stringify({ error: "invalid_request", message }));
  Deno.exit(2);
}

const usage =
  "usage: deno task admin create-account --email <e> --plan <plan> | session-token --email <e> | " +
  "add-webhook --email <e> --url <u> [--secret <s>] | set-telegram --email <e> --chat-id <id> | poll-now";

async function main(): Promise<void> {
  const [command, ...rest] = Deno.args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      plan: { type: "string" },
      url: { type: "string" },
      secret: { type: "string" },
      "chat-id": { type: "string" },
    },
    strict: true,
  });
  const email = values.email?.trim() ?? "";
  if (command !== "poll-now" && !/^[^@\s]+@[^@\s]+$/.test(email)) fail("--email <address> is required");

  const state = await stackState();
  const sql = postgres.connect(state.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    if (command === "create-account") {
      const plan = values.plan as PlanId;
      if (!planIds.includes(plan)) fail(`--plan must be one of ${planIds.join(", ")}`);
      const account = await createAccount(sql, email, plan).catch((error) => {
        if (String(error?.code) === "23505") fail(`an account with email ${email} already exists`);
        throw error;
      });
      console.log(JSON.stringify(account));
    } else if (command === "session-token") {
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      const token = await sessionToken(user, { secret: state.jwtSecret, supabaseUrl: state.supabaseUrl });
      console.log(JSON.stringify({ access_token: token }));
    } else if (command === "add-webhook") {
      if (!values.url) fail("--url <webhook URL> is required");
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      const webhook = await asAccount(sql, user.id, async (tx) => {
        const [row] = await tx<{ id: string }[]>`
          select public.create_webhook_endpoint(${values.url!}, 'added by deno task admin', ${
          values.secret ?? null
        }) as id`;
        const secret = values.secret ??
          (await tx<{ secret: string }[]>`select public.rotate_webhook_secret(${row.id}) as secret`)[0]
            .secret;
        return { webhook_id: row.id, url: values.url, secret };
      }).catch((error) => fail(String(error?.message ?? error)));
      console.log(JSON.stringify(webhook));
    } else if (command === "set-telegram") {
      if (!values["chat-id"]) fail("--chat-id <id> is required");
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      await asAccount(sql, user.id, (tx) => tx`select public.set_telegram_chat(${values["chat-id"]!})`)
        .catch((error) => fail(String(error?.message ?? error)));
      console.log(JSON.stringify({ email, telegram_configured: true }));
    } else if (command === "poll-now") {
      // Makes every watched name due and fires the pg_cron job's own command (Vault → pg_net → rdap-poller);
      // the running stack's pg_net stand-in delivers it within a moment.
      const [due] = await sql<{ count: number }[]>`
        with due as (
          update public.domains as d set next_check_at = now(), lease_until = null
          where exists (select 1 from public.watchlist_entries as w
                        where w.domain_name = d.name and w.deleted_at is null)
          returning 1)
        select count(*)::int as count from due`;
      const [queued] = await sql<
        { request_id: number | null }[]
      >`select public.invoke_rdap_poller() as request_id`;
      if (queued.request_id === null) {
        fail("the Vault secrets project_url and poller_secret are missing: start the stack");
      }
      console.log(JSON.stringify({ due_domains: due.count, request_id: queued.request_id }));
    } else {
      fail(usage);
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
}

await main();
