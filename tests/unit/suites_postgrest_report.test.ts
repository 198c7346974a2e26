/**
 * How `deno task suites:postgrest` counts (scripts/lib/suites/postgrest_js_report.ts): a case counts only
 * when it reached the server, under the first feature its requests exercise; what hosted keeps off is apart.
 */
import { featureOfRequest, type SentRequest, tally } from "../../scripts/lib/suites/postgrest_js_report.ts";
import { assertEquals } from "../support/assert.ts";

const base = "http://127.0.0.1:1/rest/v1";
const request = (test: string, path: string, headers: Record<string, string> = {}): SentRequest => ({
  test,
  method: "GET",
  url: `${base}${path}`,
  headers,
  status: 200,
});

Deno.test("features by request", () => {
  const cases: [SentRequest, string][] = [
    [request("a", "/users?select=username,messages(id)"), "embedding"],
    [request("a", "/users?select=messages(message_count:count())"), "aggregates (off on hosted)"],
    [request("a", "/users?select=id.sum()"), "aggregates (off on hosted)"],
    [request("a", "/rpc/f"), "RPC"],
    [request("a", "/users", { prefer: "handling=strict, max-affected=1" }), "maxAffected"],
    [request("a", "/users", { prefer: "missing=default, tx=rollback" }), "defaultToNull"],
    [request("a", "/users", { prefer: "tx=rollback" }), "rollback (off on hosted)"],
    [request("a", "/users", { accept: "application/vnd.pgrst.plan+json" }), "EXPLAIN (off on hosted)"],
    [request("a", "/users", { accept: "text/csv" }), "CSV / GeoJSON output"],
    [request("a", "/users", { "accept-profile": "personal" }), "exposed schemas (profiles)"],
    [request("a", "/users?catchphrase=fts(english).cat"), "full-text search"],
    [request("a", "/users?data->>a=eq.1"), "JSON paths"],
    [request("a", "/users", { prefer: "count=planned" }), "counts"],
    [request("a", "/users?id=eq.1"), "filters, transforms, mutations"],
  ];
  for (const [each, feature] of cases) assertEquals(featureOfRequest(each), feature, each.url);
});

Deno.test("only cases that reached the server count; excluded features are apart", () => {
  const report = tally(
    [
      { test: "embeds", passed: true },
      { test: "client only", passed: false },
      { test: "plan", passed: false },
      { test: "rpc", passed: false },
    ],
    [
      request("embeds", "/users?select=messages(id)"),
      request("plan", "/users", { accept: "application/vnd.pgrst.plan+json" }),
      request("rpc", "/rpc/f"),
    ],
  );
  assertEquals(report.served, { passed: 1, total: 2 });
  assertEquals(report.excludedCases.map((each) => each.test), ["plan"]);
  assertEquals(
    report.tallies.map((each) => [each.feature, each.passed, each.total]),
    [["EXPLAIN (off on hosted)", 0, 1], ["RPC", 0, 1], ["embedding", 1, 1]],
  );
});
