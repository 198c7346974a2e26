import { assert, assertEquals } from "../support/assert.ts";
import {
  ACCEPT_HEADER,
  createRdapClient,
  parseRetryAfter,
  rdapDomainUrl,
} from "../../supabase/functions/_shared/rdap/client.ts";
import { createHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { fakeClock } from "../fakes/clock.ts";
import type { RdapOutboundRules } from "../../supabase/functions/_shared/rdap/client.ts";
import type { JudgedFetch } from "../../supabase/functions/_shared/net/judged_fetch.ts";

/** Public names resolve to a public address; `inside.test` names to a private one. Nothing is listed. */
const outbound: RdapOutboundRules = {
  allowPrivateTargets: false,
  resolve: (host, type) =>
    Promise.resolve(type === "AAAA" ? [] : host.endsWith("inside.test") ? ["10.0.0.7"] : ["93.184.216.34"]),
  isListedServer: () => Promise.resolve(false),
};

interface Seen {
  url: string;
  at: number;
  headers: Headers;
  /** For a judged URL: the addresses the request was to connect to (null: a listed server, as listed). */
  judgedAddresses: string[] | null;
}

type Answer = Response | "network_error" | "hang";

/** A fetch that replays `answers` in order (the last one repeats) and records each request. */
function scriptedFetch(answers: (() => Answer)[], now: () => number = Date.now) {
  const seen: Seen[] = [];
  const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), at: now(), headers: new Headers(init?.headers), judgedAddresses: null });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)]();
    if (answer === "network_error") return Promise.reject(new TypeError("connection refused"));
    if (answer === "hang") {
      return new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    }
    return Promise.resolve(answer);
  }) as typeof fetch;
  /** Judged URLs go here: the same script, with the judged addresses recorded. */
  const judgedFetch: JudgedFetch = async (target, init) => {
    const response = fetchImpl(target.url, { ...init, redirect: "manual" });
    seen.at(-1)!.judgedAddresses = target.addresses.map((entry) => entry.address);
    return await response;
  };
  return { fetchImpl, judgedFetch, seen };
}

const domainBody = JSON.stringify({
  objectClassName: "domain",
  ldhName: "EXAMPLE.TEST",
  status: ["active"],
  events: [{ eventAction: "expiration", eventDate: "2030-01-01T00:00:00Z" }],
});
const rdapJson = { "content-type": "application/rdap+json" };
const ok200 = () => new Response(domainBody, { status: 200, headers: rdapJson });
const empty404 = () => new Response("", { status: 404, headers: rdapJson });

function setup(answers: (() => Answer)[], timeoutMs = 1_000) {
  const clock = fakeClock();
  // No spacing between requests here: the limiter's rate is tested on its own.
  const limiter = createHostLimiter({ ratePerSecond: 0, concurrency: 2, now: clock.now, sleep: clock.sleep });
  const { fetchImpl, judgedFetch, seen } = scriptedFetch(answers, clock.now);
  const client = createRdapClient({
    limiter,
    outbound,
    timeoutMs,
    fetch: fetchImpl,
    judgedFetch,
    now: clock.now,
  });
  return { clock, limiter, client, seen };
}

const BASE = "https://rdap.registry.test/v1/";

Deno.test("asks <base>domain/<name> with the tolerant Accept header", async () => {
  const { client, seen } = setup([ok200]);
  const lookup = await client.lookupDomain("https://rdap.registry.test/v1", "example.test");
  assertEquals(lookup.outcome, "found");
  assertEquals(seen[0].url, "https://rdap.registry.test/v1/domain/example.test");
  assertEquals(seen[0].headers.get("accept"), ACCEPT_HEADER);
  assertEquals(ACCEPT_HEADER, "application/rdap+json, application/json;q=0.9");
});

Deno.test("200 with a domain object is found, with the parsed domain", async () => {
  const { client } = setup([ok200]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assert(lookup.outcome === "found");
  assertEquals(lookup.httpStatus, 200);
  assertEquals(lookup.domain.ldhName, "example.test");
  assertEquals(lookup.domain.expirationDate, "2030-01-01T00:00:00.000Z");
});

Deno.test("200 served as application/json is accepted", async () => {
  const { client } = setup([
    () => new Response(domainBody, { headers: { "content-type": "application/json" } }),
  ]);
  assertEquals((await client.lookupDomain(BASE, "example.test")).outcome, "found");
});

Deno.test("404 with an empty body or an RDAP error object is not found", async () => {
  for (const body of ["", JSON.stringify({ errorCode: 404, title: "Not Found" }), "  \n"]) {
    const { client } = setup([() => new Response(body, { status: 404, headers: rdapJson })]);
    const lookup = await client.lookupDomain(BASE, "example.test");
    assertEquals(lookup, { outcome: "not_found", url: `${BASE}domain/example.test`, httpStatus: 404 });
  }
});

Deno.test("a 404 web page is an invalid response, not 'not found'", async () => {
  const { client } = setup([
    () =>
      new Response("<html><h1>Not Found</h1></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  ]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_invalid_response");
});

Deno.test("200 with HTML, broken JSON or a non-domain object is an invalid response", async () => {
  for (
    const body of ["<html>maintenance</html>", '{"objectClassName":', JSON.stringify({ errorCode: 404 })]
  ) {
    const { client } = setup([() => new Response(body, { status: 200 })]);
    const lookup = await client.lookupDomain(BASE, "example.test");
    assert(lookup.outcome === "failed");
    assertEquals([lookup.reason, lookup.httpStatus], ["rdap_invalid_response", 200]);
  }
});

Deno.test("5xx is a server error; other statuses are unexpected", async () => {
  const server = setup([() => new Response("oops", { status: 503 })]);
  const lookup = await server.client.lookupDomain(BASE, "example.test");
  assert(lookup.outcome === "failed");
  assertEquals([lookup.reason, lookup.httpStatus], ["rdap_server_error", 503]);

  const forbidden = setup([() => new Response("no", { status: 403 })]);
  const refused = await forbidden.client.lookupDomain(BASE, "example.test");
  assertEquals(refused.outcome === "failed" && refused.reason, "rdap_unexpected_status");
});

Deno.test("429 with a short Retry-After is waited out and retried once", async () => {
  const { client, clock, seen } = setup([
    () => new Response("", { status: 429, headers: { "retry-after": "2" } }),
    ok200,
  ]);
  const pending = client.lookupDomain(BASE, "example.test");
  await clock.advance(2_000);
  const lookup = await pending;
  assertEquals(lookup.outcome, "found");
  assertEquals(seen.length, 2);
  assertEquals(seen[1].at - seen[0].at, 2_000);
});

Deno.test("429 with a short HTTP-date Retry-After is retried too", async () => {
  const clock = fakeClock(Date.parse("2026-11-22T10:00:00Z"));
  const limiter = createHostLimiter({ ratePerSecond: 0, concurrency: 1, now: clock.now, sleep: clock.sleep });
  const { fetchImpl, seen } = scriptedFetch([
    () => new Response("", { status: 429, headers: { "retry-after": "Sun, 22 Nov 2026 10:00:03 GMT" } }),
    ok200,
  ], clock.now);
  const client = createRdapClient({ limiter, outbound, timeoutMs: 1_000, fetch: fetchImpl, now: clock.now });
  const pending = client.lookupDomain(BASE, "example.test");
  await clock.advance(3_000);
  assertEquals((await pending).outcome, "found");
  assertEquals(seen[1].at - seen[0].at, 3_000);
});

Deno.test("a second 429 after the retry gives rdap_rate_limited", async () => {
  const { client, clock, seen } = setup([
    () => new Response("", { status: 429, headers: { "retry-after": "1" } }),
  ]);
  const pending = client.lookupDomain(BASE, "example.test");
  await clock.advance(1_000);
  const lookup = await pending;
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_rate_limited");
  assertEquals(seen.length, 2);
});

Deno.test("429 with a long Retry-After: rate limited at once, and the host stays paused", async () => {
  const { client, clock, limiter, seen } = setup([
    () => new Response("", { status: 429, headers: { "retry-after": "120" } }),
    ok200,
  ]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assert(lookup.outcome === "failed");
  assertEquals([lookup.reason, lookup.httpStatus], ["rdap_rate_limited", 429]);
  assertEquals(lookup.retryAt, new Date(clock.now() + 120_000).toISOString());
  assertEquals(limiter.pausedUntil("rdap.registry.test"), clock.now() + 120_000);

  const meanwhile = await client.lookupDomain(BASE, "other.test");
  assert(meanwhile.outcome === "refused", "not asked: a refusal, not a failure");
  assertEquals([meanwhile.reason, meanwhile.httpStatus], ["rdap_rate_limited", null]);
  assertEquals(seen.length, 1, "no request reached the paused host");

  await clock.advance(120_000);
  assertEquals((await client.lookupDomain(BASE, "other.test")).outcome, "found");
});

Deno.test("429 without Retry-After pauses the host for a minute", async () => {
  const { client, clock, limiter } = setup([() => new Response("", { status: 429 })]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_rate_limited");
  assertEquals(limiter.pausedUntil("rdap.registry.test"), clock.now() + 60_000);
});

Deno.test("a timeout is rdap_timeout; a refused connection is rdap_network_error", async () => {
  const slow = setup([() => "hang"], 50);
  const timedOut = await slow.client.lookupDomain(BASE, "example.test");
  assert(timedOut.outcome === "failed");
  assertEquals([timedOut.reason, timedOut.httpStatus], ["rdap_timeout", null]);

  const down = setup([() => "network_error"]);
  const refused = await down.client.lookupDomain(BASE, "example.test");
  assertEquals(refused.outcome === "failed" && refused.reason, "rdap_network_error");
});

Deno.test("a body that never ends is cut by the timeout too", async () => {
  const stalled = setup([() => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("{"));
      },
    });
    return new Response(body, { status: 200 });
  }], 50);
  const lookup = await stalled.client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_timeout");
});

Deno.test("a host that keeps failing is backed off: no request until the back-off ends", async () => {
  const { client, seen } = setup([() => new Response("", { status: 500 })]);
  for (let attempt = 0; attempt < 3; attempt++) await client.lookupDomain(BASE, "example.test");
  const lookup = await client.lookupDomain(BASE, "example.test");
  assert(lookup.outcome === "refused", "not asked: a refusal, not a failure");
  assertEquals([lookup.reason, lookup.httpStatus], ["rdap_host_backoff", null]);
  assertEquals(seen.length, 3);
});

Deno.test("an oversized body is an invalid response", async () => {
  const { client } = setup([() => new Response("x".repeat(3 * 1024 * 1024), { status: 200 })]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_invalid_response");
});

Deno.test("Retry-After: seconds or HTTP date", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");
  assertEquals(parseRetryAfter("5", now), 5_000);
  assertEquals(parseRetryAfter(" 0 ", now), 0);
  assertEquals(parseRetryAfter("Sun, 22 Nov 2026 10:01:00 GMT", now), 60_000);
  assertEquals(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now), 0);
  assertEquals(parseRetryAfter("soon", now), null);
  assertEquals(parseRetryAfter("-5", now), null);
  assertEquals(parseRetryAfter(null, now), null);
});

Deno.test("domain URL joining", () => {
  assertEquals(rdapDomainUrl("https://rdap.test/", "a.com"), "https://rdap.test/domain/a.com");
  assertEquals(rdapDomainUrl("https://rdap.test/rdap", "a.com"), "https://rdap.test/rdap/domain/a.com");
  assertEquals(
    rdapDomainUrl("https://rdap.test/com/v1/", "xn--bcher-kva.com"),
    "https://rdap.test/com/v1/domain/xn--bcher-kva.com",
  );
});

Deno.test("repeated 404s are answers, not failures: no back-off", async () => {
  const { client, limiter } = setup([empty404, empty404, empty404, empty404]);
  for (let attempt = 0; attempt < 4; attempt++) await client.lookupDomain(BASE, "example.test");
  assertEquals(limiter.pausedUntil("rdap.registry.test"), null);
});

// ---------------------------------------------------------------------------------------------------
// Redirects and referrals: followed by hand, every hop judged and counted against its own host
// ---------------------------------------------------------------------------------------------------

const redirect = (location: string, status = 301) => () =>
  new Response("", { status, headers: { location } });

function redirectSetup(answers: (() => Answer)[], rules: Partial<RdapOutboundRules> = {}) {
  const acquired: string[] = [];
  const real = createHostLimiter({ ratePerSecond: 0, concurrency: 2 });
  const limiter = {
    ...real,
    acquire: (host: string, options?: { maxWaitMs?: number }) => {
      acquired.push(host);
      return real.acquire(host, options);
    },
  };
  const { fetchImpl, judgedFetch, seen } = scriptedFetch(answers);
  const client = createRdapClient({
    limiter,
    outbound: { ...outbound, ...rules },
    timeoutMs: 1_000,
    fetch: fetchImpl,
    judgedFetch,
  });
  return { client, seen, acquired };
}

Deno.test("a same-host redirect is followed by hand and counted against the host again", async () => {
  const { client, seen, acquired } = redirectSetup([redirect("/v2/domain/example.test"), ok200]);
  const lookup = await client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome, "found");
  assertEquals(seen.map((s) => s.url), [
    "https://rdap.registry.test/v1/domain/example.test",
    "https://rdap.registry.test/v2/domain/example.test",
  ]);
  assertEquals(acquired, ["rdap.registry.test", "rdap.registry.test"]);
});

Deno.test("a redirect to an unlisted host is refused before any request there", async () => {
  for (
    const target of [
      "https://elsewhere.example/rdap/domain/example.test",
      "https://169.254.169.254/latest/meta-data/",
      "http://127.0.0.1:9/",
      "https://[::1]/",
    ]
  ) {
    const { client, seen } = redirectSetup([redirect(target, 302), ok200]);
    const lookup = await client.lookupDomain(BASE, "example.test");
    assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_target_not_allowed", target);
    assertEquals(seen.length, 1, target);
  }
});

Deno.test("a cross-host redirect to a listed server is followed; a downgrade to http is not", async () => {
  const listed = (url: string) => Promise.resolve(new URL(url).host === "rdap.listed.test");
  const moved = redirectSetup([redirect("https://rdap.listed.test/domain/example.test", 307), ok200], {
    isListedServer: listed,
  });
  assertEquals((await moved.client.lookupDomain(BASE, "example.test")).outcome, "found");
  assertEquals(moved.acquired, ["rdap.registry.test", "rdap.listed.test"]);
  assertEquals(moved.seen.map((s) => s.judgedAddresses), [null, null], "listed servers are used as listed");

  const downgrade = redirectSetup([redirect("http://rdap.registry.test/v1/domain/example.test"), ok200]);
  const lookup = await downgrade.client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_target_not_allowed");
  assertEquals(downgrade.seen.length, 1);
});

Deno.test("at most 3 redirects", async () => {
  const three = redirectSetup([redirect("/a"), redirect("/b"), redirect("/c"), ok200]);
  assertEquals((await three.client.lookupDomain(BASE, "example.test")).outcome, "found");
  assertEquals(three.seen.length, 4);

  const four = redirectSetup([redirect("/a"), redirect("/b"), redirect("/c"), redirect("/d"), ok200]);
  const lookup = await four.client.lookupDomain(BASE, "example.test");
  assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_target_not_allowed");
  assertEquals(four.seen.length, 4);
});

Deno.test("a referral URL is judged: http, private literals and names resolving inside are never asked", async () => {
  for (
    const url of [
      "http://rdap.registrar.example/domain/x.test",
      "https://10.1.2.3/domain/x.test",
      "https://rdap.inside.test/domain/x.test",
      "https://metadata.google.internal/domain/x.test",
      "https://rdap.registrar.example\\@127.0.0.1/domain/x.test",
    ]
  ) {
    const { client, seen } = redirectSetup([ok200]);
    const lookup = await client.lookupUrl(url);
    assertEquals(lookup.outcome === "failed" && lookup.reason, "rdap_target_not_allowed", url);
    assertEquals(seen.length, 0, url);
  }
  const { client, seen } = redirectSetup([ok200]);
  assertEquals((await client.lookupUrl("https://rdap.registrar.example/domain/x.test")).outcome, "found");
  assertEquals(seen.length, 1);
  assertEquals(seen[0].judgedAddresses, ["93.184.216.34"], "asked at the address the judge saw");
});

Deno.test("with the local switch, a referral on loopback is allowed (local stacks and tests)", async () => {
  const { client, seen } = redirectSetup([ok200], { allowPrivateTargets: true });
  assertEquals((await client.lookupUrl("http://127.0.0.1:9/domain/x.test")).outcome, "found");
  assertEquals(seen.length, 1);
});
