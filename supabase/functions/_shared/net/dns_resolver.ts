/** A and AAAA look-ups with `Deno.resolveDns` for the URL policy, through `DNS_NAMESERVER` when set. */
import { parseNameserverAddress } from "../dns/nameservers.ts";
import type { ResolveAddresses } from "./url_policy.ts";

const RESOLVE_TIMEOUT_MS = 5_000;

/** A and AAAA look-ups through `nameserver` (`host:port`) when given, else the system's resolver. */
export function denoResolver(nameserver: string | undefined): ResolveAddresses {
  const nameServer = nameserver === undefined ? undefined : parseNameserverAddress(nameserver) ?? undefined;
  return async (host, type) => {
    if (nameserver !== undefined && nameServer === undefined) {
      throw new Error("DNS_NAMESERVER is not host:port");
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), RESOLVE_TIMEOUT_MS);
    try {
      return await Deno.resolveDns(host, type, { nameServer, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  };
}
