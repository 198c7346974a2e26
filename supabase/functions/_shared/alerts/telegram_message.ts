/**
 * The text of a Telegram alert. Plain text (no parse mode), so nothing needs markup escaping; every value in
 * it is the server's: the A-label, statuses, the check time, and the unicode form the database derived from
 * the A-label (`domain_unicode_name`). As a second line of defence a unicode form is shown only when it
 * looks like a domain name (letters, marks, digits, hyphens and dots), so no link, space or control
 * character can reach a chat through it.
 */
import type { AlertEvent } from "./alert_event.ts";

const plausibleUnicodeName = /^[\p{L}\p{M}\p{N}-]{1,63}(?:\.[\p{L}\p{M}\p{N}-]{1,63})*$/u;

/** The unicode form to show next to the A-label, or null. */
export function displayableUnicodeName(event: Pick<AlertEvent, "domainName" | "unicodeName">): string | null {
  const unicode = event.unicodeName;
  if (unicode === null || unicode === event.domainName || unicode.length > 253) return null;
  return plausibleUnicodeName.test(unicode) ? unicode : null;
}

const STATUS_WORDS: Record<string, string> = {
  registered: "registered",
  pending_delete: "pending delete",
  unknown: "not yet known",
};

export function telegramAlertText(event: AlertEvent): string {
  const unicode = displayableUnicodeName(event);
  const name = unicode !== null ? `${unicode} (${event.domainName})` : event.domainName;
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
