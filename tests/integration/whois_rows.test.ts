/**
 * Every shipped WHOIS row (`public.whois_servers`, as the migrations leave it) against captured-style
 * answers in its registry's own phrasing (tests/fixtures/whois/answers.ts): each row reads its own
 * found / not-found / pending-delete / limit texts, and over the whole table of answers (found, not found,
 * pending delete, rate-limited, empty, unrecognised, truncated, Latin-1) a name is `available` only for the
 * row's not-found answer with a proven server and no delegation: 0 false `available`.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import {
  compileWhoisRow,
  entrySuffix,
  findWhoisEntry,
  recordFromRow,
  unsupportedZone,
  type WhoisEntry,
  type WhoisRoute,
} from "../../supabase/functions/_shared/whois/server_table.ts";
import { normalizeDomainName } from "../../supabase/functions/_shared/domain/normalize.ts";
import { decodeWhoisBytes, readWhoisAnswer } from "../../supabase/functions/_shared/whois/answer.ts";
import { classifyWhois } from "../../supabase/functions/_shared/availability/classify.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import { WHOIS_SAMPLES } from "../fixtures/whois/answers.ts";
import { REAL_ANSWERS, realAnswerBytes } from "../fixtures/whois/real_answers.ts";
import { fakeWhoisAnswer, type WhoisState } from "../fakes/whois_server.ts";

async function shippedRoutes(): Promise<
  { routes: WhoisRoute[]; unsupported: string[]; entries: Map<string, WhoisEntry> }
> {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    // deno-lint-ignore no-explicit-any
    const rows = await sql<any[]>`select * from public.whois_servers order by suffix`;
    const routes: WhoisRoute[] = [];
    const unsupported: string[] = [];
    const entries = new Map<string, WhoisEntry>();
    for (const row of rows) {
      const entry = compileWhoisRow(recordFromRow(row));
      assert(entry !== null, `row ${row.suffix} compiles`);
      entries.set(row.suffix, entry);
      if (entry.kind === "route") routes.push(entry.route);
      else unsupported.push(entry.unsupported.suffix);
    }
    return { routes, unsupported, entries };
  } finally {
    await sql.end();
  }
}

/** The second-level zones with their own WHOIS servers (issue 34; docs/whois.md). */
const OWN_SERVER_ZONES: Record<string, string> = {
  "com.ru": "whois.flexireg.net",
  "msk.ru": "whois.flexireg.net",
  "spb.ru": "whois.flexireg.net",
  "nov.ru": "whois.flexireg.net",
  "net.ru": "whois.nic.net.ru",
  "org.ru": "whois.nic.net.ru",
  "pp.ru": "whois.nic.net.ru",
  "priv.at": "whois.nic.priv.at",
  "edu.cn": "whois.edu.cn",
  "ac.ru": "whois.free.net",
  "edu.ru": "whois.informika.ru",
  "ac.uk": "whois.nic.ac.uk",
  "gov.uk": "whois.gov.uk",
  "gov.za": "whois.gov.za",
};

const NOT_DELEGATED: DnsOutcome = { outcome: "not_delegated", rcode: "NXDOMAIN" };
const DELEGATED: DnsOutcome = { outcome: "delegated", rcode: "NOERROR", nameservers: ["ns1.example.net"] };

function nameUnder(route: WhoisRoute): string {
  return `drop-test-4711.${route.suffix}`;
}

function read(route: WhoisRoute, state: WhoisState, name = nameUnder(route)) {
  return readWhoisAnswer(route, decodeWhoisBytes(fakeWhoisAnswer(name, state), route.encoding));
}

Deno.test("the shipped table: 27 WHOIS rows (21 TLDs; za by its second levels; 4 zones), es, gr, vn and 10 zones unsupported", async () => {
  const { routes, unsupported } = await shippedRoutes();
  assertEquals(unsupported, [
    "ac.ru",
    "com.ru",
    "edu.cn",
    "edu.ru",
    "es",
    "gr",
    "msk.ru",
    "net.ru",
    "nov.ru",
    "org.ru",
    "pp.ru",
    "spb.ru",
    "vn",
  ]);
  assertEquals(routes.length, 27);
  for (const route of routes) {
    assert(WHOIS_SAMPLES[route.suffix], `captured-style answers for ${route.suffix}`);
  }
});

Deno.test("every shipped row reads its own registry's phrasing", async (t) => {
  const { routes } = await shippedRoutes();
  for (const route of routes) {
    await t.step(route.suffix, () => {
      const samples = WHOIS_SAMPLES[route.suffix];
      const name = nameUnder(route);
      const found = read(route, "registered");
      assertEquals(found.answer, "found", `${route.suffix}: a record`);
      assertEquals(found.registrar, samples.registrar, `${route.suffix}: registrar`);
      assertEquals(found.expirationDate, samples.expiration, `${route.suffix}: expiry`);
      assertEquals(read(route, "available").answer, "not_found", `${route.suffix}: not found`);
      assertEquals(read(route, "rate_limited").answer, "rate_limited", `${route.suffix}: limit text`);
      if (samples.pendingDelete !== null) {
        assertEquals(
          read(route, "pending_delete").answer,
          "pending_delete",
          `${route.suffix}: pending delete`,
        );
      } else {
        assertEquals(
          route.pendingDeleteStatuses,
          [],
          `${route.suffix}: no pending-delete words without a sample`,
        );
      }
      // The canary is read as a record by the same phrasing (what its proof asks).
      const canary = readWhoisAnswer(
        route,
        decodeWhoisBytes(fakeWhoisAnswer(route.canaryName, "registered"), route.encoding),
      );
      assert(canary.answer === "found", `${route.suffix}: canary ${route.canaryName}`);
      // The not-found text of another name is still "not found" (no text echoes the name wrongly).
      assertEquals(readWhoisAnswer(route, samples.notFound(`other.${route.suffix}`)).answer, "not_found");
      assert(name.endsWith(route.suffix));
    });
  }
});

Deno.test("0 false available over every row's table of answers", async () => {
  const { routes } = await shippedRoutes();
  let cases = 0;
  let available = 0;
  for (const route of routes) {
    const answers: [string, Uint8Array][] = [];
    for (
      const state of [
        "registered",
        "pending_delete",
        "rate_limited",
        "empty",
        "unrecognized",
        "latin1",
      ] as const
    ) {
      answers.push([state, fakeWhoisAnswer(nameUnder(route), state)]);
    }
    // Truncated records: every prefix ending at a line, and the first half.
    for (const state of ["registered", "pending_delete"] as const) {
      const whole = fakeWhoisAnswer(nameUnder(route), state);
      for (let end = 0; end < whole.byteLength; end++) {
        if (whole[end] === 0x0a) answers.push([`${state} cut at ${end}`, whole.subarray(0, end + 1)]);
      }
      answers.push([`${state} half`, whole.subarray(0, whole.byteLength >> 1)]);
    }
    // Not-found texts cut before the phrase, and the over-long answer read as if it had been accepted.
    const notFound = fakeWhoisAnswer(nameUnder(route), "available");
    const text = decodeWhoisBytes(notFound, route.encoding);
    const phraseAt = text.search(route.notFound);
    answers.push([
      "not found cut before its phrase",
      new TextEncoder().encode(text.slice(0, Math.max(0, phraseAt))),
    ]);

    for (const [label, bytes] of answers) {
      for (const dns of [NOT_DELEGATED, DELEGATED]) {
        const reading = readWhoisAnswer(route, decodeWhoisBytes(bytes, route.encoding));
        const verdict = classifyWhois({ kind: "read", reading }, dns);
        cases++;
        if (verdict.available === true) {
          available++;
          console.error(`${route.suffix}: ${label} would be available`);
        }
      }
    }
    // The row's own not-found answer: available only when not delegated, and only from a proven server.
    const notFoundReading = readWhoisAnswer(route, text);
    assertEquals(classifyWhois({ kind: "read", reading: notFoundReading }, NOT_DELEGATED).available, true);
    assertEquals(classifyWhois({ kind: "read", reading: notFoundReading }, DELEGATED).available, false);
    assertEquals(classifyWhois({ kind: "unverified" }, NOT_DELEGATED).available, null);
    for (
      const reason of ["whois_timeout", "whois_too_large", "whois_truncated", "whois_network_error"] as const
    ) {
      assertEquals(classifyWhois({ kind: "failed", reason }, NOT_DELEGATED).available, null);
    }
  }
  console.log(`${cases} answers over ${routes.length} rows: ${available} false available`);
  assertEquals(available, 0);
});

/** The words of a row's limit pattern (letters only, 4 or more), as a name's labels would spell them. */
function limitWords(route: WhoisRoute): string[] {
  const words = (route.limit?.source ?? "").toLowerCase().replace(/\\[a-z]/g, " ").match(/[a-z]{4,}/g) ?? [];
  return [...new Set(words)];
}

/** Names made of a row's own limit words: each word, each pair, and the whole phrase joined by hyphens. */
function limitWordNames(route: WhoisRoute): string[] {
  const words = limitWords(route);
  const labels = new Set<string>([
    "exceeded",
    "quota",
    "too-many",
    "blacklisted",
    "denied",
    "limit-exceeded",
  ]);
  for (const word of words) labels.add(word);
  for (let i = 0; i + 1 < words.length; i++) labels.add(`${words[i]}-${words[i + 1]}`);
  labels.add(words.join("-").slice(0, 63).replace(/-+$/, ""));
  return [...labels].filter((label) => label !== "").map((label) => `${label}.${route.suffix}`);
}

Deno.test("limit texts cannot be forged by a name: names made of each row's limit words, registered and free", async () => {
  const { routes } = await shippedRoutes();
  let names = 0;
  for (const route of routes) {
    assert(route.limit !== null, `${route.suffix}: a limit pattern`);
    for (const name of limitWordNames(route)) {
      names++;
      for (const state of ["registered", "available", "pending_delete"] as const) {
        const text = decodeWhoisBytes(fakeWhoisAnswer(name, state), route.encoding);
        const reading = readWhoisAnswer(route, text, name);
        const wanted = state === "available"
          ? "not_found"
          : state === "registered"
          ? "found"
          : reading.answer;
        assertEquals(reading.answer, wanted, `${route.suffix}: ${name} ${state}`);
        assert(reading.answer !== "rate_limited", `${route.suffix}: ${name} ${state} is no limit text`);
      }
      // A text no pattern explains that echoes the name next to the row's limit words is no limit text
      // either (the name's line is never read as the server's notice).
      const echo = `% Information related to '${name}'\r\n% ${limitWords(route).join(" ")} ${name}\r\n`;
      assert(readWhoisAnswer(route, echo, name).answer !== "rate_limited", `${route.suffix}: ${name} echoed`);
    }
    // The server's own notice still pauses the host.
    assertEquals(read(route, "rate_limited").answer, "rate_limited", `${route.suffix}: its notice`);
  }
  console.log(`${names} names made of limit words over ${routes.length} rows: none read as a limit`);
});

Deno.test("zones with their own servers: their names never resolve to the TLD's row", async () => {
  const { entries } = await shippedRoutes();
  for (const [zone, host] of Object.entries(OWN_SERVER_ZONES)) {
    const tld = zone.split(".").pop()!;
    const name = `example.${zone}`;
    const entry = findWhoisEntry(entries, name);
    assert(entry !== null, `${name}: a row`);
    assertEquals(entrySuffix(entry), zone, `${name} is read under its zone's own row, not ${tld}'s`);
    if (entry.kind === "route") {
      assertEquals(entry.route.host, host, `${zone}: its own server`);
    } else {
      assertEquals(unsupportedZone(entry), zone, `${zone}: refused as unsupported_zone`);
      assert(entry.unsupported.reason.includes(host), `${zone}: the reason names ${host}`);
    }
    // The zone's own name is a name under the TLD, read by the TLD's WHOIS row (or its RDAP server: .uk).
    const own = findWhoisEntry(entries, zone);
    assertEquals(own === null ? tld : entrySuffix(own), tld, `${zone} itself is a .${tld} name`);
    // Whatever the Public Suffix List says: a name it makes registrable is read under the zone's row, and
    // one it calls a sub-domain (the zone in the PSL's private section) is refused before any check.
    const normalized = normalizeDomainName(name);
    if (normalized.ok) assertEquals(entrySuffix(findWhoisEntry(entries, normalized.domainName)!), zone);
    else assert(normalized.reason.includes("subdomain"), `${name}: ${normalized.reason}`);
  }
  // Why: asked for a com.ru name, the .ru registry's server answers "not found" (a real capture), which the
  // ru row would read as not_found, a false available for a name registered in the com.ru zone.
  const capture = REAL_ANSWERS.find((sample) => sample.name === "mining.com.ru")!;
  const ru = entries.get("ru")!;
  assert(ru.kind === "route");
  const text = decodeWhoisBytes(await realAnswerBytes(capture), ru.route.encoding);
  assertEquals(readWhoisAnswer(ru.route, text, capture.name!).answer, "not_found");
  assertEquals(unsupportedZone(findWhoisEntry(entries, capture.name!)), "com.ru");
  // For every shipped row, names under the zones never resolve to any other row.
  for (const suffix of entries.keys()) {
    for (const zone of Object.keys(OWN_SERVER_ZONES)) {
      if (zone === suffix || !zone.endsWith(`.${suffix}`)) continue;
      assertEquals(
        entrySuffix(findWhoisEntry(entries, `drop-test.${zone}`)!),
        zone,
        `${zone} is not ${suffix}'s`,
      );
    }
  }
});

Deno.test("the route lookup and the zone rule: TypeScript and SQL agree (one table of cases)", async () => {
  const { entries } = await shippedRoutes();
  const cases = [
    "example.com.ru",
    "com.ru",
    "a.b.msk.ru",
    "example.ru",
    "example.priv.at",
    "priv.at",
    "example.at",
    "example.edu.cn",
    "edu.cn",
    "example.cn",
    "example.co.za",
    "co.za",
    "example.za",
    "example.es",
    "example.com",
    "EXAMPLE.PP.RU",
    "example.ac.uk",
    "ac.uk",
    "example.co.uk",
    "example.gov.za",
  ];
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    for (const name of cases) {
      const entry = findWhoisEntry(entries, name);
      const [row] = await sql<{ suffix: string | null; zone: string | null }[]>`
        select private.whois_row_suffix(${name}) as suffix, private.whois_unsupported_zone(${name}) as zone`;
      assertEquals(row.suffix, entry === null ? null : entrySuffix(entry), `${name}: the row`);
      assertEquals(row.zone, unsupportedZone(entry), `${name}: the zone rule`);
    }
  } finally {
    await sql.end();
  }
});
