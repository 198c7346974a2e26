/**
 * Is a name delegated in DNS? One NS query, judged by its exact response code:
 *   - NOERROR with NS records for the name: delegated;
 *   - NXDOMAIN, or NOERROR without NS records for the name (NODATA): not delegated;
 *   - SERVFAIL, REFUSED, any other code, a timeout, a truncated or unreadable answer: an error, never
 *     evidence of availability.
 * Transports: UDP (TCP when truncated) to `DNS_NAMESERVER` when it is set, else DNS over HTTPS (RFC 8484)
 * to `DNS_DOH_URL`. `NsLookup` is the one entry point every caller uses (`defaultNsLookup`), so a wrapper
 * (rate limiting, counting per resolver) can wrap all DNS traffic in one place.
 */
import { config } from "../config.ts";
import { type DnsRcode, encodeNsQuery, newQueryId, type NsAnswer, readNsAnswer } from "./wire.ts";
import {
  dohExchange,
  type Exchange,
  type NameserverAddress,
  tcpExchange,
  udpExchange,
} from "./transports.ts";

export type { DnsRcode } from "./wire.ts";
export type { NameserverAddress } from "./transports.ts";

export type DnsErrorKind = "timeout" | "servfail" | "refused" | "truncated" | "unreadable" | "failure";

export type DnsOutcome =
  | { outcome: "delegated"; nameservers: string[]; rcode: "NOERROR" }
  | { outcome: "not_delegated"; rcode: "NXDOMAIN" | "NOERROR" }
  /** `rcode` is null when no readable answer arrived. */
  | { outcome: "error"; error: DnsErrorKind; rcode: DnsRcode | null };

/** The one NS look-up function type: production code gets it from `defaultNsLookup()`. */
export type NsLookup = (domainName: string) => Promise<DnsOutcome>;

/** Where NS queries go. */
export type DnsResolver =
  | { transport: "udp"; address: NameserverAddress; label: string }
  | { transport: "doh"; url: string; label: string }
  | { transport: "invalid"; label: string };

export interface NameserverLookupOptions {
  /** `host:port` (or `[v6]:port`, or a bare address for port 53) of a resolver; wins over `dohUrl`. */
  nameserver?: string;
  /** RFC 8484 resolver URL, used when `nameserver` is absent. */
  dohUrl?: string;
  /** For the whole look-up (a TCP retry included). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

/** The resolver the options name. */
export function resolverFor(options: NameserverLookupOptions): DnsResolver {
  if (options.nameserver !== undefined) {
    const address = parseNameserverAddress(options.nameserver);
    if (address === null) return { transport: "invalid", label: `udp:${options.nameserver}` };
    return { transport: "udp", address, label: `udp:${address.ipAddr}:${address.port}` };
  }
  const url = options.dohUrl ?? config.dnsDohUrl();
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "https:" || parsed.protocol === "http:") {
      return { transport: "doh", url: parsed.href, label: `doh:${parsed.href}` };
    }
  } catch {
    // falls through
  }
  return { transport: "invalid", label: `doh:${url}` };
}

/**
 * How a resolver is named in an alert's evidence: `host:port` of a UDP resolver, the host of a DoH one
 * (never its path or query, which may carry an account token).
 */
export function resolverEvidenceName(resolver: DnsResolver): string {
  switch (resolver.transport) {
    case "udp":
      return resolver.address.ipAddr.includes(":")
        ? `[${resolver.address.ipAddr}]:${resolver.address.port}`
        : `${resolver.address.ipAddr}:${resolver.address.port}`;
    case "doh":
      return new URL(resolver.url).host;
    case "invalid":
      return "unusable resolver";
  }
}

/** The judgement of one readable (or unreadable) answer. Pure. */
export function judgeNsAnswer(answer: NsAnswer): DnsOutcome {
  if (answer.kind === "unreadable") return { outcome: "error", error: "unreadable", rcode: null };
  if (answer.truncated) return { outcome: "error", error: "truncated", rcode: answer.rcode };
  switch (answer.rcode) {
    case "NOERROR":
      return answer.nameservers.length > 0
        ? { outcome: "delegated", nameservers: answer.nameservers, rcode: "NOERROR" }
        : { outcome: "not_delegated", rcode: "NOERROR" };
    case "NXDOMAIN":
      return { outcome: "not_delegated", rcode: "NXDOMAIN" };
    case "SERVFAIL":
      return { outcome: "error", error: "servfail", rcode: answer.rcode };
    case "REFUSED":
      return { outcome: "error", error: "refused", rcode: answer.rcode };
    default:
      return { outcome: "error", error: "failure", rcode: answer.rcode };
  }
}

/** One NS look-up of `domainName` (ASCII). Never throws. */
export async function lookupNameservers(
  domainName: string,
  options: NameserverLookupOptions = {},
): Promise<DnsOutcome> {
  const resolver = resolverFor(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  const id = newQueryId();
  const query = encodeNsQuery(domainName, id);
  const read = (bytes: Uint8Array, expectedId: number | null) =>
    readNsAnswer(bytes, { id: expectedId, name: domainName });

  switch (resolver.transport) {
    case "invalid":
      console.error(`DNS resolver ${resolver.label} is unusable; NS look-ups fail until it is fixed`);
      return { outcome: "error", error: "failure", rcode: null };
    case "doh": {
      // RFC 8484 §4.1: the id should be 0 over HTTPS (caching); the answer is matched by its question.
      const dohQuery = encodeNsQuery(domainName, 0);
      const exchange = await dohExchange(resolver.url, dohQuery, timeoutMs, options.fetch);
      return fromExchange(exchange, (bytes) => read(bytes, 0));
    }
    case "udp": {
      const startedAt = Date.now();
      const udp = await udpExchange(resolver.address, query, timeoutMs, (bytes) => {
        const answer = read(bytes, id);
        return answer.kind === "answer";
      });
      if (udp.kind !== "bytes") return fromExchange(udp, (bytes) => read(bytes, id));
      const answer = read(udp.bytes, id);
      if (answer.kind !== "answer" || !answer.truncated) return judgeNsAnswer(answer);
      // Truncated over UDP: ask again over TCP (RFC 7766) within what is left of the time.
      const left = Math.max(1, timeoutMs - (Date.now() - startedAt));
      const tcp = await tcpExchange(resolver.address, query, left);
      return fromExchange(tcp, (bytes) => read(bytes, id));
    }
  }
}

function fromExchange(exchange: Exchange, read: (bytes: Uint8Array) => NsAnswer): DnsOutcome {
  if (exchange.kind === "timeout") return { outcome: "error", error: "timeout", rcode: null };
  if (exchange.kind === "failure") return { outcome: "error", error: "failure", rcode: null };
  return judgeNsAnswer(read(exchange.bytes));
}

/** The configured resolver (`DNS_NAMESERVER`, else `DNS_DOH_URL`), read at call time. */
export function configuredNsOptions(): NameserverLookupOptions {
  return { nameserver: config.dnsNameserver(), dohUrl: config.dnsDohUrl() };
}

/** The NS look-up every production caller uses, against the configured resolver. */
export function defaultNsLookup(): NsLookup {
  return (domainName) => lookupNameservers(domainName, configuredNsOptions());
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
