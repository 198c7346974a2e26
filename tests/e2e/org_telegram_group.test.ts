/**
 * A Telegram group as an organization's team channel, end to end with the fake Telegram
 * (docs/telegram.md "A group for an organization"): an admin's group link, Telegram's `/start <token>` from
 * the group links it (the chat ID never returned), a drop of the organization's claimed name sends one
 * message to the group naming the organization and the claimer, and `/stop` in the group unlinks it.
 */
import { repoRoot } from "../../platform/paths.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { databaseUrl, startStack, uniqueDomain } from "../support/stack.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram_server.ts";
import { postToPoller } from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function say(telegram: FakeTelegram, chatId: number, text: string): Promise<string | null> {
  const before = telegram.calls.length;
  const response = await telegram.deliverUpdate(chatId, text, { chatType: "supergroup" });
  await response.body?.cancel();
  assertEquals(response.status, 200);
  return telegram.calls.slice(before).find((call) => call.chatId === String(chatId))?.text ?? null;
}

Deno.test(
  "a Telegram group as a team channel: linked by a group link, one message per event",
  options,
  async (t) => {
    const telegram = startFakeTelegram({ username: "WatchlistTestBot" });
    const telegramEnv = {
      TELEGRAM_API_BASE: telegram.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_WEBHOOK_SECRET: `tg-secret-${crypto.randomUUID()}`,
    };
    const stack = await startStack({ ...telegramEnv, DELIVERY_IDLE_LINGER_MS: "100" });
    const { sql } = stack;
    const group = -(1_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
    const name = uniqueDomain("tgteam", "tgteamtest");
    try {
      const registered = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "scripts/admin.ts",
          "telegram-webhook",
          "--url",
          `${stack.functionsBase}/telegram-bot`,
        ],
        cwd: repoRoot,
        env: { SUPABASE_DB_URL: databaseUrl(), ...telegramEnv, TELEGRAM_BOT_USERNAME: "" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(registered.code, 0, new TextDecoder().decode(registered.stderr));

      const owner = await stack.account("pro");
      const admin = await stack.account("pro");
      const member = await stack.account("pro");
      await sql`update public.profiles set display_name = 'Mia M.' where id = ${member.user_id}`;
      const [{ org }] = await asAccount(
        sql,
        owner,
        (tx) => tx<{ org: string }[]>`select public.create_organization('Acme') as org`,
      );
      await sql`insert into public.organization_members (organization_id, user_id, role)
              values (${org}, ${admin.user_id}, 'admin'), (${org}, ${member.user_id}, 'member')`;

      await t.step("an admin's group link, opened in a group, links it", async () => {
        const [{ link }] = await asAccount(
          sql,
          admin,
          (tx) =>
            tx<{ link: { url: string } }[]>`select public.create_organization_telegram_link(${org}) as link`,
        );
        assertMatch(link.url, /^https:\/\/t\.me\/WatchlistTestBot\?startgroup=[0-9a-f]{48}$/);
        const token = new URL(link.url).searchParams.get("startgroup")!;
        const reply = await say(telegram, group, `/start@WatchlistTestBot ${token}`);
        assertMatch(reply ?? "", /^Linked\. This group now receives/);
        assertMatch(await say(telegram, group - 1, `/start ${token}`) ?? "", /does not work in a group/);
        const [{ seen }] = await asAccount(
          sql,
          member,
          (tx) =>
            tx<
              { seen: Record<string, unknown> }[]
            >`select public.organization_telegram_group(${org}) as seen`,
        );
        assertEquals([seen.linked_by, seen.enabled], [admin.email.split("@")[0], true]);
        assert(!JSON.stringify(seen).includes(String(Math.abs(group))), "a member never reads the chat ID");
      });

      await t.step("a drop of the claimed name: one message to the group naming the claimer", async () => {
        await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;
        telegram.forget(String(group));
        await sql`insert into public.domains (name, status, last_checked_at) values (${name}, 'pending_delete', now())`;
        await asAccount(
          sql,
          owner,
          (tx) => tx`select public.add_organization_watchlist_domains(${org}, ${[name]})`,
        );
        await asAccount(sql, member, (tx) => tx`select public.claim_organization_domain(${org}, ${name})`);
        await sql`update public.domains set status = 'available', last_checked_at = now() where name = ${name}`;
        await postToPoller(stack, "/rdap-poller/deliveries");
        const deadline = Date.now() + 15_000;
        while (telegram.delivered(String(group)).length === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const messages = telegram.delivered(String(group));
        assertEquals(messages.length, 1, JSON.stringify(messages));
        assertMatch(
          messages[0].text,
          new RegExp(
            `^${name.replaceAll(".", "\\.")} is available\\.\\nAcme's list · claimed by Mia M\\.\\n`,
          ),
        );
      });

      await t.step("/stop in the group unlinks it", async () => {
        assertMatch(await say(telegram, group, "/stop@WatchlistTestBot") ?? "", /^Unlinked\./);
        const [{ seen }] = await asAccount(
          sql,
          admin,
          (tx) => tx<{ seen: unknown }[]>`select public.organization_telegram_group(${org}) as seen`,
        );
        assertEquals(seen, null);
        assertMatch(await say(telegram, group, "/stop") ?? "", /not linked/);
      });
    } finally {
      await stack.close();
      await telegram.close();
    }
  },
);
