/**
 * check-now ("Check now" in the app) end to end: the real gateway and database, a fake RDAP registry and a
 * fake DNS server. The session JWT (HS256, the local secret) as the app sends it; the Free allowance of 20
 * a day (plans.app_checks_per_day), Pro sharing its API daily limit; a busy host answers `unknown` with
 * `retry_after_seconds` on check-now, REST and MCP alike; an assistant's token is refused.
 */
import { sessionToken } from "../../platform/secrets.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { fakesEnv } from "../support/fakes_env.ts";
import { call } from "../support/http.ts";
import { startStack } from "../support/stack.ts";
import { SignJWT } from "jose";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("check-now: a live check from the app within the plan's daily allowance", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: ["com", "net"] });
  rdap.setDomain("example.com", { status: 200 });
  rdap.setDomain("example.net", { status: 200 });
  rdap.setDomain("taken.com", {
    status: 200,
    body: { objectClassName: "domain", ldhName: "TAKEN.COM", status: ["active"] },
  });
  const dns = await startFakeDns({ delegated: { "taken.com": ["ns1.host.example"] } });
  const stack = await startStack({ ...fakesEnv({ rdap, dns }), RDAP_TIMEOUT_MS: "1000" });
  const url = `${stack.functionsBase}/check-now`;
  const secret = Deno.env.get("AUTH_JWT_SECRET")!;
  const issuerBase = Deno.env.get("AUTH_BASE_URL") ?? stack.gateway.url;
  const tokenOf = (account: { user_id: string; email: string }) =>
    sessionToken({ id: account.user_id, email: account.email }, { secret, supabaseUrl: issuerBase });
  const checkNow = async (token: string, json: unknown = { domain: "taken.com" }) =>
    await call<Record<string, unknown>>(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      json,
    });
  try {
    const free = await stack.account("free");
    const freeToken = await tokenOf(free);

    await t.step("a Free account checks a name: the same answer as GET /check", async () => {
      const response = await checkNow(freeToken);
      assertEquals(response.status, 200, JSON.stringify(response.body));
      assertEquals(response.body.status, "registered");
      assertEquals(response.body.reason, "rdap_found");
      assertEquals(response.headers.get("ratelimit-limit"), "20");
      assertEquals(response.headers.get("ratelimit-remaining"), "19");
    });

    await t.step("beyond the Free allowance of 20 a day: 429 rate_limited with reset_at", async () => {
      await stack.sql`update public.app_check_counters set check_count = 20
                      where user_id = ${free.user_id}`;
      const response = await checkNow(freeToken);
      assertEquals(response.status, 429);
      assertEquals(response.body.error, "rate_limited");
      assertEquals(response.body.allowance, "app_checks_per_day");
      assert(typeof response.body.reset_at === "string" && response.body.reset_at.endsWith("T00:00:00.000Z"));
      assert(String(response.body.message).includes("20 checks from the app"));
      assertEquals(response.headers.get("ratelimit-remaining"), "0");
      assert(response.headers.get("retry-after"));
    });

    await t.step("Pro shares its API daily limit: a check from the app is one API request", async () => {
      const pro = await stack.account("pro");
      const response = await checkNow(await tokenOf(pro));
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("ratelimit-limit"), "1000");
      const [row] = await stack.sql<{ request_count: number }[]>`
        select request_count from public.api_request_counters where user_id = ${pro.user_id}`;
      assertEquals(row.request_count, 1);
    });

    await t.step(
      "bad input is 400 (after counting, as every session endpoint); no token is 401",
      async () => {
        const pro = await stack.account("pro");
        const token = await tokenOf(pro);
        assertEquals((await checkNow(token, { domain: "www.taken.com" })).status, 400);
        assertEquals((await checkNow(token, { domain: "taken.com", extra: 1 })).status, 400);
        const none = await call(url, { method: "POST", json: { domain: "taken.com" } });
        assertEquals(none.status, 401);
      },
    );

    await t.step("an assistant's OAuth token (client_id) is refused with 403", async () => {
      const pro = await stack.account("pro");
      const token = await new SignJWT({
        sub: pro.user_id,
        email: pro.email,
        role: "authenticated",
        client_id: "9f1c0a44-assistant",
      })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setIssuer(`${issuerBase}/auth/v1`)
        .setAudience("authenticated")
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(new TextEncoder().encode(secret));
      const response = await checkNow(token);
      assertEquals(response.status, 403, JSON.stringify(response.body));
    });

    await t.step(
      "a busy registry host: unknown with retry_after_seconds, on check-now, REST and MCP",
      async () => {
        const host = new URL(rdap.url).host;
        await stack.sql`insert into public.rate_limit_keys (class, key, paused_until, pause_reason, paused_at)
                      values ('rdap_host', ${host}, now() + interval '90 seconds', 'backoff', now())
                      on conflict (class, key) do update
                        set paused_until = excluded.paused_until, pause_reason = excluded.pause_reason`;
        const pro = await stack.account("pro");
        const response = await checkNow(await tokenOf(pro), { domain: "paused-name.net" });
        assertEquals(response.status, 200);
        assertEquals(response.body.status, "unknown");
        const seconds = response.body.retry_after_seconds as number;
        assert(seconds >= 1 && seconds <= 90, `retry_after_seconds ${seconds}`);
        const rest = await call<Record<string, unknown>>(`${stack.apiBase}/check/other-paused.net`, {
          headers: { "x-api-key": pro.api_key! },
        });
        assertEquals(rest.body.status, "unknown");
        assert(typeof rest.body.retry_after_seconds === "number", JSON.stringify(rest.body));
        const mcp = await fetch(`${stack.apiBase}/mcp`, {
          method: "POST",
          headers: {
            "x-api-key": pro.api_key!,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "check_domain", arguments: { domain: "third-paused.net" } },
          }),
        });
        const text = await mcp.text();
        const json = text.trimStart().startsWith("{")
          ? text
          : text.split("\n").find((l) => l.startsWith("data: "))!.slice(6);
        const content = JSON.parse(json).result.structuredContent as Record<string, unknown>;
        assertEquals(content.status, "unknown", text);
        assert(typeof content.retry_after_seconds === "number", text);
        await stack
          .sql`update public.rate_limit_keys set paused_until = null where class = 'rdap_host' and key = ${host}`;
      },
    );
  } finally {
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
