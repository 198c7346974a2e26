/**
 * One table of domain names through both copies of the watchable-name rule: the API's `normalizeDomainName`
 * (tldts, `_shared/domain/normalize.ts`) and the database's `private.registrable_domain_problem` (which
 * `add_watchlist_domains`, `remove_watchlist_domain` and `is_valid_domain_name` use, so the app's direct calls
 * and PostgREST get the API's rule). The inputs are in normalized form (lower case, A-labels, no trailing dot:
 * what the API and the app send to SQL after normalize.ts); each verdict is the expected one and both rules
 * give it. And the suffix list SQL reads is exactly the one tldts holds (scripts/public_suffixes.ts).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { normalizeDomainName } from "../../supabase/functions/_shared/domain/normalize.ts";
import { icannSuffixRules } from "../../scripts/public_suffixes.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/stack.ts";

/** [name in normalized form, may be watched] */
export const NAMES: [string, boolean][] = [
  ["example.com", true],
  ["bbc.co.uk", true],
  ["example.uk", true],
  ["www.bbc.co.uk", false], // a subdomain
  ["mail.example.com", false],
  ["co.uk", false], // a public suffix
  ["com", false], // a bare top-level domain
  ["1.2.3.4", false], // an IP address
  ["10.0.0.1", false],
  ["0.0.0.0", false],
  ["256.1.1.1", false], // no IP address, but no known top-level domain either
  ["123.456", false],
  ["example.notatld", false], // an unknown suffix
  ["a.b", false],
  ["example.local", false],
  ["localhost", false],
  ["xn--bcher-kva.de", true], // bücher.de
  ["xn--80ak6aa92e.xn--p1ai", true], // an IDN under .рф
  ["example.xn--fiqs8s", true], // under .中国
  ["foo.ck", false], // *.ck: every name under ck is a suffix
  ["bar.foo.ck", true],
  ["www.ck", true], // !www.ck: the exception is registrable
  ["x.www.ck", false],
  ["x.kawasaki.jp", false], // *.kawasaki.jp
  ["y.x.kawasaki.jp", true],
  ["city.kawasaki.jp", true], // !city.kawasaki.jp
  ["a.city.kawasaki.jp", false],
  ["tokyo.jp", false],
  ["example.tokyo.jp", true],
  ["a.example.tokyo.jp", false],
  ["example.co.jp", true],
  ["example.sch.uk", false], // *.sch.uk
  ["school.example.sch.uk", true],
  ["example.com.au", true],
  ["blogspot.com", true], // private PSL rules do not count: blogspot.com is registrable under com
  ["example.blogspot.com", false],
  ["github.io", true],
  ["foo.github.io", false],
  ["s3.amazonaws.com", false],
  ["1.com", true],
  ["a--b.com", true],
  ["-a.com", false],
  ["a-.com", false],
  ["a..com", false],
  ["xn--zz.com", false], // A-labels that are no punycode of a Unicode label
  ["xn--a.com", false],
  ["xn--.com", false],
  ["xn--ls8h.com", true], // a valid A-label (normalize.ts accepts it; registries may not)
  ["xn--bcher-kva.xn--bcher-kva.com", false], // a subdomain with IDN labels
  [`${"a".repeat(63)}.com`, true],
  [`${"a".repeat(64)}.com`, false],
  [`${"a.".repeat(124)}com`, false], // 251 characters, a deep subdomain
  [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`, false], // 254 characters
  ["example.test", false], // RFC 6761's .test is no public suffix (see the local switch below)
  ["x.followtest", false],
];

Deno.test("the watchable-name rule in TypeScript and in SQL give the same verdict on every name", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const mismatches: string[] = [];
    await sql.begin(async (tx) => {
      // The table's verdicts are the hosted ones: the local seed's switch for made-up TLDs is off here.
      await tx`update private.domain_name_rules set local_test_tlds = false`;
      for (const [name, allowed] of NAMES) {
        const ts = normalizeDomainName(name);
        if (ts.ok && ts.domainName !== name) {
          mismatches.push(`${name}: not in normalized form (${ts.domainName})`);
        }
        const [row] = await tx<{ problem: string | null }[]>`
          select private.registrable_domain_problem(${name}) as problem`;
        const tsAllowed = ts.ok;
        const sqlAllowed = row.problem === null;
        if (tsAllowed !== sqlAllowed) {
          mismatches.push(`${name}: TS ${ts.ok ? "ok" : ts.reason} / SQL ${row.problem ?? "ok"}`);
        }
        if (tsAllowed !== allowed) mismatches.push(`${name}: expected ${allowed ? "allowed" : "refused"}`);
      }
      throw new Rollback();
    }).catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
    assertEquals(mismatches, []);
  } finally {
    await sql.end();
  }
});

class Rollback extends Error {}

Deno.test("SQL refuses what is not in normalized form; the app and the API normalize first", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    for (const input of ["Example.com", "example.com.", " example.com", "bücher.de", "例子.中国", ""]) {
      const [row] = await sql<{ problem: string | null }[]>`
        select private.registrable_domain_problem(${input}) as problem`;
      assert(row.problem !== null, `SQL refuses ${JSON.stringify(input)}`);
    }
    const [nul] = await sql<
      { problem: string | null }[]
    >`select private.registrable_domain_problem(null) as problem`;
    assertEquals(nul.problem, "is empty");
  } finally {
    await sql.end();
  }
});

Deno.test("locally (seed.sql) made-up TLDs ending in `test` are known suffixes; on hosted they are not", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const verdicts = async () =>
      (await sql<{ problem: string | null }[]>`
        select private.registrable_domain_problem(n) as problem
          from unnest(array['x.followtest', 'x.test', 'a.x.followtest', 'x.testx']) with ordinality as t (n, o)
         order by o`).map((row) => row.problem === null);
    assertEquals(await verdicts(), [true, true, false, false], "the local seed's switch is on");
    await sql`update private.domain_name_rules set local_test_tlds = false`;
    try {
      assertEquals(await verdicts(), [false, false, false, false]);
    } finally {
      await sql`update private.domain_name_rules set local_test_tlds = true`;
    }
  } finally {
    await sql.end();
  }
});

Deno.test("the suffix list SQL reads is the one tldts holds (scripts/public_suffixes.ts)", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const shipped = (await sql<{ rule: string }[]>`select rule from private.public_suffixes`).map((r) =>
      r.rule
    )
      .sort();
    const expected = await icannSuffixRules();
    assert(expected.length > 7000, `tldts holds ${expected.length} ICANN rules`);
    const missing = expected.filter((rule) => !shipped.includes(rule));
    const extra = shipped.filter((rule) => !expected.includes(rule));
    assertEquals({ missing, extra }, { missing: [], extra: [] }, "run scripts/public_suffixes.ts");
  } finally {
    await sql.end();
  }
});

Deno.test("the rule is quick: 10,000 names judged in one statement (one set-based look-up of every candidate rule)", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    const [row] = await sql<{ refused: number }[]>`
      select count(*) filter (where private.registrable_domain_problem(n) is not null)::int as refused
        from (select 'name-' || i || case i % 3 when 0 then '.co.uk' when 1 then '.com' else '.sub.example.de' end
                from generate_series(1, 10000) as i) as t (n)`;
    const ms = performance.now() - started;
    console.log(`registrable_domain_problem: 10,000 names in ${ms.toFixed(0)} ms`);
    assertEquals(row.refused, 3333);
    assert(ms < 30_000, `took ${ms} ms`);
  } finally {
    await sql.end();
  }
});
