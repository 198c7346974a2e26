/**
 * What a connected assistant's token reaches at Supabase Auth (issue 40, point 1; docs/mcp.md, "What a
 * connected assistant can and cannot do"). A user signs up, an assistant registers, the user approves it on
 * the consent page's calls (supabase-js `auth.oauth.approveAuthorization`), the assistant exchanges the code:
 * its access token is a normal session of the user, a row of `auth.sessions` with `oauth_client_id`, as on
 * hosted, so `/auth/v1/user` answers it. With the project's settings (supabase/config.toml and the current
 * password required, docs/deploy.md):
 * - refused: a password change (400 `current_password_required`), an address change without the owner's
 *   mailbox (both addresses must confirm: the address stays), MFA enrolment (422, TOTP off), refreshing the
 *   session at the user's token endpoint (only its client may, at /oauth/token);
 * - reachable, listed in docs/mcp.md: reading the user, user_metadata, a reauthentication mail to the owner,
 *   revoking its own grant, signing the user out everywhere.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { decodeJwt } from "jose";
import { createHash } from "node:crypto";
import { allMails } from "../../platform/mailbox/store.ts";
import { localPublishableKey } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const redirectUri = "http://localhost:8976/oauth/callback";
const appOrigin = "http://localhost:3000";
const password = "Owner-pass-7-secret";

interface Assistant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

/** The owner's app client after a real sign-up, and an assistant approved by the owner through the OAuth flow. */
async function approvedAssistant(
  stack: TestStack,
): Promise<{ app: SupabaseClient; userId: string; email: string; assistant: Assistant }> {
  const email = uniqueEmail("owner");
  const app = createClient(stack.gateway.url, localPublishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { Origin: appOrigin } },
  });
  const signedUp = await app.auth.signUp({ email, password });
  assertEquals(signedUp.error, null);
  const registered = await fetch(`${stack.gateway.url}/auth/v1/oauth/clients/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Assistant under test",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    }),
  });
  assertEquals(registered.status, 201);
  const clientId = (await registered.json()).client_id as string;
  const verifier = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/[+/=]/g, "x");
  const authorize = new URL(`${stack.gateway.url}/auth/v1/oauth/authorize`);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "email",
    state: "s",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }).toString();
  const toConsent = await fetch(authorize, { redirect: "manual" });
  assertEquals(toConsent.status, 302);
  const authorizationId = new URL(toConsent.headers.get("location")!).searchParams.get("authorization_id")!;
  assertEquals((await app.auth.oauth.getAuthorizationDetails(authorizationId)).error, null);
  const approved = await app.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
  assertEquals(approved.error, null);
  const code = new URL(approved.data!.redirect_url).searchParams.get("code")!;
  const exchanged = await fetch(`${stack.gateway.url}/auth/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  assertEquals(exchanged.status, 200, await exchanged.clone().text());
  const tokens = await exchanged.json();
  return {
    app,
    userId: signedUp.data.user!.id,
    email,
    assistant: { clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
  };
}

async function asAssistant(
  stack: TestStack,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; code?: string; json: Record<string, unknown> }> {
  const response = await fetch(`${stack.gateway.url}/auth/v1${path}`, {
    method,
    headers: {
      apikey: localPublishableKey,
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-supabase-api-version": "2024-01-01",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  return { status: response.status, code: json.code ?? json.error, json };
}

Deno.test(
  "an assistant's token at Supabase Auth: a normal session, password and email changes refused",
  options,
  async () => {
    const stack = await startStack();
    try {
      const { userId, email, assistant } = await approvedAssistant(stack);
      const claims = decodeJwt(assistant.accessToken);
      assertEquals([claims.sub, claims.client_id], [userId, assistant.clientId]);

      // Stored as GoTrue stores it: a session of the user with the client's id.
      const [session] = await stack.sql<{ user_id: string; oauth_client_id: string }[]>`
      select user_id, oauth_client_id from auth.sessions where id = ${String(claims.session_id)}`;
      assertEquals([session?.user_id, session?.oauth_client_id], [userId, assistant.clientId]);

      // As on hosted, /user answers the token (it is a valid session).
      const user = await asAssistant(stack, assistant.accessToken, "GET", "/user");
      assertEquals([user.status, user.json.email], [200, email]);

      // Refused: a password change without the current password (which the assistant does not know).
      const pass = await asAssistant(stack, assistant.accessToken, "PUT", "/user", {
        password: "Taken-over-1",
      });
      assertEquals([pass.status, pass.code], [400, "current_password_required"]);
      const guessed = await asAssistant(stack, assistant.accessToken, "PUT", "/user", {
        password: "Taken-over-1",
        current_password: "a-guess",
      });
      assertEquals([guessed.status, guessed.code], [400, "current_password_invalid"]);
      const signIn = await createClient(stack.gateway.url, localPublishableKey, {
        auth: { persistSession: false },
      }).auth.signInWithPassword({ email, password });
      assertEquals(signIn.error, null, "the owner's password is unchanged");

      // An address change: both addresses must confirm, so the account keeps the owner's address.
      const newEmail = uniqueEmail("attacker");
      const change = await asAssistant(stack, assistant.accessToken, "PUT", "/user", { email: newEmail });
      assertEquals(change.status, 200);
      assertEquals([change.json.email, change.json.new_email], [email, newEmail]);
      assert(allMails().some((mail) => mail.To.some((to) => to.Address === email)), "the owner is asked too");
      const [row] = await stack.sql<{ email: string }[]>`select email from auth.users where id = ${userId}`;
      assertEquals(row.email, email);

      // MFA enrolment is off for the project, so no factor can lock the owner out.
      const enrol = await asAssistant(stack, assistant.accessToken, "POST", "/factors", {
        factor_type: "totp",
      });
      assertEquals([enrol.status, enrol.code], [422, "mfa_totp_enroll_not_enabled"]);

      // The user's own token endpoint refuses to refresh the assistant's session (only its client may).
      const refresh = await fetch(`${stack.gateway.url}/auth/v1/token?grant_type=refresh_token`, {
        method: "POST",
        headers: { apikey: localPublishableKey, "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: assistant.refreshToken }),
      });
      assertEquals([refresh.status, (await refresh.json()).error], [400, "invalid_client"]);
    } finally {
      await stack.close();
    }
  },
);

Deno.test("an assistant's token at Supabase Auth: what stays reachable (docs/mcp.md)", options, async () => {
  const stack = await startStack();
  try {
    const { app, email, assistant } = await approvedAssistant(stack);
    const metadata = await asAssistant(stack, assistant.accessToken, "PUT", "/user", { data: { note: "x" } });
    assertEquals([metadata.status, (metadata.json.user_metadata as Record<string, unknown>).note], [
      200,
      "x",
    ]);
    const reauth = await asAssistant(stack, assistant.accessToken, "GET", "/reauthenticate");
    assertEquals(reauth.status, 200, "a code is mailed to the owner (the assistant cannot read it)");
    assert(
      allMails().some((mail) =>
        mail.To.some((to) => to.Address === email) && mail.Subject.includes("reauth")
      ),
    );
    const grants = await asAssistant(stack, assistant.accessToken, "GET", "/user/oauth/grants");
    assertEquals(grants.status, 200);
    // Sign-out everywhere ends the owner's sessions too (and the assistant's own).
    const owner = (await app.auth.getSession()).data.session!;
    const out = await asAssistant(stack, assistant.accessToken, "POST", "/logout?scope=global");
    assertEquals(out.status, 204);
    const ownerAfter = await asAssistant(stack, owner.access_token, "GET", "/user");
    assertEquals([ownerAfter.status, ownerAfter.code], [403, "session_not_found"]);
  } finally {
    await stack.close();
  }
});
