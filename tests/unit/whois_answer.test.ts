/** Reading WHOIS answers (pure): contradictions, limits, encodings, line endings, statuses and dates. */
import { assertEquals } from "../support/assert.ts";
import {
  decodeWhoisBytes,
  hasLimitNotice,
  parseWhoisDate,
  readWhoisAnswer,
} from "../../supabase/functions/_shared/whois/answer.ts";
import {
  compileWhoisRow,
  findWhoisEntry,
  type WhoisEntry,
} from "../../supabase/functions/_shared/whois/server_table.ts";

const route = (() => {
  const entry = compileWhoisRow({
    suffix: "test",
    host: "whois.nic.test",
    port: 43,
    queryFormat: "%s",
    canaryName: "nic.test",
    notFoundPattern: "^No entries found\\.$",
    foundPattern: "^domain:\\s+\\S+$",
    limitPattern: "too many queries",
    statusPattern: "^state:\\s*(.+)$",
    pendingDeleteStatuses: ["redemption"],
    registrarPattern: "^registrar:\\s*(.+)$",
    expirationPattern: "^expires:\\s*(.+)$",
    encoding: "latin-1",
    unsupportedReason: null,
    source: "test",
  });
  if (entry?.kind !== "route") throw new Error("no route");
  return entry.route;
})();

Deno.test("not found only when nothing contradicts it", () => {
  assertEquals(readWhoisAnswer(route, "No entries found.\r\n").answer, "not_found");
  assertEquals(readWhoisAnswer(route, "No entries found.\ndomain: a.test\n").answer, "unrecognized");
  // A limit notice next to "not found" contradicts it: neither available nor a limit.
  assertEquals(readWhoisAnswer(route, "No entries found.\nToo many queries\n").answer, "unrecognized");
  assertEquals(readWhoisAnswer(route, "").answer, "unrecognized");
  assertEquals(readWhoisAnswer(route, "  \r\n").answer, "unrecognized");
  assertEquals(readWhoisAnswer(route, "No entries found. Maybe.\n").answer, "unrecognized");
});

Deno.test("a record: statuses, registrar, expiry; redemption words mean pending delete", () => {
  const text =
    "domain: a.test\r\nstate: REGISTERED, DELEGATED\r\nregistrar: Zürich Domains AG  \r\nexpires: 2027.03.05\r\n";
  const reading = readWhoisAnswer(
    route,
    decodeWhoisBytes(Uint8Array.from(text, (c) => c.charCodeAt(0)), "latin-1"),
  );
  assertEquals(reading, {
    answer: "found",
    statuses: ["REGISTERED", "DELEGATED"],
    registrar: "Zürich Domains AG",
    expirationDate: "2027-03-05T00:00:00.000Z",
  });
  assertEquals(readWhoisAnswer(route, "domain: a.test\nstate: Redemption\n").answer, "pending_delete");
});

Deno.test("WHOIS dates", () => {
  assertEquals(parseWhoisDate("2027-03-17 12:48:36"), "2027-03-17T12:48:36.000Z");
  assertEquals(parseWhoisDate("2027/05/31"), "2027-05-31T00:00:00.000Z");
  assertEquals(parseWhoisDate("28/02/2027"), "2027-02-28T00:00:00.000Z");
  assertEquals(parseWhoisDate("02/11/2019 23:59:00"), "2019-11-02T23:59:00.000Z");
  assertEquals(parseWhoisDate("2027-02-17T00:00:00+13:00"), "2027-02-16T11:00:00.000Z");
  assertEquals(parseWhoisDate("2027-02-30"), null);
  assertEquals(parseWhoisDate("2027. 03. 02."), null);
  assertEquals(parseWhoisDate(null), null);
});

Deno.test("a row with a pattern that does not compile is disabled, never used", () => {
  const entry = compileWhoisRow({ ...baseRecord(), notFoundPattern: "(unclosed" });
  assertEquals(entry, null);
});

Deno.test("the longest matching suffix wins", () => {
  const entries = new Map<string, WhoisEntry>([
    ["za", { kind: "unsupported", unsupported: { suffix: "za", reason: "x" } }],
    ["co.za", { kind: "route", route: { ...route, suffix: "co.za" } }],
  ]);
  assertEquals(findWhoisEntry(entries, "example.co.za")?.kind, "route");
  assertEquals(findWhoisEntry(entries, "example.za")?.kind, "unsupported");
  assertEquals(findWhoisEntry(entries, "example.com"), null);
  // A row covers the names under its suffix, never the suffix itself (co.za is no name of the co.za zone).
  assertEquals(findWhoisEntry(entries, "co.za")?.kind, "unsupported");
  assertEquals(findWhoisEntry(entries, "a.b.co.za")?.kind, "route");
});

function baseRecord() {
  return {
    suffix: "test",
    host: "whois.nic.test",
    port: 43,
    queryFormat: "%s",
    canaryName: "nic.test",
    notFoundPattern: "x",
    foundPattern: "y",
    limitPattern: null,
    statusPattern: null,
    pendingDeleteStatuses: [],
    registrarPattern: null,
    expirationPattern: null,
    encoding: "utf-8" as const,
    unsupportedReason: null,
    source: "test",
  };
}

Deno.test("a not-found answer keeps the text that matched the row's pattern (the alert's evidence)", () => {
  const reading = readWhoisAnswer(route, "% test registry\r\nNo entries found.\r\n");
  assertEquals(reading.answer, "not_found");
  assertEquals(reading.notFoundMatch, "No entries found.");
  assertEquals(readWhoisAnswer(route, "domain: a.test\n").notFoundMatch, undefined);
});

Deno.test("a limit notice is a whole line of the server's own, never a line carrying the queried name", () => {
  assertEquals(readWhoisAnswer(route, "% test registry\nToo many queries\n").answer, "rate_limited");
  assertEquals(readWhoisAnswer(route, "  Too many queries  \r\n").answer, "rate_limited");
  // Part of a line is not a notice (the pattern is anchored to the whole line whatever its author wrote).
  assertEquals(readWhoisAnswer(route, "- do not send too many queries or else\n").answer, "unrecognized");
  // A line that carries the queried name is never the server's notice.
  const name = "too-many-queries.test";
  assertEquals(readWhoisAnswer(route, `Too many queries\n`, name).answer, "rate_limited");
  assertEquals(readWhoisAnswer(route, `Too many queries: ${name}\n`, name).answer, "unrecognized");
  // Found and not-found answers are read first: a name full of limit words is read as what the server said.
  assertEquals(readWhoisAnswer(route, `domain: ${name}\n`, name).answer, "found");
  assertEquals(readWhoisAnswer(route, "No entries found.\n", name).answer, "not_found");
});

Deno.test("hasLimitNotice: anchored to a whole line, case-insensitive, skips the name's lines", () => {
  const limit = /exceeded/mi;
  assertEquals(hasLimitNotice(limit, "quota exceeded\nexceeded\n"), true);
  assertEquals(hasLimitNotice(limit, "the quota was exceeded\n"), false);
  assertEquals(hasLimitNotice(limit, "EXCEEDED\n", "exceeded.se"), true);
  assertEquals(hasLimitNotice(limit, "exceeded.se\n", "exceeded.se"), false);
  assertEquals(hasLimitNotice(null, "exceeded\n"), false);
  // An IDN's line is skipped in its Unicode form too (xn--exceeded-i1a.se is exceededé.se).
  assertEquals(hasLimitNotice(/exceeded.*/mi, "exceededé.se\n", "xn--exceeded-i1a.se"), false);
  assertEquals(hasLimitNotice(/exceeded.*/mi, "exceeded for you\n", "xn--exceeded-i1a.se"), true);
});

/** A row like .tr's: its "not found" line names the name (`name` group), its canary is the registry's own. */
const named = (() => {
  const entry = compileWhoisRow({
    suffix: "tr",
    host: "whois.trabis.gov.tr",
    port: 43,
    queryFormat: "%s",
    canaryName: "trabis.gov.tr",
    notFoundPattern: '^No match found for ("?)(?<name>[^"\\s]+)\\1$',
    foundPattern: "^\\*\\* (?:Domain Name:\\s*\\S+\\.tr|Registrant:)$",
    limitPattern: "^(?:Query limit exceeded|Too many (?:queries|requests))\\b.*$",
    statusPattern: null,
    pendingDeleteStatuses: [],
    registrarPattern: null,
    expirationPattern: null,
    encoding: "utf-8",
    unsupportedReason: null,
    source: "test",
  });
  if (entry?.kind !== "route") throw new Error("no route");
  return entry.route;
})();

Deno.test("issue 40: a not-found line counts only for the queried name; .tr's answer with or without quotes", () => {
  const name = "kx7q2-free.com.tr";
  assertEquals(readWhoisAnswer(named, `No match found for ${name}\n`, name).answer, "not_found");
  assertEquals(readWhoisAnswer(named, `No match found for "${name}"\n`, name).answer, "not_found");
  assertEquals(
    readWhoisAnswer(named, `No match found for ${name.toUpperCase()}\n`, name).answer,
    "not_found",
  );
  // Unbalanced quotes, or another name, are no "not found" for this name.
  assertEquals(readWhoisAnswer(named, `No match found for "${name}\n`, name).answer, "unrecognized");
  assertEquals(readWhoisAnswer(named, `No match found for other.com.tr\n`, name).answer, "unrecognized");
  assertEquals(readWhoisAnswer(named, `No match found for ${name}.evil\n`, name).answer, "unrecognized");
  // A limit notice never reads as not found, even next to one.
  assertEquals(
    readWhoisAnswer(named, `No match found for ${name}\n% Query limit exceeded\n`, name).answer,
    "unrecognized",
  );
});

Deno.test("issue 40: today's limit notices read as limits for every row, after a % or # marker", () => {
  const name = "some-name.test";
  for (
    const notice of [
      "% Service currently unavailable",
      "% Service currently unavailable.",
      "Service temporarily unavailable, please try again later",
      "Service temporarily unavailable.",
      "# Query rate limit exceeded",
      "%% Your connection limit exceeded. Please slow down and try again later.",
      "WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS",
      "Maximum query rate reached",
      "% Maximum Daily connection limit reached. Lookup refused.",
      "You have exceeded your allotted number of queries.",
      "Server too busy, try again later",
      "% Quota exceeded",
      "Too many connections",
    ]
  ) {
    assertEquals(readWhoisAnswer(route, `${notice}\n`, name).answer, "rate_limited", notice);
    assertEquals(readWhoisAnswer(named, `${notice}\n`, name).answer, "rate_limited", notice);
  }
  // Footers that merely mention limits are no notices; a line with the name never is one.
  for (
    const text of [
      "(d) make excessive queries.",
      "- exceeding query rate or volume limits.",
      "% Service",
      "Service not available for reserved names",
    ]
  ) {
    assertEquals(readWhoisAnswer(route, `${text}\n`, name).answer, "unrecognized", text);
  }
  assertEquals(
    readWhoisAnswer(route, `% Service currently unavailable for ${name}\n`, name).answer,
    "unrecognized",
  );
});

Deno.test("issue 40: a limit notice naming the registry's own domain is a notice when that domain is the canary", () => {
  const notice = "Query limit exceeded, see trabis.gov.tr for the terms\n";
  // An account's name: the line carries the name, so it is never a notice (no name forges one).
  assertEquals(readWhoisAnswer(named, notice, "trabis.gov.tr").answer, "unrecognized");
  // The canary (the service's own question): the notice reads as one, so the proof is inconclusive, not failed.
  assertEquals(readWhoisAnswer(named, notice, "trabis.gov.tr", { canary: true }).answer, "rate_limited");
  assertEquals(
    readWhoisAnswer(
      named,
      "% Service currently unavailable, please try again later at trabis.gov.tr\n",
      "trabis.gov.tr",
      {
        canary: true,
      },
    ).answer,
    "rate_limited",
  );
});
