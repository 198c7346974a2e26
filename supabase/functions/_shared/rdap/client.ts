/**
 * Asks an RDAP server about one domain, politely (through the host limiter), and says what came back:
 * found (with the parsed domain), not found, or failed with a reason. Never throws for upstream trouble.
 */
import { parseDomainResponse, type RdapDomain } from "./domain_response.ts";
import type { HostLimiter } from "./host_limiter.ts";

export type RdapFailureReason =
  | "rdap_timeout"
  | "rdap_server_error"
  | "rdap_rate_limited"
  | "rdap_invalid_response"
  | "rdap_network_error"
  | "rdap_host_backoff"
  | "rdap_host_busy"
  | "rdap_unexpected_status";

export type RdapLookup =
  | { outcome: "found"; url: string; httpStatus: number; domain: RdapDomain }
  | { outcome: "not_found"; url: string; httpStatus: 404 }
  | {
    outcome: "failed";
    url: string;
    /** Null when no HTTP answer was received (timeout, network error, or the limiter refused). */
    httpStatus: number | null;
    reason: RdapFailureReason;
    /** ISO time until which the host is paused, when known. */
    retryAt: string | null;
  };

export interface LookupOptions {
  /** How long to wait for the host's turn in the limiter; unbounded when absent. */
  maxWaitMs?: number;
}

export interface RdapClient {
  /** `GET <baseUrl>domain/<name>` on a registry server. */
  lookupDomain(baseUrl: string, domainName: string, options?: LookupOptions): Promise<RdapLookup>;
  /** `GET <url>` for a domain record at a full URL (a registrar referral). */
  lookupUrl(url: string, options?: LookupOptions): Promise<RdapLookup>;
}

export interface RdapClientOptions {
  limiter: HostLimiter;
  timeoutMs: number;
  fetch?: typeof fetch;
  now?: () => number;
}

export const ACCEPT_HEADER = "application/rdap+json, application/json;q=0.9";
const USER_AGENT = "domain-watchlist-rdap/1.0";
/** A 429 whose Retry-After is at most this long is waited out and retried once. */
export const SHORT_RETRY_AFTER_MS = 5_000;
/** A 429 without a usable Retry-After pauses the host this long. */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** A Retry-After longer than this is shortened to it (a wrong header must not silence a host for days). */
const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** Larger bodies are not an RDAP domain answer. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export function createRdapClient(options: RdapClientOptions): RdapClient {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const { limiter } = options;

  async function lookupUrl(url: string, lookupOptions: LookupOptions = {}): Promise<RdapLookup> {
    const host = new URL(url).host;
    for (let attempt = 1;; attempt++) {
      const turn = await limiter.acquire(host, { maxWaitMs: lookupOptions.maxWaitMs });
      if (!turn.granted) return failed(url, null, turn.reason, turn.until);

      let answer: HttpAnswer;
      try {
        answer = await send(fetchImpl, url, options.timeoutMs);
      } finally {
        turn.release();
      }

      if (answer.kind === "timeout" || answer.kind === "network_error") {
        await limiter.reportFailure(host);
        return failed(url, null, answer.kind === "timeout" ? "rdap_timeout" : "rdap_network_error", null);
      }
      if (answer.kind === "too_large") {
        await limiter.reportFailure(host);
        return failed(url, answer.status, "rdap_invalid_response", null);
      }

      const { status } = answer;
      if (status === 429) {
        const waitMs = parseRetryAfter(answer.headers.get("retry-after"), now()) ?? DEFAULT_RETRY_AFTER_MS;
        const pausedUntil = now() + Math.min(waitMs, MAX_RETRY_AFTER_MS);
        await limiter.pause(host, pausedUntil, "rdap_rate_limited");
        if (attempt === 1 && waitMs <= SHORT_RETRY_AFTER_MS) continue;
        return failed(url, status, "rdap_rate_limited", pausedUntil);
      }
      if (status >= 500) {
        await limiter.reportFailure(host);
        return failed(url, status, "rdap_server_error", null);
      }
      if (status === 404) {
        if (answer.body.trim() !== "" && decodeJson(answer.body) === undefined) {
          // A 404 web page is a wrong URL or a broken server, not the registry saying "no such domain".
          await limiter.reportFailure(host);
          return failed(url, status, "rdap_invalid_response", null);
        }
        await limiter.reportSuccess(host);
        return { outcome: "not_found", url, httpStatus: 404 };
      }
      if (status === 200) {
        const domain = parseDomainResponse(decodeJson(answer.body));
        if (domain === null) {
          await limiter.reportFailure(host);
          return failed(url, status, "rdap_invalid_response", null);
        }
        await limiter.reportSuccess(host);
        return { outcome: "found", url, httpStatus: status, domain };
      }
      await limiter.reportFailure(host);
      return failed(url, status, "rdap_unexpected_status", null);
    }
  }

  return {
    lookupDomain: (baseUrl, domainName, lookupOptions) =>
      lookupUrl(rdapDomainUrl(baseUrl, domainName), lookupOptions),
    lookupUrl,
  };
}

/** `<baseUrl>domain/<name>`; the base URL may lack its trailing slash. */
export function rdapDomainUrl(baseUrl: string, domainName: string): string {
  const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  return new URL(`domain/${encodeURIComponent(domainName)}`, base).href;
}

/** Milliseconds to wait from a `Retry-After` value (delay-seconds or HTTP-date), or null when unusable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP-date in any of its three forms starts with the day's name ("Sun, 06 Nov 1994 08:49:37 GMT").
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}

type HttpAnswer =
  | { kind: "response"; status: number; headers: Headers; body: string }
  | { kind: "too_large"; status: number }
  | { kind: "timeout" }
  | { kind: "network_error" };

/** One GET, redirects followed, with the whole exchange (headers and body) inside `timeoutMs`. */
async function send(fetchImpl: typeof fetch, url: string, timeoutMs: number): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchImpl(url, {
      method: "GET",
      redirect: "follow",
      headers: { accept: ACCEPT_HEADER, "user-agent": USER_AGENT },
      signal: controller.signal,
    });
    const body = await readCappedText(response, MAX_BODY_BYTES, controller.signal);
    if (controller.signal.aborted) return { kind: "timeout" };
    if (body === null) return { kind: "too_large", status: response.status };
    return { kind: "response", status: response.status, headers: response.headers, body };
  } catch {
    return controller.signal.aborted ? { kind: "timeout" } : { kind: "network_error" };
  } finally {
    clearTimeout(timer);
  }
}

/** The body as text, or null when it exceeds `maxBytes`. Stops early (partial text) when `signal` aborts. */
async function readCappedText(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string | null> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener("abort", stop);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The decoded JSON value, or undefined when `text` is not JSON. A leading BOM is ignored. */
function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
}

function failed(
  url: string,
  httpStatus: number | null,
  reason: RdapFailureReason,
  untilMs: number | null,
): RdapLookup {
  return {
    outcome: "failed",
    url,
    httpStatus,
    reason,
    retryAt: untilMs === null ? null : new Date(untilMs).toISOString(),
  };
}
