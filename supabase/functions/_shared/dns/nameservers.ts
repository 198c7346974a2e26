/**
 * Is a name delegated in DNS? An NS look-up, through `DNS_NAMESERVER` when set, else the system resolver.
 *
 * Deno reports NXDOMAIN and "no records" as `Deno.errors.NotFound`, but it reports SERVFAIL the same way,
 * and a system resolver that cannot reach anything answers NotFound for every name. So with the system
 * resolver a NotFound counts as "not delegated" only when the same resolver can find the NS records of
 * the name's top-level domain; otherwise it is an error (never evidence of availability). A resolver the
 * operator named in `DNS_NAMESERVER` is trusted as it answers.
 */

export type DnsOutcome =
  | { outcome: "delegated"; nameservers: string[] }
  | { outcome: "not_delegated" }
  | { outcome: "error"; error: "timeout" | "failure" };

export type ResolveNs = (name: string, options: Deno.ResolveDnsOptions) => Promise<string[]>;

export interface NameserverLookupOptions {
  /** `host:port` (or `[v6]:port`, or a bare host for port 53); the system resolver when absent. */
  nameserver?: string;
  timeoutMs?: number;
  resolve?: ResolveNs;
}

export interface NameserverAddress {
  ipAddr: string;
  port: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;

export async function lookupNameservers(
  domainName: string,
  options: NameserverLookupOptions = {},
): Promise<DnsOutcome> {
  const resolve = options.resolve ?? ((name, resolveOptions) => Deno.resolveDns(name, "NS", resolveOptions));
  let nameServer: NameserverAddress | undefined;
  if (options.nameserver !== undefined) {
    const parsed = parseNameserverAddress(options.nameserver);
    if (parsed === null) {
      console.error("DNS_NAMESERVER is not host:port; NS look-ups fail until it is fixed");
      return { outcome: "error", error: "failure" };
    }
    nameServer = parsed;
  }

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const notDelegated = (): Promise<DnsOutcome> =>
    nameServer
      ? Promise.resolve({ outcome: "not_delegated" })
      : systemResolverKnows(topLevelDomain(domainName), resolve, { signal: controller.signal });
  try {
    const records = await resolve(domainName, { nameServer, signal: controller.signal });
    const nameservers = normaliseNameservers(records);
    if (nameservers.length > 0) return { outcome: "delegated", nameservers };
    return await notDelegated();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return await notDelegated();
    if (controller.signal.aborted || error instanceof Deno.errors.TimedOut) {
      return { outcome: "error", error: "timeout" };
    }
    return { outcome: "error", error: "failure" };
  } finally {
    clearTimeout(timer);
  }
}

function topLevelDomain(domainName: string): string {
  return domainName.replace(/\.+$/, "").split(".").pop() ?? domainName;
}

/** "Not delegated" when the system resolver can find the TLD's own NS records; an error when it cannot. */
async function systemResolverKnows(
  tld: string,
  resolve: ResolveNs,
  options: Deno.ResolveDnsOptions,
): Promise<DnsOutcome> {
  try {
    const records = await resolve(tld, options);
    if (normaliseNameservers(records).length > 0) return { outcome: "not_delegated" };
  } catch (error) {
    if (options.signal?.aborted || error instanceof Deno.errors.TimedOut) {
      return { outcome: "error", error: "timeout" };
    }
  }
  return { outcome: "error", error: "failure" };
}

/** `127.0.0.1:5353`, `[::1]:53`, `10.0.0.2` (port 53), or null when unreadable. */
export function parseNameserverAddress(value: string): NameserverAddress | null {
  const text = value.trim();
  const bracketed = text.match(/^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/);
  if (bracketed) return withPort(bracketed[1], bracketed[2]);
  const hostAndPort = text.match(/^([^:\s]+)(?::(\d+))?$/);
  if (hostAndPort) return withPort(hostAndPort[1], hostAndPort[2]);
  if (/^[0-9a-fA-F:]+$/.test(text) && text.includes("::")) return withPort(text, undefined);
  return null;
}

function withPort(ipAddr: string, portText: string | undefined): NameserverAddress | null {
  const port = portText === undefined ? 53 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { ipAddr, port };
}

function normaliseNameservers(records: string[]): string[] {
  const names = records
    .map((record) => record.trim().toLowerCase().replace(/\.+$/, ""))
    .filter((record) => record !== "");
  return [...new Set(names)].sort();
}
