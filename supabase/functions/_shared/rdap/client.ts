/**
 * Asks an RDAP server about one domain, politely (through the host limiter), and says what came back:
 * found (with the parsed domain), not found, or failed with a reason. Never throws for upstream trouble.
 *
 * Redirects are followed by hand, at most MAX_REDIRECTS hops, each judged before it is requested and each
 * counted against its own host's politeness: a base URL from the bootstrap or the server table is used as
 * listed; any other URL (a redirect target, a registrar referral) must pass the outbound URL judge
 * (`_shared/net/url_policy.ts`: https and a public address after resolution), and a redirect may leave
 * its host only for a server listed in the bootstrap or the server table (docs/url-policy.md).
 */
import { parseDomainResponse, type RdapDomain } from "./domain_response.ts";
import type { AcquireOptions, HostLimiter, HostRefusalReason } from "./host_limiter.ts";
import { checkOutboundUrl, type JudgedTarget, type ResolveAddresses } from "../net/url_policy.ts";
import { type JudgedFetch, judgedFetch } from "../net/judged_fetch.ts";
import type { z } from "zod";
import type { rdapFailureReason } from "../contract/schemas.ts";

/** Why a look-up gave no answer: the API contract's `rdapFailureReason` (a check's `reason`). */
export type RdapFailureReason = z.infer<typeof rdapFailureReason>;

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
  }
  /**
   * Not asked: this service's politeness refused the turn (host busy beyond the caller's wait, paused after
   * a limit, backing off). Not a check: nothing is known about the name (docs/rate-limits.md).
   */
  | {
    outcome: "refused";
    url: string;
    httpStatus: null;
    reason: HostRefusalReason;
    /** ISO time until which the host is paused, when known. */
    retryAt: string | null;
  };

/** The host limiter's wait for each request's turn (how long, urgent, how many may queue). */
export type LookupOptions = AcquireOptions;

export interface RdapClient {
  /** `GET <baseUrl>domain/<name>` on a registry server; `baseUrl` is a listed base URL, used as listed. */
  lookupDomain(baseUrl: string, domainName: string, options?: LookupOptions): Promise<RdapLookup>;
  /** `GET <url>` for a domain record at a full URL (a registrar referral), judged by the URL policy. */
  lookupUrl(url: string, options?: LookupOptions): Promise<RdapLookup>;
}

/** What the client needs to judge URLs that are not listed RDAP base URLs. */
export interface RdapOutboundRules {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and loopback pass the judge (local use only). */
  allowPrivateTargets: boolean;
  resolve: ResolveAddresses;
  /** Is this URL's origin a server listed in the bootstrap or the server table? */
  isListedServer(url: string): Promise<boolean>;
}

export interface RdapClientOptions {
  limiter: HostLimiter;
  outbound: RdapOutboundRules;
  timeoutMs: number;
  /** For listed servers (used as listed). */
  fetch?: typeof fetch;
  /** For judged URLs: connects to an address the judge saw (`net/judged_fetch.ts`). */
  judgedFetch?: JudgedFetch;
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
/** Redirects followed for one lookup; one more is refused. */
export const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Larger bodies are not an RDAP domain answer. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export function createRdapClient(options: RdapClientOptions): RdapClient {
  const fetchImpl = options.fetch ?? fetch;
  const judgedFetchImpl = options.judgedFetch ?? judgedFetch;
  const now = options.now ?? Date.now;
  const { limiter } = options;

  /**
   * May `url` be requested, and how? The listed base URL the lookup started from is used as listed; a
   * hop to another host only when that host is a listed server; anything else must pass the URL judge,
   * and is then sent to an address the judge saw. Null: refused.
   */
  async function mayRequest(
    url: string,
    previousHost: string | null,
    listedStart: string | null,
  ): Promise<Route | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (parsed.origin === listedStart) return { kind: "listed" };
    const listed = await options.outbound.isListedServer(url).catch(() => false);
    if (previousHost !== null && parsed.host !== previousHost && !listed) return null;
    if (listed) return { kind: "listed" };
    const verdict = await checkOutboundUrl(url, options.outbound);
    return verdict.verdict === "allowed" ? { kind: "judged", target: verdict.target } : null;
  }

  /** A route's GET: a listed server through fetch, a judged URL to its judged address. */
  function fetcherFor(route: Route): Fetcher {
    if (route.kind === "listed") return (url, init) => fetchImpl(url, init);
    return (_url, init) =>
      judgedFetchImpl(route.target, {
        method: "GET",
        headers: init.headers,
        signal: init.signal,
      });
  }

  async function lookup(
    url: string,
    lookupOptions: LookupOptions,
    listedStart: string | null,
  ): Promise<RdapLookup> {
    let current = url;
    let previousHost: string | null = null;
    for (let hop = 0;; hop++) {
      const route = await mayRequest(current, previousHost, listedStart);
      if (route === null) return failed(current, null, "rdap_target_not_allowed", null);
      const answer = await askOnce(current, lookupOptions, fetcherFor(route));
      if (answer.kind === "done") return answer.lookup;
      if (hop === MAX_REDIRECTS || answer.location === null) {
        return failed(current, answer.status, "rdap_target_not_allowed", null);
      }
      previousHost = new URL(current).host;
      try {
        current = new URL(answer.location, current).href;
      } catch {
        return failed(current, answer.status, "rdap_target_not_allowed", null);
      }
    }
  }

  /** One URL, through the host limiter (a short 429 is waited out once); a redirect is handed back. */
  async function askOnce(
    url: string,
    lookupOptions: LookupOptions,
    fetcher: Fetcher,
  ): Promise<
    { kind: "done"; lookup: RdapLookup } | { kind: "redirect"; status: number; location: string | null }
  > {
    const done = (lookup: RdapLookup) => ({ kind: "done" as const, lookup });
    const host = new URL(url).host;
    for (let attempt = 1;; attempt++) {
      const turn = await limiter.acquire(host, lookupOptions);
      if (!turn.granted) {
        return done({
          outcome: "refused",
          url,
          httpStatus: null,
          reason: turn.reason,
          retryAt: turn.until === null ? null : new Date(turn.until).toISOString(),
        });
      }

      let answer: HttpAnswer;
      try {
        answer = await send(fetcher, url, options.timeoutMs);
      } finally {
        turn.release();
      }

      if (answer.kind === "timeout" || answer.kind === "network_error") {
        await limiter.reportFailure(host, lookupOptions);
        return done(
          failed(url, null, answer.kind === "timeout" ? "rdap_timeout" : "rdap_network_error", null),
        );
      }
      if (answer.kind === "too_large") {
        await limiter.reportFailure(host, lookupOptions);
        return done(failed(url, answer.status, "rdap_invalid_response", null));
      }

      const { status } = answer;
      if (REDIRECT_STATUSES.has(status)) {
        await limiter.reportSuccess(host);
        return { kind: "redirect", status, location: answer.headers.get("location") };
      }
      if (status === 429) {
        const waitMs = parseRetryAfter(answer.headers.get("retry-after"), now()) ?? DEFAULT_RETRY_AFTER_MS;
        const pausedUntil = now() + Math.min(waitMs, MAX_RETRY_AFTER_MS);
        await limiter.pause(host, pausedUntil, "rdap_rate_limited");
        if (attempt === 1 && waitMs <= SHORT_RETRY_AFTER_MS) continue;
        return done(failed(url, status, "rdap_rate_limited", pausedUntil));
      }
      if (status >= 500) {
        await limiter.reportFailure(host, lookupOptions);
        return done(failed(url, status, "rdap_server_error", null));
      }
      if (status === 404) {
        if (answer.body.trim() !== "" && decodeJson(answer.body) === undefined) {
          // A 404 web page is a wrong URL or a broken server, not the registry saying "no such domain".
          await limiter.reportFailure(host, lookupOptions);
          return done(failed(url, status, "rdap_invalid_response", null));
        }
        await limiter.reportSuccess(host);
        return done({ outcome: "not_found", url, httpStatus: 404 });
      }
      if (status === 200) {
        const domain = parseDomainResponse(decodeJson(answer.body));
        if (domain === null) {
          await limiter.reportFailure(host, lookupOptions);
          return done(failed(url, status, "rdap_invalid_response", null));
        }
        await limiter.reportSuccess(host);
        return done({ outcome: "found", url, httpStatus: status, domain });
      }
      await limiter.reportFailure(host, lookupOptions);
      return done(failed(url, status, "rdap_unexpected_status", null));
    }
  }

  return {
    lookupDomain: (baseUrl, domainName, lookupOptions = {}) =>
      lookup(rdapDomainUrl(baseUrl, domainName), lookupOptions, originOf(baseUrl)),
    lookupUrl: (url, lookupOptions = {}) => lookup(url, lookupOptions, null),
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

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** How a URL is asked: a listed server as listed, a judged URL at a judged address. */
type Route = { kind: "listed" } | { kind: "judged"; target: JudgedTarget };

type Fetcher = (
  url: string,
  init: { method: "GET"; redirect: "manual"; headers: Record<string, string>; signal: AbortSignal },
) => Promise<Response>;

/** One GET, redirects handed back (never followed by fetch), with the whole exchange (headers and body) inside `timeoutMs`. */
async function send(fetcher: Fetcher, url: string, timeoutMs: number): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetcher(url, {
      method: "GET",
      redirect: "manual",
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
