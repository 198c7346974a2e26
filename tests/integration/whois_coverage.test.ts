/**
 * The coverage report over the shipped tables (as the migrations leave them) and IANA's bootstrap of
 * 2026-01-30: at least 55 of the 60 most-registered TLDs have a route; the rest are the registries with no
 * usable public WHOIS, each with its reason. The same table is in docs/whois.md.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import { coverageReport, coverageTable } from "../../scripts/lib/coverage.ts";
import { parseBootstrap, type ServerOverride } from "../../supabase/functions/_shared/rdap/bootstrap.ts";
import {
  compileWhoisRow,
  recordFromRow,
  type WhoisEntry,
} from "../../supabase/functions/_shared/whois/server_table.ts";
import { repoRoot } from "../../platform/paths.ts";

Deno.test("57 of the 60 TLDs have a route; es, gr and vn are unsupported with a reason", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const iana = parseBootstrap(
      JSON.parse(
        await Deno.readTextFile(`${repoRoot}/tests/fixtures/rdap/iana-dns-bootstrap.2026-01-30.json`),
      ),
    );
    const overrides = (await sql<{ suffix: string; base_url: string | null; canary_name: string | null }[]>`
      select suffix, base_url, canary_name from public.rdap_server_overrides where precedence = 'fallback'`)
      .map((row): ServerOverride => ({
        ...row,
        baseUrl: row.base_url,
        canaryName: row.canary_name,
        precedence: "fallback",
      }));
    const whois = new Map<string, WhoisEntry>();
    // deno-lint-ignore no-explicit-any
    for (const row of await sql<any[]>`select * from public.whois_servers`) {
      whois.set(row.suffix, compileWhoisRow(recordFromRow(row))!);
    }
    const report = coverageReport(iana, overrides, whois, []);
    const count = (route: string) => report.filter((row) => row.route === route).length;
    assertEquals(report.length, 60);
    assertEquals({ rdap: count("rdap"), shipped: count("rdap (shipped)"), whois: count("whois") }, {
      rdap: 29,
      shipped: 7,
      whois: 21,
    });
    const unsupported = report.filter((row) => row.route === "unsupported");
    assertEquals(unsupported.map((row) => row.tld), ["es", "vn", "gr"]);
    assert(unsupported.every((row) => row.note.length > 20), "each with its reason");
    assertEquals(report.find((row) => row.tld === "au")?.server, "whois.auda.org.au:43");
    assertEquals(report.find((row) => row.tld === "it")?.route, "whois");
    const table = coverageTable(report);
    assert(table.endsWith("57 of 60 TLDs have a route."));
    const out = Deno.env.get("WRITE_COVERAGE_TABLE");
    if (out) await Deno.writeTextFile(out, table + "\n");
  } finally {
    await sql.end();
  }
});
