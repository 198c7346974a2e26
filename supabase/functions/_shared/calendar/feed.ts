/**
 * The calendar feed's endpoint: GET …/functions/v1/calendar/<token>.ics. The token is the secret (the URL is
 * all a calendar app can hold); its SHA-256 names the feed in `private.calendar_feed_document`, which gives the
 * account's own watched names only. An unknown or revoked token is a JSON 404; a token never appears in a
 * response or a log line (`dwcal_…` is redacted by log_text.ts).
 */
import type { Context } from "hono";
import { sha256Hex } from "../api/credential.ts";
import { config } from "../config.ts";
import { asService } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { inDatabase } from "../http/in_database.ts";
import { buildCalendar, type FeedName } from "./ical.ts";

/** `<token>.ics` as `create_calendar_feed` makes it: `dwcal_` and 48 lower-case hex. */
const feedFile = /^(dwcal_[0-9a-f]{48})\.ics$/;

interface FeedDocument {
  reminder_days: number[];
  names: FeedName[];
}

function noSuchFeed(): ApiError {
  return new ApiError(
    "not_found",
    "There is no calendar feed at this URL (it may have been revoked or renewed).",
  );
}

/** The feed document of a token, or null when no feed has it. */
export function feedDocument(token: string): Promise<FeedDocument | null> {
  return inDatabase(async () => {
    const [row] = await asService((tx) =>
      tx<{ document: FeedDocument | null }[]>`
        select private.calendar_feed_document(${sha256Hex(token)}) as document`
    );
    return row?.document ?? null;
  });
}

export async function calendarFeedHandler(c: Context): Promise<Response> {
  const match = feedFile.exec(c.req.param("file") ?? "");
  if (!match) throw noSuchFeed();
  const token = match[1];
  const document = await feedDocument(token);
  if (!document) throw noSuchFeed();
  const body = buildCalendar(
    { names: document.names, reminderDays: document.reminder_days },
    { now: new Date(), feedKey: sha256Hex(`uid:${sha256Hex(token)}`).slice(0, 12), appUrl: config.appUrl() },
  );
  return c.body(body, 200, {
    "Content-Type": "text/calendar; charset=utf-8",
    "Content-Disposition": 'inline; filename="domain-watchlist.ics"',
    "Cache-Control": "private, max-age=300",
    "Referrer-Policy": "no-referrer",
  });
}

/** The bare path (…/calendar): says where a feed lives (so the preflight sees the function answer). */
export function calendarIndexHandler(): never {
  throw new ApiError(
    "invalid_request",
    "A calendar feed's URL is …/functions/v1/calendar/<token>.ics; the app shows it.",
  );
}
