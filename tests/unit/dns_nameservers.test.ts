import { assertEquals } from "../support/assert.ts";
import {
  lookupNameservers,
  parseNameserverAddress,
  type ResolveNs,
} from "../../supabase/functions/_shared/dns/nameservers.ts";
import { startFakeDns } from "../fakes/dns_server.ts";

Deno.test("NS records mean delegated; names are lower case, without trailing dot, sorted, unique", async () => {
  const resolve: ResolveNs = () =>
    Promise.resolve(["NS2.Example.NET.", "ns1.example.net.", "ns1.example.net"]);
  assertEquals(await lookupNameservers("example.com", { resolve }), {
    outcome: "delegated",
    nameservers: ["ns1.example.net", "ns2.example.net"],
  });
});

Deno.test("with the system resolver, NotFound means not delegated only when it knows the TLD; TimedOut is a timeout; anything else a failure", async () => {
  const failing = (error: Error): ResolveNs => () => Promise.reject(error);
  const tldOnly: ResolveNs = (name) =>
    name === "com"
      ? Promise.resolve(["a.gtld-servers.net."])
      : Promise.reject(new Deno.errors.NotFound("nx"));
  assertEquals(await lookupNameservers("a.com", { resolve: tldOnly }), { outcome: "not_delegated" });
  assertEquals(
    await lookupNameservers("a.com", { resolve: failing(new Deno.errors.NotFound("no records")) }),
    { outcome: "error", error: "failure" },
    "a resolver that finds nothing, not even the TLD, is not evidence",
  );
  assertEquals(
    await lookupNameservers("a.com", { resolve: failing(new Deno.errors.TimedOut("timed out")) }),
    {
      outcome: "error",
      error: "timeout",
    },
  );
  assertEquals(await lookupNameservers("a.com", { resolve: failing(new Error("connection refused")) }), {
    outcome: "error",
    error: "failure",
  });
  const hanging: ResolveNs = (_name, options) =>
    new Promise((_, reject) =>
      options.signal?.addEventListener("abort", () => reject(new DOMException("x", "AbortError")))
    );
  assertEquals(await lookupNameservers("a.com", { resolve: hanging, timeoutMs: 20 }), {
    outcome: "error",
    error: "timeout",
  });
});

Deno.test("DNS_NAMESERVER is passed as nameServer; unset means the system resolver", async () => {
  const seen: Deno.ResolveDnsOptions[] = [];
  const resolve: ResolveNs = (_name, options) => {
    seen.push(options);
    return Promise.resolve(["ns.test."]);
  };
  await lookupNameservers("a.com", { resolve, nameserver: "127.0.0.1:5353" });
  await lookupNameservers("a.com", { resolve });
  assertEquals(seen[0].nameServer, { ipAddr: "127.0.0.1", port: 5353 });
  assertEquals(seen[1].nameServer, undefined);
});

Deno.test("an unreadable DNS_NAMESERVER is an error, not 'not delegated'", async () => {
  const resolve: ResolveNs = () => Promise.resolve(["ns.test."]);
  const originalError = console.error;
  console.error = () => {};
  try {
    assertEquals(await lookupNameservers("a.com", { resolve, nameserver: "127.0.0.1:99999" }), {
      outcome: "error",
      error: "failure",
    });
  } finally {
    console.error = originalError;
  }
});

Deno.test("nameserver addresses", () => {
  assertEquals(parseNameserverAddress("127.0.0.1:5353"), { ipAddr: "127.0.0.1", port: 5353 });
  assertEquals(parseNameserverAddress("10.0.0.2"), { ipAddr: "10.0.0.2", port: 53 });
  assertEquals(parseNameserverAddress("[::1]:53"), { ipAddr: "::1", port: 53 });
  assertEquals(parseNameserverAddress("[2001:db8::1]"), { ipAddr: "2001:db8::1", port: 53 });
  assertEquals(parseNameserverAddress("2001:db8::1"), { ipAddr: "2001:db8::1", port: 53 });
  assertEquals(parseNameserverAddress("127.0.0.1:0"), null);
  assertEquals(parseNameserverAddress("a b"), null);
});

Deno.test("against a real UDP server: delegated, NXDOMAIN, and no answer", async () => {
  const dns = await startFakeDns({
    delegated: { "taken.test": ["ns1.host.test", "ns2.host.test"] },
    timeout: ["slow.test"],
  });
  try {
    const options = { nameserver: dns.address, timeoutMs: 300 };
    assertEquals(await lookupNameservers("taken.test", options), {
      outcome: "delegated",
      nameservers: ["ns1.host.test", "ns2.host.test"],
    });
    assertEquals(await lookupNameservers("free.test", options), { outcome: "not_delegated" });
    dns.setServerFailure("free.test");
    assertEquals(
      await lookupNameservers("free.test", options),
      { outcome: "not_delegated" },
      "a resolver named in DNS_NAMESERVER is trusted as it answers (Deno cannot tell SERVFAIL from NXDOMAIN)",
    );
    assertEquals(await lookupNameservers("slow.test", options), { outcome: "error", error: "timeout" });
  } finally {
    await dns.close();
  }
});
