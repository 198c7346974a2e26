/**
 * The alert mail: subject, plain-text and HTML parts, and the headers every alert mail carries (one-click
 * unsubscribe, RFC 2369 and RFC 8058). One event gives one alert; several (the address's digest, events
 * within 5 minutes) give one mail listing each. The wording and the evidence line are the chat messages'
 * (telegram_message.ts), so every channel says the same. Every value comes from the server (A-labels,
 * statuses, times, registry text made plain); the HTML part escapes all of it. Pure: no I/O.
 */
import type { AlertEvent } from "./alert_event.ts";
import { displayName, eventHeadline, telegramAlertText } from "./telegram_message.ts";
import { oneLine } from "./team_line.ts";

export interface EmailLinks {
  /** `https://…/functions/v1/email-links/unsubscribe?token=…` (this mail's own token). */
  unsubscribeUrl: string;
  /** The app's alerts page, to change what is sent (optional). */
  settingsUrl?: string | null;
}

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

const SERVICE = "Domain Watchlist";

/** One event's headline, for a subject or a digest's list. */
export function emailHeadline(event: AlertEvent): string {
  if (event.type === "test") return `Test alert from ${SERVICE}`;
  return eventHeadline(event, displayName(event));
}

/** The subject: the one event's headline, or `3 alerts: a.com is available, b.com … and 1 more`. */
export function emailSubject(events: readonly AlertEvent[]): string {
  if (events.length === 1) return clip(emailHeadline(events[0]), 150);
  const names = events.slice(0, 2).map((event) => emailHeadline(event).replace(/\.$/, ""));
  const more = events.length > 2 ? ` and ${events.length - 2} more` : "";
  return clip(`${events.length} alerts: ${names.join("; ")}${more}`, 150);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** One event's text as the chat channels send it, with a test alert's wording made for a mailbox. */
function eventText(event: AlertEvent): string {
  return telegramAlertText(event).replace("alerts reach this chat", "alerts reach this address");
}

/** Why this address gets the mail: an account's channel, or an organization's (a team address). */
function channelOf(events: readonly AlertEvent[]): string {
  const organization = events.find((event) => event.organization)?.organization;
  return organization
    ? `the organization ${oneLine(organization.name)} on ${SERVICE}`
    : `a ${SERVICE} account`;
}

function footerLines(events: readonly AlertEvent[], links: EmailLinks): string[] {
  return [
    `You get this because this address is an alert channel of ${channelOf(events)}.`,
    ...(links.settingsUrl ? [`Change what is sent: ${links.settingsUrl}`] : []),
    `Unsubscribe this address (one click): ${links.unsubscribeUrl}`,
  ];
}

function textPart(events: readonly AlertEvent[], links: EmailLinks): string {
  const body = events.length === 1 ? eventText(events[0]) : [
    `${events.length} alerts for your watched names:`,
    ...events.map((event, index) => `${index + 1}. ${eventText(event)}`),
  ].join("\n\n");
  return `${body}\n\n-- \n${footerLines(events, links).join("\n")}\n`;
}

function htmlEvent(event: AlertEvent): string {
  const [first, ...rest] = eventText(event).split("\n");
  const lines = rest.filter((line, index) => !(index === 0 && line === ""));
  return `<h2 style="font-size:18px;margin:0 0 8px">${escapeHtml(first)}</h2>` +
    lines.map((line) => line === "" ? "" : `<p style="margin:0 0 6px">${escapeHtml(line)}</p>`).join("");
}

function htmlPart(events: readonly AlertEvent[], links: EmailLinks): string {
  const intro = events.length === 1
    ? ""
    : `<p style="margin:0 0 16px">${events.length} alerts for your watched names:</p>`;
  const items = events.map((event) =>
    `<div style="border-left:3px solid #2563eb;padding:4px 12px;margin:0 0 16px">${htmlEvent(event)}</div>`
  ).join("");
  const settings = links.settingsUrl
    ? ` <a href="${escapeHtml(links.settingsUrl)}">Change what is sent</a> ·`
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${
    escapeHtml(emailSubject(events))
  }</title></head><body style="font:15px/1.5 system-ui,sans-serif;color:#111;max-width:640px;margin:0 auto;padding:16px">` +
    `${intro}${items}<hr style="border:0;border-top:1px solid #ddd;margin:24px 0 8px">` +
    `<p style="font-size:13px;color:#555">You get this because this address is an alert channel of ${
      escapeHtml(channelOf(events))
    }.${settings} <a href="${
      escapeHtml(links.unsubscribeUrl)
    }">Unsubscribe this address</a></p></body></html>`;
}

/**
 * The mail for `events` (one, or the address's digest, oldest first). `mailId` (the first delivery's id)
 * names it: `X-Service-Delivery`, stable across retries.
 */
export function alertEmail(events: readonly AlertEvent[], links: EmailLinks, mailId: string): EmailMessage {
  if (events.length === 0) throw new Error("alertEmail: no events");
  return {
    subject: emailSubject(events),
    text: textPart(events, links),
    html: htmlPart(events, links),
    headers: {
      "List-Unsubscribe": `<${links.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "X-Service-Delivery": mailId,
      "X-Service-Event": events.length === 1 ? events[0].type : "digest",
      "Auto-Submitted": "auto-generated",
    },
  };
}

/** The confirmation mail of an extra address. */
export function confirmationEmail(confirmUrl: string, expiresAt: Date): EmailMessage {
  const until = `${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const text = `Someone added this address to the alerts of a ${SERVICE} account.\n\n` +
    `To receive its domain alerts here, confirm the address (the link works until ${until}):\n` +
    `${confirmUrl}\n\nIf this was not you, ignore this mail: nothing is sent to this address unless it is confirmed.\n`;
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Confirm this address</title></head>` +
    `<body style="font:15px/1.5 system-ui,sans-serif;color:#111;max-width:640px;margin:0 auto;padding:16px">` +
    `<p>Someone added this address to the alerts of a ${SERVICE} account.</p>` +
    `<p><a href="${escapeHtml(confirmUrl)}">Confirm this address</a> to receive its domain alerts here ` +
    `(the link works until ${escapeHtml(until)}).</p>` +
    `<p style="font-size:13px;color:#555">If this was not you, ignore this mail: nothing is sent to this address unless it is confirmed.</p>` +
    `</body></html>`;
  return {
    subject: `Confirm this address for ${SERVICE} alerts`,
    text,
    html,
    headers: { "Auto-Submitted": "auto-generated" },
  };
}
