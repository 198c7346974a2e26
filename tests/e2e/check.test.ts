/**
 * GET /check/{domain} end to end: the real gateway and database, a fake RDAP registry found through a
 * bootstrap file (RDAP_BOOTSTRAP_URL) and a fake DNS server (DNS_NAMESERVER).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { callChecked, publishedContract } from "../support/contract.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface CheckBody {
  domain_name: string;
  unicode_name: string | null;
  available: boolean | null;
  status: string;
  checked_at: string;
  reason: string;
  rdap:
    | { server: string; http_status: number | null; status: string[]; expiration_date: string | null }
    | null;
  dns: { delegated: boolean | null; nameservers: string[]; rcode: string | null };
}

Deno.test("GET /check/{domain} end to end", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: ["com", "org"] });
  // The registry proves it can say "found" for .com: its canary (example.com, from the shipped table) is
  // registered. Under .org it is not: example.org answers 404 like every other name.
  rdap.setDomain("example.com", { status: 200 });
  const dns = await startFakeDns({
    delegated: { "taken.com": ["ns1.host.example"], "lying.com": ["ns1.x.example"] },
  });
  const stack = await startStack({
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    RDAP_TIMEOUT_MS: "1000",
  });
  await setRdapHostLimit(stack.sql, rdap.url, 1, 2);
  const account = await stack.account("pro");
  // Every response below is checked against the schema the served OpenAPI document publishes for it.
  const contract = await publishedContract(stack.apiBase);
  const check = (name: string) =>
    callChecked<CheckBody>(contract, `${stack.apiBase}/check/${name}`, { apiKey: account.api_key! });
  const requestsFor = (name: string) => rdap.requests.filter((request) => request.path.endsWith(`/${name}`));
  try {
    await t.step("a registered name: RDAP 200", async () => {
      rdap.setDomain("taken.com", {
        status: 200,
        body: {
          objectClassName: "domain",
          ldhName: "TAKEN.COM",
          status: ["client transfer prohibited"],
          events: [{ eventAction: "expiration", eventDate: "2030-01-02T03:04:05Z" }],
        },
      });
      const response = await check("taken.com");
      assertEquals(response.status, 200);
      assertEquals(response.body.status, "registered");
      assertEquals(response.body.available, false);
      assertEquals(response.body.reason, "rdap_found");
      assertEquals(response.body.rdap?.http_status, 200);
      assertEquals(response.body.rdap?.expiration_date, "2030-01-02T03:04:05.000Z");
      assertEquals(response.body.dns, {
        delegated: true,
        nameservers: ["ns1.host.example"],
        rcode: "NOERROR",
      });
      assert(rdap.requests.some((request) => (request.accept ?? "").includes("application/rdap+json")));
    });

    await t.step("an available name: 404 from the registry and no delegation", async () => {
      const response = await check("free-name.com");
      assertEquals(response.body.status, "available");
      assertEquals(response.body.available, true);
      assertEquals(response.body.reason, "rdap_not_found");
      assertEquals(response.body.dns.delegated, false);
      assertEquals(response.body.dns.rcode, "NXDOMAIN");
    });

    await t.step(
      "a 404 from a registry whose canary is not found either is unknown, never available",
      async () => {
        const response = await check("free-name.org");
        assertEquals(response.body.status, "unknown");
        assertEquals(response.body.available, null);
        assertEquals(response.body.reason, "rdap_server_unverified");
        assertEquals(response.body.rdap?.http_status, 404);
        const [proof] = await stack.sql<{ state: string; canary_name: string; http_status: number }[]>`
        select state, canary_name, http_status from public.rdap_server_proofs
        where server_url = ${rdap.url} and suffix = 'org'`;
        assertEquals(
          proof,
          { state: "failed", canary_name: "example.org", http_status: 404 },
          "visible to operators",
        );
      },
    );

    await t.step("SERVFAIL or REFUSED with a 404 is unknown, never available", async () => {
      dns.setServerFailure("servfail-name.com");
      dns.setRefused("refused-name.com");
      for (const [name, rcode] of [["servfail-name.com", "SERVFAIL"], ["refused-name.com", "REFUSED"]]) {
        const response = await check(name);
        assertEquals([response.body.status, response.body.reason], ["unknown", "rdap_not_found_dns_error"]);
        assertEquals(response.body.dns.rcode, rcode);
      }
    });

    await t.step("404 but delegated in DNS is registered", async () => {
      const response = await check("lying.com");
      assertEquals(response.body.status, "registered");
      assertEquals(response.body.reason, "rdap_404_but_delegated");
    });

    await t.step("pending delete", async () => {
      rdap.setDomain("dropping.com", {
        status: 200,
        body: {
          objectClassName: "domain",
          ldhName: "dropping.com",
          status: ["pending delete", "redemption period"],
        },
      });
      const response = await check("dropping.com");
      assertEquals(response.body.status, "pending_delete");
      assertEquals(response.body.available, false);
    });

    await t.step("no RDAP server for the TLD: DNS only, never available", async () => {
      // (.de is on the shipped server list; .fr is neither there nor in this test's bootstrap.)
      const response = await check("nobody-knows.fr");
      assertEquals(response.body.status, "unknown");
      assertEquals(response.body.available, null);
      assertEquals(response.body.reason, "no_rdap_server_for_tld");
    });

    await t.step("IDN input is checked as its A-label", async () => {
      const response = await check(encodeURIComponent("bücher.com"));
      assertEquals(response.body.domain_name, "xn--bcher-kva.com");
      assertEquals(response.body.unicode_name, "bücher.com");
    });

    await t.step("a repeated check within 30 s is answered from the cache", async () => {
      const first = await check("cached-name.com");
      const second = await check("CACHED-NAME.com");
      assertEquals(second.body, first.body);
      assertEquals(requestsFor("cached-name.com").length, 1);
    });

    await t.step("the result updates the shared state of a watched name", async () => {
      rdap.setDomain("watched-name.com", { status: 200 });
      await callChecked(contract, `${stack.apiBase}/domains`, {
        method: "POST",
        apiKey: account.api_key!,
        json: { domains: ["watched-name.com"] },
      });
      await check("watched-name.com");
      const list = await callChecked<
        { domains: { domain_name: string; status: string; last_checked_at: string }[] }
      >(
        contract,
        `${stack.apiBase}/domains`,
        { apiKey: account.api_key! },
      );
      const watched = list.body.domains.find((domain) => domain.domain_name === "watched-name.com");
      assertEquals(watched?.status, "registered");
      assert(watched?.last_checked_at);
    });

    await t.step("one request per second per RDAP host", async () => {
      const names = ["rate-a.com", "rate-b.com", "rate-c.com"];
      await Promise.all(names.map((name) => check(name)));
      const starts = names.map((name) => requestsFor(name)[0].at).sort((a, b) => a - b);
      assert(starts[1] - starts[0] >= 900, `gaps ${starts[1] - starts[0]} ms`);
      assert(starts[2] - starts[1] >= 900, `gaps ${starts[2] - starts[1]} ms`);
    });

    await t.step("429 with Retry-After is honoured, then the answer is used", async () => {
      rdap.setDomain("busy-registry.com", [{ status: 429, retryAfter: 1 }, { status: 200 }]);
      const response = await check("busy-registry.com");
      assertEquals(response.body.status, "registered");
      const [first, second] = requestsFor("busy-registry.com");
      assert(second.at - first.at >= 950, `retried after ${second.at - first.at} ms`);
    });

    await t.step("upstream failures are a 200 with status unknown and a reason", async () => {
      rdap.setDomain("slow-registry.com", { status: "timeout" });
      const timeout = await check("slow-registry.com");
      assertEquals(timeout.status, 200);
      assertEquals(timeout.body.status, "unknown");
      assertEquals(timeout.body.available, null);
      assertEquals(timeout.body.reason, "rdap_timeout");

      rdap.setDomain("html-registry.com", { status: "html" });
      const html = await check("html-registry.com");
      assertEquals(html.body.status, "unknown");
      assertEquals(html.body.reason, "rdap_invalid_response");

      rdap.setDomain("broken-registry.com", { status: 500 });
      const broken = await check("broken-registry.com");
      assertEquals(broken.body.status, "unknown");
      assertEquals(broken.body.reason, "rdap_server_error");
    });

    await t.step("a subdomain or bare TLD is a 400", async () => {
      assertEquals((await check("www.example.com")).status, 400);
      assertEquals((await check("com")).status, 400);
    });
  } finally {
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
