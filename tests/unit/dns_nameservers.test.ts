/**
 * Exact DNS: the RCODE decides, over UDP (TCP when truncated) and over DoH, against the local fake that
 * speaks all three transports.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  type DnsOutcome,
  judgeNsAnswer,
  lookupNameservers,
  parseNameserverAddress,
  resolverFor,
} from "../../supabase/functions/_shared/dns/nameservers.ts";
import { encodeNsQuery, readNsAnswer } from "../../supabase/functions/_shared/dns/wire.ts";
import { type FakeDns, startFakeDns } from "../fakes/dns_server.ts";

Deno.test("judgeNsAnswer: only NXDOMAIN or NOERROR without NS is 'not delegated'", () => {
  const answer = (rcode: string, nameservers: string[] = [], truncated = false) =>
    judgeNsAnswer({ kind: "answer", rcode, truncated, nameservers });
  assertEquals(answer("NOERROR", ["ns1.x.test"]), {
    outcome: "delegated",
    nameservers: ["ns1.x.test"],
    rcode: "NOERROR",
  });
  assertEquals(answer("NOERROR"), { outcome: "not_delegated", rcode: "NOERROR" });
  assertEquals(answer("NXDOMAIN"), { outcome: "not_delegated", rcode: "NXDOMAIN" });
  assertEquals(answer("SERVFAIL"), { outcome: "error", error: "servfail", rcode: "SERVFAIL" });
  assertEquals(answer("REFUSED"), { outcome: "error", error: "refused", rcode: "REFUSED" });
  assertEquals(answer("NOTIMP"), { outcome: "error", error: "failure", rcode: "NOTIMP" });
  assertEquals(answer("NOERROR", [], true), { outcome: "error", error: "truncated", rcode: "NOERROR" });
  assertEquals(judgeNsAnswer({ kind: "unreadable" }), { outcome: "error", error: "unreadable", rcode: null });
});

Deno.test("readNsAnswer refuses answers to another id or another question, and garbage", () => {
  const query = encodeNsQuery("example.com", 4242);
  // A query is not a response.
  assertEquals(readNsAnswer(query, { id: 4242, name: "example.com" }), { kind: "unreadable" });
  assertEquals(readNsAnswer(new Uint8Array([1, 2, 3]), { id: 1, name: "example.com" }), {
    kind: "unreadable",
  });
});

Deno.test("resolverFor: DNS_NAMESERVER wins; else DoH; a bad address is unusable", () => {
  assertEquals(
    resolverFor({ nameserver: "127.0.0.1:5353", dohUrl: "https://doh.test/dns-query" }).transport,
    "udp",
  );
  assertEquals(resolverFor({ dohUrl: "https://doh.test/dns-query" }).transport, "doh");
  assertEquals(resolverFor({ nameserver: "not an address" }).transport, "invalid");
});

Deno.test("a resolver that is not host:port is an error, never 'not delegated'", async () => {
  assertEquals(await lookupNameservers("a.com", { nameserver: "not a host:port" }), {
    outcome: "error",
    error: "failure",
    rcode: null,
  });
});

Deno.test("parseNameserverAddress reads host:port, [v6]:port and bare addresses", () => {
  assertEquals(parseNameserverAddress("127.0.0.1:5353"), { ipAddr: "127.0.0.1", port: 5353 });
  assertEquals(parseNameserverAddress("10.0.0.2"), { ipAddr: "10.0.0.2", port: 53 });
  assertEquals(parseNameserverAddress("[::1]:53"), { ipAddr: "::1", port: 53 });
  assertEquals(parseNameserverAddress("::1"), { ipAddr: "::1", port: 53 });
  assertEquals(parseNameserverAddress("127.0.0.1:0"), null);
  assertEquals(parseNameserverAddress("a b"), null);
});

async function withFake(fn: (dns: FakeDns) => Promise<void>): Promise<void> {
  const dns = await startFakeDns({ delegated: { "taken.test": ["NS2.Host.Test.", "ns1.host.test"] } });
  dns.setServerFailure("servfail.test");
  dns.setRefused("refused.test");
  dns.setNoData("nodata.test");
  dns.setTimeout("quiet.test");
  dns.setTruncated("big.test", ["ns1.big.test", "ns2.big.test"]);
  dns.setGarbage("garbage.test");
  try {
    await fn(dns);
  } finally {
    await dns.close();
  }
}

const expected: Record<string, DnsOutcome> = {
  "taken.test": { outcome: "delegated", nameservers: ["ns1.host.test", "ns2.host.test"], rcode: "NOERROR" },
  "free.test": { outcome: "not_delegated", rcode: "NXDOMAIN" },
  "nodata.test": { outcome: "not_delegated", rcode: "NOERROR" },
  "servfail.test": { outcome: "error", error: "servfail", rcode: "SERVFAIL" },
  "refused.test": { outcome: "error", error: "refused", rcode: "REFUSED" },
  "quiet.test": { outcome: "error", error: "timeout", rcode: null },
};

Deno.test("over UDP: each RCODE read exactly; a truncated answer is asked again over TCP", async () => {
  await withFake(async (dns) => {
    const options = { nameserver: dns.address, timeoutMs: 400 };
    for (const [name, outcome] of Object.entries(expected)) {
      assertEquals(await lookupNameservers(name, options), outcome, name);
    }
    assertEquals(await lookupNameservers("big.test", options), {
      outcome: "delegated",
      nameservers: ["ns1.big.test", "ns2.big.test"],
      rcode: "NOERROR",
    });
    const big = dns.queries.filter((query) => query.name === "big.test").map((query) => query.transport);
    assertEquals(big, ["udp", "tcp"]);
    const garbage = await lookupNameservers("garbage.test", options);
    assertEquals(garbage.outcome, "error", "an unreadable datagram is never evidence");
  });
});

Deno.test("over DoH (RFC 8484): each RCODE read exactly; garbage is unreadable", async () => {
  await withFake(async (dns) => {
    const options = { dohUrl: dns.dohUrl, timeoutMs: 400 };
    for (const [name, outcome] of Object.entries(expected)) {
      assertEquals(await lookupNameservers(name, options), outcome, name);
    }
    assertEquals(await lookupNameservers("garbage.test", options), {
      outcome: "error",
      error: "unreadable",
      rcode: null,
    });
    assert(dns.queries.every((query) => query.transport === "doh"));
  });
});

Deno.test("DoH: an HTTP error or a non-DNS content type is an error", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) =>
      new URL(request.url).pathname === "/html"
        ? new Response("<html></html>", { headers: { "content-type": "text/html" } })
        : new Response("nope", { status: 502 }),
  );
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    for (const path of ["/html", "/502"]) {
      assertEquals(await lookupNameservers("a.test", { dohUrl: `${base}${path}`, timeoutMs: 400 }), {
        outcome: "error",
        error: "failure",
        rcode: null,
      });
    }
  } finally {
    await server.shutdown();
  }
});
