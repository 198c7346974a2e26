/**
 * Linking a Telegram chat the only way there is: the account asks for a one-time link
 * (`create_telegram_link`), and the fake Telegram delivers "/start <token>" from that private chat to the
 * telegram-bot function, which links it and replies.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { setTelegramBotUsername } from "../../platform/postgres/vault.ts";
import type { FakeTelegram } from "../fakes/telegram_server.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";

/** Registers `<functionsBase>/telegram-bot` with the fake (as `deno task admin telegram-webhook` does). */
export async function registerBotWebhook(
  sql: postgres.Sql,
  telegram: FakeTelegram,
  functionsBase: string,
  secret = Deno.env.get("TELEGRAM_WEBHOOK_SECRET")!,
): Promise<void> {
  const response = await fetch(`${telegram.url}/bot${telegram.token}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: `${functionsBase}/telegram-bot`, secret_token: secret }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`setWebhook answered ${response.status}`);
  await setTelegramBotUsername(sql, telegram.username);
}

/** The account's deep link from create_telegram_link(), run as the account (role authenticated). */
export async function createTelegramLink(
  sql: postgres.Sql,
  userId: string,
): Promise<{ url: string; expires_at: string; token: string }> {
  const link = await asAccount(sql, userId, async (tx) => {
    const [row] = await tx<{ link: { url: string; expires_at: string } }[]>`
      select public.create_telegram_link() as link`;
    return row.link;
  }) as { url: string; expires_at: string };
  return { ...link, token: new URL(link.url).searchParams.get("start")! };
}

/** Links `chatId` to the account through the bot; throws unless the bot confirmed it. */
export async function linkTelegramChat(
  sql: postgres.Sql,
  telegram: FakeTelegram,
  userId: string,
  chatId: string,
): Promise<void> {
  const { token } = await createTelegramLink(sql, userId);
  const before = telegram.calls.length;
  const response = await telegram.deliverUpdate(Number(chatId), `/start ${token}`);
  await response.body?.cancel();
  const reply = telegram.calls.slice(before).find((call) => call.chatId === chatId);
  if (response.status !== 200 || !reply?.text.startsWith("Linked.")) {
    throw new Error(`the bot did not link chat ${chatId}: HTTP ${response.status}, reply ${reply?.text}`);
  }
}
