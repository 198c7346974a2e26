/**
 * Asks one WHOIS server (RFC 3912) about one name: one TCP connection per query, the query line, then
 * everything the server sends until it closes. Politeness through the host limiter (class `whois_host`),
 * keyed by the row's `host:port` even when `WHOIS_SERVER` sends the query elsewhere. Never throws for
 * upstream trouble, and never follows a referral: it only ever connects to the row's server (or to
 * `WHOIS_SERVER`, the operator's explicit target). The row's host name is resolved once and judged by the
 * outbound URL policy (`checkOutboundUrl`, as every judged fetch is): the connection goes to one of the
 * judged addresses, never to the name, so a lapsed or taken-over WHOIS host name that points inside the
 * network gets no connection (`whois_network_error`; the log names the row's host, never an address).
 *
 *   connect timeout, read timeout (the whole answer), at most 64 KiB (more is not an answer it trusts),
 *   a connection closed or reset after part of an answer is `truncated`.
 */
import type { AcquireOptions, HostLimiter } from "../rdap/host_limiter.ts";
import { denoResolver } from "../net/dns_resolver.ts";
import { checkOutboundUrl, type OutboundPolicy } from "../net/url_policy.ts";
import { whoisQueryLine, type WhoisRoute } from "./server_table.ts";

export const MAX_ANSWER_BYTES = 64 * 1024;

export type WhoisFailure =
  | "whois_timeout"
  | "whois_network_error"
  | "whois_too_large"
  | "whois_truncated";

/**
 * Why this service's politeness did not let a query out: the host is busy beyond the caller's wait, paused
 * after a limit text, or backing off after failures. Nothing was asked: not a check.
 */
export type WhoisRefusal = "whois_host_busy" | "whois_rate_limited" | "whois_host_backoff";

export type WhoisLookup =
  | { outcome: "answered"; bytes: Uint8Array }
  | { outcome: "failed"; reason: WhoisFailure; retryAt: string | null }
  | { outcome: "refused"; reason: WhoisRefusal; retryAt: string | null };

export interface WhoisConnection {
  write(data: Uint8Array): Promise<number>;
  read(buffer: Uint8Array): Promise<number | null>;
  close(): void;
}

export type WhoisConnect = (target: { hostname: string; port: number }) => Promise<WhoisConnection>;

export interface WhoisClientOptions {
  limiter: HostLimiter;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** `WHOIS_SERVER` (`host:port`): every query goes there instead of the row's server. */
  serverOverride?: () => string | undefined;
  connect?: WhoisConnect;
  /**
   * How the row's host is resolved and judged (the outbound URL policy). Default: the system resolver and
   * no private targets.
   */
  outbound?: OutboundPolicy;
}

export interface WhoisClient {
  query(route: WhoisRoute, domainName: string, options?: AcquireOptions): Promise<WhoisLookup>;
}

/** `host:port` (IPv6 in brackets) as a connect target, or null. */
export function parseHostPort(value: string): { hostname: string; port: number } | null {
  const match = value.trim().match(/^(?:\[([0-9a-f:.]+)\]|([^:\s\[\]]+)):(\d{1,5})$/i);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  return { hostname: match[1] ?? match[2], port };
}

const denoConnect: WhoisConnect = (target) => Deno.connect({ ...target, transport: "tcp" });

export function createWhoisClient(options: WhoisClientOptions): WhoisClient {
  const connect = options.connect ?? denoConnect;
  const { limiter } = options;

  const outbound: OutboundPolicy = options.outbound ??
    { allowPrivateTargets: false, resolve: denoResolver(undefined) };

  /** Where to connect: `WHOIS_SERVER` as given, else a judged address of the row's host; null when refused. */
  async function targetFor(route: WhoisRoute): Promise<{ hostname: string; port: number } | null> {
    const override = options.serverOverride?.();
    const parsed = override ? parseHostPort(override) : null;
    if (override && parsed === null) console.error("WHOIS_SERVER is not host:port; it is ignored");
    if (parsed) return parsed;
    const host = route.host.includes(":") ? `[${route.host}]` : route.host;
    const verdict = await checkOutboundUrl(`https://${host}:${route.port}/`, outbound);
    if (verdict.verdict !== "allowed") {
      console.error(`WHOIS server ${route.server} not connected: ${verdict.reason}`);
      return null;
    }
    return { hostname: verdict.target.addresses[0].address, port: route.port };
  }

  return {
    async query(route, domainName, acquireOptions = {}) {
      const turn = await limiter.acquire(route.server, acquireOptions);
      if (!turn.granted) {
        return {
          outcome: "refused",
          reason: turn.reason === "rdap_host_busy"
            ? "whois_host_busy"
            : turn.reason === "rdap_host_backoff"
            ? "whois_host_backoff"
            : "whois_rate_limited",
          retryAt: turn.until === null ? null : new Date(turn.until).toISOString(),
        };
      }
      let lookup: WhoisLookup;
      try {
        const target = await targetFor(route);
        lookup = target === null
          ? { outcome: "failed", reason: "whois_network_error", retryAt: null }
          : await exchange(connect, target, whoisQueryLine(route, domainName), options);
      } finally {
        turn.release();
      }
      // An answer is judged by the caller (a limit text pauses the host; an unreadable one counts only for the
      // canary). No answer at all (timeout, refused, reset or cut off) is a failure here; an answer over the
      // cap is an answer, however unreadable, so it counts against the host no more than one (issue 40).
      if (lookup.outcome === "failed" && lookup.reason !== "whois_too_large") {
        await limiter.reportFailure(route.server, acquireOptions);
      }
      return lookup;
    },
  };
}

/** One connection: connect, send the line, read until the server closes, within the timeouts and the cap. */
async function exchange(
  connect: WhoisConnect,
  target: { hostname: string; port: number },
  line: string,
  options: Pick<WhoisClientOptions, "connectTimeoutMs" | "readTimeoutMs">,
): Promise<WhoisLookup> {
  const failed = (reason: WhoisFailure): WhoisLookup => ({ outcome: "failed", reason, retryAt: null });
  let connection: WhoisConnection | undefined;
  let connectTimer: ReturnType<typeof setTimeout> | undefined;
  const connecting = connect(target);
  try {
    connection = await Promise.race([
      connecting,
      new Promise<undefined>((resolve) => {
        connectTimer = setTimeout(() => resolve(undefined), options.connectTimeoutMs);
      }),
    ]);
  } catch {
    return failed("whois_network_error");
  } finally {
    clearTimeout(connectTimer);
  }
  if (connection === undefined) {
    // The connect may still succeed later: close it then.
    connecting.then((late) => late.close(), () => {});
    return failed("whois_timeout");
  }

  const conn = connection;
  let readTimedOut = false;
  const readTimer = setTimeout(() => {
    readTimedOut = true;
    try {
      conn.close();
    } catch {
      // already closed
    }
  }, options.readTimeoutMs);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    await writeAll(conn, new TextEncoder().encode(line));
    const buffer = new Uint8Array(16 * 1024);
    for (;;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      total += read;
      if (total > MAX_ANSWER_BYTES) return failed("whois_too_large");
      chunks.push(buffer.slice(0, read));
    }
  } catch {
    if (readTimedOut) return failed("whois_timeout");
    return failed(total > 0 ? "whois_truncated" : "whois_network_error");
  } finally {
    clearTimeout(readTimer);
    if (!readTimedOut) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }
  if (readTimedOut) return failed("whois_timeout");
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { outcome: "answered", bytes };
}

async function writeAll(conn: WhoisConnection, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.byteLength) written += await conn.write(data.subarray(written));
}
