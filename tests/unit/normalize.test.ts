import { assertEquals, assertMatch } from "../support/assert.ts";
import { normalizeDomainName } from "../../supabase/functions/_shared/domain/normalize.ts";

function accepted(input: string): { domainName: string; unicodeName: string | null } {
  const result = normalizeDomainName(input);
  if (!result.ok) throw new Error(`${input} was rejected: ${result.reason}`);
  return { domainName: result.domainName, unicodeName: result.unicodeName };
}

function rejected(input: unknown): string {
  const result = normalizeDomainName(input);
  if (result.ok) throw new Error(`${input} was accepted`);
  return result.reason;
}

Deno.test("names are trimmed, lower-cased and lose a trailing dot", () => {
  assertEquals(accepted("  Example.COM. "), { domainName: "example.com", unicodeName: null });
  assertEquals(accepted("example.co.uk"), { domainName: "example.co.uk", unicodeName: null });
});

Deno.test("Unicode names become A-labels and keep their Unicode form", () => {
  assertEquals(accepted("Bücher.de"), { domainName: "xn--bcher-kva.de", unicodeName: "bücher.de" });
  assertEquals(accepted("XN--BCHER-KVA.DE"), { domainName: "xn--bcher-kva.de", unicodeName: "bücher.de" });
  assertEquals(accepted("例え.jp").domainName.startsWith("xn--"), true);
});

Deno.test("only registrable names are accepted, with a reason that says why", () => {
  assertMatch(rejected("www.example.com"), /subdomain.*example\.com/);
  assertMatch(rejected("com"), /top-level/);
  assertMatch(rejected("co.uk"), /public suffix/);
  assertMatch(rejected("example.notatld"), /known top-level/);
  assertMatch(rejected("foo.github.io"), /subdomain/);
  assertMatch(rejected("1.2.3.4"), /./);
  assertMatch(rejected(""), /empty/);
  assertMatch(rejected("a b.com"), /not a domain name/);
  assertMatch(rejected("https://example.com"), /URL/);
  assertMatch(rejected("-bad.com"), /label/);
  assertMatch(rejected("x".repeat(64) + ".com"), /label/);
  assertMatch(rejected(42), /string/);
});

Deno.test("an A-label that is no valid punycode is refused, never thrown (Deno 2.1's node:url throws)", () => {
  for (const input of ["xn--zz.com", "xn--a.com", "xn--.com"]) {
    assertEquals(rejected(input), "is not a valid domain name", input);
  }
});
