/**
 * Reading one WHOIS answer (pure, no I/O): decode it in the row's encoding, then say what the server
 * said in its own phrasing. The rules mirror RDAP's evidence rules:
 *   - `not_found` only when the row's not-found pattern matches and neither its found pattern nor a limit
 *     notice does (anything contradicting "not found" makes the answer `unrecognized`);
 *   - `found`, or `pending_delete` when a status is one of the row's redemption / pending-delete words;
 *   - `rate_limited` only when neither the found nor the not-found pattern matched and a line of the answer
 *     is, as a whole, one of the row's limit notices: the limit pattern is anchored to a whole line, and a
 *     line that carries the queried name is never read as a notice, so no name can forge a limit text
 *     (docs/whois.md "Limit texts");
 *   - an empty answer, or one no pattern explains, is `unrecognized`.
 * Only `not_found` can ever lead to `available`, and only with a proven canary and DNS (classify.ts).
 */
import { domainToUnicode } from "node:url";
import type { WhoisRoute } from "./server_table.ts";

export type WhoisAnswerKind = "found" | "not_found" | "pending_delete" | "rate_limited" | "unrecognized";

export interface WhoisReading {
  answer: WhoisAnswerKind;
  /** The server's status lines (its own words), when its row says where they are. */
  statuses: string[];
  registrar: string | null;
  /** ISO 8601 (UTC midnight for a date without time), or null when absent or unreadable. */
  expirationDate: string | null;
  /** A `not_found` answer: the text that matched the row's not-found pattern (the alert's evidence). */
  notFoundMatch?: string;
}

/** The answer's bytes as text, in the row's encoding (a bad UTF-8 sequence becomes U+FFFD, never an error). */
export function decodeWhoisBytes(bytes: Uint8Array, encoding: "utf-8" | "latin-1"): string {
  return new TextDecoder(encoding === "latin-1" ? "latin1" : "utf-8").decode(bytes);
}

/** CRLF and CR to LF, trailing blanks of each line removed, so `$` ends a line whatever the server sent. */
export function normaliseWhoisText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/[ \t]+$/gm, "");
}

type Phrasing = Pick<
  WhoisRoute,
  "notFound" | "found" | "limit" | "status" | "pendingDeleteStatuses" | "registrar" | "expiration"
>;

/**
 * Reads `rawText`, the server's answer to the query for `queriedName` (the name as sent; its lines are never
 * read as limit notices).
 */
export function readWhoisAnswer(route: Phrasing, rawText: string, queriedName?: string): WhoisReading {
  const text = normaliseWhoisText(rawText);
  const none: WhoisReading = { answer: "unrecognized", statuses: [], registrar: null, expirationDate: null };
  if (text.trim() === "") return none;

  const saysNotFound = route.notFound.test(text);
  const saysFound = route.found.test(text);
  if (saysNotFound && !saysFound) {
    if (hasLimitNotice(route.limit, text, queriedName)) return none;
    return { ...none, answer: "not_found", notFoundMatch: text.match(route.notFound)?.[0].trim() };
  }
  if (!saysFound) {
    return hasLimitNotice(route.limit, text, queriedName) ? { ...none, answer: "rate_limited" } : none;
  }
  if (saysNotFound) return none;

  const statuses = statusesOf(route, text);
  const lowered = statuses.map((status) => status.toLowerCase());
  const pendingDelete = lowered.some((status) => route.pendingDeleteStatuses.includes(status));
  return {
    answer: pendingDelete ? "pending_delete" : "found",
    statuses,
    registrar: firstCapture(route.registrar, text),
    expirationDate: parseWhoisDate(firstCapture(route.expiration, text)),
  };
}

/**
 * Whether a line of `text` is, as a whole (blanks around it aside), one of the server's limit notices. The
 * row's pattern is anchored to the whole line whatever its author wrote, and a line that carries the queried
 * name (in any case) is skipped: a name such as `exceeded.se` echoed in a "not found" line is never a notice.
 */
export function hasLimitNotice(limit: RegExp | null, text: string, queriedName?: string): boolean {
  if (limit === null) return false;
  const notice = new RegExp(`^(?:${limit.source})$`, limit.flags.replace(/[gmy]/g, ""));
  const names = namesOf(queriedName);
  return text.split("\n").some((line) => {
    const trimmed = line.trim();
    if (trimmed === "") return false;
    const lowered = trimmed.toLowerCase();
    if (names.some((name) => lowered.includes(name))) return false;
    return notice.test(trimmed);
  });
}

/** The queried name as a server may echo it: its A-labels and, for an IDN, its Unicode form (lower case). */
function namesOf(queriedName: string | undefined): string[] {
  const ascii = queriedName?.trim().toLowerCase().replace(/\.$/, "") ?? "";
  if (ascii === "") return [];
  const unicode = domainToUnicode(ascii).toLowerCase();
  return unicode !== "" && unicode !== ascii ? [ascii, unicode] : [ascii];
}

function statusesOf(route: Phrasing, text: string): string[] {
  if (route.status === null) return [];
  const statuses: string[] = [];
  for (const match of text.matchAll(new RegExp(route.status.source, route.status.flags))) {
    for (const part of (match[1] ?? "").split(/\s*,\s*|\s+\/\s+/)) {
      const status = part.trim();
      if (status !== "" && !statuses.includes(status)) statuses.push(status);
    }
  }
  return statuses;
}

function firstCapture(pattern: RegExp | null, text: string): string | null {
  if (pattern === null) return null;
  const value = pattern.exec(text)?.[1]?.trim();
  return value ? value : null;
}

/**
 * A WHOIS date as ISO 8601 UTC: `2026-03-17`, `2026.03.17`, `2026/03/17` (optionally with a time, read as
 * UTC unless it carries `Z`), a full ISO timestamp with offset, or `17/03/2026` (day first, optionally with a
 * time, read as UTC). Null otherwise.
 */
export function parseWhoisDate(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const time = Date.parse(text);
    return Number.isNaN(time) ? null : new Date(time).toISOString();
  }
  let match = text.match(/^(\d{4})[-./](\d{2})[-./](\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/);
  if (match) return isoDate(match[1], match[2], match[3], match[4], match[5], match[6]);
  match = text.match(/^(\d{2})[-./](\d{2})[-./](\d{4})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/);
  if (match) return isoDate(match[3], match[2], match[1], match[4], match[5], match[6]);
  return null;
}

function isoDate(
  year: string,
  month: string,
  day: string,
  hours = "00",
  minutes = "00",
  seconds = "00",
): string | null {
  const date = new Date(Date.UTC(+year, +month - 1, +day, +hours, +minutes, +seconds));
  if (date.getUTCMonth() !== +month - 1 || date.getUTCDate() !== +day) return null;
  return date.toISOString();
}
