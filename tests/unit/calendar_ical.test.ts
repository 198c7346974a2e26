/**
 * The calendar feed's iCalendar text (supabase/functions/_shared/calendar/ical.ts): RFC 5545 escaping and line
 * folding, the events and their alarms, read back with ical.js (a well-kept RFC 5545 parser).
 */
import ICAL from "ical.js";
import { buildCalendar, escapeText, foldLine } from "../../supabase/functions/_shared/calendar/ical.ts";
import { assert, assertEquals } from "../support/assert.ts";

const now = new Date("2026-12-06T08:00:00Z");
const options = { now, feedKey: "abc123", appUrl: "https://app.example.com/" };

Deno.test("iCalendar: TEXT values escape backslash, semicolon, comma and line breaks", () => {
  assertEquals(escapeText("a\\b;c,d\ne\r\nf"), "a\\\\b\\;c\\,d\\ne\\nf");
});

Deno.test("iCalendar: lines fold at 75 octets, never inside a UTF-8 character", () => {
  const ascii = `SUMMARY:${"x".repeat(200)}`;
  const folded = foldLine(ascii).split("\r\n");
  assert(folded.every((line) => new TextEncoder().encode(line).length <= 75), folded.join("|"));
  assert(folded.slice(1).every((line) => line.startsWith(" ")));
  assertEquals(folded.map((line, i) => (i === 0 ? line : line.slice(1))).join(""), ascii);
  const wide = `SUMMARY:${"ü".repeat(100)}€`;
  const parts = foldLine(wide).split("\r\n");
  assert(parts.every((line) => new TextEncoder().encode(line).length <= 75));
  assertEquals(parts.map((line, i) => (i === 0 ? line : line.slice(1))).join(""), wide, "no character split");
  assertEquals(foldLine("SHORT:line"), "SHORT:line");
});

Deno.test("iCalendar: an all-day expiry event and a timed drop event, each with its alarms", () => {
  const text = buildCalendar({
    reminderDays: [1, 30, 7, 7],
    names: [
      {
        domain_name: "expiring.com",
        status: "registered",
        expires_at: "2027-03-01T17:45:00+00:00",
        predicted_drop_at: null,
      },
      {
        domain_name: "xn--bcher-kva.com",
        unicode_name: "bücher.com",
        status: "pending_delete",
        expires_at: null,
        predicted_drop_at: "2026-12-10T18:30:00+00:00",
      },
      // No date known: no event. A predicted drop of a name no longer pending delete: no event.
      { domain_name: "unknown.com", status: "unknown", expires_at: null, predicted_drop_at: null },
      {
        domain_name: "back.com",
        status: "registered",
        expires_at: null,
        predicted_drop_at: "2026-12-08T00:00:00Z",
      },
    ],
  }, options);
  assert(text.endsWith("\r\n") && !/[^\r]\n/.test(text), "every line ends with CRLF");
  const calendar = new ICAL.Component(ICAL.parse(text));
  assertEquals(calendar.getFirstPropertyValue("version"), "2.0");
  const events = calendar.getAllSubcomponents("vevent").map((event) => new ICAL.Event(event));
  assertEquals(events.map((event) => event.summary), [
    "expiring.com expires",
    "bücher.com (xn--bcher-kva.com) is predicted to drop",
  ]);
  const [expiry, drop] = events;
  assertEquals(expiry.startDate.isDate, true, "the expiry is an all-day event");
  assertEquals(expiry.startDate.toString(), "2027-03-01");
  assertEquals(expiry.endDate.toString(), "2027-03-02");
  assertEquals(expiry.uid, "expiry-expiring.com-abc123@domain-watchlist");
  assertEquals(expiry.component.getFirstPropertyValue("url"), "https://app.example.com/domains/expiring.com");
  assertEquals(drop.startDate.isDate, false);
  assertEquals(drop.startDate.toJSDate().toISOString(), "2026-12-10T18:30:00.000Z");
  for (const event of events) {
    const triggers = event.component.getAllSubcomponents("valarm").map((alarm) =>
      alarm.getFirstPropertyValue("trigger")!.toString()
    );
    assertEquals(triggers, ["-P30D", "-P7D", "-P1D"], "one alarm per reminder day, once each");
  }
});

Deno.test("iCalendar: names with commas and long descriptions survive escaping and folding", () => {
  const text = buildCalendar({
    reminderDays: [7],
    names: [{
      domain_name: "a-very-long-name-that-goes-on-and-on-and-on-for-a-while.example.com",
      unicode_name: "weird;name,with\\chars.com",
      status: "registered",
      expires_at: "2027-01-15T00:00:00Z",
      predicted_drop_at: null,
    }],
  }, options);
  assert(text.split("\r\n").every((line) => new TextEncoder().encode(line).length <= 75));
  const event = new ICAL.Event(new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent("vevent")!);
  assertEquals(
    event.summary,
    "weird;name,with\\chars.com (a-very-long-name-that-goes-on-and-on-and-on-for-a-while.example.com) expires",
  );
  assert(event.description.includes("expires on 2027-01-15 (UTC)"), event.description);
});

Deno.test("iCalendar: an empty watchlist is a valid calendar without events", () => {
  const calendar = new ICAL.Component(ICAL.parse(buildCalendar({ reminderDays: [30], names: [] }, options)));
  assertEquals(calendar.getAllSubcomponents("vevent").length, 0);
  assertEquals(calendar.getFirstPropertyValue("x-wr-calname"), "Domain Watchlist");
});
