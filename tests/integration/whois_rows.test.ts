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
  recordFromRow,
  type WhoisRoute,
} from "../../supabase/functions/_shared/whois/server_table.ts";
import { decodeWhoisBytes, readWhoisAnswer } from "../../supabase/functions/_shared/whois/answer.ts";
import { classifyWhois } from "../../supabase/functions/_shared/availability/classify.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import { WHOIS_SAMPLES } from "../fixtures/whois/answers.ts";
import { fakeWhoisAnswer, type WhoisState } from "../fakes/whois_server.ts";

async function shippedRoutes(): Promise<{ routes: WhoisRoute[]; unsupported: string[] }> {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    // deno-lint-ignore no-explicit-any
    const rows = await sql<any[]>`select * from public.whois_servers order by suffix`;
    const routes: WhoisRoute[] = [];
    const unsupported: string[] = [];
    for (const row of rows) {
      const entry = compileWhoisRow(recordFromRow(row));
      assert(entry !== null, `row ${row.suffix} compiles`);
      if (entry.kind === "route") routes.push(entry.route);
      else unsupported.push(entry.unsupported.suffix);
    }
    return { routes, unsupported };
  } finally {
    await sql.end();
  }
}

const NOT_DELEGATED: DnsOutcome = { outcome: "not_delegated", rcode: "NXDOMAIN" };
const DELEGATED: DnsOutcome = { outcome: "delegated", rcode: "NOERROR", nameservers: ["ns1.example.net"] };

function nameUnder(route: WhoisRoute): string {
  return `drop-test-4711.${route.suffix}`;
}

function read(route: WhoisRoute, state: WhoisState, name = nameUnder(route)) {
  return readWhoisAnswer(route, decodeWhoisBytes(fakeWhoisAnswer(name, state), route.encoding));
}

Deno.test("the shipped table: 23 WHOIS rows (21 TLDs; za by its second levels) and es, gr, vn unsupported", async () => {
  const { routes, unsupported } = await shippedRoutes();
  assertEquals(unsupported, ["es", "gr", "vn"]);
  assertEquals(routes.length, 23);
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
