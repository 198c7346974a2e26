/**
 * Alert channels end to end: Slack and Discord endpoints and the opt-in `domain.pending_delete` event, through
 * the real gateway, poller, delivery run and database, with local fakes of an RDAP registry, DNS,
 * Telegram, Slack, Discord and a signed-webhook receiver. Slack and Discord endpoints are saved at their
 * documented hosts; the sender reaches the fakes through SLACK_WEBHOOK_BASE_URL / DISCORD_WEBHOOK_BASE_URL.
 *
 * Names live under the made-up TLD `chantest`, served only by this file's fake registry.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import { startFakeDiscord, startFakeSlack } from "../fakes/chat_webhooks.ts";
import { linkTelegramChat, registerBotWebhook } from "../support/telegram_link.ts";
import { checkNow, domainStatus, leaveNothingDue, postToPoller, sqlState } from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "chantest";
const DAY = 86_400_000;

function uniqueName(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.${TLD}`;
}

async function createEndpoint(
  sql: postgres.Sql,
  account: CreatedAccount,
  url: string,
  options: { kind?: string; events?: string[]; secret?: string } = {},
): Promise<string> {
  const [row] = await asAccount(
    sql,
    account,
    (tx) =>
      tx<{ id: string }[]>`select public.create_webhook_endpoint(${url}, 'e2e', ${options.secret ?? null},
        ${options.kind ?? null}, ${options.events ?? null}) as id`,
  );
  return row.id;
}

/** In pending delete since `enteredAt` (RDAP's last change), or in redemption when `redemption`. */
function pendingDeleteDomain(name: string, enteredAt: Date, redemption = false): Record<string, unknown> {
  return {
    ...minimalDomain(name),
    status: [redemption ? "redemption period" : "pending delete"],
    events: [
      { eventAction: "registration", eventDate: "2015-03-01T00:00:00Z" },
      { eventAction: "expiration", eventDate: "2026-08-01T00:00:00Z" },
      { eventAction: "last changed", eventDate: enteredAt.toISOString() },
    ],
  };
}

Deno.test("Slack, Discord and domain.pending_delete end to end", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: [TLD] });
  rdap.setDomain(`nic.${TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const telegram = startFakeTelegram();
  const receiver = startWebhookReceiver();
  const slack = startFakeSlack();
  const discord = startFakeDiscord();
  const stack = await startStack({
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    TELEGRAM_API_BASE: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    SLACK_WEBHOOK_BASE_URL: slack.url,
    DISCORD_WEBHOOK_BASE_URL: discord.url,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    POLLER_TIME_BUDGET_MS: "8000",
    DELIVERY_TIME_BUDGET_MS: "8000",
    DELIVERY_IDLE_LINGER_MS: "100",
  });
  const { sql } = stack;
  const accounts: string[] = [];
  const account = async () => {
    const created = await stack.account("pro");
    accounts.push(created.user_id);
    return created;
  };
  await setRdapHostLimit(sql, rdap.url, 50);
  await setWebhookTargetPolicy(sql, true);
  await registerBotWebhook(sql, telegram, stack.functionsBase);
  await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;

  try {
    await t.step(
      "a non-Slack host is refused for kind slack, a non-Discord one for kind discord",
      async () => {
        const owner = await account();
        const refused = async (url: string, kind: string) =>
          await sqlState(() => createEndpoint(sql, owner, url, { kind }));
        assertEquals(await refused("https://hooks.example.com/services/T1/B2/x", "slack"), "DW400");
        assertEquals(await refused(`${slack.url}/services/T1/B2/x`, "slack"), "DW400", "not even the fake's");
        assertEquals(await refused("https://hooks.slack.com/services/T1/B2/x", "discord"), "DW400");
        assertEquals(await refused("https://discord.com/api/webhooks/1/x", "slack"), "DW400");
        const [count] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.webhook_endpoints where user_id = ${owner.user_id}`;
        assertEquals(count.n, 0, "nothing half-written");
      },
    );

    await t.step("a drop reaches a Slack and a Discord endpoint in their own shapes", async () => {
      const owner = await account();
      const name = uniqueName("drop");
      const slackPath = `/services/T0${accounts.length}/B0001/${crypto.randomUUID().slice(0, 12)}`;
      const discordPath = `/api/webhooks/1234567890${accounts.length}/tok_${crypto.randomUUID().slice(0, 8)}`;
      await createEndpoint(sql, owner, slack.hook(slackPath), {
        kind: "slack",
        secret: "slack-secret-0123456789",
      });
      await createEndpoint(sql, owner, discord.hook(discordPath), { kind: "discord" });
      await asAccount(sql, owner, (tx) => tx`select * from public.add_watchlist_domains(${[name]})`);

      rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, new Date(Date.now() - 4 * DAY)) });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "pending_delete");
      assertEquals(slack.received.filter((r) => r.path === slackPath).length, 0, "pending delete is opt-in");

      rdap.setDomain(name, { status: 404 });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "available");
      const [event] = await sql<{ checked_at: Date }[]>`
        select checked_at from public.alert_events where domain_name = ${name} and type = 'domain.available'`;

      const [slackHook] = slack.accepted(slackPath);
      assert(slackHook, "Slack got the alert");
      assertEquals(slack.received.filter((r) => r.path === slackPath).length, 1, "once");
      assertEquals(slackHook.headers["content-type"], "application/json");
      assertEquals(slackHook.headers["x-service-event"], "domain.available");
      assertEquals(slackHook.headers["x-service-signature"], undefined, "Slack does not verify our HMAC");
      assertEquals(slackHook.headers["webhook-signature"], undefined);
      const slackBody = slackHook.body as {
        text: string;
        blocks: { type: string; text?: { type: string; text: string }; elements?: unknown[] }[];
      };
      assert(slackBody.text.startsWith(`${name} is available.`), slackBody.text);
      assertMatch(
        slackBody.text,
        /Seen free at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(it was pending delete\)/,
      );
      assert(slackBody.text.includes(event.checked_at.toISOString().slice(0, 19).replace("T", " ")));
      assertEquals(slackBody.blocks[0].type, "section");
      assertEquals(slackBody.blocks[0].text!.type, "mrkdwn");
      assert(
        slackBody.blocks[0].text!.text.startsWith(
          `*<https://lookup.icann.org/en/lookup?name=${name}|${name}>*`,
        ),
        slackBody.blocks[0].text!.text,
      );
      assertEquals(slackBody.blocks[1].type, "context");

      const [discordHook] = discord.accepted(discordPath);
      assert(discordHook, "Discord got the alert");
      assertEquals(discordHook.status, 204);
      assertEquals(discordHook.headers["x-service-signature"], undefined);
      const discordBody = discordHook.body as {
        content: string;
        embeds: { title: string; url: string; description: string; timestamp: string; fields: unknown[] }[];
        allowed_mentions: { parse: string[] };
      };
      assertEquals(discordBody.content, `${name} is available.`);
      assertEquals(discordBody.embeds.length, 1);
      assertEquals(discordBody.embeds[0].title, name);
      assertEquals(discordBody.embeds[0].url, `https://lookup.icann.org/en/lookup?name=${name}`);
      assertEquals(discordBody.embeds[0].timestamp, event.checked_at.toISOString());
      assertMatch(discordBody.embeds[0].description, /Seen free at .* UTC/);
      assertEquals(discordBody.allowed_mentions, { parse: [] }, "no @everyone from an alert");

      const deliveries = await sql<{ status: string; last_http_status: number }[]>`
        select d.status, d.last_http_status from public.alert_deliveries d
          join public.alert_events e on e.id = d.event_id
         where e.domain_name = ${name} order by d.last_http_status`;
      assertEquals(deliveries, [{ status: "delivered", last_http_status: 200 }, {
        status: "delivered",
        last_http_status: 204,
      }]);
    });

    await t.step("Slack's and Discord's 429s are failures retried on the usual schedule", async () => {
      const owner = await account();
      const name = uniqueName("limited");
      const slackPath = `/services/T9${accounts.length}/B0009/${crypto.randomUUID().slice(0, 12)}`;
      const discordPath = `/api/webhooks/9876543210${accounts.length}/tok_${crypto.randomUUID().slice(0, 8)}`;
      await createEndpoint(sql, owner, slack.hook(slackPath), { kind: "slack" });
      await createEndpoint(sql, owner, discord.hook(discordPath), { kind: "discord" });
      slack.rateLimit(slackPath, 30);
      discord.rateLimit(discordPath, 1.5);
      await asAccount(sql, owner, (tx) => tx`select * from public.add_watchlist_domains(${[name]})`);
      rdap.setDomain(name, { status: 404 });
      await checkNow(stack, name);
      const rows = await sql<
        { status: string; last_http_status: number; failure_count: number; next_attempt_at: Date }[]
      >`select d.status, d.last_http_status, d.failure_count, d.next_attempt_at from public.alert_deliveries d
          where d.user_id = ${owner.user_id}`;
      assertEquals(rows.length, 2);
      for (const row of rows) {
        assertEquals([row.status, row.last_http_status, row.failure_count], ["pending", 429, 1]);
        assert(row.next_attempt_at.getTime() > Date.now() + 30_000, "retried after the first step (1 min)");
      }
      await sql`update public.alert_deliveries set next_attempt_at = now() where user_id = ${owner.user_id}`;
      await postToPoller(stack, "/rdap-poller/deliveries");
      assertEquals(slack.accepted(slackPath).length, 1);
      assertEquals(discord.accepted(discordPath).length, 1);
    });

    await t.step(
      "domain.pending_delete reaches only the channels that asked for it, once per transition",
      async () => {
        const owner = await account();
        const bystander = await account();
        const name = uniqueName("soon");
        const wantsIt = `pd-yes-${crypto.randomUUID().slice(0, 6)}`;
        const availableOnly = `pd-no-${crypto.randomUUID().slice(0, 6)}`;
        const secret = "pending-delete-secret-0123";
        await createEndpoint(sql, owner, receiver.endpoint(wantsIt, { secret }), {
          secret,
          events: ["domain.available", "domain.pending_delete"],
        });
        await createEndpoint(sql, owner, receiver.endpoint(availableOnly));
        const discordPath = `/api/webhooks/5550001${accounts.length}/tok_${crypto.randomUUID().slice(0, 8)}`;
        await createEndpoint(sql, owner, discord.hook(discordPath), {
          kind: "discord",
          events: ["domain.pending_delete"],
        });
        const chatId = String(700_000_000 + Math.floor(Math.random() * 100_000_000));
        await linkTelegramChat(sql, telegram, owner.user_id, chatId);
        telegram.forget(chatId);
        await asAccount(
          sql,
          owner,
          (tx) => tx`select public.set_telegram_event_types(${["domain.pending_delete"]})`,
        );
        const bystanderChat = String(800_000_000 + Math.floor(Math.random() * 100_000_000));
        await linkTelegramChat(sql, telegram, bystander.user_id, bystanderChat);
        telegram.forget(bystanderChat);
        for (const who of [owner, bystander]) {
          await asAccount(sql, who, (tx) => tx`select * from public.add_watchlist_domains(${[name]})`);
        }

        // Registered, then into pending delete (RDAP's last change 2 days ago: drop in 3 days).
        rdap.setDomain(name, { status: 200 });
        await checkNow(stack, name);
        assertEquals(await domainStatus(sql, name), "registered");
        const enteredAt = new Date(Math.floor((Date.now() - 2 * DAY) / 1000) * 1000);
        rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, enteredAt) });
        await checkNow(stack, name);
        assertEquals(await domainStatus(sql, name), "pending_delete");
        // Still pending delete at the next check: nothing new.
        await checkNow(stack, name);

        const first = receiver.accepted(wantsIt);
        assertEquals(first.length, 1, "one pending-delete webhook for the endpoint that asked");
        assertEquals(first[0].signatureValid, true, "signed like every generic webhook");
        assertEquals(first[0].headers["x-service-event"], "domain.pending_delete");
        const payload = JSON.parse(first[0].rawBody);
        assertEquals(payload.type, "domain.pending_delete");
        assertEquals(payload.data.domain_name, name);
        assertEquals(payload.data.previous_status, "registered");
        assertEquals(payload.data.status, "pending_delete");
        assertEquals(payload.data.predicted_drop_at, new Date(enteredAt.getTime() + 5 * DAY).toISOString());
        assertEquals(payload.data.prediction_basis, "pending_delete_period");
        assertEquals(
          receiver.received.filter((r) => r.endpoint === availableOnly).length,
          0,
          "not asked: nothing",
        );

        const [discordHook] = discord.accepted(discordPath);
        assert(discordHook, "the Discord endpoint that asked got it");
        const discordBody = discordHook.body as { content: string; embeds: { fields: { name: string }[] }[] };
        assertEquals(discordBody.content, `${name} entered pending delete: it may drop soon.`);
        assert(discordBody.embeds[0].fields.some((field) => field.name === "Predicted drop"));

        const messages = telegram.delivered(chatId);
        assertEquals(messages.length, 1, "the opted-in chat got it once");
        assert(messages[0].text.startsWith(`${name} entered pending delete`), messages[0].text);
        assert(messages[0].text.includes("Predicted drop: "), messages[0].text);
        assertEquals(telegram.delivered(bystanderChat).length, 0, "a chat on the default list gets nothing");
        const [bystanderEvents] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.alert_events where user_id = ${bystander.user_id}`;
        assertEquals(bystanderEvents.n, 0, "no event for an account without a channel that asked");

        // Restored, then into redemption: a new transition raises it again.
        rdap.setDomain(name, { status: 200 });
        await checkNow(stack, name);
        assertEquals(await domainStatus(sql, name), "registered");
        const redemptionAt = new Date(Math.floor((Date.now() - DAY) / 1000) * 1000);
        rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, redemptionAt, true) });
        await checkNow(stack, name);
        const second = receiver.accepted(wantsIt);
        assertEquals(second.length, 2, "a second transition, a second event");
        const again = JSON.parse(second[1].rawBody);
        assert(again.id !== payload.id);
        assertEquals(again.data.prediction_basis, "redemption_period");
        assertEquals(again.data.predicted_drop_at, new Date(redemptionAt.getTime() + 35 * DAY).toISOString());
        assertEquals(telegram.delivered(chatId).length, 2);
        assert(telegram.delivered(chatId)[1].text.includes("redemption period"));
        assertEquals(receiver.received.filter((r) => r.endpoint === availableOnly).length, 0);
      },
    );
  } finally {
    await leaveNothingDue(sql, [TLD], accounts);
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await slack.close();
    await discord.close();
    await receiver.close();
    await telegram.close();
    await dns.close();
    await rdap.close();
  }
});
