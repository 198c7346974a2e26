/** The dispatcher's dependencies from the environment, read at call time (`TELEGRAM_*`, `WEBHOOK_*`, `DNS_*`). */
import { config } from "../config.ts";
import { databaseDeliveryQueue } from "./delivery_queue.ts";
import { denoResolver } from "../net/dns_resolver.ts";
import { checkOutboundUrl } from "../net/url_policy.ts";
import type { DispatcherDeps } from "./dispatcher.ts";
import { sendTelegramMessage } from "./telegram_client.ts";
import { postWebhook } from "./webhook_sender.ts";

export function defaultDispatcherDeps(): DispatcherDeps {
  const botToken = config.telegramBotToken();
  const apiBase = config.telegramApiBase();
  const allowPrivateTargets = config.webhookAllowPrivateTargets();
  const resolve = denoResolver(config.dnsNameserver());
  return {
    queue: databaseDeliveryQueue(),
    sendTelegram: botToken === undefined
      ? null
      : (chatId, text) => sendTelegramMessage({ apiBase, botToken, chatId, text }),
    postWebhook: (url, body, headers) => postWebhook(url, body, headers),
    checkTarget: (url) => checkOutboundUrl(url, { allowPrivateTargets, resolve }),
  };
}
