/**
 * One rule in two places: the registry a name's drop is counted under (its top-level domain) is
 * `private.registry_of` for the observations and corrections in the database, and `registryOf` for the
 * prediction that applies a correction. One table of names through both.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { registryOf } from "../../supabase/functions/_shared/availability/drop_prediction.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const names = [
  "example.com",
  "a.example.co.uk",
  "xn--bcher-kva.de",
  "drop.xn--p1ai",
  "x-y.io",
  "deep.sub.example.museum",
  "late1.late",
];

Deno.test("registry_of and registryOf agree", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ name: string; registry: string }[]>`
      select t.name, private.registry_of(t.name) as registry from unnest(${names}::text[]) as t(name)`;
    assertEquals(
      rows.map((row) => [row.name, row.registry]),
      names.map((name) => [name, registryOf(name)]),
    );
  } finally {
    await sql.end({ timeout: 2 });
  }
});
