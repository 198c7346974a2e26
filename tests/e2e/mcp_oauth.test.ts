/**
 * MCP with OAuth end to end: the official SDK client with its own OAuth provider against the local stack
 * (the gateway, its Auth stand-in with the OAuth 2.1 server, the real database). It discovers the
 * authorization server from the 401 challenge, registers itself, is sent to the consent page (the test plays
 * the app and approves), exchanges the code, calls every tool, refreshes when its token is no longer
 * accepted and calls again. Then what must be refused is refused: by /mcp (tokens that are not OAuth access
 * tokens of this project, a Free account) and by the Auth stand-in (what Supabase Auth refuses).
 */
// Deno 2.1 (hosted Edge Functions) takes the SDK's wildcard `types` export literally (`*.js.d.ts`, which
// does not exist); @ts-types names the .d.ts without `.js`. See docs/runtime.md.
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { createHash } from "node:crypto";
import { localJwtSecret, sessionToken } from "../../platform/secrets.ts";
import { signWithLocalKey } from "../../platform/auth/oauth/signing.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import type { CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MemoryOAuthProvider } from "../support/oauth_provider.ts";
import { callChecked, publishedContract } from "../support/contract.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startStack, type TestStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const redirectUrl = "http://localhost:8976/oauth/callback";

/** The requests of one OAuth session as they went over the wire: method, path, status (no secrets). */
type Transcript = string[];

function recordingFetch(transcript: Transcript): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const message = request.method === "POST" && url.pathname.endsWith("/mcp")
      ? JSON.parse((await request.clone().text()) || "{}")
      : undefined;
    const body = message
      ? ` ${message.method ?? ""}${message.params?.name ? ` ${message.params.name}` : ""}`
      : "";
    const response = await fetch(request);
    const credential = request.headers.has("authorization") ? " [Bearer]" : "";
    transcript.push(`${request.method} ${url.pathname}${body}${credential} → ${response.status}`);
    return response;
  };
}

/** An OAuth client provider as a connector keeps one: in memory, one account's session. */
class TestProvider extends MemoryOAuthProvider {
  constructor() {
    super("Watchlist e2e assistant", redirectUrl);
  }
}

/** The consent page of the app: signed in as `account`, it loads the authorization and decides. */
async function consentAs(
  stack: TestStack,
  account: CreatedAccount,
  authorizationId: string,
  action: "approve" | "deny",
  transcript: Transcript = [],
): Promise<string> {
  const token = await sessionToken({ id: account.user_id, email: account.email }, {
    secret: Deno.env.get("AUTH_JWT_SECRET") ?? localJwtSecret,
    supabaseUrl: stack.gateway.url,
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const base = `${stack.gateway.url}/auth/v1/oauth/authorizations/${authorizationId}`;
  const loaded = await fetch(base, { headers });
  transcript.push(`(app) GET /auth/v1/oauth/authorizations/{id} [session] → ${loaded.status}`);
  const details = await loaded.json();
  assertEquals(details.authorization_id, authorizationId, JSON.stringify(details));
  assertEquals(details.user.id, account.user_id);
  const decided = await fetch(`${base}/consent`, {
    method: "POST",
    headers,
    body: JSON.stringify({ action }),
  });
  transcript.push(
    `(app) POST /auth/v1/oauth/authorizations/{id}/consent ${action} [session] → ${decided.status}`,
  );
  assertEquals(decided.status, 200);
  return (await decided.json()).redirect_url;
}

/** The browser's part of the authorization: follows authorize to the consent page; the app approves. */
async function approveInBrowser(
  stack: TestStack,
  account: CreatedAccount,
  url: URL,
  transcript: Transcript = [],
): Promise<string> {
  const authorize = await fetch(url, { redirect: "manual" });
  transcript.push(`(browser) GET /auth/v1/oauth/authorize → ${authorize.status} to the app's consent page`);
  assertEquals(authorize.status, 302);
  const consentPage = new URL(authorize.headers.get("location")!);
  assertEquals(consentPage.origin + consentPage.pathname, "http://localhost:3000/oauth/consent");
  const redirect = new URL(
    await consentAs(stack, account, consentPage.searchParams.get("authorization_id")!, "approve", transcript),
  );
  transcript.push(`(browser) back to the client's redirect URI with the code`);
  assertEquals(redirect.origin + redirect.pathname, redirectUrl);
  return redirect.searchParams.get("code")!;
}

/** Connects the SDK client with OAuth: the first connect is refused and redirects; the second is authorized. */
async function oauthClient(
  stack: TestStack,
  account: CreatedAccount,
  provider: TestProvider,
  transcript: Transcript,
): Promise<Client> {
  const mcpUrl = new URL(`${stack.apiBase}/mcp`);
  const first = new StreamableHTTPClientTransport(mcpUrl, {
    authProvider: provider,
    fetch: recordingFetch(transcript),
  });
  let refused: unknown;
  try {
    await new Client({ name: "watchlist-e2e-oauth", version: "1.0.0" }).connect(first);
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof UnauthorizedError, `first connect: ${refused}`);
  const code = await approveInBrowser(stack, account, provider.authorizationUrl!, transcript);
  await first.finishAuth(code);
  const client = new Client({ name: "watchlist-e2e-oauth", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch(transcript) }),
  );
  return client;
}

function rpc(url: string, headers: Record<string, string>, body: unknown) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

async function requestsToday(stack: TestStack, userId: string): Promise<number> {
  const [row] = await stack.sql<{ count: number }[]>`
    select coalesce(sum(request_count), 0)::int as count from public.api_request_counters
    where user_id = ${userId} and day = (now() at time zone 'utc')::date`;
  return row.count;
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

Deno.test("MCP over OAuth 2.1 through the local Supabase Auth stand-in", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: ["com"] });
  const dns = await startFakeDns({ delegated: { "taken-name.com": ["ns1.example.net"] } });
  rdap.setDomain("taken-name.com", { status: 200 });
  const stack = await startStack({ RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`, DNS_NAMESERVER: dns.address });
  await setRdapHostLimit(stack.sql, rdap.url, 50);
  const mcpUrl = `${stack.apiBase}/mcp`;
  const metadataUrl = `${stack.apiBase}/.well-known/oauth-protected-resource/mcp`;
  const auth = `${stack.gateway.url}/auth/v1`;
  try {
    const contract = await publishedContract(stack.apiBase);

    await t.step("the protected-resource metadata names the project's Auth", async () => {
      for (const url of [metadataUrl, `${stack.apiBase}/.well-known/oauth-protected-resource`]) {
        const response = await fetch(url);
        assertEquals(response.status, 200);
        assertEquals(await response.json(), {
          resource: mcpUrl,
          authorization_servers: [auth],
          bearer_methods_supported: ["header"],
          resource_name: "Domain Watchlist MCP tool server",
          resource_documentation: `${stack.apiBase}/openapi.json`,
        });
      }
      // Spoofed forwarding headers change nothing: the URLs come from SUPABASE_URL (or PROJECT_PUBLIC_URL).
      const spoofed = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" };
      const spoofedMetadata = await fetch(metadataUrl, { headers: spoofed });
      assertEquals((await spoofedMetadata.json()).resource, mcpUrl);
      const spoofedChallenge = await rpc(mcpUrl, spoofed, initialize);
      assertEquals(spoofedChallenge.status, 401);
      assertEquals(
        spoofedChallenge.headers.get("www-authenticate"),
        `Bearer resource_metadata="${metadataUrl}"`,
      );
      await spoofedChallenge.body?.cancel();
      const openApi = await (await fetch(`${stack.apiBase}/openapi.json`, { headers: spoofed })).json();
      assertEquals(openApi.servers.map((server: { url: string }) => server.url), [stack.apiBase]);
      const asMetadata =
        await (await fetch(`${stack.gateway.url}/.well-known/oauth-authorization-server/auth/v1`))
          .json();
      assertEquals(asMetadata.issuer, auth);
      assertEquals(asMetadata.registration_endpoint, `${auth}/oauth/clients/register`);
      assertEquals(asMetadata.code_challenge_methods_supported, ["S256", "plain"]);
    });

    await t.step(
      "the SDK client: discover, register, authorize, exchange, every tool, refresh, again",
      async () => {
        const account = await stack.account("pro");
        const provider = new TestProvider();
        const transcript: Transcript = [];
        const client = await oauthClient(stack, account, provider, transcript);
        assert(provider.saved?.refresh_token, "a refresh token was issued");

        const before = await requestsToday(stack, account.user_id);
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await client.callTool({ name, arguments: args });
          contract.assertToolResult(name, result);
          assert(!result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`);
          return result.structuredContent as Record<string, unknown>;
        };
        assertEquals((await call("add_domains", { domains: ["taken-name.com", "oauth-one.com"] })).added, 2);
        const page = await call("list_watchlist", { limit: 10 });
        assertEquals(
          (page.domains as { domain_name: string }[]).map((d) => d.domain_name),
          ["oauth-one.com", "taken-name.com"],
        );
        assertEquals((await call("check_domain", { domain: "taken-name.com" })).status, "registered");
        assertEquals((await call("remove_domain", { domain: "oauth-one.com" })).removed, true);
        assertEquals(await requestsToday(stack, account.user_id), before + 4, "each tool call counts");

        // The access token stops being accepted (as when it expires): the SDK refreshes and calls again.
        const old = provider.saved!;
        provider.saved = {
          ...old,
          access_token: await signWithLocalKey({
            sub: account.user_id,
            role: "authenticated",
            aud: "authenticated",
            client_id: (provider.client as { client_id: string }).client_id,
          }, {
            expiresAt: Math.floor(Date.now() / 1000) - 60,
          }),
        };
        const listed = await call("list_watchlist", { limit: 200 });
        assertEquals((listed.domains as unknown[]).length, 1);
        assert(provider.saved.refresh_token !== old.refresh_token, "the refresh token was rotated");
        assert(provider.saved.access_token !== old.access_token, "a new access token was issued");

        // The rotated refresh token used again at once is GoTrue's "lost answer" case: the session's current
        // token is answered again (an assistant's session is a normal session, auth.sessions).
        const reuse = await fetch(`${auth}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: old.refresh_token!,
            client_id: (provider.client as { client_id: string }).client_id,
          }),
        });
        assertEquals(reuse.status, 200);
        assertEquals((await reuse.json()).refresh_token, provider.saved.refresh_token);
        await client.close();

        console.log(`\nSDK OAuth session (requests and status codes):\n  ${transcript.join("\n  ")}\n`);
        const text = transcript.join("\n");
        for (
          const step of [
            /POST \/functions\/v1\/api-v1\/mcp initialize → 401/,
            /GET \/functions\/v1\/api-v1\/\.well-known\/oauth-protected-resource\/mcp → 200/,
            /GET \/\.well-known\/oauth-authorization-server\/auth\/v1 → 200/,
            /POST \/auth\/v1\/oauth\/clients\/register → 201/,
            /POST \/auth\/v1\/oauth\/token → 200/,
            /POST \/functions\/v1\/api-v1\/mcp initialize \[Bearer\] → 200/,
            /mcp tools\/call list_watchlist \[Bearer\] → 401\n[^]*?POST \/auth\/v1\/oauth\/token → 200\n[^]*?mcp tools\/call list_watchlist \[Bearer\] → 200/,
          ]
        ) assertMatch(text, step);
      },
    );

    await t.step(
      "an assistant's access token is refused by the session endpoints (403): it may only use the tools",
      async () => {
        const account = await stack.account("pro");
        const provider = new TestProvider();
        const client = await oauthClient(stack, account, provider, []);
        const token = provider.saved!.access_token;
        for (
          const [name, body] of [
            ["export-account", {}],
            ["send-org-invite", { invitationId: crypto.randomUUID() }],
          ] as const
        ) {
          const response = await fetch(`${stack.functionsBase}/${name}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          assertEquals(response.status, 403, name);
          const answer = await response.json();
          assertEquals(answer.error, "forbidden", name);
          assertMatch(answer.message, /assistant's access token cannot manage the account/, name);
        }
        // The same token still runs the tools.
        const result = await client.callTool({ name: "list_watchlist", arguments: {} });
        assert(!result.isError, JSON.stringify(result.structuredContent));
        await client.close();
      },
    );

    await t.step(
      "a Free account's token gets upgrade_required; limits and headers as with a key",
      async () => {
        const free = await stack.account("free");
        const provider = new TestProvider();
        let refused: unknown;
        try {
          await oauthClient(stack, free, provider, []);
        } catch (error) {
          refused = error;
        }
        assertMatch(String(refused), /upgrade_required/);
        const response = await rpc(
          mcpUrl,
          { authorization: `Bearer ${provider.saved!.access_token}` },
          initialize,
        );
        assertEquals(response.status, 403);
        const body = await response.json();
        contract.assertErrorBody(body, "POST /mcp with a Free account's token → 403");
        assertEquals(body.error, "upgrade_required");

        const limited = await stack.account("pro");
        const limitedProvider = new TestProvider();
        const client = await oauthClient(stack, limited, limitedProvider, []);
        await stack.sql`
        insert into public.api_request_counters (user_id, day, request_count)
        values (${limited.user_id}, (now() at time zone 'utc')::date, 1000)
        on conflict (user_id, day) do update set request_count = 1000`;
        const result = await client.callTool({ name: "list_watchlist", arguments: {} });
        assertEquals(result.isError, true);
        assertEquals((result.structuredContent as Record<string, string>).error, "rate_limited");
        assertMatch((result.structuredContent as Record<string, string>).reset_at, /T00:00:00\.000Z$/);
        const headers = (await rpc(
          mcpUrl,
          { authorization: `Bearer ${limitedProvider.saved!.access_token}` },
          initialize,
        )).headers;
        assertEquals(headers.get("ratelimit-limit"), "1000");
        assertEquals(headers.get("ratelimit-remaining"), "0");
        await client.close();
      },
    );

    await t.step(
      "tokens that are not this project's OAuth access tokens: 401 with the challenge",
      async () => {
        const account = await stack.account("pro");
        const claims = {
          sub: account.user_id,
          role: "authenticated",
          aud: "authenticated",
          client_id: crypto.randomUUID(),
        };
        const { client_id: _omitted, ...withoutClientId } = claims;
        const tokens: Record<string, string> = {
          "a foreign issuer": await signWithLocalKey(claims, { issuer: "http://127.0.0.1:9/auth/v1" }),
          "an expired token": await signWithLocalKey(claims, {
            expiresAt: Math.floor(Date.now() / 1000) - 5,
          }),
          "a plain session token": await sessionToken({ id: account.user_id, email: account.email }, {
            secret: Deno.env.get("AUTH_JWT_SECRET") ?? localJwtSecret,
            supabaseUrl: stack.gateway.url,
          }),
          "a token without client_id": await signWithLocalKey(withoutClientId),
          "not a JWT": "not-a-jwt",
        };
        const challenge = `Bearer resource_metadata="${metadataUrl}"`;
        for (const [label, token] of Object.entries(tokens)) {
          const response = await rpc(mcpUrl, { authorization: `Bearer ${token}` }, initialize);
          assertEquals(response.status, 401, label);
          assertEquals(
            response.headers.get("www-authenticate"),
            `${challenge}, error="invalid_token"`,
            label,
          );
          const body = await response.json();
          contract.assertErrorBody(body, `POST /mcp with ${label} → 401`);
          assertEquals(body.error, "unauthorized", label);
        }
        const none = await rpc(mcpUrl, {}, initialize);
        assertEquals(none.status, 401);
        assertEquals(none.headers.get("www-authenticate"), challenge);
        await none.body?.cancel();
        const unknownKey = await rpc(mcpUrl, { "x-api-key": "dwl_unknown" }, initialize);
        assertEquals(unknownKey.status, 401);
        assertEquals(unknownKey.headers.get("www-authenticate"), challenge);
        await unknownKey.body?.cancel();
        // REST takes API keys only: a valid access token there is no credential.
        const rest = await callChecked(contract, `${stack.apiBase}/domains`, {
          headers: { authorization: `Bearer ${await signWithLocalKey(claims)}` },
        });
        assertEquals(rest.status, 401);
        assertEquals(rest.headers.get("www-authenticate"), null);
      },
    );

    await t.step("the Auth stand-in refuses what Supabase Auth refuses", async () => {
      const account = await stack.account("pro");
      const registered = await fetch(`${auth}/oauth/clients/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [redirectUrl], token_endpoint_auth_method: "none" }),
      });
      assertEquals(registered.status, 201);
      const clientId = (await registered.json()).client_id;
      const badRegistration = await fetch(`${auth}/oauth/clients/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://evil.example/cb"] }),
      });
      assertEquals(badRegistration.status, 400, "http only on loopback");
      await badRegistration.body?.cancel();

      const { verifier, challenge } = pkcePair();
      const authorizeUrl = (redirect: string, pkce = true) =>
        `${auth}/oauth/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirect,
          state: "s1",
          ...(pkce ? { code_challenge: challenge, code_challenge_method: "S256" } : {}),
        })}`;
      const unregistered = await fetch(authorizeUrl("http://localhost:8976/other"), { redirect: "manual" });
      assertEquals(unregistered.status, 400, "an unregistered redirect URI is not redirected to");
      assertEquals(unregistered.headers.get("location"), null);
      await unregistered.body?.cancel();
      const withoutPkce = await fetch(authorizeUrl(redirectUrl, false), { redirect: "manual" });
      assertEquals(withoutPkce.status, 302);
      assertMatch(withoutPkce.headers.get("location")!, /error=invalid_request.*state=s1/);

      const code = await approveInBrowser(stack, account, new URL(authorizeUrl(redirectUrl)));
      const exchange = (codeVerifier: string) =>
        fetch(`${auth}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            code_verifier: codeVerifier,
            redirect_uri: redirectUrl,
            client_id: clientId,
          }),
        });
      const wrong = await exchange(pkcePair().verifier);
      assertEquals(wrong.status, 400);
      assertEquals((await wrong.json()).error, "invalid_grant", "a wrong verifier");
      const right = await exchange(verifier);
      assertEquals(right.status, 200);
      const issued = await right.json();
      assertEquals(issued.token_type, "bearer");
      const reused = await exchange(verifier);
      assertEquals(reused.status, 400);
      assertEquals((await reused.json()).error, "invalid_grant", "a code used twice");

      const [, payload] = issued.access_token.split(".");
      const claims = JSON.parse(
        new TextDecoder().decode(
          Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
        ),
      );
      assertEquals(claims.client_id, clientId);
      assertEquals(claims.sub, account.user_id);
      assertEquals(claims.aud, "authenticated");
      assertEquals(claims.iss, auth);

      const deniedFlow = await fetch(authorizeUrl(redirectUrl), { redirect: "manual" });
      const deniedId = new URL(deniedFlow.headers.get("location")!).searchParams.get("authorization_id")!;
      const other = await stack.account("pro");
      const token = await sessionToken({ id: other.user_id, email: other.email }, {
        secret: Deno.env.get("AUTH_JWT_SECRET") ?? localJwtSecret,
        supabaseUrl: stack.gateway.url,
      });
      const denied = new URL(await consentAs(stack, other, deniedId, "deny"));
      assertEquals(denied.searchParams.get("error"), "access_denied");
      assertEquals(denied.searchParams.get("state"), "s1");
      const again = await fetch(`${auth}/oauth/authorizations/${deniedId}/consent`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "approve" }),
      });
      assertEquals(again.status, 400, "a decided authorization cannot be decided again");
      await again.body?.cancel();
    });
  } finally {
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
