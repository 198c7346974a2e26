/** The text of a Telegram alert (plain text: no parse mode, so nothing in a name needs escaping). */
import type { AlertEvent } from "./alert_event.ts";

const STATUS_WORDS: Record<string, string> = {
  registered: "registered",
  pending_delete: "pending delete",
  unknown: "not yet known",
};

export function telegramAlertText(event: AlertEvent): string {
  const name = event.unicodeName !== null && event.unicodeName !== event.domainName
    ? `${event.unicodeName} (${event.domainName})`
    : event.domainName;
  const seen = `Seen free at ${formatUtc(event.checkedAt)}`;
  const before = event.previousStatus !== null && STATUS_WORDS[event.previousStatus]
    ? ` (it was ${STATUS_WORDS[event.previousStatus]}).`
    : ".";
  if (event.type === "test") {
    return `Test alert from Domain Watchlist: alerts reach this chat.\n\n` +
      `A real alert looks like this:\n${name} is available.\n${seen}${before}`;
  }
  return `${name} is available.\n\n${seen}${before}\n` +
    `Domain Watchlist only alerts: register it at a registrar of your choice.`;
}

/** `2026-11-22 10:04:05 UTC` */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
