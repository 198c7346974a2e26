/**
 * Slack and Discord endpoints (`webhook_endpoints.kind`): the message each service's incoming webhook
 * takes, instead of our signed JSON (docs/alerts.md).
 *
 * - Slack (incoming webhook): `{"text", "blocks"}` — `text` is the notification's fallback, the blocks a
 *   mrkdwn section (domain linked, what happened, when) and a context line. Slack answers 200 `ok`.
 * - Discord (Execute Webhook): `{"content", "embeds":[…], "allowed_mentions":{"parse":[]}}` — one embed
 *   with the domain as a linked title, what happened, and the time; mentions are switched off. Discord
 *   answers 204.
 *
 * Neither service verifies our HMAC, so these requests carry no signature headers (nothing to check, and
 * the endpoint's secret, if one was saved, is never used). `X-Service-Event` and `X-Service-Delivery` are
 * still sent. Every value in a message is the server's (A-label, statuses, times, the derived unicode form
 * when it looks like a domain name); Slack's `&`, `<`, `>` are escaped.
 *
 * The link is ICANN's RDAP lookup of the name: the registry's own record, to confirm the state.
 */
import type { AlertEvent } from "./alert_event.ts";
import {
  displayName,
  eventDetails,
  eventHeadline,
  formatUtc,
  pendingDeleteHeadline,
  predictedDropLine,
  telegramAlertText,
} from "./telegram_message.ts";
import { WEBHOOK_USER_AGENT } from "./webhook_payload.ts";
import { teamLine } from "./team_line.ts";
import type { WebhookKind } from "../net/url_policy.ts";

export type ChatWebhookKind = Exclude<WebhookKind, "generic">;

/** Where a name's registry record can be looked up (ICANN's RDAP lookup). */
export function lookupLink(domainName: string): string {
  return `https://lookup.icann.org/en/lookup?name=${encodeURIComponent(domainName)}`;
}

interface ChatMessage {
  /** One line: what happened to which name. */
  headline: string;
  /** Further lines: when it was seen, the predicted drop. */
  details: string[];
}

function chatMessage(event: AlertEvent): ChatMessage {
  const message = personalMessage(event);
  const team = teamLine(event);
  // (An available alert's lines come from telegramAlertText, which has the team line already.)
  return team
    ? { headline: message.headline, details: [team, ...message.details.filter((line) => line !== team)] }
    : message;
}

function personalMessage(event: AlertEvent): ChatMessage {
  const name = displayName(event);
  if (event.type === "domain.pending_delete") {
    return {
      headline: pendingDeleteHeadline(event, name),
      details: [predictedDropLine(event), `Seen at ${formatUtc(event.checkedAt)}.`],
    };
  }
  if (
    event.type === "domain.restored" || event.type === "domain.registered" || event.type === "domain.expiring"
  ) {
    return { headline: eventHeadline(event, name), details: eventDetails(event) };
  }
  if (event.type === "test") {
    return {
      headline: "Test alert from Domain Watchlist: alerts reach this channel.",
      details: [`A real alert looks like this: ${name} is available.`],
    };
  }
  const lines = telegramAlertText(event).split("\n").filter((line) => line !== "");
  return { headline: lines[0], details: lines.slice(1) };
}

/** Slack's mrkdwn: `&`, `<` and `>` are the only characters to escape. */
function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The Slack incoming-webhook body. */
export function slackBody(event: AlertEvent): string {
  const message = chatMessage(event);
  const link = lookupLink(event.domainName);
  const name = displayName(event);
  const linked = message.headline.startsWith(name)
    ? `*<${link}|${slackEscape(name)}>*${slackEscape(message.headline.slice(name.length))}`
    : slackEscape(message.headline);
  return JSON.stringify({
    text: [message.headline, ...message.details].join("\n"),
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: [linked, ...message.details.map(slackEscape)].join("\n") },
      },
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: `Domain Watchlist · ${event.type} · <${link}|registry record>` }],
      },
    ],
  });
}

const DISCORD_COLOURS: Record<string, number> = {
  "domain.available": 0x2e7d32,
  "domain.pending_delete": 0xef6c00,
  "domain.restored": 0x1565c0,
  "domain.registered": 0x6a1b9a,
  "domain.expiring": 0xf9a825,
  test: 0x546e7a,
};

/** The Discord Execute Webhook body. */
export function discordBody(event: AlertEvent): string {
  const message = chatMessage(event);
  const fields: { name: string; value: string; inline?: boolean }[] = [
    { name: "Status", value: event.status, inline: true },
  ];
  if (event.type === "domain.pending_delete") {
    fields.push({
      name: "Predicted drop",
      value: event.predictedDropAt ? formatUtc(event.predictedDropAt) : "unknown",
      inline: true,
    });
  }
  if (
    event.type === "domain.expiring" || event.type === "domain.restored" || event.type === "domain.registered"
  ) {
    fields.push({
      name: "Expires",
      value: event.expiresAt ? formatUtc(event.expiresAt) : "unknown",
      inline: true,
    });
  }
  return JSON.stringify({
    content: message.headline,
    embeds: [{
      title: displayName(event).slice(0, 256),
      url: lookupLink(event.domainName),
      description: message.details.join("\n"),
      color: DISCORD_COLOURS[event.type],
      timestamp: event.checkedAt.toISOString(),
      fields,
      footer: { text: `Domain Watchlist · ${event.type}` },
    }],
    allowed_mentions: { parse: [] },
  });
}

export function chatWebhookBody(kind: ChatWebhookKind, event: AlertEvent): string {
  return kind === "slack" ? slackBody(event) : discordBody(event);
}

/** No signature headers: Slack and Discord do not verify them. */
export function chatWebhookHeaders(event: AlertEvent, deliveryId: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    "X-Service-Event": event.type,
    "X-Service-Delivery": deliveryId,
  };
}

/** The configured origins that stand for the documented ones (tests and local use point them at fakes). */
export interface ChatWebhookBases {
  /** `SLACK_WEBHOOK_BASE_URL`, default `https://hooks.slack.com`. */
  slack: string;
  /** `DISCORD_WEBHOOK_BASE_URL`, default `https://discord.com` (also stands for discordapp.com). */
  discord: string;
}

const DOCUMENTED_ORIGINS: Record<ChatWebhookKind, RegExp> = {
  slack: /^https:\/\/hooks\.slack\.com(?=[/?#]|$)/i,
  discord: /^https:\/\/(?:discord\.com|discordapp\.com)(?=[/?#]|$)/i,
};

/**
 * The URL to send to: the saved URL (already held to its kind's documented host) with that origin
 * swapped for the configured base. With the defaults, Slack's URL is unchanged and a discordapp.com
 * URL goes to discord.com (the same service).
 */
export function routeChatWebhook(url: string, kind: ChatWebhookKind, bases: ChatWebhookBases): string {
  const base = (kind === "slack" ? bases.slack : bases.discord).replace(/\/+$/, "");
  return url.replace(DOCUMENTED_ORIGINS[kind], base);
}
