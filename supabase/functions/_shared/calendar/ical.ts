/**
 * The calendar feed's iCalendar text (RFC 5545), pure: an all-day event on each watched name's expiry date,
 * and an event at each predicted drop (pending-delete names), each with a display alarm at every reminder
 * day. Text values are escaped (§3.3.11) and content lines folded at 75 octets without splitting a UTF-8
 * character (§3.1); lines end with CRLF. UIDs are stable for a name and a feed, so a calendar app updates an
 * event (a renewed registration moves its expiry) instead of adding one.
 */

export interface FeedName {
  domain_name: string;
  /** The name as people read it (IDN), when it differs. */
  unicode_name?: string | null;
  status: string;
  expires_at: string | null;
  predicted_drop_at: string | null;
}

export interface CalendarFeed {
  names: FeedName[];
  /** Days before each date at which an alarm rings (e.g. 30, 7, 1). */
  reminderDays: number[];
}

export interface CalendarOptions {
  /** DTSTAMP of every event: when the feed was made. */
  now: Date;
  /** Distinguishes this feed's UIDs from another account's (not secret: derived from the token's hash). */
  feedKey: string;
  /** The app's URL, for a link to each name's page. */
  appUrl?: string;
}

export const calendarName = "Domain Watchlist";

/** A TEXT value escaped as RFC 5545 §3.3.11 says: backslash, semicolon, comma and line breaks. */
export function escapeText(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r\n|\r|\n/g, "\\n");
}

const encoder = new TextEncoder();

/**
 * One content line folded as RFC 5545 §3.1 says: no line longer than 75 octets (CRLF excluded); each
 * continuation starts with one space. A UTF-8 character is never split.
 */
export function foldLine(line: string): string {
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  let limit = 75;
  for (const char of line) {
    const size = encoder.encode(char).length;
    if (octets + size > limit) {
      parts.push(current);
      current = "";
      octets = 0;
      limit = 74; // the leading space of a continuation line counts
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join("\r\n ");
}

function two(value: number): string {
  return String(value).padStart(2, "0");
}

/** DATE form (YYYYMMDD) of a moment's UTC day. */
export function utcDate(moment: Date): string {
  return `${moment.getUTCFullYear()}${two(moment.getUTCMonth() + 1)}${two(moment.getUTCDate())}`;
}

/** DATE-TIME form in UTC (YYYYMMDDTHHMMSSZ). */
export function utcDateTime(moment: Date): string {
  return `${utcDate(moment)}T${two(moment.getUTCHours())}${two(moment.getUTCMinutes())}${
    two(moment.getUTCSeconds())
  }Z`;
}

function validDate(text: string | null): Date | null {
  if (!text) return null;
  const moment = new Date(text);
  return Number.isNaN(moment.getTime()) ? null : moment;
}

function shownName(name: FeedName): string {
  return name.unicode_name && name.unicode_name !== name.domain_name
    ? `${name.unicode_name} (${name.domain_name})`
    : name.domain_name;
}

function alarms(days: number[], what: string): string[] {
  return [...new Set(days)].filter((day) => Number.isInteger(day) && day > 0).sort((a, b) => b - a).flatMap(
    (day) => [
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      `TRIGGER:-P${day}D`,
      `DESCRIPTION:${escapeText(`${what} in ${day} ${day === 1 ? "day" : "days"}`)}`,
      "END:VALARM",
    ],
  );
}

function pageUrl(options: CalendarOptions, name: FeedName): string[] {
  if (!options.appUrl) return [];
  return [`URL:${options.appUrl.replace(/\/+$/, "")}/domains/${encodeURIComponent(name.domain_name)}`];
}

function expiryEvent(name: FeedName, expires: Date, feed: CalendarFeed, options: CalendarOptions): string[] {
  const day = new Date(Date.UTC(expires.getUTCFullYear(), expires.getUTCMonth(), expires.getUTCDate()));
  const next = new Date(day.getTime() + 86_400_000);
  const shown = shownName(name);
  return [
    "BEGIN:VEVENT",
    `UID:expiry-${name.domain_name}-${options.feedKey}@domain-watchlist`,
    `DTSTAMP:${utcDateTime(options.now)}`,
    `DTSTART;VALUE=DATE:${utcDate(day)}`,
    `DTEND;VALUE=DATE:${utcDate(next)}`,
    `SUMMARY:${escapeText(`${shown} expires`)}`,
    `DESCRIPTION:${
      escapeText(
        `The registration of ${shown} expires on ${day.toISOString().slice(0, 10)} (UTC), ` +
          `at ${expires.toISOString().slice(11, 16)} UTC. Watched in Domain Watchlist.`,
      )
    }`,
    ...pageUrl(options, name),
    "TRANSP:TRANSPARENT",
    ...alarms(feed.reminderDays, `${shown} expires`),
    "END:VEVENT",
  ];
}

function dropEvent(name: FeedName, drop: Date, feed: CalendarFeed, options: CalendarOptions): string[] {
  const shown = shownName(name);
  return [
    "BEGIN:VEVENT",
    `UID:drop-${name.domain_name}-${options.feedKey}@domain-watchlist`,
    `DTSTAMP:${utcDateTime(options.now)}`,
    `DTSTART:${utcDateTime(drop)}`,
    "DURATION:PT1H",
    `SUMMARY:${escapeText(`${shown} is predicted to drop`)}`,
    `DESCRIPTION:${
      escapeText(
        `${shown} is pending delete; the registry is predicted to release it around ` +
          `${drop.toISOString().slice(0, 16).replace("T", " ")} UTC. A prediction, not a promise: ` +
          "Domain Watchlist alerts you when it is available.",
      )
    }`,
    ...pageUrl(options, name),
    "TRANSP:TRANSPARENT",
    ...alarms(feed.reminderDays, `${shown} is predicted to drop`),
    "END:VEVENT",
  ];
}

/** The whole feed as iCalendar text. */
export function buildCalendar(feed: CalendarFeed, options: CalendarOptions): string {
  const events: string[] = [];
  for (const name of feed.names) {
    const expires = validDate(name.expires_at);
    if (expires) events.push(...expiryEvent(name, expires, feed, options));
    const drop = validDate(name.predicted_drop_at);
    if (drop && name.status === "pending_delete") events.push(...dropEvent(name, drop, feed, options));
  }
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Domain Watchlist//Calendar feed//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `NAME:${calendarName}`,
    `X-WR-CALNAME:${calendarName}`,
    "REFRESH-INTERVAL;VALUE=DURATION:PT6H",
    "X-PUBLISHED-TTL:PT6H",
    ...events,
    "END:VCALENDAR",
  ];
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}
