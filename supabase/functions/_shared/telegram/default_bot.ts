/** The telegram-bot function's dependencies from the environment (`TELEGRAM_*`), read per request. */
import { config } from "../config.ts";
import { sendTelegramMessage } from "../alerts/telegram_client.ts";
import type { BotDeps } from "./bot_handler.ts";
import { databaseBotStore } from "./bot_store.ts";

export function defaultBotDeps(): BotDeps {
  const botToken = config.telegramBotToken();
  const apiBase = config.telegramApiBase();
  return {
    webhookSecret: config.telegramWebhookSecret(),
    store: databaseBotStore(),
    reply: botToken === undefined
      ? null
      : (chatId, text) => sendTelegramMessage({ apiBase, botToken, chatId, text }),
  };
}
