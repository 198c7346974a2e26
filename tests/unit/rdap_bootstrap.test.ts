import { assert, assertEquals } from "../support/assert.ts";
import {
  BootstrapFormatError,
  findRdapServers,
  findRdapService,
  isSameOrNewerPublication,
  parseBootstrap,
  withOverrides,
} from "../../supabase/functions/_shared/rdap/bootstrap.ts";

const fixture = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/rdap/bootstrap.json", import.meta.url)),
);

Deno.test("parses services and publication, skipping malformed entries", () => {
  const registry = parseBootstrap(fixture);
  assertEquals(registry.publication, "2026-01-30T00:00:01.000Z");
  assertEquals(registry.services.get("com"), ["https://rdap.registry.test/com/v1/"]);
  assertEquals(registry.services.get("net"), ["https://rdap.registry.test/com/v1/"]);
  assertEquals(registry.services.has("broken"), false, "an ftp-only service is skipped");
});

Deno.test("base URLs get their trailing slash; suffixes are lower case", () => {
  const registry = parseBootstrap(fixture);
  assertEquals(registry.services.get("org"), ["https://rdap.registry.test/org/"]);
  assertEquals(registry.services.get("xn--p1acf"), ["https://api.rdap.nic.test/"]);
});

Deno.test("https is preferred over http; http-only services are kept", () => {
  const registry = parseBootstrap(fixture);
  assertEquals(findRdapServers(registry, "example.mixed"), [
    "https://rdap.mixed.test/",
    "http://rdap.mixed.test/",
  ]);
  assertEquals(findRdapServers(registry, "example.kg"), ["http://rdap.cctld.test/"]);
});

Deno.test("longest suffix of whole labels wins", () => {
  const registry = parseBootstrap(fixture);
  assertEquals(findRdapServers(registry, "bbc.co.uk"), ["https://rdap.nominet.test/co-uk/"]);
  assertEquals(findRdapServers(registry, "example.org.uk"), ["https://rdap.nominet.test/uk/"]);
  assertEquals(findRdapServers(registry, "www.example.co.uk"), ["https://rdap.nominet.test/co-uk/"]);
  assertEquals(findRdapServers(registry, "EXAMPLE.COM."), ["https://rdap.registry.test/com/v1/"]);
  assertEquals(findRdapServers(registry, "example.xn--p1acf"), ["https://api.rdap.nic.test/"]);
});

Deno.test("a suffix must match whole labels; no match is null", () => {
  const registry = parseBootstrap(fixture);
  assertEquals(findRdapServers(registry, "example.dcom"), null);
  assertEquals(findRdapServers(registry, "example.de"), null);
});

Deno.test("overrides add suffixes, replace IANA's entry, and can disable RDAP", () => {
  const registry = withOverrides(parseBootstrap(fixture), [
    { suffix: "de", baseUrl: "https://rdap.registry-de.test" },
    { suffix: ".COM", baseUrl: "https://rdap.other.test/com/" },
    { suffix: "org", baseUrl: null },
  ]);
  assertEquals(findRdapServers(registry, "example.de"), ["https://rdap.registry-de.test/"]);
  assertEquals(findRdapServers(registry, "example.com"), ["https://rdap.other.test/com/"]);
  assertEquals(findRdapServers(registry, "example.org"), []);
  assertEquals(findRdapServers(registry, "example.net"), ["https://rdap.registry.test/com/v1/"]);
});

Deno.test("publication decides whether a copy replaces another", () => {
  assert(isSameOrNewerPublication("2026-01-30T00:00:01.000Z", "2025-04-29T23:00:02.000Z"));
  assert(isSameOrNewerPublication("2026-01-30T00:00:01.000Z", "2026-01-30T00:00:01.000Z"));
  assert(!isSameOrNewerPublication("2024-07-25T22:00:01.000Z", "2025-04-29T23:00:02.000Z"));
  assert(isSameOrNewerPublication("2024-07-25T22:00:01.000Z", null));
  assert(!isSameOrNewerPublication(null, "2024-07-25T22:00:01.000Z"));
});

Deno.test("a file without services is refused", () => {
  for (
    const document of [null, "x", {}, { services: "x" }, { services: [] }, { services: [[["com"], []]] }]
  ) {
    let error: unknown;
    try {
      parseBootstrap(document);
    } catch (caught) {
      error = caught;
    }
    assert(error instanceof BootstrapFormatError, JSON.stringify(document));
  }
});

Deno.test("a missing or unreadable publication is null", () => {
  assertEquals(parseBootstrap({ services: [[["com"], ["https://x.test/"]]] }).publication, null);
  assertEquals(
    parseBootstrap({ publication: "soon", services: [[["com"], ["https://x.test/"]]] }).publication,
    null,
  );
});

Deno.test("server table: fallback rows fill TLDs IANA omits, IANA wins where it lists one; canaries per suffix", () => {
  const iana = parseBootstrap({
    services: [[["com", "de"], ["https://rdap.iana-listed.test/"]]],
  });
  const registry = withOverrides(iana, [
    { suffix: "io", baseUrl: "https://rdap.io.test/", canaryName: "nic.io", precedence: "fallback" },
    { suffix: "de", baseUrl: "https://rdap.shipped.test/", canaryName: "denic.de", precedence: "fallback" },
    { suffix: "com", baseUrl: null, canaryName: "example.com", precedence: "fallback" },
    { suffix: "xx", baseUrl: "https://rdap.operator.test/" },
  ]);
  assertEquals(findRdapService(registry, "acme.io"), {
    suffix: "io",
    baseUrls: ["https://rdap.io.test/"],
    canaryName: "nic.io",
  });
  assertEquals(findRdapService(registry, "acme.de"), {
    suffix: "de",
    baseUrls: ["https://rdap.iana-listed.test/"],
    canaryName: "denic.de",
  });
  assertEquals(findRdapService(registry, "acme.com")?.canaryName, "example.com");
  assertEquals(findRdapService(registry, "acme.com")?.baseUrls, ["https://rdap.iana-listed.test/"]);
  assertEquals(findRdapService(registry, "acme.xx")?.canaryName, "nic.xx", "default canary");
  const replaced = withOverrides(iana, [{ suffix: "de", baseUrl: "https://rdap.operator.test/" }]);
  assertEquals(
    findRdapServers(replaced, "acme.de"),
    ["https://rdap.operator.test/"],
    "an override replaces IANA",
  );
});
