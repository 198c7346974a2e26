import { assert, assertEquals } from "../support/assert.ts";
import { checkOutboundUrl, type ResolveAddresses } from "../../supabase/functions/_shared/net/url_policy.ts";

function resolver(records: Record<string, { A?: string[]; AAAA?: string[] }>): ResolveAddresses {
  return (host, type) => {
    const answer = records[host]?.[type];
    if (answer === undefined) return Promise.reject(new Deno.errors.NotFound("no records"));
    return Promise.resolve(answer);
  };
}

const guard = (url: string, resolve: ResolveAddresses, allowPrivateTargets = false) =>
  checkOutboundUrl(url, { allowPrivateTargets, resolve });

Deno.test("a host name is allowed only when every address it resolves to is public", async () => {
  const resolve = resolver({
    "hooks.example.com": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] },
    "rebound.example.com": { A: ["93.184.216.34", "127.0.0.1"] },
    "metadata.example.com": { A: ["169.254.169.254"] },
    "inside6.example.com": { AAAA: ["fd00::1"] },
    "mapped.example.com": { AAAA: ["::ffff:127.0.0.1"] },
    "nothing.example.com": {},
  });
  assertEquals(await guard("https://hooks.example.com/a", resolve), {
    verdict: "allowed",
    target: {
      url: "https://hooks.example.com/a",
      host: "hooks.example.com",
      addresses: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 },
      ],
    },
  }, "the verdict carries every judged address: the request connects to one of them");
  assertEquals((await guard("https://rebound.example.com/a", resolve)).verdict, "refused");
  assertEquals((await guard("https://metadata.example.com/a", resolve)).verdict, "refused");
  assertEquals((await guard("https://inside6.example.com/a", resolve)).verdict, "refused");
  assertEquals((await guard("https://mapped.example.com/a", resolve)).verdict, "refused");
  assertEquals((await guard("https://nothing.example.com/a", resolve)).verdict, "unresolved");
});

Deno.test("DNS trouble is 'unresolved' (retried later), URL rules are 'refused'", async () => {
  const failing: ResolveAddresses = () => Promise.reject(new Error("SERVFAIL"));
  assertEquals((await guard("https://hooks.example.com/", failing)).verdict, "unresolved");
  assertEquals((await guard("http://hooks.example.com/", failing)).verdict, "refused");
  assertEquals((await guard("https://[::ffff:127.0.0.1]/", failing)).verdict, "refused");
});

Deno.test("IP literals and localhost are judged without DNS", async () => {
  let lookups = 0;
  const counting: ResolveAddresses = () => {
    lookups++;
    return Promise.resolve(["8.8.8.8"]);
  };
  assertEquals((await guard("https://8.8.8.8/", counting)).verdict, "allowed");
  assertEquals((await guard("http://127.0.0.1:9/", counting, true)).verdict, "allowed");
  assertEquals((await guard("http://localhost:9/", counting, true)).verdict, "allowed");
  assertEquals((await guard("https://127.0.0.1:9/", counting, false)).verdict, "refused");
  assertEquals(lookups, 0);
  // With the local switch a name may resolve to loopback, still not to other private ranges.
  const local = resolver({
    "dev.example.test": { A: ["127.0.0.1"] },
    "lan.example.test": { A: ["192.168.1.5"] },
  });
  assertEquals((await guard("http://dev.example.test/", local, true)).verdict, "allowed");
  assertEquals((await guard("http://lan.example.test/", local, true)).verdict, "refused");
});

Deno.test("IP literals are their own judged address; localhost (local switch) is 127.0.0.1", async () => {
  const none: ResolveAddresses = () => Promise.reject(new Error("not asked"));
  const literal = await guard("https://[2606:2800:220:1::1]:8443/x", none);
  assert(literal.verdict === "allowed");
  assertEquals(literal.target.addresses, [{ address: "2606:2800:220:1::1", family: 6 }]);
  const local = await guard("http://localhost:9/", none, true);
  assert(local.verdict === "allowed");
  assertEquals(local.target.addresses, [{ address: "127.0.0.1", family: 4 }]);
});

Deno.test("a narrowed policy (allowAddress) judges each resolved address with it", async () => {
  const resolve = resolver({
    "two.example.test": { A: ["127.0.0.2", "127.0.0.3"] },
    "one.example.test": { A: ["127.0.0.2"] },
  });
  const policy = {
    allowPrivateTargets: false,
    resolve,
    allowAddress: (address: string) => address === "127.0.0.2",
  };
  assertEquals((await checkOutboundUrl("https://one.example.test/", policy)).verdict, "allowed");
  assertEquals((await checkOutboundUrl("https://two.example.test/", policy)).verdict, "refused");
});
