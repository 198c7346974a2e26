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

/** `bücher.example (xn--bcher-kva.example)`, or the A-label alone. */
export function displayName(event: Pick<AlertEvent, "domainName" | "unicodeName">): string {
  const unicode = displayableUnicodeName(event);
  return unicode !== null ? `${unicode} (${event.domainName})` : event.domainName;
}

const BASIS_WORDS: Record<string, string> = {
  redemption_period: "RDAP's last change + 30 days of redemption + 5 days of pending delete",
  pending_delete_period: "RDAP's last change + 5 days of pending delete",
};

/** `domain.pending_delete`: what entered pending delete, in one line. */
export function pendingDeleteHeadline(event: AlertEvent, name = displayName(event)): string {
  return event.predictionBasis === "redemption_period"
    ? `${name} entered its redemption period: it may drop soon.`
    : `${name} entered pending delete: it may drop soon.`;
}

/** `domain.pending_delete`: the predicted drop and how it was predicted, in one line. */
export function predictedDropLine(event: AlertEvent): string {
  const basis = event.predictionBasis ? BASIS_WORDS[event.predictionBasis] : undefined;
  if (!event.predictedDropAt || basis === undefined) {
    return "Predicted drop: unknown (the registry gives no date to predict it from).";
  }
  return `Predicted drop: ${formatUtc(event.predictedDropAt)} (${basis}).`;
}

export function telegramAlertText(event: AlertEvent): string {
  const name = displayName(event);
  if (event.type === "domain.pending_delete") {
    return `${pendingDeleteHeadline(event, name)}\n\n${predictedDropLine(event)}\n` +
      `Seen at ${formatUtc(event.checkedAt)}; Domain Watchlist keeps checking it.`;
  }
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
