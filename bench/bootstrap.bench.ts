/**
 * RDAP server discovery: the parsed bootstrap (a Map looked up by suffix) against a linear scan of the
 * raw `services` array, for a bootstrap the size of IANA's (about 1,200 TLDs in 600 services).
 */
import { findRdapServers, parseBootstrap } from "../supabase/functions/_shared/rdap/bootstrap.ts";

const services: [string[], string[]][] = Array.from({ length: 600 }, (_, i) => [
  [`tld${i}a`, `tld${i}b`],
  [`https://rdap.registry${i}.example/`],
]);
services.push([["com", "net"], ["https://rdap.verisign.com/com/v1/"]]);
const document = { publication: "2026-01-30T00:00:01Z", version: "1.0", services };
const registry = parseBootstrap(document);
const names = ["example.com", "shop.tld599b", "a.b.tld300a", "nothing.invalid"];

function linearScan(name: string): string[] {
  const labels = name.split(".");
  for (let start = 0; start < labels.length; start++) {
    const suffix = labels.slice(start).join(".");
    for (const [suffixes, urls] of services) if (suffixes.includes(suffix)) return urls;
  }
  return [];
}

Deno.bench("linear scan of dns.json services", { group: "rdap-discovery", baseline: true }, () => {
  for (const name of names) linearScan(name);
});

Deno.bench("findRdapServers (parsed bootstrap)", { group: "rdap-discovery" }, () => {
  for (const name of names) findRdapServers(registry, name);
});
