/**
 * Reads the date strings RDAP servers actually send and returns them as ISO 8601 UTC
 * (`YYYY-MM-DDTHH:MM:SS.sssZ`), or null when there is no usable date.
 *
 * Tolerated forms (all seen in real responses):
 * - RFC 3339 with `Z` and 0 to 9 fractional digits (`.41Z`, `.009091Z`);
 * - numeric offsets with or without a colon (`+00:00`, `+03:00`, `.000+0000`);
 * - no zone at all (read as UTC);
 * - a space instead of `T` (`2017-09-24 19:25:32`);
 * - a date without a time (midnight UTC).
 * Years beyond 9999 (end-of-time sentinels such as `294247-01-10T04:00:54.775Z`) mean "no real date"
 * and return null.
 */

const RDAP_DATE =
  /^(\d{4,6})-(\d{2})-(\d{2})(?:[Tt ]+(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;

const LAST_USABLE_YEAR = 9999;

export function parseRdapDate(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const match = value.trim().match(RDAP_DATE);
  if (!match) return null;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, zoneText] = match;

  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  // A leap second (60) is read as the last second of the minute.
  const second = Math.min(Number(secondText ?? 0), 59);
  const millisecond = Number((fractionText ?? "").padEnd(3, "0").slice(0, 3));

  if (year > LAST_USABLE_YEAR || year < 1) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || Number(secondText ?? 0) > 60) return null;

  const offsetMinutes = zoneOffsetMinutes(zoneText);
  if (offsetMinutes === null) return null;

  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  const utc = date.getTime() - offsetMinutes * 60_000;
  const result = new Date(utc);
  if (Number.isNaN(utc) || result.getUTCFullYear() > LAST_USABLE_YEAR || result.getUTCFullYear() < 1) {
    return null;
  }
  return result.toISOString();
}

/** Minutes east of UTC; 0 for a missing zone (servers that omit it mean UTC in every capture seen). */
function zoneOffsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const match = zone.match(/^([+-])(\d{2}):?(\d{2})?$/);
  if (!match) return null;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 23 || minutes > 59) return null;
  const sign = match[1] === "-" ? -1 : 1;
  return sign * (hours * 60 + minutes);
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
