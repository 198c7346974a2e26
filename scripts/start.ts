/**
 * `deno task start`: the whole service on this machine. PostgreSQL 15 with pg_cron on 127.0.0.1:54322
 * (data kept in .local/), every edge function on http://127.0.0.1:54321/functions/v1/<name>, and a
 * demo Pro account whose fresh API key is printed with a curl line, and the product app (app/, built into
 * app/dist) on APP_URL (http://localhost:3000; START_APP_PORT moves it), which is also the OAuth consent
 * page Auth sends an MCP connector's user to. The Auth stand-in answers sign-up and sign-in under /auth/v1,
 * its mails land in the local mailbox on http://127.0.0.1:54324 (START_MAILBOX_PORT), which also takes SMTP
 * on 127.0.0.1:54325 (START_SMTP_PORT; the alert mails: SMTP_URL defaults to it), and the lines a client
 * needs (API URL, publishable and secret keys, App URL, Mailbox) are printed as `supabase start` prints
 * them. Ctrl-C stops everything.
 */
import * as postgres from "../supabase/functions/_shared/db/sql.ts";
import { join } from "node:path";
import { createAccount, createApiKey } from "./lib/accounts.ts";
import { buildApp } from "../platform/app_host/build.ts";
import { type RunningAppServer, startAppServer } from "../platform/app_host/server.ts";
import { startGateway } from "../platform/gateway.ts";
import { startMailbox } from "../platform/mailbox/server.ts";
import { startSmtp } from "../platform/mailbox/smtp.ts";
import { startNetWorker } from "../platform/pg_net/worker.ts";
import { localDir, stackStateFile } from "../platform/paths.ts";
import { closeDatabase } from "../supabase/functions/_shared/db/client.ts";
import { clusterAt, stopCluster } from "../platform/postgres/cluster.ts";
import { applyFunctionEnvironment, prepareDatabase } from "../platform/stack.ts";
import { keysOfJson } from "../platform/secrets.ts";
import {
  setTelegramBotUsername,
  setWebhookTargetPolicy,
  storePollerVaultSecrets,
} from "../platform/postgres/vault.ts";

// Fixed as on Supabase's local stack; the Ctrl-C test (tests/e2e/db_outage_shutdown.test.ts) moves them.
const gatewayPort = Number(Deno.env.get("START_GATEWAY_PORT") || 54321);
const databasePort = Number(Deno.env.get("START_DB_PORT") || 54322);
const mailboxPort = Number(Deno.env.get("START_MAILBOX_PORT") || 54324);
const smtpPort = Number(Deno.env.get("START_SMTP_PORT") || 54325);
const stateDir = Deno.env.get("START_STATE_DIR") || localDir;
const stateFile = stateDir === localDir ? stackStateFile : join(stateDir, "stack.json");
/** Ctrl-C stops everything within this long, even with a poller run in flight. */
const stopDeadlineMs = 4_500;
const demoEmail = "demo@example.com";

async function demoApiKey(sql: postgres.Sql): Promise<string> {
  const [existing] = await sql<{ id: string }[]>`select id from auth.users where email = ${demoEmail}`;
  if (!existing) return (await createAccount(sql, demoEmail, "pro", "demo")).api_key!;
  // Keys are shown once and stored hashed, so each start issues a fresh demo key and revokes the old ones.
  return await sql.begin(async (tx) => {
    await tx`update public.profiles set plan_id = 'pro' where id = ${existing.id}`;
    await tx`update public.api_keys set revoked_at = now()
             where user_id = ${existing.id} and name = 'demo' and revoked_at is null`;
    return await createApiKey(tx, existing.id, "demo");
  }) as string;
}

/** Builds and serves the app on APP_URL's port; the reason instead when it cannot (the rest still runs). */
async function serveApp(
  appUrl: string,
  config: { supabaseUrl: string; publishableKey: string; upgradeUrl?: string },
): Promise<RunningAppServer | string> {
  try {
    console.log("Building the app (app/dist) …");
    await buildApp();
    const url = new URL(appUrl);
    return startAppServer({
      port: Number(Deno.env.get("START_APP_PORT") || url.port || 80),
      hostname: url.hostname === "localhost" ? "127.0.0.1" : url.hostname,
      config,
    });
  } catch (error) {
    return (error as Error).message.split("\n")[0];
  }
}

async function main(): Promise<void> {
  // A moved app port moves the app's URL everywhere it is used (invitation links, CORS, Auth's Site URL).
  const appPort = Deno.env.get("START_APP_PORT");
  if (appPort) {
    Deno.env.set("APP_URL", `http://localhost:${appPort}`);
    Deno.env.set("GOTRUE_SITE_URL", `http://localhost:${appPort}`);
    if (!Deno.env.get("GOTRUE_URI_ALLOW_LIST")) {
      Deno.env.set("GOTRUE_URI_ALLOW_LIST", `http://localhost:${appPort}/**`);
    }
  }
  const cluster = clusterAt(join(stateDir, "postgres"), databasePort);
  console.log("Preparing PostgreSQL 15 (pg_cron) on 127.0.0.1:%d …", databasePort);
  const { created, applied } = await prepareDatabase(cluster);
  if (created) console.log("Created a new cluster in .local/postgres");
  for (const file of applied) console.log(`  applied ${file}`);

  const supabaseUrl = `http://127.0.0.1:${gatewayPort}`;
  // Alert mails go to the local mailbox's SMTP side unless the shell names a provider.
  if (!Deno.env.get("SMTP_URL")) Deno.env.set("SMTP_URL", `smtp://127.0.0.1:${smtpPort}`);
  if (!Deno.env.get("ALERT_MAIL_FROM")) {
    Deno.env.set("ALERT_MAIL_FROM", "Domain Watchlist local <alerts@localhost>");
  }
  // The functions connect over TLS (sslmode=require, the local CA trusted), as on hosted.
  const environment = await applyFunctionEnvironment({
    supabaseUrl,
    databaseUrl: cluster.tlsUrl,
    sslRootCertFile: cluster.caFile,
  });
  const gateway = await startGateway({ port: gatewayPort });
  const mailbox = startMailbox({ port: mailboxPort });
  const smtp = startSmtp({ port: smtpPort });
  const netWorker = await startNetWorker(cluster.url);
  const authBaseUrl = Deno.env.get("AUTH_BASE_URL") || supabaseUrl;
  const [publishableKey] = keysOfJson(environment.SUPABASE_PUBLISHABLE_KEYS);
  const [secretKey] = keysOfJson(environment.SUPABASE_SECRET_KEYS);
  const app = await serveApp(environment.APP_URL, {
    supabaseUrl,
    publishableKey,
    upgradeUrl: Deno.env.get("APP_UPGRADE_URL") || undefined,
  });

  const sql = postgres.connect(cluster.url, { max: 2, onnotice: () => {} });
  const apiKey = await demoApiKey(sql);
  // The pg_cron job rdap-poller (every minute) reads these to call the gateway, as on Supabase.
  await storePollerVaultSecrets(sql, { projectUrl: supabaseUrl, pollerSecret: environment.POLLER_SECRET });
  await setWebhookTargetPolicy(sql, Deno.env.get("WEBHOOK_ALLOW_PRIVATE_TARGETS") === "true");
  await setTelegramBotUsername(sql, environment.TELEGRAM_BOT_USERNAME);
  await sql.end();
  await Deno.mkdir(stateDir, { recursive: true });
  await Deno.writeTextFile(
    stateFile,
    JSON.stringify(
      {
        supabaseUrl,
        authBaseUrl,
        databaseUrl: cluster.url,
        jwtSecret: environment.AUTH_JWT_SECRET,
        mailboxUrl: mailbox.url,
      },
      null,
      2,
    ),
  );

  const baseUrl = `${supabaseUrl}/functions/v1/api-v1`;
  // The lines a client needs, as `supabase start` prints them.
  console.log(`
Domain Watchlist is running.

API URL: ${supabaseUrl}
Publishable key: ${publishableKey}
Secret key: ${secretKey}
App URL: ${environment.APP_URL}
Mailbox: ${mailbox.url}
Mailbox SMTP: ${smtp.url} (alert mails; SMTP_URL)

  API base URL   ${baseUrl}
  MCP endpoint   ${baseUrl}/mcp (x-api-key, or OAuth: give a connector this URL alone)
  OAuth consent  ${
    typeof app === "string"
      ? `the app is not served: ${app}`
      : `${app.url}/oauth/consent (the app's page; Auth sends a connector's user there)`
  }
  Session fns    ${supabaseUrl}/functions/v1/export-account, ${supabaseUrl}/functions/v1/send-org-invite
  Telegram bot   ${supabaseUrl}/functions/v1/telegram-bot (deno task admin telegram-webhook registers it)
  Calendar feed  ${supabaseUrl}/functions/v1/calendar/<token>.ics (the app's Account screen makes the URL)
  Database       ${cluster.url}
  Demo account   ${demoEmail} (pro)

Try it:
  curl -s -H "x-api-key: ${apiKey}" ${baseUrl}/domains

Press Ctrl-C to stop.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping …");
    // In-flight work (a poller run, a request) is abandoned, not awaited: leases and the outbox make that
    // safe. The cluster is stopped at once (fast mode ends its sessions), alongside the rest.
    const hardStop = setTimeout(() => {
      console.error("Stopping took too long; exiting.");
      Deno.exit(1);
    }, stopDeadlineMs);
    const within = (ms: number, work: Promise<unknown>) =>
      Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, ms))]);
    await Promise.all([
      within(1_000, netWorker.close()),
      within(1_000, gateway.close()),
      within(1_000, mailbox.close()),
      within(1_000, smtp.close()),
      within(1_000, typeof app === "string" ? Promise.resolve() : app.close()),
      within(1_000, closeDatabase(1)),
      stopCluster(cluster).catch((error) => console.error(`Stopping PostgreSQL failed: ${error.message}`)),
    ]);
    clearTimeout(hardStop);
    console.log("Stopped.");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

await main();
