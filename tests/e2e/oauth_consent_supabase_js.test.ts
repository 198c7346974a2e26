/**
 * The consent page's calls as the app makes them: supabase-js's own `auth.oauth.getAuthorizationDetails`,
 * `approveAuthorization` and `denyAuthorization` against the local Auth stand-in (the paths, bodies and
 * answers of Supabase Auth's `oauthserver/authorize.go`). A client registers dynamically, the browser is sent
 * to the consent page, the signed-in user reads the details and approves (or denies) with supabase-js, and the
 * client exchanges the code; a second authorization of the same scopes is answered with the redirect at once
 * (already consented), and the errors come back as supabase-js's AuthApiError with GoTrue's codes. The user's
 * grants through `auth.oauth.listGrants` and `revokeGrant` (`oauthserver/handlers.go`): an approved client is
 * listed with its scopes; revoking it removes it, refuses the client's refresh token and asks for consent again.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { decodeJwt } from "jose";
import { createHash } from "node:crypto";
import type { CreatedAccount } from "../../scripts/lib/accounts.ts";
import { localJwtSecret, localPublishableKey, sessionToken } from "../../platform/secrets.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const redirectUri = "http://localhost:8976/oauth/callback";
const appOrigin = "http://localhost:3000";

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The app's supabase-js client, signed in as `account` (its session in the client's storage, as after sign-in). */
async function appClient(
  stack: TestStack,
  account: CreatedAccount | null,
  { origin = appOrigin, secret = Deno.env.get("AUTH_JWT_SECRET") ?? localJwtSecret } = {},
): Promise<SupabaseClient> {
  const items = new Map<string, string>();
  if (account) {
    const accessToken = await sessionToken({ id: account.user_id, email: account.email }, {
      secret,
      supabaseUrl: stack.gateway.url,
    });
    const expiresAt = Number(decodeJwt(accessToken).exp);
    items.set(
      "consent-test",
      JSON.stringify({
        access_token: accessToken,
        refresh_token: "not-used-in-this-test",
        token_type: "bearer",
        expires_in: expiresAt - Math.floor(Date.now() / 1000),
        expires_at: expiresAt,
        user: {
          id: account.user_id,
          email: account.email,
          aud: "authenticated",
          app_metadata: {},
          user_metadata: {},
        },
      }),
    );
  }
  return createClient(stack.gateway.url, localPublishableKey, {
    auth: {
      storageKey: "consent-test",
      storage: {
        getItem: (key) => items.get(key) ?? null,
        setItem: (key, value) => void items.set(key, value),
        removeItem: (key) => void items.delete(key),
      },
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
    // A browser on the app's origin sends this; Supabase Auth checks it against the Site URL and redirect URLs.
    global: { headers: { Origin: origin } },
  });
}

/**
 * The app's supabase-js client after a real sign-up (confirmations are off locally): its token names a
 * session of the stand-in, as `/user/...` asks (a minted token's made-up session is `session_not_found`).
 */
async function signedUpClient(stack: TestStack): Promise<{ app: SupabaseClient; userId: string }> {
  const app = createClient(stack.gateway.url, localPublishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { Origin: appOrigin } },
  });
  const { data, error } = await app.auth.signUp({
    email: uniqueEmail("grants"),
    password: "Grants-test-9-pass",
  });
  assertEquals(error, null);
  assert(data.session, "signed in at once");
  return { app, userId: data.user!.id };
}

interface RegisteredClient {
  client_id: string;
  client_name: string;
}

async function registerClient(stack: TestStack): Promise<RegisteredClient> {
  const response = await fetch(`${stack.gateway.url}/auth/v1/oauth/clients/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Consent test assistant",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  assertEquals(response.status, 201, await response.clone().text());
  return await response.json();
}

/** The browser's GET /oauth/authorize: the id of the authorization the consent page is sent with. */
async function startAuthorization(
  stack: TestStack,
  client: RegisteredClient,
  state: string,
): Promise<{ id: string; verifier: string }> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const url = new URL(`${stack.gateway.url}/auth/v1/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid email",
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }).toString();
  const response = await fetch(url, { redirect: "manual" });
  assertEquals(response.status, 302);
  const consentPage = new URL(response.headers.get("location")!);
  assertEquals(consentPage.origin + consentPage.pathname, `${appOrigin}/oauth/consent`);
  return { id: consentPage.searchParams.get("authorization_id")!, verifier };
}

async function exchange(
  stack: TestStack,
  client: RegisteredClient,
  code: string,
  verifier: string,
): Promise<Response> {
  return await fetch(`${stack.gateway.url}/auth/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
    }),
  });
}

Deno.test(
  "consent with supabase-js: details, approve, the code exchanged; consented scopes redirect at once",
  options,
  async () => {
    const stack = await startStack();
    try {
      const account = await stack.account("pro");
      const client = await registerClient(stack);
      const app = await appClient(stack, account);

      const first = await startAuthorization(stack, client, "state-one");
      const details = await app.auth.oauth.getAuthorizationDetails(first.id);
      assertEquals(details.error, null);
      assertEquals(details.data, {
        authorization_id: first.id,
        redirect_uri: redirectUri,
        client: { id: client.client_id, name: "Consent test assistant" },
        user: { id: account.user_id, email: account.email },
        scope: "openid email",
      });

      const approved = await app.auth.oauth.approveAuthorization(first.id, { skipBrowserRedirect: true });
      assertEquals(approved.error, null);
      const back = new URL(approved.data!.redirect_url);
      assertEquals(back.origin + back.pathname, redirectUri);
      assertEquals(back.searchParams.get("state"), "state-one");
      const code = back.searchParams.get("code")!;
      assertMatch(code, /^[0-9a-f-]{36}$/);

      // Approving again: the authorization is no longer pending.
      const twice = await app.auth.oauth.approveAuthorization(first.id, { skipBrowserRedirect: true });
      assertEquals(twice.data, null);
      assertEquals(twice.error?.status, 400);
      assertEquals(twice.error?.code, "validation_failed");
      assertEquals(twice.error?.message, "authorization request is no longer pending");

      const tokens = await exchange(stack, client, code, first.verifier);
      assertEquals(tokens.status, 200, await tokens.clone().text());
      const body = await tokens.json();
      const claims = decodeJwt(body.access_token);
      assertEquals(claims.sub, account.user_id);
      assertEquals(claims.client_id, client.client_id);
      assertEquals((await exchange(stack, client, code, first.verifier)).status, 400, "a code is used once");
      // An exchanged authorization is gone (Supabase Auth deletes it): the consent page finds nothing.
      const exchanged = await app.auth.oauth.getAuthorizationDetails(first.id);
      assertEquals(exchanged.error?.status, 404);

      // Already consented to these scopes: the details call answers with the redirect only, and it carries a code.
      const second = await startAuthorization(stack, client, "state-two");
      const again = await app.auth.oauth.getAuthorizationDetails(second.id);
      assertEquals(again.error, null);
      assertEquals(Object.keys(again.data!), ["redirect_url"]);
      const againUrl = new URL((again.data as { redirect_url: string }).redirect_url);
      assertEquals(againUrl.searchParams.get("state"), "state-two");
      const againTokens = await exchange(stack, client, againUrl.searchParams.get("code")!, second.verifier);
      assertEquals(againTokens.status, 200, await againTokens.clone().text());
      await againTokens.body?.cancel();
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "consent with supabase-js: deny, another user's authorization, unknown ids, no session",
  options,
  async () => {
    const stack = await startStack();
    try {
      const account = await stack.account("free");
      const other = await stack.account("pro");
      const client = await registerClient(stack);
      const app = await appClient(stack, account);
      const otherApp = await appClient(stack, other);

      const denied = await startAuthorization(stack, client, "state-deny");
      assertEquals((await app.auth.oauth.getAuthorizationDetails(denied.id)).error, null);
      // The authorization is bound to the first user who loaded it: another user does not find it.
      const stolen = await otherApp.auth.oauth.getAuthorizationDetails(denied.id);
      assertEquals(stolen.error?.status, 404);
      assertEquals(stolen.error?.code, "oauth_authorization_not_found");
      const stolenApproval = await otherApp.auth.oauth.approveAuthorization(denied.id, {
        skipBrowserRedirect: true,
      });
      assertEquals(stolenApproval.error?.status, 404);

      const result = await app.auth.oauth.denyAuthorization(denied.id, { skipBrowserRedirect: true });
      assertEquals(result.error, null);
      const back = new URL(result.data!.redirect_url);
      assertEquals(back.origin + back.pathname, redirectUri);
      assertEquals(back.searchParams.get("error"), "access_denied");
      assertEquals(back.searchParams.get("error_description"), "User denied the request");
      assertEquals(back.searchParams.get("state"), "state-deny");
      assert(!back.searchParams.has("code"), "a denial carries no code");
      const afterDeny = await app.auth.oauth.approveAuthorization(denied.id, { skipBrowserRedirect: true });
      assertEquals(afterDeny.error?.code, "validation_failed");

      // A denial stores no consent: the next authorization asks again.
      const next = await startAuthorization(stack, client, "state-next");
      const nextDetails = await app.auth.oauth.getAuthorizationDetails(next.id);
      assertEquals((nextDetails.data as { authorization_id?: string }).authorization_id, next.id);

      const unknown = await app.auth.oauth.getAuthorizationDetails("no-such-authorization");
      assertEquals(unknown.error?.status, 404);
      assertEquals(unknown.error?.code, "oauth_authorization_not_found");

      // GoTrue's answers to a bad caller: a forged token, a deleted user, a page on a foreign origin.
      const forged = await appClient(stack, account, { secret: "not-the-project-secret-not-the-project" });
      const forgedResult = await forged.auth.oauth.getAuthorizationDetails(next.id);
      assertEquals(forgedResult.error?.status, 403);
      assertEquals(forgedResult.error?.code, "bad_jwt");
      const foreign = await appClient(stack, account, { origin: "https://evil.example" });
      const foreignResult = await foreign.auth.oauth.approveAuthorization(next.id, {
        skipBrowserRedirect: true,
      });
      assertEquals(foreignResult.error?.status, 400);
      assertEquals(foreignResult.error?.message, "unauthorized request origin");
      const gone = await stack.account("free");
      const goneApp = await appClient(stack, gone);
      await stack.sql`delete from auth.users where id = ${gone.user_id}`;
      const goneResult = await goneApp.auth.oauth.getAuthorizationDetails(next.id);
      assertEquals(goneResult.error?.status, 403);
      assertEquals(goneResult.error?.code, "user_not_found");
      assertEquals(
        (nextDetails.data as { authorization_id?: string }).authorization_id,
        ((await app.auth.oauth.getAuthorizationDetails(next.id)).data as { authorization_id?: string })
          .authorization_id,
        "none of them took the authorization",
      );

      const signedOut = await appClient(stack, null);
      const missing = await signedOut.auth.oauth.getAuthorizationDetails(next.id);
      assertEquals(missing.error?.name, "AuthSessionMissingError");
    } finally {
      await stack.close();
    }
  },
);

async function refreshWith(
  stack: TestStack,
  client: RegisteredClient,
  refreshToken: string,
): Promise<Response> {
  return await fetch(`${stack.gateway.url}/auth/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.client_id,
    }),
  });
}

Deno.test(
  "grants with supabase-js: an approved client is listed; revoking it refuses its refresh token",
  options,
  async () => {
    const stack = await startStack();
    try {
      const { app, userId } = await signedUpClient(stack);
      const { app: otherApp } = await signedUpClient(stack);
      const client = await registerClient(stack);

      const none = await app.auth.oauth.listGrants();
      assertEquals(none.error, null);
      assertEquals(none.data, []);

      const before = Date.now();
      const started = await startAuthorization(stack, client, "state-grant");
      assertEquals((await app.auth.oauth.getAuthorizationDetails(started.id)).error, null);
      const approved = await app.auth.oauth.approveAuthorization(started.id, { skipBrowserRedirect: true });
      assertEquals(approved.error, null);
      const code = new URL(approved.data!.redirect_url).searchParams.get("code")!;
      const tokens = await exchange(stack, client, code, started.verifier);
      assertEquals(tokens.status, 200, await tokens.clone().text());
      const { refresh_token: refreshToken } = await tokens.json();

      const listed = await app.auth.oauth.listGrants();
      assertEquals(listed.error, null);
      assertEquals(listed.data!.length, 1);
      const [grant] = listed.data!;
      assertEquals(grant.client, { id: client.client_id, name: "Consent test assistant" });
      assertEquals(grant.scopes, ["openid", "email"]);
      const grantedAt = Date.parse(grant.granted_at);
      assert(grantedAt >= before - 1000 && grantedAt <= Date.now() + 1000, `granted_at ${grant.granted_at}`);
      assertEquals((await otherApp.auth.oauth.listGrants()).data, [], "another user's grants are not shown");

      // Another user cannot revoke it, and bad client ids are GoTrue's 400s.
      const foreign = await otherApp.auth.oauth.revokeGrant({ clientId: client.client_id });
      assertEquals(foreign.error?.status, 404);
      assertEquals(foreign.error?.code, "oauth_consent_not_found");
      const malformed = await app.auth.oauth.revokeGrant({ clientId: "not-a-uuid" });
      assertEquals(malformed.error?.status, 400);
      assertEquals(malformed.error?.code, "validation_failed");
      assertEquals(malformed.error?.message, "invalid client_id format");
      const empty = await app.auth.oauth.revokeGrant({ clientId: "" });
      assertEquals(empty.error?.status, 400);
      assertEquals(empty.error?.message, "client_id query parameter is required");

      // The refresh token works until the grant is revoked (rotation hands a new one).
      const refreshed = await refreshWith(stack, client, refreshToken);
      assertEquals(refreshed.status, 200, await refreshed.clone().text());
      const { refresh_token: current } = await refreshed.json();

      const revoked = await app.auth.oauth.revokeGrant({ clientId: client.client_id });
      assertEquals(revoked.error, null);
      assertEquals(revoked.data, {});
      assertEquals((await app.auth.oauth.listGrants()).data, []);
      const refused = await refreshWith(stack, client, current);
      assertEquals(refused.status, 400);
      assertEquals((await refused.json()).error_code, "refresh_token_not_found");
      const again = await app.auth.oauth.revokeGrant({ clientId: client.client_id });
      assertEquals(again.error?.status, 404);
      assertEquals(again.error?.message, "No active grant found for this client");

      // Revoked: the next authorization asks for consent again.
      const next = await startAuthorization(stack, client, "state-after-revoke");
      const nextDetails = await app.auth.oauth.getAuthorizationDetails(next.id);
      assertEquals((nextDetails.data as { authorization_id?: string }).authorization_id, next.id);

      const account = { user_id: userId, email: "", plan: "free" as const, api_key: null };
      const forged = await appClient(stack, account, { secret: "not-the-project-secret-not-the-project" });
      const forgedList = await forged.auth.oauth.listGrants();
      assertEquals(forgedList.error?.status, 403);
      assertEquals(forgedList.error?.code, "bad_jwt");
      const signedOut = await appClient(stack, null);
      assertEquals((await signedOut.auth.oauth.listGrants()).error?.name, "AuthSessionMissingError");
      const noKey = await fetch(`${stack.gateway.url}/auth/v1/user/oauth/grants`);
      assertEquals(noKey.status, 401, "the gateway asks for an API key");
      await noKey.body?.cancel();
    } finally {
      await stack.close();
    }
  },
);
