/**
 * The radar's pure pieces: relative times beside dates, why a name is unknown (words for every reason of the
 * contract that can leave a name undecided), where a name is in its lifecycle, a Check now answer told, and
 * the CSV import of tags and notes (round trip with the export).
 */
import { relativeTime, span } from "../../app/src/data/relative_time.ts";
import { explainUnknown, unknownReasons } from "../../app/src/data/unknown_reason.ts";
import { lifecycleStage } from "../../app/src/data/lifecycle.ts";
import { csvRecords, detailsFromCsv, watchlistCsv } from "../../app/src/data/csv.ts";
import { checkOutcome } from "../../app/src/ui/check_now.tsx";
import { checkReason } from "../../supabase/functions/_shared/contract/schemas.ts";
import type { WatchedDomain } from "../../app/src/data/types.ts";
import { assert, assertEquals } from "../support/assert.ts";

const now = new Date("2026-12-06T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
const hour = 3_600_000;
const day = 24 * hour;

Deno.test("relative times: drops are estimates, expiries are dates", () => {
  const cases: [string | null, "drop" | "expiry", string | null][] = [
    [later(2 * day + 3 * hour), "drop", "drops in about 2 days"],
    [later(5 * hour), "drop", "drops in about 5 hours"],
    [later(20_000), "drop", "drops about now"],
    [later(-3 * hour), "drop", "drop was due about 3 hours ago"],
    [later(12 * day + hour), "expiry", "expires in 12 days"],
    [later(1 * day), "expiry", "expires in 24 hours"],
    [later(-3 * day), "expiry", "expired 3 days ago"],
    [later(400 * day), "expiry", "expires in 13 months"],
    [later(3 * 365 * day), "expiry", "expires in 3 years"],
    [later(30 * 60_000), "expiry", "expires in 30 minutes"],
    [null, "expiry", null],
    ["not a date", "drop", null],
  ];
  for (const [iso, kind, expected] of cases) assertEquals(relativeTime(iso, now, kind), expected, `${iso}`);
  assertEquals(span(60_000), "1 minute");
});

Deno.test("every contract reason that can leave a name unknown has plain words and a next step", () => {
  const decided = new Set([
    "rdap_found",
    "rdap_pending_delete",
    "rdap_not_found",
    "whois_found",
    "whois_pending_delete",
    "whois_not_found",
    "dns_delegated",
  ]);
  for (const reason of checkReason.options) {
    if (decided.has(reason)) continue;
    const words = unknownReasons[reason];
    assert(words, `no words for ${reason}`);
    assert(words.why.endsWith(".") && words.next.endsWith("."), reason);
  }
  assertEquals(explainUnknown("not_checked_yet").next, "The first check runs within minutes.");
  assertEquals(explainUnknown("something_new").why, "The last check could not decide.");
  assertEquals(explainUnknown(null).why, "The last check could not decide.");
});

Deno.test("the lifecycle stage follows status, expiry and the prediction's basis", () => {
  const at = (status: string, expires_at: string | null, prediction_basis: string | null = null) =>
    lifecycleStage({ status, expires_at, prediction_basis }, now);
  assertEquals(at("registered", later(30 * day)), "registered");
  assertEquals(at("registered", null), "registered");
  assertEquals(at("registered", later(-day)), "expired");
  assertEquals(at("pending_delete", later(-40 * day), "redemption_period"), "redemption");
  assertEquals(at("pending_delete", null, "pending_delete_period"), "pending_delete");
  assertEquals(at("pending_delete", null, "unknown"), "pending_delete");
  assertEquals(at("available", null), "available");
  assertEquals(at("unknown", null), null);
});

Deno.test("a Check now answer in words; a busy registry says when to try again", () => {
  const base = { domain_name: "a.com", available: null, checked_at: now.toISOString(), reason: "rdap_found" };
  assertEquals(checkOutcome({ ...base, status: "registered" }), "Registered (checked just now).");
  assertEquals(
    checkOutcome({ ...base, status: "unknown", reason: "rdap_host_busy", retry_after_seconds: 8 }),
    "Unknown: the registry is busy; try again in 8 s.",
  );
  assertEquals(
    checkOutcome({ ...base, status: "available", checks_left_today: 1 }),
    "Available (checked just now). 1 check left today.",
  );
});

Deno.test("CSV import reads the export's tags and notes back", () => {
  const row: WatchedDomain = {
    domain_name: "a.com",
    unicode_name: null,
    status: "registered",
    added_at: "2026-01-01T00:00:00Z",
    last_checked_at: null,
    status_changed_at: null,
    expires_at: null,
    registrar: null,
    predicted_drop_at: null,
    prediction_basis: null,
    unknown_reason: null,
    next_check_at: null,
    tags: ["clients", "q3"],
    note: 'line one, "quoted"\nline two',
  };
  const csv = watchlistCsv([row, { ...row, domain_name: "b.com", tags: [], note: null }]);
  assertEquals(detailsFromCsv(csv), [
    { domain_name: "a.com", tags: ["clients", "q3"], note: 'line one, "quoted"\nline two' },
    { domain_name: "b.com", tags: [], note: null },
  ]);
  assertEquals(detailsFromCsv("domain\na.com\nb.com\n"), null, "names only: the plain import");
  assertEquals(detailsFromCsv("a.com, b.com"), null);
  assertEquals(csvRecords('x,"a\r\nb",c\r\n\r\n1,2,3'), [["x", "a\r\nb", "c"], ["1", "2", "3"]]);
  assertEquals(detailsFromCsv("Domain,Note\nc.com,hello\n"), [{ domain_name: "c.com", note: "hello" }]);
});
