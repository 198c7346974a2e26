/**
 * `deno task admin`: local operator commands against the running local stack (or the database in
 * SUPABASE_DB_URL). Each prints one JSON line.
 *
 *   deno task admin create-account --email <e> --plan <free|pro|business|enterprise>
 *   deno task admin set-plan --email <e> --plan <plan>   (the only way a plan changes; no billing)
 *   deno task admin session-token --email <e>
 *   deno task admin add-webhook --email <e> --url <u> [--secret <s>] [--kind generic|slack|discord]
 *                               [--events domain.available,domain.pending_delete]
 *   deno task admin link-telegram --email <e>
 *   deno task admin telegram-webhook [--url <public URL of the telegram-bot function>]
 *   deno task admin poll-now
 *   deno task admin rdap-servers   (the RDAP server table and each server's canary proof)
 *   deno task admin preflight --db-url <url> [--functions-url <https://<ref>.supabase.co/functions/v1>]
 *                             [--auth-url <project URL whose /auth/v1 is Supabase Auth, as AUTH_BASE_URL>]
 *                             [--project-ref <ref>]
 *     (a target database ready to run, and its Auth ready for MCP over OAuth? one line per check; exit 1
 *     when something is missing; with SUPABASE_ACCESS_TOKEN it reads the project's Auth security settings
 *     from the Management API, else it says it cannot: scripts/lib/preflight_auth_settings.ts)
 *   deno task admin coverage [--bootstrap <dns.json file>] [--json]
 *                                  (the 60 most-registered TLDs: route rdap / rdap (shipped) / whois /
 *                                  unsupported and its proof state; the bootstrap is the stored copy unless
 *                                  a file is given)
 *   deno task admin drop-accuracy  (per registry and basis: count, median and p90 of observed - predicted drop
 *                                   time in seconds, drops before their prediction, the correction in force)
 */
import * as postgres from "../supabase/functions/_shared/db/sql.ts";
import { parseArgs } from "node:util";
import { asAccount, createAccount, findUserByEmail, type PlanId, planIds } from "./lib/accounts.ts";
import { stackStateFile } from "../platform/paths.ts";
import { localJwtSecret, localTelegramWebhookSecret, sessionToken } from "../platform/secrets.ts";
import { setTelegramBotUsername } from "../platform/postgres/vault.ts";
import { webhookSecretProblem } from "../supabase/functions/_shared/alerts/webhook_secret.ts";
import { failed, findings, inspect, report } from "./lib/preflight.ts";
import { projectRefOf, readAuthSettings } from "./lib/preflight_auth_settings.ts";
import { coverageReport, coverageTable, type ProofRow } from "./lib/coverage.ts";
import { parseBootstrap, type ServerOverride } from "../supabase/functions/_shared/rdap/bootstrap.ts";
import {
  compileWhoisRow,
  recordFromRow,
  type WhoisEntry,
} from "../supabase/functions/_shared/whois/server_table.ts";

interface StackState {
  supabaseUrl: string;
  /** Whose `/auth/v1` issues session tokens: AUTH_BASE_URL, else SUPABASE_URL, as the functions read it. */
  authBaseUrl: string;
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
  const supabaseUrl = Deno.env.get("SUPABASE_URL") || saved.supabaseUrl || "http://127.0.0.1:54321";
  return {
    databaseUrl,
    supabaseUrl,
    authBaseUrl: Deno.env.get("AUTH_BASE_URL") ||
      (Deno.env.get("SUPABASE_URL") ? undefined : saved.authBaseUrl) || supabaseUrl,
    jwtSecret: Deno.env.get("AUTH_JWT_SECRET") || saved.jwtSecret || localJwtSecret,
  };
}

function fail(message: string): never {
  console.error(JSON.stringify({ error: "invalid_request", message }));
  Deno.exit(2);
}

const usage =
  "usage: deno task admin create-account --email <e> --plan <plan> | set-plan --email <e> --plan <plan> | " +
  "session-token --email <e> | " +
  "add-webhook --email <e> --url <u> [--secret <s>] [--kind <k>] [--events <a,b>] | link-telegram --email <e> | telegram-webhook [--url <u>] | " +
  "poll-now | rdap-servers | preflight --db-url <url> [--functions-url <url>] [--auth-url <url>] [--project-ref <ref>] | " +
  "coverage [--bootstrap <file>] [--json] | drop-accuracy";

/** `coverage`: the route and proof state of each of the 60 most-registered TLDs (scripts/lib/coverage.ts). */
async function coverage(sql: postgres.Sql, bootstrapFile: string | undefined, json: boolean): Promise<void> {
  let document: unknown;
  if (bootstrapFile) {
    document = JSON.parse(await Deno.readTextFile(bootstrapFile));
  } else {
    const source = Deno.env.get("RDAP_BOOTSTRAP_URL") || "https://data.iana.org/rdap/dns.json";
    const rows = await sql<{ document: unknown }[]>`
      select document from public.rdap_bootstrap_cache
      order by (source_url = ${source}) desc, fetched_at desc limit 1`;
    if (rows.length === 0) fail("no stored RDAP bootstrap yet: pass --bootstrap <dns.json file>");
    document = rows[0].document;
  }
  const overrides = (await sql<
    { suffix: string; base_url: string | null; canary_name: string | null; precedence: string }[]
  >`select suffix, base_url, canary_name, precedence from public.rdap_server_overrides where enabled`)
    .map((row): ServerOverride => ({
      suffix: row.suffix,
      baseUrl: row.base_url,
      canaryName: row.canary_name,
      precedence: row.precedence === "fallback" ? "fallback" : "override",
    }));
  const whois = new Map<string, WhoisEntry>();
  // deno-lint-ignore no-explicit-any
  for (const row of await sql<any[]>`select * from public.whois_servers where enabled`) {
    const entry = compileWhoisRow(recordFromRow(row));
    if (entry !== null) whois.set(row.suffix, entry);
  }
  const proofs = await sql<
    ProofRow[]
  >`select server_url, suffix, state, valid_until from public.rdap_server_proofs`;
  const report = coverageReport(parseBootstrap(document), overrides, whois, proofs);
  console.log(json ? JSON.stringify({ tlds: report }) : coverageTable(report));
}

/**
 * Registers the telegram-bot function as the bot's webhook (setWebhook with secret_token), then stores
 * the bot's username (TELEGRAM_BOT_USERNAME, else getMe) for create_telegram_link's deep links.
 * The bot token is sent only in the Bot API path and never printed.
 */
async function registerTelegramWebhook(
  sql: postgres.Sql,
  state: StackState,
  url: string | undefined,
): Promise<Record<string, unknown>> {
  const botToken = Deno.env.get("TELEGRAM_BOT_TOKEN");
  if (!botToken) fail("TELEGRAM_BOT_TOKEN is not set");
  const apiBase = (Deno.env.get("TELEGRAM_API_BASE") || "https://api.telegram.org").replace(/\/+$/, "");
  const webhookUrl = url ?? `${state.supabaseUrl.replace(/\/+$/, "")}/functions/v1/telegram-bot`;
  let parsed: URL;
  try {
    parsed = new URL(webhookUrl);
  } catch {
    fail("--url must be an absolute URL");
  }
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname);
  const secret = Deno.env.get("TELEGRAM_WEBHOOK_SECRET") || (local ? localTelegramWebhookSecret : undefined);
  if (!secret) fail("TELEGRAM_WEBHOOK_SECRET is not set (the same value the telegram-bot function has)");
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
    fail("TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -");
  }

  const call = async (method: string, body?: unknown): Promise<Record<string, unknown>> => {
    let response: Response;
    try {
      response = await fetch(`${apiBase}/bot${botToken}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      fail(`the Telegram Bot API at ${apiBase} could not be reached`);
    }
    const answer = await response.json().catch(() => ({})) as Record<string, unknown>;
    if (!response.ok || answer.ok !== true) {
      fail(`Telegram ${method} failed: HTTP ${response.status} ${String(answer.description ?? "")}`.trim());
    }
    return answer;
  };
  await call("setWebhook", {
    url: webhookUrl,
    secret_token: secret,
    allowed_updates: ["message", "channel_post"],
  });
  const me = await call("getMe");
  const username = Deno.env.get("TELEGRAM_BOT_USERNAME") ||
    String((me.result as Record<string, unknown> | undefined)?.username ?? "");
  if (!/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(username)) fail("the bot's username could not be learned (getMe)");
  await setTelegramBotUsername(sql, username);
  return { webhook_url: webhookUrl, bot_username: username };
}

/**
 * `set-plan`: moves an account to a plan of the `plans` table (plans are data: any row there is a plan).
 * The account's quota, API access and webhooks follow from the plan at once; names and keys are kept.
 */
async function setPlan(
  sql: postgres.Sql,
  email: string,
  plan: string,
): Promise<{ user_id: string; email: string; plan: string; previous_plan: string }> {
  const plans = (await sql<{ id: string }[]>`select id from public.plans order by sort_order, id`)
    .map((row) => row.id);
  if (!plans.includes(plan)) {
    fail(`unknown plan ${JSON.stringify(plan)}: --plan must be one of ${plans.join(", ")}`);
  }
  const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
  const [changed] = await sql<{ previous_plan: string }[]>`
    with previous as (select p.plan_id from public.profiles as p where p.id = ${user.id} for update)
    update public.profiles as p set plan_id = ${plan}
      from previous
     where p.id = ${user.id}
    returning previous.plan_id as previous_plan`;
  if (!changed) fail(`the account with email ${email} has no profile`);
  return { user_id: user.id, email: user.email, plan, previous_plan: changed.previous_plan };
}

/** Checks a target database (and its functions) and prints what is missing; exit 1 when anything is. */
async function preflight(
  databaseUrl: string | undefined,
  functionsUrl: string | undefined,
  authUrl: string | undefined,
  projectRef?: string,
): Promise<void> {
  if (!databaseUrl) {
    fail("--db-url <connection string> is required (hosted: the pooler's, port 6543 or 5432)");
  }
  const sql = postgres.connect(databaseUrl, { max: 1, onnotice: () => {}, connectTimeoutMs: 10_000 });
  try {
    const found = findings(await inspect(sql, functionsUrl, authUrl, databaseUrl));
    const settings = await readAuthSettings(
      projectRef ?? projectRefOf(authUrl) ?? projectRefOf(functionsUrl),
      Deno.env.get("SUPABASE_ACCESS_TOKEN"),
    );
    console.log(report(found));
    console.log(
      `${
        settings.unknown ? "unknown" : settings.ok ? "ok     " : "MISSING"
      } ${settings.check}: ${settings.detail}`,
    );
    if (found.some(failed) || !settings.ok) Deno.exitCode = 1;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = Deno.args;
  const options = {
    email: { type: "string" },
    plan: { type: "string" },
    url: { type: "string" },
    secret: { type: "string" },
    kind: { type: "string" },
    events: { type: "string" },
    "db-url": { type: "string" },
    "functions-url": { type: "string" },
    "auth-url": { type: "string" },
    "project-ref": { type: "string" },
    bootstrap: { type: "string" },
    json: { type: "boolean" },
  } as const;
  let values: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof options; strict: true }>
  >["values"];
  try {
    values = parseArgs({ args: rest, options, strict: true }).values;
  } catch (error) {
    fail(`${(error as Error).message}; ${usage}`);
  }
  const email = values.email?.trim() ?? "";
  const needsEmail = ![
    "poll-now",
    "telegram-webhook",
    "rdap-servers",
    "preflight",
    "coverage",
    "drop-accuracy",
  ]
    .includes(command);
  if (needsEmail && !/^[^@\s]+@[^@\s]+$/.test(email)) fail("--email <address> is required");
  if (command === "preflight") {
    return await preflight(
      values["db-url"],
      values["functions-url"],
      values["auth-url"],
      values["project-ref"],
    );
  }

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
    } else if (command === "set-plan") {
      if (!values.plan) fail("--plan <plan> is required");
      console.log(JSON.stringify(await setPlan(sql, email, values.plan)));
    } else if (command === "session-token") {
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      // The issuer the functions verify: <AUTH_BASE_URL or SUPABASE_URL>/auth/v1.
      const token = await sessionToken(user, { secret: state.jwtSecret, supabaseUrl: state.authBaseUrl });
      console.log(JSON.stringify({ access_token: token }));
    } else if (command === "add-webhook") {
      if (!values.url) fail("--url <webhook URL> is required");
      const secretProblem = webhookSecretProblem(values.secret ?? null);
      if (secretProblem !== null) fail(`--secret: ${secretProblem}`);
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      const kind = values.kind ?? "generic";
      const events = values.events === undefined
        ? null
        : values.events.split(",").map((type) => type.trim()).filter((type) => type !== "");
      const webhook = await asAccount(sql, user.id, async (tx) => {
        const [created] = await tx<{ id: string }[]>`
          select public.create_webhook_endpoint(${values.url!}, 'added by deno task admin', ${
          values.secret ?? null
        }, ${kind}, ${events}) as id`;
        const [row] = await tx<{ id: string; event_types: string[] }[]>`
          select w.id, w.event_types from public.webhook_endpoints as w where w.id = ${created.id}`;
        // Slack and Discord do not verify signatures: no secret is generated for them.
        const secret = values.secret ?? (kind !== "generic" ? null : (await tx<{ secret: string }[]>`
          select public.rotate_webhook_secret(${row.id}) as secret`)[0].secret);
        return { webhook_id: row.id, url: values.url, kind, event_types: row.event_types, secret };
      }).catch((error) => fail(String(error?.message ?? error)));
      console.log(JSON.stringify(webhook));
    } else if (command === "link-telegram") {
      // The app's link flow: a one-time deep link (15 minutes); the chat is linked when its owner opens it
      // and Telegram delivers "/start <token>" to the telegram-bot function. Nothing links without that.
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      const link = await asAccount(
        sql,
        user.id,
        async (tx) => (await tx<{ link: unknown }[]>`select public.create_telegram_link() as link`)[0].link,
      ).catch((error) => fail(String(error?.message ?? error)));
      console.log(JSON.stringify({ email, ...(link as Record<string, unknown>) }));
    } else if (command === "telegram-webhook") {
      console.log(JSON.stringify(await registerTelegramWebhook(sql, state, values.url)));
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
      >`select private.invoke_rdap_poller() as request_id`;
      if (queued.request_id === null) {
        fail("the Vault secrets project_url and poller_secret are missing: start the stack");
      }
      console.log(JSON.stringify({ due_domains: due.count, request_id: queued.request_id }));
    } else if (command === "rdap-servers") {
      const servers = await sql`
        select suffix, base_url, precedence, coalesce(canary_name, 'nic.' || suffix) as canary_name, enabled, note
        from public.rdap_server_overrides order by suffix`;
      const proofs = await sql`
        select server_url, suffix, canary_name, state, http_status, detail, checked_at, valid_until, renew_after
        from public.rdap_server_proofs order by suffix, server_url`;
      console.log(JSON.stringify({ servers, proofs }));
    } else if (command === "coverage") {
      await coverage(sql, values.bootstrap, values.json === true);
    } else if (command === "drop-accuracy") {
      // Offsets are observed minus predicted, in seconds: positive when drops come after the prediction.
      const rows = await sql`select * from private.drop_accuracy_report()`;
      console.log(JSON.stringify({ drop_accuracy: rows }));
    } else {
      fail(usage);
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
}

await main();
