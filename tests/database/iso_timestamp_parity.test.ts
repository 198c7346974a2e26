/**
 * One rule in two places: how the API writes a moment. Most paths read a `timestamptz` as a Date (the
 * driver's parser) and write it with `toISOString()`; the API's page read (`private.api_watchlist_page`)
 * has the database write it already, with `private.iso_timestamp`. For every case below both give the same
 * text: ISO 8601 in UTC, milliseconds truncated. Needs SUPABASE_DB_URL; fails without it.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

/** Moments as PostgreSQL reads them: whole seconds, every fraction length, other offsets, edges of a day. */
const moments = [
  "2026-12-06 10:00:00+00",
  "2026-12-06 10:00:00.1+00",
  "2026-12-06 10:00:00.12+00",
  "2026-12-06 10:00:00.123+00",
  "2026-12-06 10:00:00.1234+00",
  "2026-12-06 10:00:00.123456+00",
  "2026-12-06 10:00:00.999999+00",
  "2026-12-06 10:00:00.000001+00",
  "2026-12-06 10:00:00.0005+00",
  "2026-12-31 23:59:59.9999+00",
  "2026-03-29 01:30:00+02",
  "2026-10-25 02:30:00.5-07:30",
  "2028-02-29 12:00:00+00",
  "1970-01-01 00:00:00+00",
  "1969-12-31 23:59:59.999+00",
  "2000-01-01 00:00:00+14",
  "0999-06-01 00:00:00+00",
  "9999-12-31 23:59:59.999999+00",
];

Deno.test(
  "private.iso_timestamp writes every moment as toISOString() of the driver's Date",
  options,
  async () => {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      for (const moment of moments) {
        const [row] = await sql<{ parsed: Date; written: string }[]>`
        select ${moment}::timestamptz as parsed, private.iso_timestamp(${moment}::timestamptz) as written`;
        assertEquals(row.written, row.parsed.toISOString(), moment);
      }
      const [empty] = await sql<{ written: string | null }[]>`select private.iso_timestamp(null) as written`;
      assertEquals(empty.written, null);
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
);
