/**
 * Telegram linking through the bot, end to end: `deno task admin telegram-webhook` registers the
 * telegram-bot function with the fake Telegram, `link-telegram` gives the one-time deep link, and the fake
 * delivers updates with the secret header as Telegram does. Link, alert, /list, /stop; expired and reused
 * tokens, a wrong secret header, groups and channels are refused.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { repoRoot } from "../../platform/paths.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { databaseUrl, startStack } from "../support/stack.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram_server.ts";
import { createTelegramLink } from "../support/telegram_link.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "tgbottest";

async function admin(env: Record<string, string>, ...args: string[]) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: repoRoot,
    env: { SUPABASE_DB_URL: databaseUrl(), ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  return {
    code: result.code,
    json: JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>,
    out,
  };
}

/** Delivers `text` from the chat and returns the bot's reply to that chat (null when none). */
async function say(
  telegram: FakeTelegram,
  chatId: number,
  text: string,
  options?: Parameters<FakeTelegram["deliverUpdate"]>[2],
): Promise<{ status: number; reply: string | null }> {
  const before = telegram.calls.length;
  const response = await telegram.deliverUpdate(chatId, text, options);
  await response.body?.cancel();
  const reply = telegram.calls.slice(before).find((call) => call.chatId === String(chatId));
  return { status: response.status, reply: reply?.text ?? null };
}

async function linkedChat(sql: postgres.Sql, account: CreatedAccount): Promise<string | null> {
  const [row] = await sql<{ telegram_chat_id: string | null }[]>`
    select telegram_chat_id from public.notification_settings where user_id = ${account.user_id}`;
  return row?.telegram_chat_id ?? null;
}

Deno.test(
  "Telegram linking through the bot: link, alert, /list, /stop, and every refusal",
  options,
  async (t) => {
    const telegram = startFakeTelegram({ username: "WatchlistTestBot" });
    const rdap = await startFakeRdap({ tlds: [TLD] });
    const dns = await startFakeDns();
    const webhookSecret = `tg-secret-${crypto.randomUUID()}`;
    const telegramEnv = {
      TELEGRAM_API_BASE: telegram.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_WEBHOOK_SECRET: webhookSecret,
    };
    const stack = await startStack({
      ...telegramEnv,
      RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
      DNS_NAMESERVER: dns.address,
    });
    const { sql } = stack;
    const base = 700_000_000 + Math.floor(Math.random() * 100_000_000);
    const chat = { alice: base + 1, bob: base + 2, mallory: base + 3 };
    try {
      await t.step(
        "admin telegram-webhook registers the function with its secret and learns the username",
        async () => {
          const webhookUrl = `${stack.functionsBase}/telegram-bot`;
          const done = await admin(
            { ...telegramEnv, TELEGRAM_BOT_USERNAME: "" },
            "telegram-webhook",
            "--url",
            webhookUrl,
          );
          assertEquals(done.code, 0, done.out);
          assertEquals(done.json, { webhook_url: webhookUrl, bot_username: "WatchlistTestBot" });
          assert(!done.out.includes(telegram.token), "the bot token is never printed");
          assertEquals(telegram.webhook?.url, webhookUrl);
          assertEquals(telegram.webhook?.secretToken, webhookSecret);

          const noSecret = await admin(
            {
              TELEGRAM_API_BASE: telegram.url,
              TELEGRAM_BOT_TOKEN: telegram.token,
              TELEGRAM_WEBHOOK_SECRET: "",
            },
            "telegram-webhook",
            "--url",
            "https://project.example.com/functions/v1/telegram-bot",
          );
          assertEquals(noSecret.code, 2, "a public webhook URL needs TELEGRAM_WEBHOOK_SECRET");
        },
      );

      const alice = await stack.account("business");
      const bob = await stack.account("free");
      const names = Array.from({ length: 52 }, (_, i) => `n${String(i).padStart(2, "0")}-${base}.${TLD}`);
      await asAccount(sql, alice, (tx) => tx`select * from public.add_watchlist_domains(${names})`);
      await sql`update public.domains set next_check_at = now() + interval '1 day' where name = any(${names})`;

      await t.step("a hand-typed chat ID is refused; nothing is sent to it", async () => {
        const refused = await asAccount(
          sql,
          alice,
          (tx) => tx`select public.set_telegram_chat(${String(chat.alice)})`,
        )
          .then(() => null, (error) => String(error.code));
        assertEquals(refused, "DW400");
        assertEquals(await linkedChat(sql, alice), null);
      });

      let aliceToken = "";
      await t.step("link-telegram gives a one-time deep link valid 15 minutes", async () => {
        const link = await admin({}, "link-telegram", "--email", alice.email);
        assertEquals(link.code, 0, link.out);
        assertMatch(String(link.json.url), /^https:\/\/t\.me\/WatchlistTestBot\?start=[0-9a-f]{48}$/);
        const validFor = Date.parse(String(link.json.expires_at)) - Date.now();
        assert(validFor > 14 * 60_000 && validFor <= 15 * 60_000 + 5_000, String(validFor));
        aliceToken = new URL(String(link.json.url)).searchParams.get("start")!;
      });

      await t.step("a wrong or missing secret header is refused before anything happens", async () => {
        const wrong = await say(telegram, chat.mallory, `/start ${aliceToken}`, {
          secretToken: "not-the-secret",
        });
        assertEquals([wrong.status, wrong.reply], [401, null]);
        const missing = await say(telegram, chat.mallory, `/start ${aliceToken}`, { secretToken: null });
        assertEquals([missing.status, missing.reply], [401, null]);
        const direct = await fetch(`${stack.functionsBase}/telegram-bot`, { method: "POST", body: "{}" });
        assertEquals(direct.status, 401);
        assertEquals((await direct.json()).error, "unauthorized");
        assertEquals(await linkedChat(sql, alice), null, "the token was not used");
      });

      await t.step(
        "a personal link in a group, and channels, are refused politely and never linked",
        async () => {
          const group = await say(telegram, -(base + 10), `/start ${aliceToken}`, { chatType: "group" });
          assertEquals(group.status, 200);
          assertMatch(
            group.reply ?? "",
            /does not work in a group: a personal link works in a private chat only/,
          );
          const channel = await say(telegram, -(base + 11), `/start ${aliceToken}`, { chatType: "channel" });
          assertMatch(channel.reply ?? "", /private chats only/);
          assertEquals(await linkedChat(sql, alice), null);
        },
      );

      await t.step("/start <token> links the private chat and confirms", async () => {
        const linked = await say(telegram, chat.alice, `/start ${aliceToken}`);
        assertEquals(linked.status, 200);
        assertMatch(linked.reply ?? "", /^Linked\./);
        assertEquals(await linkedChat(sql, alice), String(chat.alice));
      });

      await t.step("a reused token is refused", async () => {
        const reused = await say(telegram, chat.mallory, `/start ${aliceToken}`);
        assertEquals(reused.status, 200);
        assertMatch(reused.reply ?? "", /does not work any more/);
        assertEquals(await linkedChat(sql, alice), String(chat.alice), "still Alice's own chat");
      });

      await t.step("an expired token is refused", async () => {
        const { token } = await createTelegramLink(sql, bob.user_id);
        await sql`update public.telegram_link_tokens set expires_at = now() - interval '1 second'
                where user_id = ${bob.user_id} and used_at is null`;
        const expired = await say(telegram, chat.bob, `/start ${token}`);
        assertMatch(expired.reply ?? "", /does not work any more/);
        assertEquals(await linkedChat(sql, bob), null);
        const unknown = await say(telegram, chat.bob, `/start ${"0".repeat(48)}`);
        assertMatch(unknown.reply ?? "", /does not work any more/);
      });

      await t.step("an alert reaches the linked chat", async () => {
        // The Telegram pace is project-wide: an earlier test's 429 (the poller test's 2-minute retry_after)
        // would hold this message back too.
        await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;
        await asAccount(sql, alice, (tx) => tx`select public.send_telegram_test()`);
        const before = telegram.delivered(String(chat.alice)).length;
        const response = await fetch(`${stack.functionsBase}/rdap-poller/deliveries`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}`,
            "content-type": "application/json",
          },
          body: "{}",
        });
        assertEquals(response.status, 200, await response.text());
        // The alert's own wake-up may have started a delivery run first: wait for whichever run sends it.
        const deadline = Date.now() + 15_000;
        while (telegram.delivered(String(chat.alice)).length === before && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const messages = telegram.delivered(String(chat.alice)).slice(before);
        assertEquals(messages.length, 1);
        assertMatch(messages[0].text, /example\.com/);
      });

      await t.step("/list: at most 50 names with their state, and the count", async () => {
        const list = await say(telegram, chat.alice, "/list");
        const lines = (list.reply ?? "").split("\n");
        assertEquals(lines[0], "52 names watched:");
        assertEquals(lines.length, 1 + 50 + 1);
        assertEquals(lines[1], `${names[0]} - unknown`);
        assertEquals(lines.at(-1), "(showing 50 of 52)");
        const notLinked = await say(telegram, chat.mallory, "/list");
        assertMatch(notLinked.reply ?? "", /not linked/);
      });

      await t.step("unknown commands and plain text get the short help", async () => {
        for (const text of ["/frobnicate", "hello", "/start"]) {
          const help = await say(telegram, chat.alice, text);
          assertMatch(help.reply ?? "", /^Domain Watchlist bot\./, text);
        }
      });

      await t.step("/stop unlinks: no more alerts go there", async () => {
        const stopped = await say(telegram, chat.alice, "/stop");
        assertMatch(stopped.reply ?? "", /^Unlinked\./);
        assertEquals(await linkedChat(sql, alice), null);
        const test = await asAccount(sql, alice, (tx) => tx`select public.send_telegram_test()`)
          .then(() => null, (error) => String(error.code));
        assertEquals(test, "DW400", "no chat, no Telegram alert");
        const again = await say(telegram, chat.alice, "/stop");
        assertMatch(again.reply ?? "", /not linked/);
      });

      await t.step("a body that is not an update is a 400 with a JSON error", async () => {
        const response = await fetch(`${stack.functionsBase}/telegram-bot`, {
          method: "POST",
          headers: { "x-telegram-bot-api-secret-token": webhookSecret },
          body: "not json",
        });
        assertEquals(response.status, 400);
        assertEquals((await response.json()).error, "invalid_request");
        const get = await fetch(`${stack.functionsBase}/telegram-bot`);
        assertEquals(get.status, 405);
        await get.body?.cancel();
      });
    } finally {
      await stack.close();
      await telegram.close();
      await rdap.close();
      await dns.close();
    }
  },
);
