/**
 * The calendar feed end to end (supabase/functions/calendar, through the local gateway): an account makes
 * its secret URL as the app does (public.create_calendar_feed as the account), a calendar app fetches
 * …/calendar/<token>.ics, and ical.js reads it: an all-day event on each expiry date and an event at each
 * predicted drop, with alarms at the account's reminder days, and nothing of another account. Renewing and
 * revoking end the old URL (JSON 404).
 */
import ICAL from "ical.js";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, uniqueDomain } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("calendar feed: the account's own names as iCalendar, renewed and revoked", options, async () => {
  const stack = await startStack();
  const { sql } = stack;
  try {
    const ann = await stack.account("free");
    const ben = await stack.account("free");
    const expiring = uniqueDomain("cal-expiring", "com");
    const dropping = uniqueDomain("cal-dropping", "com");
    const bens = uniqueDomain("cal-bens", "com");
    await sql`insert into public.domains (name, status, expires_at)
              values (${expiring}, 'registered', '2027-03-01T12:00:00Z'), (${bens}, 'registered', '2027-04-01T00:00:00Z')`;
    await sql`insert into public.domains (name, status, predicted_drop_at)
              values (${dropping}, 'pending_delete', '2026-12-10T18:30:00Z')`;
    await sql`insert into public.watchlist_entries (user_id, domain_name)
              values (${ann.user_id}, ${expiring}), (${ann.user_id}, ${dropping}), (${ben.user_id}, ${bens})`;

    const token = await asAccount(sql, ann, async (tx) => {
      const [row] = await tx<{ token: string }[]>`select public.create_calendar_feed(array[14, 2]) as token`;
      return row.token;
    });
    const url = `${stack.functionsBase}/calendar/${token}.ics`;

    const response = await fetch(url);
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "text/calendar; charset=utf-8");
    const text = await response.text();
    assert(!text.includes(token), "the feed never repeats its token");
    const calendar = new ICAL.Component(ICAL.parse(text));
    const events = calendar.getAllSubcomponents("vevent").map((event) => new ICAL.Event(event));
    assertEquals(events.map((event) => event.summary).sort(), [
      `${dropping} is predicted to drop`,
      `${expiring} expires`,
    ]);
    assert(!text.includes(bens), "nothing of another account");
    const expiry = events.find((event) => event.summary.endsWith("expires"))!;
    assertEquals([expiry.startDate.isDate, expiry.startDate.toString()], [true, "2027-03-01"]);
    const drop = events.find((event) => event.summary.endsWith("drop"))!;
    assertEquals(drop.startDate.toJSDate().toISOString(), "2026-12-10T18:30:00.000Z");
    for (const event of events) {
      assertEquals(
        event.component.getAllSubcomponents("valarm").map((alarm) =>
          String(alarm.getFirstPropertyValue("trigger"))
        ),
        ["-P14D", "-P2D"],
      );
    }

    // Unknown, malformed and bare URLs, and other methods: JSON errors, never a calendar.
    const unknown = await fetch(`${stack.functionsBase}/calendar/dwcal_${"0".repeat(48)}.ics`);
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error, "not_found");
    const malformed = await fetch(`${stack.functionsBase}/calendar/${token}.txt`);
    assertEquals([malformed.status, (await malformed.json()).error], [404, "not_found"]);
    const bare = await fetch(`${stack.functionsBase}/calendar`);
    assertEquals([bare.status, (await bare.json()).error], [400, "invalid_request"]);
    const post = await fetch(url, { method: "POST" });
    assertEquals([post.status, (await post.json()).error], [405, "method_not_allowed"]);

    // Renewing ends the old URL at once; revoking ends the new one.
    const renewed = await asAccount(sql, ann, async (tx) => {
      const [row] = await tx<{ token: string }[]>`select public.create_calendar_feed() as token`;
      return row.token;
    });
    const old = await fetch(url);
    assertEquals([old.status, (await old.json()).error], [404, "not_found"]);
    const fresh = await fetch(`${stack.functionsBase}/calendar/${renewed}.ics`);
    assertEquals(fresh.status, 200);
    await fresh.body?.cancel();
    await asAccount(sql, ann, (tx) => tx`select public.revoke_calendar_feed()`);
    const revoked = await fetch(`${stack.functionsBase}/calendar/${renewed}.ics`);
    assertEquals([revoked.status, (await revoked.json()).error], [404, "not_found"]);
  } finally {
    await stack.close();
  }
});
