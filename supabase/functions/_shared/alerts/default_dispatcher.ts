/** The dispatcher's dependencies from the environment, read at call time (`TELEGRAM_*`, `WEBHOOK_*`, `SLACK_*`, `DISCORD_*`, `DNS_*`). */
import { config } from "../config.ts";
import { databaseDeliveryQueue, databaseTelegramPace } from "./delivery_queue.ts";
import type { DeliverySettings } from "./delivery_settings.ts";
import { denoResolver } from "../net/dns_resolver.ts";
import { checkOutboundUrl } from "../net/url_policy.ts";
import type { DispatcherDeps } from "./dispatcher.ts";
import { sendTelegramMessage } from "./telegram_client.ts";
import { postWebhook } from "./webhook_sender.ts";
import { routeChatWebhook } from "./chat_webhooks.ts";

export function defaultDispatcherDeps(settings: DeliverySettings): DispatcherDeps {
  const botToken = config.telegramBotToken();
  const apiBase = config.telegramApiBase();
  const allowPrivateTargets = config.webhookAllowPrivateTargets();
  const resolve = denoResolver(config.dnsNameserver());
  const chatBases = { slack: config.slackWebhookBaseUrl(), discord: config.discordWebhookBaseUrl() };
  const timeouts = { connectMs: settings.webhookConnectTimeoutMs, totalMs: settings.webhookTimeoutMs };
  return {
    queue: databaseDeliveryQueue(settings.breaker),
    telegramPace: databaseTelegramPace(settings.telegram),
    sendTelegram: botToken === undefined
      ? null
      : (chatId, text) => sendTelegramMessage({ apiBase, botToken, chatId, text }),
    postWebhook: (target, body, headers) => postWebhook(target, body, headers, timeouts),
    checkTarget: (url) => checkOutboundUrl(url, { allowPrivateTargets, resolve }),
    routeChatWebhook: (url, kind) => routeChatWebhook(url, kind, chatBases),
  };
}
