/**
 * The text of a Telegram alert. Plain text (no parse mode), so nothing needs markup escaping; every value in
 * it is the server's: the A-label, statuses, the check time, and the unicode form the database derived from
 * the A-label (`domain_unicode_name`). As a second line of defence a unicode form is shown only when it
 * looks like a domain name (letters, marks, digits, hyphens and dots), so no link, space or control
 * character can reach a chat through it.
 */
import { teamLine } from "./team_line.ts";
import type { AlertEvent } from "./alert_event.ts";
import type { AvailabilityEvidence } from "../contract/webhook_event.ts";

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

/**
 * `domain.available`: the evidence in one line, e.g.
 * `Registry RDAP: not found · proven on nic.xyz 3 h ago · DNS NXDOMAIN`. "Ago" counts from the check, so
 * the line is the same on every retry.
 */
export function evidenceLine(evidence: AvailabilityEvidence): string {
  const registry = `Registry ${evidence.source === "rdap" ? "RDAP" : "WHOIS"}: not found`;
  const canary = plainText(evidence.canary_name, 253);
  const proven = evidence.canary_proved_at === null
    ? `canary ${canary}`
    : `proven on ${canary} ${
      agoText(Date.parse(evidence.checked_at) - Date.parse(evidence.canary_proved_at))
    }`;
  const dns = evidence.dns_rcode === "NXDOMAIN" ? "DNS NXDOMAIN" : "DNS NOERROR, no NS";
  return `${registry} · ${proven} · ${dns}`;
}

function agoText(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "<1 min ago";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** A registry-given value (registrar, canary) as one short line: no control characters, at most `max`. */
function plainText(value: string, max: number): string {
  const flat = value.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function registrarText(event: AlertEvent): string {
  return event.registrar ? ` (registrar: ${plainText(event.registrar, 100)})` : "";
}

/** `domain.restored` / `domain.registered` / `domain.expiring`: what happened, in one line. */
export function eventHeadline(event: AlertEvent, name = displayName(event)): string {
  switch (event.type) {
    case "domain.restored":
      return `${name} was restored: the drop is off.`;
    case "domain.registered":
      return `${name} was registered${registrarText(event)}.`;
    case "domain.expiring":
      return `${name} expires on ${event.expiresAt ? formatUtc(event.expiresAt) : "an unknown date"}.`;
    case "domain.pending_delete":
      return pendingDeleteHeadline(event, name);
    default:
      return `${name} is available.`;
  }
}

/** The detail lines of `domain.restored` / `domain.registered` / `domain.expiring`. */
export function eventDetails(event: AlertEvent): string[] {
  const seen = `Seen at ${formatUtc(event.checkedAt)}.`;
  switch (event.type) {
    case "domain.restored":
      return [`It left pending delete and is registered again${registrarText(event)}.`, seen];
    case "domain.registered":
      return [
        event.previousStatus === "available"
          ? "It was available."
          : "It had not been found registered since it was added.",
        seen,
      ];
    case "domain.expiring":
      return [
        `This is the ${event.daysBefore ?? "?"}-day reminder; renew it at its registrar if it is yours.`,
        `Expiration date last confirmed at ${formatUtc(event.checkedAt)}.`,
      ];
    default:
      return [seen];
  }
}

export function telegramAlertText(event: AlertEvent): string {
  const text = personalAlertText(event);
  const team = teamLine(event);
  if (!team) return text;
  const [headline, ...rest] = text.split("\n");
  return [headline, team, ...rest].join("\n");
}

function personalAlertText(event: AlertEvent): string {
  const name = displayName(event);
  if (event.type === "domain.pending_delete") {
    return `${pendingDeleteHeadline(event, name)}\n\n${predictedDropLine(event)}\n` +
      `Seen at ${formatUtc(event.checkedAt)}; Domain Watchlist keeps checking it.`;
  }
  if (
    event.type === "domain.restored" || event.type === "domain.registered" || event.type === "domain.expiring"
  ) {
    return `${eventHeadline(event, name)}\n\n${eventDetails(event).join("\n")}`;
  }
  const seen = `Seen free at ${formatUtc(event.checkedAt)}`;
  const before = event.previousStatus !== null && STATUS_WORDS[event.previousStatus]
    ? ` (it was ${STATUS_WORDS[event.previousStatus]}).`
    : ".";
  if (event.type === "test") {
    return `Test alert from Domain Watchlist: alerts reach this chat.\n\n` +
      `A real alert looks like this:\n${name} is available.\n${seen}${before}`;
  }
  const evidence = event.evidence ? `${evidenceLine(event.evidence)}\n` : "";
  return `${name} is available.\n\n${seen}${before}\n${evidence}` +
    `Domain Watchlist only alerts: register it at a registrar of your choice.`;
}

/** `2026-11-22 10:04:05 UTC` */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
