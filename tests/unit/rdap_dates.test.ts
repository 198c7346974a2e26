import { assertEquals } from "../support/assert.ts";
import { parseRdapDate } from "../../supabase/functions/_shared/rdap/dates.ts";

Deno.test("RFC 3339 with Z and 0 to 9 fractional digits", () => {
  assertEquals(parseRdapDate("1997-09-15T04:00:00Z"), "1997-09-15T04:00:00.000Z");
  assertEquals(parseRdapDate("2026-08-12T08:47:19.41Z"), "2026-08-12T08:47:19.410Z");
  assertEquals(parseRdapDate("2014-11-17T16:00:29.0Z"), "2014-11-17T16:00:29.000Z");
  assertEquals(parseRdapDate("2025-10-29T03:51:11.009091Z"), "2025-10-29T03:51:11.009Z");
  assertEquals(parseRdapDate("2025-10-29T03:51:11.123456789z"), "2025-10-29T03:51:11.123Z");
});

Deno.test("numeric offsets with and without a colon", () => {
  assertEquals(parseRdapDate("2005-06-07T00:35:00+00:00"), "2005-06-07T00:35:00.000Z");
  assertEquals(parseRdapDate("2024-06-18T22:01:39+03:00"), "2024-06-18T19:01:39.000Z");
  assertEquals(parseRdapDate("2028-09-13T07:00:00.000+0000"), "2028-09-13T07:00:00.000Z");
  assertEquals(parseRdapDate("2028-09-13T07:00:00-0530"), "2028-09-13T12:30:00.000Z");
  assertEquals(parseRdapDate("2028-09-13T23:00:00-05"), "2028-09-14T04:00:00.000Z");
});

Deno.test("no zone is read as UTC; a space may replace the T; a bare date is midnight", () => {
  assertEquals(parseRdapDate("2008-08-18T13:19:55"), "2008-08-18T13:19:55.000Z");
  assertEquals(parseRdapDate("2017-09-24 19:25:32"), "2017-09-24T19:25:32.000Z");
  assertEquals(parseRdapDate("  2017-09-24 19:25:32  "), "2017-09-24T19:25:32.000Z");
  assertEquals(parseRdapDate("2026-01-01"), "2026-01-01T00:00:00.000Z");
  assertEquals(parseRdapDate("2026-01-01T10:20"), "2026-01-01T10:20:00.000Z");
});

Deno.test("end-of-time sentinels with 6-digit years give null", () => {
  assertEquals(parseRdapDate("294247-01-10T04:00:54.775Z"), null);
  assertEquals(parseRdapDate("9999-12-31T23:59:59Z"), "9999-12-31T23:59:59.000Z");
  assertEquals(parseRdapDate("9999-12-31T23:59:59-01:00"), null);
});

Deno.test("impossible or foreign values give null", () => {
  for (
    const value of [
      "",
      "yesterday",
      "2026-02-30T00:00:00Z",
      "2026-13-01",
      "2026-01-01T25:00:00Z",
      "2026-01-01T10:61:00Z",
      "2026-01-01T10:00:00+25:00",
      "1/2/2026",
      "2026-01-01T10:00:00 PST",
    ]
  ) {
    assertEquals(parseRdapDate(value), null, value);
  }
  assertEquals(parseRdapDate(null), null);
  assertEquals(parseRdapDate(1700000000), null);
});

Deno.test("a leap second is read as the 59th second; leap days are valid", () => {
  assertEquals(parseRdapDate("2016-12-31T23:59:60Z"), "2016-12-31T23:59:59.000Z");
  assertEquals(parseRdapDate("2024-02-29T12:00:00Z"), "2024-02-29T12:00:00.000Z");
  assertEquals(parseRdapDate("2023-02-29T12:00:00Z"), null);
});
