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
 *   - a not-found pattern that names the queried name (a named group `name`, e.g. `.tr`'s
 *     `No match found for <name>`) counts only when that name is the queried one: an answer about another
 *     name is `unrecognized`;
 *   - besides the row's own limit notices, the notices registries' servers share (`COMMON_LIMIT_NOTICE`) are
 *     limit notices for every row, and a notice line may start with a comment marker (`% `, `# `);
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

export interface ReadOptions {
  /**
   * The query was the row's canary, a name the service chose, not an account: a limit notice that names it
   * (a registry naming its own domain, the usual canary) is still a notice. For any other name, a line that
   * carries the name is never read as a notice, so no name can forge one.
   */
  canary?: boolean;
}

/**
 * Reads `rawText`, the server's answer to the query for `queriedName` (the name as sent; unless it is the
 * canary, its lines are never read as limit notices).
 */
export function readWhoisAnswer(
  route: Phrasing,
  rawText: string,
  queriedName?: string,
  options: ReadOptions = {},
): WhoisReading {
  const text = normaliseWhoisText(rawText);
  const none: WhoisReading = { answer: "unrecognized", statuses: [], registrar: null, expirationDate: null };
  if (text.trim() === "") return none;

  const skipName = options.canary === true ? undefined : queriedName;
  const saysNotFound = route.notFound.test(text);
  const saysFound = route.found.test(text);
  if (saysNotFound && !saysFound) {
    if (hasLimitNotice(route.limit, text, skipName)) return none;
    const match = text.match(route.notFound);
    if (!namesQueried(match?.groups?.name, queriedName)) return none;
    return { ...none, answer: "not_found", notFoundMatch: match?.[0].trim() };
  }
  if (!saysFound) {
    return hasLimitNotice(route.limit, text, skipName) ? { ...none, answer: "rate_limited" } : none;
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
 * Whether the name a not-found line echoes (its pattern's `name` group) is the queried name: a "not found"
 * about another name says nothing of this one. True when the pattern names none or no name was given.
 */
function namesQueried(echoed: string | undefined, queriedName: string | undefined): boolean {
  if (echoed === undefined || queriedName === undefined) return true;
  const said = echoed.trim().toLowerCase().replace(/\.$/, "");
  return namesOf(queriedName).includes(said);
}

/**
 * Limit notices that registries' WHOIS servers share, whatever the row (each a whole line, after an optional
 * comment marker): the phrasings other clients recognise as limits (likexian/whois-parser `isLimitExceeded`,
 * 2026-01, with .lu's "Maximum query rate reached" of 2024-07), FRED's "Your connection limit exceeded. Please
 * slow down and try again later.", "Service currently unavailable" (issue 40) and the registries' own
 * (docs/whois.md "Limit texts"). None of them can be a record or a "not
 * found": they are tried only when neither of the row's patterns matched, and never on a line that carries
 * the queried name.
 */
export const COMMON_LIMIT_NOTICE = new RegExp(
  [
    "(?:whois |your )?(?:query |queries |connection |request )?(?:rate )?limit(?:ation)? (?:has been )?exceeded\\b.*",
    "(?:your )?quota exceeded\\b.*",
    "(?:error: )?too many (?:queries|requests|connections)\\b.*",
    "(?:the )?server (?:is )?too busy\\b.*",
    // The whole notice, or with a "try again" tail: not a text that goes on about a name ("… for this domain").
    "service (?:is )?(?:temporarily |currently )?(?:unavailable|not available)[.!,;]?(?:\\s+(?:please )?(?:try|come back|retry)\\b.*)?",
    "excessive querying\\b.*",
    "you have exceeded (?:the maximum allowable|your (?:query limit|allotted number of)|allowed connection rate|the query limit)\\b.*",
    "maximum (?:daily connection limit|query rate|queries per (?:hour|day|minute)) reached\\b.*",
    "number of allowed queries exceeded\\b.*",
    "(?:access |query )?(?:restricted|denied|refused) due to (?:excessive queries|query limit controls)\\b.*",
    "(?:query|request)s? (?:rejected|denied)(?: by rate limit(?:ing)?)?\\.?",
  ].join("|"),
  "i",
);

/** A comment marker a server may put before a notice line (`% `, `# `, `%% `). */
const NOTICE_MARKER = /^[%#]+\s*/;

/**
 * Whether a line of `text` is, as a whole (blanks and a leading `%` or `#` marker around it aside), one of
 * the server's limit notices: the row's own (`limit`) or a common one (`COMMON_LIMIT_NOTICE`). The patterns
 * are anchored to the whole line whatever their author wrote, and a line that carries `queriedName` (in any
 * case) is skipped: a name such as `exceeded.se` echoed in a "not found" line is never a notice.
 */
export function hasLimitNotice(limit: RegExp | null, text: string, queriedName?: string): boolean {
  const patterns = [COMMON_LIMIT_NOTICE, ...(limit === null ? [] : [limit])].map((pattern) =>
    new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace(/[gmy]/g, "").replace("i", "") + "i")
  );
  const names = namesOf(queriedName);
  return text.split("\n").some((line) => {
    const trimmed = line.trim();
    if (trimmed === "") return false;
    const lowered = trimmed.toLowerCase();
    if (names.some((name) => lowered.includes(name))) return false;
    const bare = trimmed.replace(NOTICE_MARKER, "");
    return patterns.some((notice) => notice.test(trimmed) || (bare !== "" && notice.test(bare)));
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
