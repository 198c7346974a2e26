/**
 * checkDomain end to end over the network, without a database: a fake RDAP registry (HTTP) serving its own
 * bootstrap file, and a fake DNS server (UDP/TCP and DoH), both on 127.0.0.1. The registry's canary
 * (`nic.test`) is registered unless a test says otherwise; canary proofs are kept in memory here (the
 * database store is tested in tests/integration/rdap_engine_db.test.ts).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type CheckDeps, checkDomain } from "../../supabase/functions/_shared/availability/check_domain.ts";
import {
  createBootstrapStore,
  memoryBootstrapStorage,
} from "../../supabase/functions/_shared/rdap/bootstrap_store.ts";
import { createRdapClient } from "../../supabase/functions/_shared/rdap/client.ts";
import { createHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { lookupNameservers } from "../../supabase/functions/_shared/dns/nameservers.ts";
import { memoryServerProofStore } from "../../supabase/functions/_shared/availability/server_proof.ts";
import type { ServerOverride } from "../../supabase/functions/_shared/rdap/bootstrap.ts";
import { type FakeRdap, minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { type FakeDns, startFakeDns } from "../fakes/dns_server.ts";
import {
  createWhoisDirectory,
  type WhoisServerRecord,
} from "../../supabase/functions/_shared/whois/server_table.ts";
import type { WhoisCheckDeps } from "../../supabase/functions/_shared/availability/whois_check.ts";

interface Harness {
  deps: CheckDeps;
  registry: FakeRdap;
  dns: FakeDns;
  domainRequests(): { path: string; at: number }[];
  close(): Promise<void>;
}

async function harness(
  options: {
    ratePerSecond?: number;
    timeoutMs?: number;
    overrides?: (registry: FakeRdap) => ServerOverride[];
    /** WEBHOOK_ALLOW_PRIVATE_TARGETS for judged URLs; the fakes listen on loopback. */
    allowPrivateTargets?: boolean;
    /** Leave `nic.test` unregistered: a registry that answers 404 for every name. */
    noCanary?: boolean;
    /** Ask DNS over DoH instead of UDP. */
    doh?: boolean;
  } = {},
): Promise<Harness> {
  const registry = await startFakeRdap({ tlds: ["test"] });
  const dns = await startFakeDns();
  if (!options.noCanary) registry.setDomain("nic.test", { status: 200 });
  const overrides = options.overrides?.(registry) ?? [];
  const limiter = createHostLimiter({ ratePerSecond: options.ratePerSecond ?? 1, concurrency: 2 });
  const servers = createBootstrapStore({
    storage: memoryBootstrapStorage(overrides),
    bootstrapUrl: () => `${registry.url}dns.json`,
  });
  const deps: CheckDeps = {
    servers,
    rdap: createRdapClient({
      limiter,
      timeoutMs: options.timeoutMs ?? 2_000,
      outbound: {
        allowPrivateTargets: options.allowPrivateTargets ?? true,
        resolve: () => Promise.reject(new Error("the fakes are reached by IP address")),
        isListedServer: (url) => servers.isListedServer(url),
      },
    }),
    dns: (name) =>
      lookupNameservers(
        name,
        options.doh ? { dohUrl: dns.dohUrl, timeoutMs: 500 } : { nameserver: dns.address, timeoutMs: 500 },
      ),
    proof: memoryServerProofStore(),
  };
  return {
    deps,
    registry,
    dns,
    domainRequests: () =>
      registry.requests.filter((request) =>
        request.path.includes("/domain/") && !request.path.endsWith("/nic.test")
      ),
    close: async () => {
      await registry.close();
      await dns.close();
    },
  };
}

function withHarness(
  name: string,
  fn: (h: Harness) => Promise<void>,
  options?: Parameters<typeof harness>[0],
) {
  Deno.test(name, async () => {
    const h = await harness(options);
    try {
      await fn(h);
    } finally {
      await h.close();
    }
  });
}

withHarness("RDAP 200: registered, with the registry's data and the delegation", async (h) => {
  h.registry.setDomain("taken.test", {
    status: 200,
    body: {
      ...minimalDomain("taken.test"),
      entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Registrar One"]]] }],
    },
  });
  h.dns.setDelegated("taken.test", ["ns1.host.test", "ns2.host.test"]);
  const result = await checkDomain(h.deps, "taken.test");
  assertEquals(result.status, "registered");
  assertEquals(result.available, false);
  assertEquals(result.reason, "rdap_found");
  assertEquals(result.unicode_name, null);
  assertEquals(result.rdap, {
    server: h.registry.url,
    http_status: 200,
    status: ["active"],
    registrar: "Registrar One",
    registration_date: "2001-02-03T04:05:06.000Z",
    expiration_date: "2031-02-03T04:05:06.000Z",
    last_changed_date: null,
  });
  assertEquals(result.dns, {
    delegated: true,
    nameservers: ["ns1.host.test", "ns2.host.test"],
    rcode: "NOERROR",
  });
  assert(Math.abs(Date.parse(result.checked_at) - Date.now()) < 5_000);
  assertEquals(h.domainRequests()[0].path, "/domain/taken.test");
  assertEquals(
    h.registry.requests.find((r) => r.path === "/domain/taken.test")?.accept,
    "application/rdap+json, application/json;q=0.9",
  );
});

withHarness("RDAP 404 and no delegation: available", async (h) => {
  const result = await checkDomain(h.deps, "free.test");
  assertEquals([result.available, result.status, result.reason], [true, "available", "rdap_not_found"]);
  assertEquals(result.rdap?.http_status, 404);
  assertEquals(result.rdap?.status, []);
  assertEquals(result.dns, { delegated: false, nameservers: [], rcode: "NXDOMAIN" });
});

withHarness("RDAP 404 with an RFC 9083 error body: available too", async (h) => {
  h.registry.setDomain("free.test", { status: 404, body: { errorCode: 404, title: "Not Found" } });
  assertEquals((await checkDomain(h.deps, "free.test")).status, "available");
});

withHarness("RDAP 404 but delegated: registered, rdap_404_but_delegated", async (h) => {
  h.dns.setDelegated("ghost.test", ["ns1.host.test"]);
  const result = await checkDomain(h.deps, "ghost.test");
  assertEquals([result.available, result.status, result.reason], [
    false,
    "registered",
    "rdap_404_but_delegated",
  ]);
});

withHarness("RDAP 404 and DNS does not answer: unknown, never available", async (h) => {
  h.dns.setTimeout("quiet.test");
  const result = await checkDomain(h.deps, "quiet.test");
  assertEquals([result.available, result.status, result.reason], [
    null,
    "unknown",
    "rdap_not_found_dns_error",
  ]);
  assertEquals(result.dns, { delegated: null, nameservers: [], rcode: null });
});

withHarness("RDAP pending delete: pending_delete", async (h) => {
  h.registry.setDomain("dropping.test", {
    status: 200,
    body: { ...minimalDomain("dropping.test"), status: ["pending delete", "redemption period"] },
  });
  const result = await checkDomain(h.deps, "dropping.test");
  assertEquals([result.available, result.status, result.reason], [
    false,
    "pending_delete",
    "rdap_pending_delete",
  ]);
});

withHarness("429 with Retry-After 1, then 200: waited out, retried once, registered", async (h) => {
  h.registry.setDomain("busy.test", [{ status: 429, retryAfter: 1 }, { status: 200 }]);
  const result = await checkDomain(h.deps, "busy.test");
  assertEquals([result.status, result.reason], ["registered", "rdap_found"]);
  const requests = h.domainRequests();
  assertEquals(requests.length, 2);
  assert(requests[1].at - requests[0].at >= 950, `retried after ${requests[1].at - requests[0].at} ms`);
});

withHarness(
  "429 with a long Retry-After: unknown rdap_rate_limited, and the host stays paused",
  async (h) => {
    h.registry.setDomain("busy.test", { status: 429, retryAfter: 120 });
    const result = await checkDomain(h.deps, "busy.test");
    assertEquals([result.available, result.status, result.reason], [null, "unknown", "rdap_rate_limited"]);
    assertEquals(result.rdap?.http_status, 429);
    const next = await checkDomain(h.deps, "other.test");
    assertEquals([next.status, next.reason, next.rdap?.http_status], ["unknown", "rdap_rate_limited", null]);
    assertEquals(h.domainRequests().length, 1, "the paused host was not asked again");
  },
);

withHarness("a registry that does not answer in time: unknown rdap_timeout", async (h) => {
  h.registry.setDomain("slow.test", { status: "timeout" });
  const started = Date.now();
  const result = await checkDomain(h.deps, "slow.test");
  assertEquals([result.available, result.status, result.reason], [null, "unknown", "rdap_timeout"]);
  assertEquals(result.rdap?.http_status, null);
  assert(Date.now() - started < 2_000);
}, { timeoutMs: 300 });

withHarness("an HTML page with 200: unknown rdap_invalid_response", async (h) => {
  h.registry.setDomain("maintenance.test", { status: "html" });
  const result = await checkDomain(h.deps, "maintenance.test");
  assertEquals([result.available, result.status, result.reason], [null, "unknown", "rdap_invalid_response"]);
});

withHarness("500: unknown rdap_server_error", async (h) => {
  h.registry.setDomain("broken.test", { status: 500 });
  const result = await checkDomain(h.deps, "broken.test");
  assertEquals([result.status, result.reason, result.rdap?.http_status], [
    "unknown",
    "rdap_server_error",
    500,
  ]);
});

withHarness("no RDAP server for the TLD: DNS only, never available", async (h) => {
  h.dns.setDelegated("example.nordap", ["ns1.host.test"]);
  const delegated = await checkDomain(h.deps, "example.nordap");
  assertEquals([delegated.available, delegated.status, delegated.reason], [
    false,
    "registered",
    "no_rdap_server_for_tld",
  ]);
  assertEquals(delegated.rdap, null);
  const undelegated = await checkDomain(h.deps, "free.nordap");
  assertEquals([undelegated.available, undelegated.status, undelegated.reason], [
    null,
    "unknown",
    "no_rdap_server_for_tld",
  ]);
  assertEquals(h.domainRequests().length, 0);
});

withHarness("an override with no URL turns RDAP off for its suffix", async (h) => {
  const result = await checkDomain(h.deps, "free.off.test");
  assertEquals([result.status, result.reason], ["unknown", "no_rdap_server_for_tld"]);
}, { overrides: () => [{ suffix: "off.test", baseUrl: null }] });

withHarness("redirects are followed", async (h) => {
  h.registry.setDomain("moved.test", { status: 200 });
  const result = await checkDomain(h.deps, "moved.test");
  assertEquals([result.status, result.rdap?.server], ["registered", `${h.registry.url}moved/`]);
  assertEquals(h.domainRequests().map((request) => request.path), [
    "/moved/domain/moved.test",
    "/domain/moved.test",
  ]);
}, { overrides: (registry) => [{ suffix: "moved.test", baseUrl: `${registry.url}moved/` }] });

withHarness("per-host rate limit: request starts at least ~1 s apart at 1 request/s", async (h) => {
  const names = ["one.test", "two.test", "three.test"];
  for (const name of names) h.registry.setDomain(name, { status: 200 });
  const results = await Promise.all(names.map((name) => checkDomain(h.deps, name)));
  assertEquals(results.map((result) => result.status), ["registered", "registered", "registered"]);
  const times = h.domainRequests().map((request) => request.at).sort((a, b) => a - b);
  assertEquals(times.length, 3);
  for (let i = 1; i < times.length; i++) {
    assert(times[i] - times[i - 1] >= 950, `gap ${times[i] - times[i - 1]} ms`);
  }
});

withHarness("unicode_name is returned when it differs from the ASCII name", async (h) => {
  const result = await checkDomain(h.deps, "xn--bcher-kva.test", "bücher.test");
  assertEquals([result.domain_name, result.unicode_name, result.status], [
    "xn--bcher-kva.test",
    "bücher.test",
    "available",
  ]);
  assertEquals((await checkDomain(h.deps, "plain.test", "plain.test")).unicode_name, null);
});

Deno.test("a thin registry answer is completed from the registrar's RDAP; the registry's expiry wins", async () => {
  const h = await harness();
  const registrar = await startFakeRdap();
  try {
    const registryBody = (name: string, withExpiry: boolean) => ({
      objectClassName: "domain",
      ldhName: name.toUpperCase(),
      status: ["client transfer prohibited"],
      events: withExpiry ? [{ eventAction: "expiration", eventDate: "2030-01-01T00:00:00Z" }] : [],
      links: [
        { rel: "self", type: "application/rdap+json", href: `${h.registry.url}domain/${name}` },
        { rel: "related", type: "application/rdap+json", href: `${registrar.url}domain/${name}` },
      ],
    });
    const registrarBody = (name: string) => ({
      objectClassName: "domain",
      ldhName: name,
      events: [{ eventAction: "expiration", eventDate: "2029-12-31T07:00:00.000+0000" }],
      entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["org", {}, "text", "Registrar Two"]]] }],
    });
    h.registry.setDomain("thin.test", { status: 200, body: registryBody("thin.test", false) });
    registrar.setDomain("thin.test", { status: 200, body: registrarBody("thin.test") });
    const thin = await checkDomain(h.deps, "thin.test");
    assertEquals([thin.status, thin.rdap?.registrar, thin.rdap?.expiration_date], [
      "registered",
      "Registrar Two",
      "2029-12-31T07:00:00.000Z",
    ]);

    h.registry.setDomain("dated.test", { status: 200, body: registryBody("dated.test", true) });
    registrar.setDomain("dated.test", { status: 200, body: registrarBody("dated.test") });
    const dated = await checkDomain(h.deps, "dated.test");
    assertEquals([dated.rdap?.registrar, dated.rdap?.expiration_date], [
      "Registrar Two",
      "2030-01-01T00:00:00.000Z",
    ]);

    h.registry.setDomain("down.test", { status: 200, body: registryBody("down.test", false) });
    registrar.setDomain("down.test", { status: 500 });
    const down = await checkDomain(h.deps, "down.test");
    assertEquals([down.status, down.reason, down.rdap?.registrar], ["registered", "rdap_found", null]);
  } finally {
    await registrar.close();
    await h.close();
  }
});

Deno.test("a registry redirecting to an unlisted host causes no request there: the check answers unknown", async () => {
  const h = await harness();
  const elsewhere = await startFakeRdap();
  try {
    h.registry.setDomain("bounced.test", { status: 302, location: `${elsewhere.url}domain/bounced.test` });
    elsewhere.setDomain("bounced.test", { status: 404 });
    const result = await checkDomain(h.deps, "bounced.test");
    assertEquals([result.status, result.available, result.reason], [
      "unknown",
      null,
      "rdap_target_not_allowed",
    ]);
    assertEquals(elsewhere.requests.length, 0);
  } finally {
    await elsewhere.close();
    await h.close();
  }
});

Deno.test("a registrar linked at a private address is never asked: the answer comes without registrar data", async () => {
  const h = await harness({ allowPrivateTargets: false });
  const registrar = await startFakeRdap();
  try {
    h.registry.setDomain("linked.test", {
      status: 200,
      body: {
        objectClassName: "domain",
        ldhName: "LINKED.TEST",
        status: ["active"],
        links: [{
          rel: "related",
          type: "application/rdap+json",
          href: `${registrar.url}domain/linked.test`,
        }],
      },
    });
    registrar.setDomain("linked.test", { status: 200 });
    const result = await checkDomain(h.deps, "linked.test");
    assertEquals([result.status, result.rdap?.registrar, result.rdap?.expiration_date], [
      "registered",
      null,
      null,
    ]);
    assertEquals(registrar.requests.length, 0);
  } finally {
    await registrar.close();
    await h.close();
  }
});

// ---------------------------------------------------------------------------------------------------
// Evidence rules: proven servers, exact DNS
// ---------------------------------------------------------------------------------------------------

function canaryRequests(h: Harness): number {
  return h.registry.requests.filter((request) => request.path === "/domain/nic.test").length;
}

withHarness("a registry that answers 404 for every name, its canary too: never available", async (h) => {
  for (const name of ["free.test", "other-free.test", "third.test"]) {
    const result = await checkDomain(h.deps, name);
    assertEquals([result.available, result.status, result.reason], [
      null,
      "unknown",
      "rdap_server_unverified",
    ]);
    assertEquals(result.rdap?.http_status, 404);
    assertEquals(result.dns.rcode, "NXDOMAIN");
  }
  assertEquals(canaryRequests(h), 1, "a failed canary is not asked again before its retry time");
}, { noCanary: true, ratePerSecond: 0 });

withHarness("a healthy registry: its canary is asked once per renewal, not once per check", async (h) => {
  const names = Array.from({ length: 6 }, (_, i) => `free-${i}.test`);
  const results = await Promise.all(names.map((name) => checkDomain(h.deps, name)));
  assertEquals(results.map((result) => result.status), names.map(() => "available"));
  for (const name of ["again-1.test", "again-2.test"]) {
    assertEquals((await checkDomain(h.deps, name)).status, "available");
  }
  assertEquals(canaryRequests(h), 1);
}, { ratePerSecond: 0 });

withHarness("a canary that answers something other than a domain object proves nothing", async (h) => {
  h.registry.setDomain("nic.test", { status: "html" });
  const result = await checkDomain(h.deps, "free.test");
  assertEquals([result.status, result.reason], ["unknown", "rdap_server_unverified"]);
}, { ratePerSecond: 0 });

for (const doh of [false, true]) {
  const transport = doh ? "DoH" : "UDP";
  withHarness(
    `${transport}: SERVFAIL, REFUSED or a timeout with an RDAP 404 is unknown, never available`,
    async (h) => {
      h.dns.setServerFailure("servfail.test");
      h.dns.setRefused("refused.test");
      h.dns.setTimeout("quiet.test");
      for (
        const [name, rcode] of [["servfail.test", "SERVFAIL"], ["refused.test", "REFUSED"], [
          "quiet.test",
          null,
        ]]
      ) {
        const result = await checkDomain(h.deps, name!);
        assertEquals([result.available, result.status, result.reason], [
          null,
          "unknown",
          "rdap_not_found_dns_error",
        ]);
        assertEquals(result.dns, { delegated: null, nameservers: [], rcode }, name!);
      }
    },
    { doh, ratePerSecond: 0 },
  );

  withHarness(`${transport}: NXDOMAIN or NOERROR without NS with an RDAP 404 is available`, async (h) => {
    h.dns.setNoData("nodata.test");
    for (const [name, rcode] of [["nxdomain.test", "NXDOMAIN"], ["nodata.test", "NOERROR"]]) {
      const result = await checkDomain(h.deps, name);
      assertEquals([result.available, result.status, result.reason], [true, "available", "rdap_not_found"]);
      assertEquals(result.dns, { delegated: false, nameservers: [], rcode }, name);
    }
  }, { doh, ratePerSecond: 0 });
}

withHarness("the canary goes through the same per-host politeness as every request", async (h) => {
  const result = await checkDomain(h.deps, "free.test");
  assertEquals(result.status, "available");
  const [lookup, canary] = h.registry.requests.filter((request) => request.path.startsWith("/domain/"));
  assertEquals([lookup.path, canary.path], ["/domain/free.test", "/domain/nic.test"]);
  assert(canary.at - lookup.at >= 950, `canary ${canary.at - lookup.at} ms after the lookup at 1 request/s`);
});

// Zones with their own WHOIS servers (docs/whois.md): a name under such a zone is never read under the TLD's
// server (here the RDAP fake, which would answer 404 for it); a zone listed without a usable server answers
// unsupported_zone, and DNS still decides a delegated name.
withHarness(
  "a name under a zone with its own server is never asked at the TLD's server: unsupported_zone",
  async (h) => {
    const zones: WhoisServerRecord[] = [{
      suffix: "edu.test",
      host: null,
      port: 43,
      queryFormat: "%s",
      canaryName: null,
      notFoundPattern: null,
      foundPattern: null,
      limitPattern: null,
      statusPattern: null,
      pendingDeleteStatuses: [],
      registrarPattern: null,
      expirationPattern: null,
      encoding: "utf-8",
      unsupportedReason: "edu.test has its own WHOIS server (whois.edu.test)",
      source: "test",
    }];
    const deps: CheckDeps = {
      ...h.deps,
      whois: {
        directory: createWhoisDirectory(() => Promise.resolve(zones)),
        // Never used: no route is asked for these names.
        check: {} as WhoisCheckDeps,
      },
    };
    const free = await checkDomain(deps, "example.edu.test");
    assertEquals([free.available, free.status, free.reason], [null, "unknown", "unsupported_zone"]);
    assertEquals([free.rdap, free.whois], [null, null]);
    h.dns.setDelegated("taken.edu.test", ["ns1.host.test"]);
    const taken = await checkDomain(deps, "taken.edu.test");
    assertEquals([taken.available, taken.status, taken.reason], [false, "registered", "unsupported_zone"]);
    assertEquals(
      h.domainRequests().filter((r) => r.path.includes("edu.test/") || r.path.endsWith("edu.test")),
      [],
    );
    // The zone's own name is a name under the TLD, asked at the TLD's server.
    h.registry.setDomain("edu.test", { status: 200 });
    assertEquals((await checkDomain(deps, "edu.test")).reason, "rdap_found");
  },
);
