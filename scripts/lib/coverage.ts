/**
 * The coverage report (`deno task admin coverage`): for each of the 60 most-registered TLDs, which route
 * checks its names — `rdap` (IANA's bootstrap), `rdap (shipped)` (a row of rdap_server_overrides), `whois`
 * (a row of whois_servers) or `unsupported` (no usable route, with the reason) — and the state of that
 * route's canary proof. Pure: the caller loads the bootstrap, the two tables and the proofs.
 */
import {
  type BootstrapRegistry,
  findRdapService,
  type ServerOverride,
  withOverrides,
} from "../../supabase/functions/_shared/rdap/bootstrap.ts";
import { findWhoisEntry, type WhoisEntry } from "../../supabase/functions/_shared/whois/server_table.ts";

/** The 60 TLDs with the most registered names (the list the coverage target is measured on). */
export const TOP_TLDS = (
  "com cn de net uk org ru nl br xyz info top au fr eu it in ca shop pl ch es jp co io online store site us " +
  "vn ir be at cz se dk no kr tw mx ar za nz ai app dev me tv cc gg fi pt hu ro gr tr ua kz id my"
).split(" ");

/** Where a TLD's names are registered under a second level (`example.com.au`), the suffix that stands for it. */
const REPRESENTATIVE_SUFFIX: Record<string, string> = { au: "com.au", za: "co.za" };

export interface ProofRow {
  server_url: string;
  suffix: string;
  state: string;
  valid_until: Date | null;
}

export interface CoverageRow {
  tld: string;
  route: "rdap" | "rdap (shipped)" | "whois" | "unsupported";
  server: string | null;
  proof: "verified" | "failed" | "unverified" | "not asked yet" | "-";
  note: string;
}

function proofState(proofs: ProofRow[], server: string, suffix: string, now: Date): CoverageRow["proof"] {
  const row = proofs.find((proof) => proof.server_url === server && proof.suffix === suffix);
  if (!row) return "not asked yet";
  if (row.state === "verified") {
    return row.valid_until !== null && row.valid_until > now ? "verified" : "unverified";
  }
  return row.state === "failed" ? "failed" : "unverified";
}

export function coverageReport(
  iana: BootstrapRegistry,
  overrides: ServerOverride[],
  whois: Map<string, WhoisEntry>,
  proofs: ProofRow[],
  now = new Date(),
  tlds = TOP_TLDS,
): CoverageRow[] {
  const registry = withOverrides(iana, overrides);
  return tlds.map((tld) => {
    const suffix = REPRESENTATIVE_SUFFIX[tld] ?? tld;
    const name = `example.${suffix}`;
    const service = findRdapService(registry, name);
    if (service !== null && service.baseUrls.length > 0) {
      const fromIana = findRdapService(iana, name)?.baseUrls[0] === service.baseUrls[0];
      return {
        tld,
        route: fromIana ? "rdap" : "rdap (shipped)",
        server: service.baseUrls[0],
        proof: proofState(proofs, service.baseUrls[0], service.suffix, now),
        note: `canary ${service.canaryName}`,
      };
    }
    const entry = findWhoisEntry(whois, name);
    if (entry?.kind === "route") {
      const { route } = entry;
      const also = tld === "za" ? " (also net.za, org.za)" : "";
      return {
        tld,
        route: "whois",
        server: route.server,
        proof: proofState(proofs, `whois://${route.server}`, route.suffix, now),
        note: `row ${route.suffix}${also}, canary ${route.canaryName}`,
      };
    }
    return {
      tld,
      route: "unsupported",
      server: null,
      proof: "-",
      note: entry?.kind === "unsupported" ? entry.unsupported.reason : "no RDAP and no WHOIS row",
    };
  });
}

/** The report as a Markdown table, with the count of TLDs that have a route. */
export function coverageTable(rows: CoverageRow[]): string {
  const covered = rows.filter((row) => row.route !== "unsupported").length;
  const lines = [
    "| TLD | route | server | proof | note |",
    "|---|---|---|---|---|",
    ...rows.map((row) =>
      `| ${row.tld} | ${row.route} | ${row.server ?? "—"} | ${row.proof} | ${row.note.replaceAll("|", "/")} |`
    ),
    "",
    `${covered} of ${rows.length} TLDs have a route.`,
  ];
  return lines.join("\n");
}
