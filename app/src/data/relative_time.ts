/**
 * Relative times beside dates on the radar: "drops in about 2 days", "expires in 12 days", "expired 3 days
 * ago". Pure (tests/unit/app_radar.test.ts): the caller passes the moment it renders at.
 */

export type RelativeKind = "drop" | "expiry";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** A span in its largest sensible unit: "5 minutes", "3 hours", "2 days", "4 months". */
export function span(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < hour) return plural(Math.max(1, Math.round(abs / minute)), "minute");
  if (abs < 2 * day) return plural(Math.round(abs / hour), "hour");
  if (abs < 60 * day) return plural(Math.round(abs / day), "day");
  if (abs < 730 * day) return plural(Math.round(abs / (30.44 * day)), "month");
  return plural(Math.round(abs / (365.25 * day)), "year");
}

/**
 * The time from `now` to `iso` in words. A predicted drop is an estimate ("about"); an expiry date is the
 * registry's. Null when there is no date.
 */
export function relativeTime(iso: string | null | undefined, now: Date, kind: RelativeKind): string | null {
  if (!iso) return null;
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return null;
  const ms = at - now.getTime();
  if (kind === "drop") {
    if (Math.abs(ms) < minute) return "drops about now";
    return ms > 0 ? `drops in about ${span(ms)}` : `drop was due about ${span(ms)} ago`;
  }
  if (Math.abs(ms) < minute) return "expires now";
  return ms > 0 ? `expires in ${span(ms)}` : `expired ${span(ms)} ago`;
}
