/**
 * Every shipped WHOIS row (`public.whois_servers`, as the migrations leave it) against real answers that
 * other projects captured from the registries' servers for their own test suites
 * (tests/fixtures/whois/real_answers/index.json: each sample names its repository, path and commit).
 * Each sample is read under the row the route lookup picks for its name, as a live check would:
 *   - 0 false `available`: only a sample its source labels "not registered" may ever read `not_found`;
 *   - no clear answer read as unknown: a registered record reads `found` or `pending_delete`, a "not
 *     registered" answer reads `not_found`, a limit text `rate_limited`.
 * Samples labelled `other` (reserved or invalid names, errors) only have to stay off `available`.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import {
  compileWhoisRow,
  findWhoisEntry,
  recordFromRow,
  unsupportedZone,
  type WhoisEntry,
} from "../../supabase/functions/_shared/whois/server_table.ts";
import { decodeWhoisBytes, readWhoisAnswer } from "../../supabase/functions/_shared/whois/answer.ts";
import { classifyWhois } from "../../supabase/functions/_shared/availability/classify.ts";
import { REAL_ANSWERS, realAnswerBytes } from "../fixtures/whois/real_answers.ts";

async function shippedEntries(): Promise<Map<string, WhoisEntry>> {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    // deno-lint-ignore no-explicit-any
    const rows = await sql<any[]>`select * from public.whois_servers where enabled`;
    const entries = new Map<string, WhoisEntry>();
    for (const row of rows) {
      const entry = compileWhoisRow(recordFromRow(row));
      assert(entry !== null, `row ${row.suffix} compiles`);
      entries.set(row.suffix, entry);
    }
    return entries;
  } finally {
    await sql.end();
  }
}

const WANTED = {
  registered: ["found", "pending_delete"],
  available: ["not_found"],
  limit: ["rate_limited"],
  other: ["found", "pending_delete", "rate_limited", "unrecognized"],
} as const;

Deno.test("real answers: every row reads them, 0 false available, no clear answer unknown", async () => {
  const entries = await shippedEntries();
  const perRow = new Map<string, { samples: number; sources: Set<string>; unknown: number }>();
  const falseAvailable: string[] = [];
  const misread: string[] = [];
  const misrouted: string[] = [];
  let refused = 0;
  for (const sample of REAL_ANSWERS) {
    const name = sample.name ?? `example.${sample.row}`;
    const entry = findWhoisEntry(entries, name);
    assert(entry !== null, `${sample.file}: a row for ${name}`);
    const suffix = entry.kind === "route" ? entry.route.suffix : entry.unsupported.suffix;
    if (suffix !== sample.row) misrouted.push(`${sample.file}: ${name} under ${suffix}`);
    if (suffix !== sample.row) continue;
    if (entry.kind !== "route") {
      // A zone listed without a usable server: its names are refused (unsupported_zone), never read.
      assert(unsupportedZone(entry) === sample.row, `${sample.file}: ${sample.row} is an unsupported zone`);
      refused++;
      continue;
    }
    const { route } = entry;
    const reading = readWhoisAnswer(
      route,
      decodeWhoisBytes(await realAnswerBytes(sample), route.encoding),
      sample.name ?? undefined,
    );
    const stats = perRow.get(sample.row) ?? { samples: 0, sources: new Set(), unknown: 0 };
    perRow.set(sample.row, stats);
    stats.samples++;
    stats.sources.add(sample.repo);
    const verdict = classifyWhois({ kind: "read", reading }, { outcome: "not_delegated", rcode: "NXDOMAIN" });
    if (verdict.available === true && sample.expect !== "available") {
      falseAvailable.push(`${sample.file} (${sample.expect}) read ${reading.answer}`);
    }
    if (!(WANTED[sample.expect] as readonly string[]).includes(reading.answer)) {
      misread.push(`${sample.file} (${sample.expect}) read ${reading.answer}`);
      if (reading.answer === "unrecognized" || reading.answer === "rate_limited") stats.unknown++;
    }
  }
  const table = [...perRow].sort(([a], [b]) => a.localeCompare(b)).map(([row, stats]) =>
    `${row}: ${stats.samples} (${[...stats.sources].join(", ")}), ${stats.unknown} unknown`
  );
  console.log(
    `${REAL_ANSWERS.length} real answers over ${perRow.size} rows; ${falseAvailable.length} false available; ` +
      `${misread.length} misread; ${refused} under unsupported zones, never read\n  ${
        table.join("\n  ")
      }\n  ${[...misrouted, ...misread].join("\n  ")}`,
  );
  assertEquals(misrouted, [], "each name is read under its own zone's row");
  assertEquals(falseAvailable, [], "no real answer but a 'not registered' one reads as available");
  assertEquals(misread, [], "every clear answer is read as what it says");
});
