/**
 * `deno task demo`: the whole alert path on a throwaway stack, narrated. A watched name in pending delete,
 * the (fake) registry lets it go, the poller notices, and a signed webhook, a Telegram message and an email
 * (through the local mailbox's SMTP side) arrive.
 *
 * Everything is local and temporary: a PostgreSQL cluster on a free port (migrated like the real one),
 * the functions gateway in this process, and fakes of an RDAP registry, DNS, the Telegram Bot API and a
 * webhook receiver. The poller is triggered exactly as pg_cron does every minute:
 * `select private.invoke_rdap_poller()` (Vault secrets → pg_net → rdap-poller), with the local pg_net
 * stand-in sending the request. Secrets, tokens and chat IDs are never printed.
 */
import * as postgres from "../supabase/functions/_shared/db/sql.ts";
import { verify } from "@octokit/webhooks-methods";
import { asAccount, createAccount } from "./lib/accounts.ts";
import { startGateway } from "../platform/gateway.ts";
import { startNetWorker } from "../platform/pg_net/worker.ts";
import { clusterAt, freePort, stopCluster } from "../platform/postgres/cluster.ts";
import { applyFunctionEnvironment, prepareDatabase } from "../platform/stack.ts";
import { setWebhookTargetPolicy, storePollerVaultSecrets } from "../platform/postgres/vault.ts";
import { startFakeDns } from "../tests/fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../tests/fakes/rdap_server.ts";
import { startFakeTelegram } from "../tests/fakes/telegram_server.ts";
import { linkTelegramChat, registerBotWebhook } from "../tests/support/telegram_link.ts";
import { startWebhookReceiver } from "../tests/fakes/webhook_receiver.ts";
import { setRdapHostLimit } from "./lib/rate_limits.ts";
import { startSmtp } from "../platform/mailbox/smtp.ts";
import { allMails } from "../platform/mailbox/store.ts";

const DOMAIN = "drop-demo.com";
const MINUTE = 60_000;

let stepNumber = 0;
function step(text: string): void {
  stepNumber++;
  console.log(`\n${String(stepNumber).padStart(2)}. ${text}`);
}
function detail(text: string): void {
  for (const line of text.split("\n")) console.log(`      ${line}`);
}
function clock(date: Date): string {
  return date.toISOString().slice(11, 19) + " UTC";
}

/** What the registry answers for a name that entered pending delete 5 days before `dropAt`, minus a bit. */
function pendingDeleteAnswer(dropAt: Date): Record<string, unknown> {
  return {
    ...minimalDomain(DOMAIN),
    status: ["pending delete"],
    events: [
      { eventAction: "registration", eventDate: "2016-04-01T00:00:00Z" },
      { eventAction: "expiration", eventDate: new Date(dropAt.getTime() - 40 * 86_400_000).toISOString() },
      { eventAction: "last changed", eventDate: new Date(dropAt.getTime() - 5 * 86_400_000).toISOString() },
    ],
  };
}

async function main(): Promise<void> {
  console.log(
    "Domain Watchlist demo: from a dropped name to a signed webhook, a Telegram message and an email",
  );

  step("Starting a throwaway PostgreSQL 15 with pg_cron …");
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-demo-" });
  const cluster = clusterAt(baseDir, freePort());
  const cleanups: (() => Promise<unknown>)[] = [
    () => Deno.remove(baseDir, { recursive: true }),
    () => stopCluster(cluster),
  ];
  try {
    const { applied } = await prepareDatabase(cluster);
    detail(`ready on 127.0.0.1:${cluster.port}, ${applied.length} migrations applied`);

    step(
      "Starting local fakes: an RDAP registry for .com, a DNS server, the Telegram Bot API, a webhook receiver, " +
        "and the local mailbox's SMTP side",
    );
    const rdap = await startFakeRdap({ tlds: ["com"] });
    rdap.setDomain("example.com", { status: 200 }); // the registry's canary: it can say "found"
    const dns = await startFakeDns();
    const telegram = startFakeTelegram();
    const receiver = startWebhookReceiver();
    const smtp = startSmtp({ port: 0 });
    cleanups.unshift(
      () => rdap.close(),
      () => dns.close(),
      () => telegram.close(),
      () => receiver.close(),
      () => smtp.close(),
    );

    for (
      const [name, value] of Object.entries({
        RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
        DNS_NAMESERVER: dns.address,
        TELEGRAM_API_BASE: telegram.url,
        TELEGRAM_BOT_TOKEN: telegram.token,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        SMTP_URL: smtp.url,
        ALERT_MAIL_FROM: "Domain Watchlist demo <alerts@localhost>",
        // An address's mail waits 5 minutes for more events to go with it (a digest); the demo does not wait.
        EMAIL_DIGEST_WINDOW_SECONDS: "0",
        POLLER_TIME_BUDGET_MS: "10000",
        SUPABASE_DB_URL: cluster.url,
      })
    ) Deno.env.set(name, value);

    step("Starting the functions gateway (api-v1, rdap-poller, …) and the pg_net stand-in");
    const gateway = await startGateway({ port: 0 });
    const environment = await applyFunctionEnvironment({
      supabaseUrl: gateway.url,
      databaseUrl: cluster.url,
    });
    const sql = postgres.connect(cluster.url, { max: 2, onnotice: () => {} });
    await setRdapHostLimit(sql, rdap.url, 50);
    const netWorker = await startNetWorker(cluster.url, 60_000);
    cleanups.unshift(() => netWorker.close(), () => sql.end({ timeout: 2 }), () => gateway.close());
    await storePollerVaultSecrets(sql, { projectUrl: gateway.url, pollerSecret: environment.POLLER_SECRET });
    await setWebhookTargetPolicy(sql, true);
    detail(`gateway on ${gateway.url}; Vault holds project_url and poller_secret for the pg_cron job`);

    step(
      "Creating a Pro account with a Telegram chat and a signed webhook (its own address gets email on every plan)",
    );
    const account = await createAccount(sql, `demo-${crypto.randomUUID().slice(0, 6)}@example.test`, "pro");
    const asDemoAccount = <T>(work: (tx: postgres.TransactionSql) => Promise<T>) =>
      asAccount(sql, account, work);
    const hookUrl = receiver.endpoint("demo");
    // Telegram is linked the only way there is: the app's one-time link, opened in the user's private chat.
    await registerBotWebhook(sql, telegram, `${gateway.url}/functions/v1`);
    await linkTelegramChat(sql, telegram, account.user_id, "424242");
    telegram.forget("424242");
    const secret = await asDemoAccount(async (tx) => {
      const [hook] = await tx<
        { id: string }[]
      >`select public.create_webhook_endpoint(${hookUrl}, 'demo') as id`;
      const [rotated] = await tx<
        { secret: string }[]
      >`select public.rotate_webhook_secret(${hook.id}) as secret`;
      return rotated.secret;
    });
    receiver.endpoint("demo", { secret });
    detail(`${account.email}: Telegram chat linked through the bot (/start <token>), webhook ${hookUrl}`);
    detail(
      "signing secret generated by rotate_webhook_secret(): shown to the app once, write-only afterwards",
    );

    step(`Watching ${DOMAIN}`);
    await asDemoAccount((tx) => tx`select * from public.add_watchlist_domains(${[DOMAIN]})`);
    const dropAt = new Date(Date.now() + 40 * MINUTE);
    rdap.setDomain(DOMAIN, { status: 200, body: pendingDeleteAnswer(dropAt) });
    detail(
      `the registry reports it in pending delete; predicted drop ${clock(dropAt)} (5 days after it began)`,
    );

    step("The poller runs, the way pg_cron does every minute");
    detail(
      "select private.invoke_rdap_poller()   -- Vault secrets → net.http_post → POST /functions/v1/rdap-poller",
    );
    await pollLikeCron(sql, netWorker.drain);
    const pending = await domainState(sql);
    detail(`→ ${DOMAIN} is ${pending.status}; next check ${clock(pending.next_check_at)}`);
    detail("  (every minute this close to the predicted drop; far from it, every 30 minutes)");

    step(`The registry lets ${DOMAIN} go: RDAP now answers 404, and DNS has no delegation`);
    rdap.setDomain(DOMAIN, { status: 404 });
    await sql`update public.domains set next_check_at = now() where name = ${DOMAIN}`;
    detail("(the demo skips the wait until the next scheduled check)");

    step("The poller runs again");
    await pollLikeCron(sql, netWorker.drain);
    const available = await domainState(sql);
    const [outbox] = await sql<{ events: number; deliveries: number }[]>`
      select count(distinct e.id)::int as events, count(d.id)::int as deliveries
      from public.alert_events e left join public.alert_deliveries d on d.event_id = e.id
      where e.domain_name = ${DOMAIN}`;
    detail(`→ ${DOMAIN} is ${available.status} (seen free at ${clock(available.last_checked_at)})`);
    detail(
      `→ in the same transaction: ${outbox.events} event, ${outbox.deliveries} deliveries (outbox), which wake a delivery run (POST /rdap-poller/deliveries)`,
    );

    step("The webhook receiver got:");
    const [webhook] = receiver.accepted("demo");
    if (!webhook) throw new Error("no webhook arrived");
    detail(`POST ${new URL(hookUrl).pathname}`);
    for (
      const header of [
        "content-type",
        "x-service-event",
        "x-service-delivery",
        "x-service-signature",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]
    ) {
      detail(`${header}: ${webhook.headers[header]}`);
    }
    detail("");
    detail(JSON.stringify(JSON.parse(webhook.rawBody), null, 2));
    const verified = await verify(secret, webhook.rawBody, webhook.headers["x-service-signature"]);
    detail("");
    detail(`signature verified with @octokit/webhooks-methods verify(): ${verified ? "yes" : "NO"}`);
    detail(
      `webhook-signature verified with standardwebhooks Webhook.verify(): ${
        webhook.standardValid ? "yes" : "NO"
      }`,
    );

    step("Telegram got (sendMessage to the account's chat):");
    const [message] = telegram.delivered();
    if (!message) throw new Error("no Telegram message arrived");
    detail(message.text.split("\n").map((line) => `| ${line}`).join("\n"));

    step(`The account's own address got a mail (SMTP to ${smtp.url}, the local mailbox):`);
    const mail = allMails().find((received) => received.To.some((to) => to.Address === account.email));
    if (!mail) throw new Error("no alert mail arrived");
    detail(`From: ${mail.From.Name} <${mail.From.Address}>`);
    detail(`To: ${mail.To.map((to) => to.Address).join(", ")}`);
    detail(`Subject: ${mail.Subject}`);
    detail(`List-Unsubscribe: ${mail.Headers["List-Unsubscribe"]?.[0]}`);
    detail(`List-Unsubscribe-Post: ${mail.Headers["List-Unsubscribe-Post"]?.[0]}`);
    detail(`(a text/plain part and a text/html part of ${mail.HTML.length} characters)`);
    detail(mail.Text.trimEnd().split("\n").map((line) => `| ${line}`).join("\n"));

    if (!verified || !webhook.standardValid) throw new Error("the webhook signature did not verify");
  } finally {
    step("Cleaning up (fakes, gateway, throwaway database) …");
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    detail("done");
  }
}

async function pollLikeCron(sql: postgres.Sql, drain: () => Promise<number>): Promise<void> {
  const [job] = await sql<{ command: string }[]>`select command from cron.job where jobname = 'rdap-poller'`;
  await sql.unsafe(job.command);
  await drain();
}

async function domainState(sql: postgres.Sql) {
  const [row] = await sql<{ status: string; next_check_at: Date; last_checked_at: Date }[]>`
    select status, next_check_at, last_checked_at from public.domains where name = ${DOMAIN}`;
  return row;
}

await main();
