/**
 * What `deno task suites:postgrest` counts: each case of postgrest-js's suite that sent at least one request
 * to the Data API stand-in (a "server case"), sorted into one feature by the requests it sent, and the
 * features hosted PostgREST keeps switched off (EXPLAIN, aggregates, transaction rollback) set apart.
 * Pure: reads what the jest hook recorded and jest's JSON result; no I/O.
 */

/** One request a case sent, as the jest hook (postgrest_js.ts) records it. */
export interface SentRequest {
  test: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  status?: number;
  code?: string | null;
}

export interface CaseResult {
  test: string;
  passed: boolean;
}

/** Features hosted PostgREST keeps off (Supabase: `db-plan-enabled`, `db-aggregates-enabled` false, `db-tx-end` commit). */
export const excludedFeatures = [
  "EXPLAIN (off on hosted)",
  "aggregates (off on hosted)",
  "rollback (off on hosted)",
];

export const features = [
  "maxAffected",
  "defaultToNull",
  ...excludedFeatures,
  "CSV / GeoJSON output",
  "exposed schemas (profiles)",
  "RPC",
  "embedding",
  "full-text search",
  "JSON paths",
  "counts",
  "filters, transforms, mutations",
] as const;

export type Feature = typeof features[number];

const aggregate = /(^|[,(.:\s])(count|sum|avg|max|min)\(\)/;
const fts = /^(not\.)?(fts|plfts|phfts|wfts)(\(|\.)/;

function selectOf(url: URL): string {
  return url.searchParams.get("select") ?? url.searchParams.get("columns") ?? "";
}

/** The one feature a request exercises, by priority (the rarer and more specific first). */
export function featureOfRequest(request: SentRequest): Feature {
  const url = new URL(request.url);
  const header = (name: string) => request.headers[name.toLowerCase()] ?? "";
  const prefer = header("prefer");
  const accept = header("accept");
  const select = selectOf(url);
  if (/max-affected/.test(prefer)) return "maxAffected";
  if (/missing=default/.test(prefer)) return "defaultToNull";
  if (accept.includes("application/vnd.pgrst.plan")) return "EXPLAIN (off on hosted)";
  if (aggregate.test(select.replaceAll(" ", ""))) return "aggregates (off on hosted)";
  if (/tx=rollback/.test(prefer)) return "rollback (off on hosted)";
  if (/text\/csv|geo\+json/.test(accept)) return "CSV / GeoJSON output";
  if (header("accept-profile") || header("content-profile")) return "exposed schemas (profiles)";
  if (url.pathname.includes("/rpc/")) return "RPC";
  if (select.includes("(")) return "embedding";
  for (const [key, value] of url.searchParams) {
    if (fts.test(value)) return "full-text search";
    if (key.includes("->")) return "JSON paths";
  }
  if (select.includes("->")) return "JSON paths";
  if (/count=/.test(prefer)) return "counts";
  return "filters, transforms, mutations";
}

/** A case's feature: the first in `features` order among its requests' features. */
export function featureOfCase(requests: SentRequest[]): Feature {
  const found = new Set(requests.map(featureOfRequest));
  return features.find((feature) => found.has(feature)) ?? "filters, transforms, mutations";
}

export interface Tally {
  feature: Feature;
  passed: number;
  total: number;
  failing: string[];
  excluded: boolean;
}

export interface Report {
  tallies: Tally[];
  served: { passed: number; total: number };
  excludedCases: { test: string; feature: Feature; answers: string[]; passed: boolean }[];
}

/** Counts server cases by feature; cases that sent no request to the stand-in are not counted. */
export function tally(results: CaseResult[], requests: SentRequest[]): Report {
  const byTest = new Map<string, SentRequest[]>();
  for (const request of requests) {
    byTest.set(request.test, [...(byTest.get(request.test) ?? []), request]);
  }
  const tallies = new Map<Feature, Tally>(
    features.map((feature) => [feature, {
      feature,
      passed: 0,
      total: 0,
      failing: [],
      excluded: (excludedFeatures as readonly string[]).includes(feature),
    }]),
  );
  const excludedCases: Report["excludedCases"] = [];
  for (const result of results) {
    const sent = byTest.get(result.test);
    if (!sent) continue;
    const feature = featureOfCase(sent);
    const entry = tallies.get(feature)!;
    entry.total++;
    if (result.passed) entry.passed++;
    else entry.failing.push(result.test);
    if (entry.excluded) {
      const answers = sent.map((each) =>
        `${each.method} ${each.status ?? "?"}${each.code ? ` ${each.code}` : ""}`
      );
      excludedCases.push({ test: result.test, feature, answers, passed: result.passed });
    }
  }
  const served = [...tallies.values()].filter((each) => !each.excluded);
  return {
    tallies: [...tallies.values()].filter((each) => each.total > 0),
    served: {
      passed: served.reduce((sum, each) => sum + each.passed, 0),
      total: served.reduce((sum, each) => sum + each.total, 0),
    },
    excludedCases,
  };
}

/** The printed summary: one line a feature, the served total, the excluded cases and how they were answered. */
export function formatReport(report: Report, options: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  const width = Math.max(...report.tallies.map((each) => each.feature.length));
  lines.push("postgrest-js server cases by feature (passed/total):");
  for (const each of report.tallies.filter((tally) => !tally.excluded)) {
    lines.push(`  ${each.feature.padEnd(width)}  ${each.passed}/${each.total}`);
  }
  const { passed, total } = report.served;
  const percent = total === 0 ? 0 : Math.floor((passed / total) * 1000) / 10;
  lines.push(`  ${"served total".padEnd(width)}  ${passed}/${total} (${percent} %)`);
  if (report.excludedCases.length > 0) {
    lines.push("excluded (switched off on hosted PostgREST; the stand-in answers as hosted does):");
    for (const each of report.excludedCases) {
      lines.push(`  [${each.feature}] ${each.test}: ${each.answers.join(", ")}`);
    }
  }
  const failing = report.tallies.filter((each) => !each.excluded && each.failing.length > 0);
  if (failing.length > 0) {
    lines.push("failing server cases:");
    for (const each of failing) {
      const shown = options.verbose ? each.failing : each.failing.slice(0, 8);
      for (const test of shown) lines.push(`  [${each.feature}] ${test}`);
      if (shown.length < each.failing.length) {
        lines.push(`  [${each.feature}] … ${each.failing.length - shown.length} more`);
      }
    }
  }
  return lines.join("\n");
}
