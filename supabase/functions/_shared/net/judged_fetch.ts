/**
 * Requests to a URL the outbound policy judged (`url_policy.ts`), connected to an address it judged: the
 * host name is resolved once, by the judge, and never again (docs/url-policy.md "Connect where you
 * judged"). The name stays the request's for everything else: TLS verifies the certificate for it and
 * sends it as SNI, and `Host` carries it.
 *
 * Built on undici (its HTTP/1.1 client, its fetch and its connector over `node:net`/`node:tls`), whose
 * connector takes a `lookup` function: ours answers with the judged addresses and nothing else. Deno's own
 * fetch cannot be given an address while keeping TLS on the name, and Deno 2.1's `node:http` implements
 * neither `lookup` nor `createConnection`.
 *
 * One connection pool per request, closed when the response has been read or cancelled: nothing is reused
 * across requests (each was judged on its own answer). Failures before the TCP connection is up are
 * `OutboundConnectError` (`connect_timeout` or `connect_failed`); its message never names an address. (On
 * Deno the TLS handshake completes after that, so a refused certificate fails as a network error.)
 */
import type { buildConnector as BuildConnector } from "undici";
import type { JudgedAddress, JudgedTarget } from "./url_policy.ts";

/** Loaded on the first judged request, so functions that never send one do not load undici at start. */
let undici: Promise<typeof import("undici")> | undefined;
const loadUndici = () => undici ??= import("undici");

export interface JudgedRequestInit {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** TCP and TLS must be up within this; by default only `signal` limits them. */
  connectTimeoutMs?: number;
}

/** A request sent to one of `target`'s judged addresses; redirects are handed back, never followed. */
export type JudgedFetch = (target: JudgedTarget, init: JudgedRequestInit) => Promise<Response>;

export type ConnectFailure = "connect_timeout" | "connect_failed";

export class OutboundConnectError extends Error {
  constructor(readonly kind: ConnectFailure) {
    super(kind === "connect_timeout" ? "the connection was not accepted in time" : "the connection failed");
    this.name = "OutboundConnectError";
  }
}

export interface JudgedFetchOptions {
  /** PEM certificates trusted in addition to the default roots (tests' own certificate authority). */
  caCerts?: string[];
}

type LookupCallback = (
  error: Error | null,
  address?: string | JudgedAddress[],
  family?: number,
) => void;

/**
 * The `lookup` handed to `node:net`: the judged addresses of the judged host, in the judge's order,
 * filtered by the family asked for. Any other name is an error: nothing is ever resolved here.
 */
export function judgedLookup(target: JudgedTarget) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: LookupCallback,
  ) => {
    const family = options?.family === "IPv4"
      ? 4
      : options?.family === "IPv6"
      ? 6
      : Number(options?.family ?? 0);
    const addresses = target.addresses.filter((entry) => family === 0 || entry.family === family);
    if (hostname.toLowerCase() !== target.host || addresses.length === 0) {
      const error = Object.assign(new Error("no judged address for this host"), { code: "ENOTFOUND" });
      return queueMicrotask(() => callback(error));
    }
    queueMicrotask(() =>
      options?.all
        ? callback(null, addresses.map((entry) => ({ ...entry })))
        : callback(null, addresses[0].address, addresses[0].family)
    );
  };
}

export function createJudgedFetch(options: JudgedFetchOptions = {}): JudgedFetch {
  return async (target, init) => {
    const { Agent, buildConnector, fetch: undiciFetch } = await loadUndici();
    let connected = false;
    const connector = buildConnector({
      lookup: judgedLookup(target),
      // 0: no connect timer of undici's own (the signal still limits the whole exchange).
      timeout: init.connectTimeoutMs ?? 0,
      ...(options.caCerts ? { ca: options.caCerts } : {}),
    } as BuildConnector.BuildOptions);
    const agent = new Agent({
      // The signal limits the exchange; undici's own header and body timers would only outlive it.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: (connectOptions, callback) =>
        connector(connectOptions, (error, socket) => {
          if (error === null) connected = true;
          // The socket's type is the connector's own; the callback takes it unchanged.
          (callback as (error: Error | null, socket: unknown) => void)(error, socket);
        }),
    });
    try {
      const response = await undiciFetch(target.url, {
        method: init.method,
        // Uncompressed answers: Deno 2.1's node:zlib fails on some brotli streams undici would decode.
        headers: { "accept-encoding": "identity", ...init.headers },
        body: init.body,
        redirect: "manual",
        signal: init.signal,
        dispatcher: agent,
      });
      return response as unknown as Response;
    } catch (error) {
      if (init.signal.aborted) throw init.signal.reason;
      if (!connected) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        throw new OutboundConnectError(
          code === "UND_ERR_CONNECT_TIMEOUT" ? "connect_timeout" : "connect_failed",
        );
      }
      throw new TypeError("the request failed");
    } finally {
      // Closes once the response has been read or cancelled (undici waits for running requests).
      agent.close().catch(() => {});
    }
  };
}

/** The production instance: the default certificate roots. */
export const judgedFetch: JudgedFetch = createJudgedFetch();
