/**
 * No log line holds an email address, webhook URL, chat ID, token or key (docs/decisions.md). The functions
 * run in this process (the local gateway imports each one), so every line any of them logs goes through
 * `console`, which this test captures. It runs the session-endpoint flows (export, invitations sent,
 * refused by Auth with a message that quotes the address, and failing) and the alert flows (REST with an
 * API key, a wrong key, a live check, a poller run that finds the name available, deliveries to a webhook
 * that fails and to a Telegram chat that blocked the bot, the bot's /start, /list and /stop) with planted
 * values, then searches everything logged for them.
 */
import { asAccount, createAccount } from "../../scripts/lib/accounts.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeAuth } from "../fakes/auth_server.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import { linkTelegramChat, registerBotWebhook } from "../support/telegram_link.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const appUrl = "https://app.example.test";
const TLD = "com";

type ConsoleMethod = "log" | "info" | "warn" | "error" | "debug";
const METHODS: ConsoleMethod[] = ["log", "info", "warn", "error", "debug"];

/** Captures every console line from now on (and still prints it); `stop` restores the console. */
function captureConsole() {
  const lines: string[] = [];
  const saved = new Map(METHODS.map((method) => [method, console[method]]));
  for (const method of METHODS) {
    console[method] = (...args: unknown[]) => {
      lines.push(
        args.map((arg) => (arg instanceof Error ? arg.stack ?? String(arg) : String(arg))).join(" "),
      );
      saved.get(method)!.apply(console, args);
    };
  }
  return { lines, stop: () => saved.forEach((original, method) => console[method] = original) };
}

Deno.test("no function logs an email address, webhook URL, chat ID, token or key", options, async () => {
  const tag = crypto.randomUUID().replaceAll("-", "").slice(0, 10);
  const planted = {
    ownerEmail: `planted.owner.${tag}@example.test`,
    inviteeEmail: `planted.invitee.${tag}@example.test`,
    chatId: String(700_000_000 + Math.floor(Math.random() * 99_000_000)),
    botToken: `${600_000 + Math.floor(Math.random() * 99_999)}:PLANTEDbotTOKEN${tag}abcdefghij`,
    webhookPath: `planted-hook-${tag}`,
    webhookSecret: `whsec_${btoa(`planted-secret-${tag}-0123456789ab`)}`,
    wrongApiKey: `dwl_${tag}${"0".repeat(38)}`,
  };

  const fake = await startFakeAuth();
  fake.siteUrl = appUrl;
  const rdap = await startFakeRdap({ tlds: [TLD] });
  rdap.setDomain(`example.${TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const telegram = startFakeTelegram({ token: planted.botToken });
  const receiver = startWebhookReceiver();
  const saved = Object.fromEntries(
    ["SUPABASE_JWKS", "APP_ORIGINS"].map((name) => [name, Deno.env.get(name)]),
  );
  Deno.env.delete("SUPABASE_JWKS");
  Deno.env.delete("APP_ORIGINS");

  const capture = captureConsole();
  const stack = await startStack({
    AUTH_BASE_URL: fake.url,
    APP_URL: appUrl,
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    TELEGRAM_API_BASE: telegram.url,
    TELEGRAM_BOT_TOKEN: planted.botToken,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    POLLER_TIME_BUDGET_MS: "8000",
    DELIVERY_TIME_BUDGET_MS: "8000",
    DELIVERY_IDLE_LINGER_MS: "100",
  });
  const { sql } = stack;
  const secrets: Record<string, string> = { ...planted };
  try {
    await setRdapHostLimit(sql, rdap.url, 50);
    await setWebhookTargetPolicy(sql, true);
    await registerBotWebhook(sql, telegram, stack.functionsBase);
    await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;

    const owner = await createAccount(sql, planted.ownerEmail, "pro");
    secrets.apiKey = owner.api_key!;
    const sessionToken = await fake.sign({ sub: owner.user_id, email: owner.email });
    secrets.sessionToken = sessionToken;
    const webhookUrl = receiver.endpoint(planted.webhookPath, { failWith: [500, 500, 500] });
    secrets.webhookUrl = webhookUrl;
    await asAccount(
      sql,
      owner,
      (tx) => tx`select public.create_webhook_endpoint(${webhookUrl}, 'planted', ${planted.webhookSecret})`,
    );

    // Session endpoints ------------------------------------------------------------------------------------
    const session = (path: string, json: unknown = {}) =>
      fetch(`${stack.functionsBase}/${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${sessionToken}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    assertEquals((await session("export-account")).status, 200);

    const [org] = await asAccount(
      sql,
      owner,
      (tx) => tx<{ id: string }[]>`select public.create_organization('Planted') as id`,
    );
    const invite = async (answer: typeof fake.inviteAnswer) => {
      const [row] = await sql<{ id: string; token: string }[]>`
        insert into public.invitations (organization_id, email, role, invited_by)
        values (${org.id}, ${planted.inviteeEmail}, 'member', ${owner.user_id}) returning id, token`;
      secrets[`invitationToken${answer}`] = row.token;
      fake.inviteAnswer = answer;
      const sent = await session("send-org-invite", { invitationId: row.id });
      await sql`delete from public.invitations where id = ${row.id}`;
      return sent.body;
    };
    await sql`delete from public.invite_mail_log`;
    assertEquals(await invite("error_naming_address"), { sent: false, reason: "send_failed" });
    assertEquals(await invite("error"), { sent: false, reason: "send_failed" });
    assertEquals(await invite("ok"), { sent: true });

    // Alert flows -----------------------------------------------------------------------------------------------
    const api = (path: string, init: RequestInit & { key?: string } = {}) =>
      fetch(`${stack.apiBase}${path}`, {
        ...init,
        headers: { "x-api-key": init.key ?? owner.api_key!, "content-type": "application/json" },
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const name = `planted-${tag}.${TLD}`;
    assertEquals(
      (await api("/domains", { method: "POST", body: JSON.stringify({ domains: [name] }) })).status,
      200,
    );
    assertEquals((await api("/domains", { key: planted.wrongApiKey })).status, 401);
    rdap.setDomain(name, { status: 500 });
    assertEquals((await api(`/check/${name}`)).body.status, "unknown");

    await linkTelegramChat(sql, telegram, owner.user_id, planted.chatId);
    telegram.queueAnswers(planted.chatId, [{
      status: 403,
      description: `Forbidden: bot was blocked by the user ${planted.chatId}`,
    }]);
    rdap.setDomain(name, { status: 404 });
    await sql`update public.domains set next_check_at = '2000-01-01T00:00:00Z', lease_until = null
              where name = ${name}`;
    const poller = (path: string) =>
      fetch(`${stack.functionsBase}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}`,
          "content-type": "application/json",
        },
        body: "{}",
      }).then((response) => response.json());
    await poller("/rdap-poller");
    await poller("/rdap-poller/deliveries");
    const [domain] = await sql<{ status: string }[]>`select status from public.domains where name = ${name}`;
    assertEquals(domain.status, "available");
    assertEquals(receiver.received.filter((hook) => hook.endpoint === planted.webhookPath).length, 1);

    for (const text of ["/list", "/stop"]) {
      const response = await telegram.deliverUpdate(Number(planted.chatId), text);
      await response.body?.cancel();
    }
  } finally {
    capture.stop();
    await stack.close();
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) Deno.env.set(name, value);
    await Promise.all([fake.close(), rdap.close(), dns.close(), telegram.close(), receiver.close()]);
  }

  const log = capture.lines.join("\n");
  assert(log.includes("[send-org-invite] Auth refused the invite"), "the Auth failures were logged");
  assert(log.includes("[rdap-poller]") && log.includes("[alert-delivery]"), "the runs were logged");
  const leaks = Object.entries(secrets).filter(([, value]) =>
    log.toLowerCase().includes(value.toLowerCase())
  );
  assertEquals(leaks.map(([label]) => label), [], "planted values found in the logs");
});
