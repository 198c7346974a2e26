/**
 * The local Auth stand-in end to end, driven by supabase-js itself (the version in import_map.json) against
 * the real gateway and database, with the local mailbox read through its Mailpit API: sign-up (with and
 * without confirmations), sign-in by password and by magic link (link and 6-digit code, implicit and PKCE),
 * refresh-token rotation and reuse, get/update user, sign-out scopes, recovery, invitations into the mailbox,
 * GoTrue's error codes and statuses, the mail rate limits, and a session token verified by a function through
 * the JWKS.
 */
import { createClient, type Session, type SupabaseClient } from "@supabase/supabase-js";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { type RunningMailbox, startMailbox } from "../../platform/mailbox/server.ts";
import { localPublishableKey, localSecretKey } from "../../platform/secrets.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const password = "correct-horse-1";

interface MailSummary {
  ID: string;
  Subject: string;
  To: { Name: string; Address: string }[];
  Snippet: string;
  Created: string;
}

function client(stack: TestStack, flowType: "implicit" | "pkce" = "implicit"): SupabaseClient {
  return createClient(stack.gateway.url, localPublishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType },
  });
}

async function mailsTo(mailbox: RunningMailbox, email: string): Promise<MailSummary[]> {
  const response = await fetch(`${mailbox.url}/api/v1/search?query=${encodeURIComponent(`to:${email}`)}`);
  return (await response.json()).messages;
}

async function latestMail(
  mailbox: RunningMailbox,
  email: string,
): Promise<{ Subject: string; Text: string; HTML: string; link: string; code: string }> {
  const [summary] = await mailsTo(mailbox, email);
  assert(summary, `a mail to ${email}`);
  const mail = await (await fetch(`${mailbox.url}/api/v1/message/${summary.ID}`)).json();
  const link = mail.Text.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0];
  const code = mail.Text.match(/code: (\d{6})/)?.[1];
  assert(link && code, mail.Text);
  return { ...mail, link, code };
}

function fragmentOf(location: string): URLSearchParams {
  return new URLSearchParams(location.split("#")[1] ?? "");
}

async function withEnv<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, Deno.env.get(name)]));
  for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
  try {
    return await work();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

async function authPost(
  stack: TestStack,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.gateway.url}/auth/v1${path}`, {
    method: "POST",
    headers: {
      apikey: localPublishableKey,
      "content-type": "application/json",
      "x-supabase-api-version": "2024-01-01",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** GET /auth/v1/user with a token: its status and GoTrue error code. */
async function userStatus(stack: TestStack, token: string): Promise<[number, string | undefined]> {
  const response = await fetch(`${stack.gateway.url}/auth/v1/user`, {
    headers: {
      apikey: localPublishableKey,
      authorization: `Bearer ${token}`,
      "x-supabase-api-version": "2024-01-01",
    },
  });
  const body = await response.json();
  return [response.status, response.ok ? undefined : body.code];
}

Deno.test("Auth stand-in: supabase-js signs up, in and out against the local stack", options, async (t) => {
  const stack = await startStack();
  const mailbox = startMailbox({ port: 0 });
  try {
    let session!: Session;
    const email = uniqueEmail("signup");

    await t.step(
      "sign-up without confirmations: a session at once, a Free profile, a bcrypt hash",
      async () => {
        const { data, error } = await client(stack).auth.signUp({
          email,
          password,
          options: { data: { name: "A" } },
        });
        assertEquals(error, null);
        assert(data.session, "a session");
        session = data.session;
        assertEquals(data.user?.email, email);
        assertEquals(data.user?.user_metadata.name, "A");
        assertEquals(data.user?.identities?.[0].provider, "email");
        const [row] = await stack.sql<{ encrypted_password: string; plan_id: string }[]>`
        select u.encrypted_password, p.plan_id from auth.users u join public.profiles p on p.id = u.id
         where u.email = ${email}`;
        assertMatch(row.encrypted_password, /^\$2a\$10\$/);
        assertEquals(row.plan_id, "free");
        assertEquals((await mailsTo(mailbox, email)).length, 0, "no confirmation mail");
      },
    );

    await t.step(
      "concurrent sign-ups of one address: exactly one account, the rest user_already_exists",
      async () => {
        const racing = uniqueEmail("race");
        const results = await Promise.all(
          Array.from({ length: 5 }, () => client(stack).auth.signUp({ email: racing, password })),
        );
        assertEquals(results.filter((result) => result.data.session).length, 1);
        for (const result of results.filter((result) => !result.data.session)) {
          assertEquals([result.error?.status, result.error?.code], [422, "user_already_exists"]);
        }
        const [{ count }] = await stack.sql<{ count: string }[]>`
        select count(*) from auth.users where email = ${racing}`;
        assertEquals(count, "1");
      },
    );

    await t.step("the session token carries hosted's claims, ES256 with a kid of the JWKS", async () => {
      const header = decodeProtectedHeader(session.access_token);
      assertEquals(header.alg, "ES256");
      const jwks = await (await fetch(`${stack.gateway.url}/auth/v1/.well-known/jwks.json`)).json();
      assert(jwks.keys.some((key: { kid: string }) => key.kid === header.kid), "kid listed");
      const claims = decodeJwt(session.access_token);
      assertEquals(claims.iss, `${stack.gateway.url}/auth/v1`);
      assertEquals(claims.sub, session.user.id);
      assertEquals(claims.aud, "authenticated");
      assertEquals(claims.role, "authenticated");
      assertEquals(claims.email, email);
      assertEquals(claims.phone, "");
      assertEquals(claims.aal, "aal1");
      assertEquals(claims.is_anonymous, false);
      assertEquals((claims.amr as { method: string }[])[0].method, "password");
      assertEquals((claims.app_metadata as Record<string, unknown>).provider, "email");
      assertEquals((claims.user_metadata as Record<string, unknown>).name, "A");
      assert(
        typeof claims.session_id === "string" && typeof claims.exp === "number" &&
          typeof claims.iat === "number",
      );
    });

    await t.step("supabase-js verifies the session token itself through the JWKS (getClaims)", async () => {
      const { data, error } = await client(stack).auth.getClaims(session.access_token);
      assertEquals(error, null);
      assertEquals(data?.claims.sub, session.user.id);
      assertEquals(data?.header.alg, "ES256");
    });

    await t.step("a function verifies the session token through the JWKS (export-account)", async () => {
      const response = await fetch(`${stack.functionsBase}/export-account`, {
        method: "POST",
        headers: { authorization: `Bearer ${session.access_token}` },
      });
      assertEquals(response.status, 200, await response.clone().text());
      await response.body?.cancel();
    });

    await t.step(
      "sign-up errors: user_already_exists 422, weak_password 422 with reasons, bad address 400",
      async () => {
        const again = await client(stack).auth.signUp({ email, password });
        assertEquals([again.error?.status, again.error?.code], [422, "user_already_exists"]);
        assertEquals(again.error?.message, "User already registered");
        const weak = await client(stack).auth.signUp({ email: uniqueEmail("weak"), password: "abc" });
        assertEquals([weak.error?.status, weak.error?.code], [422, "weak_password"]);
        assertEquals((weak.error as unknown as { reasons: string[] }).reasons, ["length"]);
        const bad = await client(stack).auth.signUp({ email: "not-an-address", password });
        assertEquals([bad.error?.status, bad.error?.code], [400, "validation_failed"]);
        const raw = await authPost(stack, "/signup", { email: uniqueEmail("raw"), password: "abc" });
        assertEquals(raw.body, {
          code: "weak_password",
          message: "Password should be at least 6 characters.",
          weak_password: { reasons: ["length"] },
        });
      },
    );

    await t.step(
      "password sign-in: invalid_credentials 400 for a wrong password or an unknown address",
      async () => {
        const wrong = await client(stack).auth.signInWithPassword({ email, password: "wrong-password" });
        assertEquals([wrong.error?.status, wrong.error?.code], [400, "invalid_credentials"]);
        assertEquals(wrong.error?.message, "Invalid login credentials");
        const unknown = await client(stack).auth.signInWithPassword({
          email: uniqueEmail("nobody"),
          password,
        });
        assertEquals([unknown.error?.status, unknown.error?.code], [400, "invalid_credentials"]);
        const { data, error } = await client(stack).auth.signInWithPassword({ email, password });
        assertEquals(error, null);
        assert(data.session && data.session.refresh_token !== session.refresh_token);
        session = data.session;
      },
    );

    await t.step(
      "refresh rotates the token; a rotated token is refused once it is not the latest's parent",
      async () => {
        const supabase = client(stack);
        const first = session.refresh_token;
        const refreshed = await supabase.auth.refreshSession({ refresh_token: first });
        assertEquals(refreshed.error, null);
        const second = refreshed.data.session!.refresh_token;
        assert(second !== first, "rotated");
        await withEnv({ GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "0" }, async () => {
          // The parent of the active token: its answer was lost, so the active token is answered again.
          const lost = await authPost(stack, "/token?grant_type=refresh_token", { refresh_token: first });
          assertEquals([lost.status, lost.body.refresh_token], [200, second]);
          const third = (await authPost(stack, "/token?grant_type=refresh_token", { refresh_token: second }))
            .body
            .refresh_token as string;
          const reused = await authPost(stack, "/token?grant_type=refresh_token", { refresh_token: first });
          assertEquals(reused.status, 400);
          assertEquals(reused.body, {
            code: "refresh_token_already_used",
            message: "Invalid Refresh Token: Already Used",
          });
          // Reuse revokes the whole session's tokens.
          const after = await authPost(stack, "/token?grant_type=refresh_token", { refresh_token: third });
          assertEquals([after.status, after.body.code], [400, "refresh_token_already_used"]);
        });
        const unknown = await authPost(stack, "/token?grant_type=refresh_token", {
          refresh_token: "abcdefghijkl",
        });
        assertEquals([unknown.status, unknown.body.code], [400, "refresh_token_not_found"]);
        const malformed = await authPost(stack, "/token?grant_type=refresh_token", {
          refresh_token: "short",
        });
        assertEquals([malformed.status, malformed.body.code], [400, "validation_failed"]);
        const grant = await authPost(stack, "/token?grant_type=client_credentials", {});
        assertEquals([grant.status, grant.body.code], [400, "invalid_credentials"]);
      },
    );

    await t.step("get and update the user; a password change ends the other sessions", async () => {
      const supabase = client(stack);
      const { data: signedIn } = await supabase.auth.signInWithPassword({ email, password });
      const other = (await client(stack).auth.signInWithPassword({ email, password })).data.session!;
      const got = await supabase.auth.getUser();
      assertEquals([got.error, got.data.user?.email], [null, email]);
      const updated = await supabase.auth.updateUser({ data: { name: "B", plan: "x" } });
      assertEquals(updated.error, null);
      assertEquals(updated.data.user?.user_metadata, { name: "B", plan: "x" });
      // The project requires the current password for a change (docs/deploy.md), as GoTrue checks it.
      const without = await supabase.auth.updateUser({ password: "another-pass-2" });
      assertEquals([without.error?.status, without.error?.code], [400, "current_password_required"]);
      const wrong = await supabase.auth.updateUser({
        password: "another-pass-2",
        current_password: "nope-nope",
      });
      assertEquals([wrong.error?.status, wrong.error?.code], [400, "current_password_invalid"]);
      const same = await supabase.auth.updateUser({ password, current_password: password });
      assertEquals([same.error?.status, same.error?.code], [422, "same_password"]);
      const weak = await supabase.auth.updateUser({ password: "abc" });
      assertEquals([weak.error?.status, weak.error?.code], [422, "weak_password"]);
      const changed = await supabase.auth.updateUser({
        password: "another-pass-2",
        current_password: password,
      });
      assertEquals(changed.error, null);
      const old = await client(stack).auth.signInWithPassword({ email, password });
      assertEquals(old.error?.code, "invalid_credentials");
      assertEquals(await userStatus(stack, other.access_token), [403, "session_not_found"]);
      // supabase-js reads session_not_found as "signed out".
      assertEquals(
        (await client(stack).auth.getUser(other.access_token)).error?.name,
        "AuthSessionMissingError",
      );
      assertEquals(
        (await supabase.auth.getUser(signedIn.session!.access_token)).error,
        null,
        "this session stays",
      );
      const appMeta = await fetch(`${stack.gateway.url}/auth/v1/user`, {
        method: "PUT",
        headers: { apikey: localPublishableKey, authorization: `Bearer ${signedIn.session!.access_token}` },
        body: JSON.stringify({ app_metadata: { plan: "enterprise" } }),
      });
      assertEquals(appMeta.status, 403);
      await appMeta.body?.cancel();
    });

    await t.step(
      "sign-out: local ends this session, global every session; the tokens stop working",
      async () => {
        const a = (await client(stack).auth.signInWithPassword({ email, password: "another-pass-2" })).data
          .session!;
        const b = (await client(stack).auth.signInWithPassword({ email, password: "another-pass-2" })).data
          .session!;
        const local = await fetch(`${stack.gateway.url}/auth/v1/logout?scope=local`, {
          method: "POST",
          headers: { apikey: localPublishableKey, authorization: `Bearer ${a.access_token}` },
        });
        assertEquals(local.status, 204);
        assertEquals(await userStatus(stack, a.access_token), [403, "session_not_found"]);
        assertEquals((await client(stack).auth.getUser(b.access_token)).error, null);
        const supabase = client(stack);
        await supabase.auth.setSession({ access_token: b.access_token, refresh_token: b.refresh_token });
        assertEquals((await supabase.auth.signOut()).error, null);
        assertEquals(await userStatus(stack, b.access_token), [403, "session_not_found"]);
        const refresh = await authPost(stack, "/token?grant_type=refresh_token", {
          refresh_token: b.refresh_token,
        });
        assertEquals([refresh.status, refresh.body.code], [400, "refresh_token_not_found"]);
        const scope = await fetch(`${stack.gateway.url}/auth/v1/logout?scope=everyone`, {
          method: "POST",
          headers: { apikey: localPublishableKey, authorization: `Bearer ${b.access_token}` },
        });
        assertEquals(scope.status, 400);
        await scope.body?.cancel();
        const bare = await fetch(`${stack.gateway.url}/auth/v1/user`, {
          headers: { apikey: localPublishableKey },
        });
        assertEquals([bare.status, (await bare.json()).error_code], [401, "no_authorization"]);
      },
    );

    await t.step(
      "magic link: a mail with link and 6-digit code; the code signs in once; 60 s between mails",
      async () => {
        const supabase = client(stack);
        const target = uniqueEmail("magic");
        assertEquals((await supabase.auth.signInWithOtp({ email: target })).error, null);
        const mail = await latestMail(mailbox, target);
        assertEquals(mail.Subject, "Your sign-in link");
        assert(mail.HTML.includes(mail.code), "the code is in the HTML too");
        const { data, error } = await supabase.auth.verifyOtp({
          email: target,
          token: mail.code,
          type: "email",
        });
        assertEquals(error, null);
        assertEquals(data.session?.user.email, target);
        assertEquals((decodeJwt(data.session!.access_token).amr as { method: string }[])[0].method, "otp");
        const again = await client(stack).auth.verifyOtp({ email: target, token: mail.code, type: "email" });
        assertEquals([again.error?.status, again.error?.code], [403, "otp_expired"]);
        const limited = await client(stack).auth.signInWithOtp({ email: target });
        assertEquals([limited.error?.status, limited.error?.code], [429, "over_email_send_rate_limit"]);
        assertMatch(
          limited.error!.message,
          /^For security purposes, you can only request this after \d+ seconds\.$/,
        );
        const noSignup = await client(stack).auth.signInWithOtp({
          email: uniqueEmail("nosignup"),
          options: { shouldCreateUser: false },
        });
        assertEquals([noSignup.error?.status, noSignup.error?.code], [422, "otp_disabled"]);
      },
    );

    await t.step(
      "magic link: the link redirects to the allowed redirect with the session in the fragment",
      async () => {
        const target = uniqueEmail("link");
        await client(stack).auth.signInWithOtp({
          email: target,
          options: { emailRedirectTo: "http://localhost:3000/welcome" },
        });
        const mail = await latestMail(mailbox, target);
        const followed = await fetch(mail.link, { redirect: "manual" });
        assertEquals(followed.status, 303);
        const location = followed.headers.get("location")!;
        assert(location.startsWith("http://localhost:3000/welcome#"), location);
        const fragment = fragmentOf(location);
        assertEquals(fragment.get("type"), "magiclink");
        assertEquals(fragment.get("token_type"), "bearer");
        const supabase = client(stack);
        const set = await supabase.auth.setSession({
          access_token: fragment.get("access_token")!,
          refresh_token: fragment.get("refresh_token")!,
        });
        assertEquals([set.error, set.data.user?.email], [null, target]);
        const reused = await fetch(mail.link, { redirect: "manual" });
        const error = fragmentOf(reused.headers.get("location")!);
        assertEquals([error.get("error"), error.get("error_code")], ["access_denied", "otp_expired"]);
        // A redirect outside the Site URL and the allow list falls back to the Site URL.
        const elsewhere = uniqueEmail("elsewhere");
        await client(stack).auth.signInWithOtp({
          email: elsewhere,
          options: { emailRedirectTo: "https://evil.test/" },
        });
        const foreign = await latestMail(mailbox, elsewhere);
        assert(foreign.link.endsWith("redirect_to=http://localhost:3000"), foreign.link);
      },
    );

    await t.step(
      "PKCE (flowType pkce): the link redirects with ?code=, exchanged once for a session",
      async () => {
        const supabase = client(stack, "pkce");
        const target = uniqueEmail("pkce");
        assertEquals((await supabase.auth.signInWithOtp({ email: target })).error, null);
        const mail = await latestMail(mailbox, target);
        assertMatch(mail.link, /token=pkce_/);
        const followed = await fetch(mail.link, { redirect: "manual" });
        const code = new URL(followed.headers.get("location")!).searchParams.get("code");
        assert(code, followed.headers.get("location")!);
        const exchanged = await supabase.auth.exchangeCodeForSession(code);
        assertEquals([exchanged.error, exchanged.data.session?.user.email], [null, target]);
        const twice = await authPost(stack, "/token?grant_type=pkce", {
          auth_code: code,
          code_verifier: "x".repeat(43),
        });
        assertEquals([twice.status, twice.body.code], [404, "flow_state_not_found"]);
      },
    );

    await t.step(
      "recovery: a mail for a registered address only; the code signs in to set a new password",
      async () => {
        const target = uniqueEmail("recover");
        await client(stack).auth.signUp({ email: target, password });
        assertEquals((await client(stack).auth.resetPasswordForEmail(target)).error, null);
        const unknown = uniqueEmail("unknown");
        assertEquals((await client(stack).auth.resetPasswordForEmail(unknown)).error, null);
        assertEquals((await mailsTo(mailbox, unknown)).length, 0);
        const mail = await latestMail(mailbox, target);
        assertEquals(mail.Subject, "Reset your password");
        const supabase = client(stack);
        const verified = await supabase.auth.verifyOtp({ email: target, token: mail.code, type: "recovery" });
        assertEquals(verified.error, null);
        assertEquals((await supabase.auth.updateUser({ password: "recovered-pass-3" })).error, null);
        const signedIn = await client(stack).auth.signInWithPassword({
          email: target,
          password: "recovered-pass-3",
        });
        assertEquals(signedIn.error, null);
      },
    );

    await t.step(
      "email change: mails to the new and the current address; confirmed, the address changes",
      async () => {
        const old = uniqueEmail("old");
        const supabase = client(stack);
        await supabase.auth.signUp({ email: old, password });
        const taken = await supabase.auth.updateUser({ email });
        assertEquals([taken.error?.status, taken.error?.code], [422, "email_exists"]);
        const fresh = uniqueEmail("new");
        const asked = await supabase.auth.updateUser({ email: fresh });
        assertEquals([asked.error, asked.data.user?.email, asked.data.user?.new_email], [null, old, fresh]);
        const toNew = await latestMail(mailbox, fresh);
        assertEquals(toNew.Subject, "Confirm your new email address");
        assertEquals((await mailsTo(mailbox, old)).length, 1, "the current address is told too");
        // Locally (no confirmations) one confirmation applies the change.
        const verified = await supabase.auth.verifyOtp({
          email: fresh,
          token: toNew.code,
          type: "email_change",
        });
        assertEquals([verified.error, verified.data.user?.email], [null, fresh]);
        const [profile] = await stack.sql<{ email: string }[]>`
        select p.email from public.profiles p join auth.users u on u.id = p.id where u.email = ${fresh}`;
        assertEquals(profile.email, fresh);
        assertEquals((await client(stack).auth.signInWithPassword({ email: fresh, password })).error, null);

        await withEnv({ GOTRUE_MAILER_AUTOCONFIRM: "false" }, async () => {
          const signedIn = client(stack);
          await signedIn.auth.signInWithPassword({ email: fresh, password });
          const third = uniqueEmail("third");
          assertEquals((await signedIn.auth.updateUser({ email: third })).error, null);
          const fromCurrent = await latestMail(mailbox, fresh);
          const fromNew = await latestMail(mailbox, third);
          const first = await authPost(stack, "/verify", {
            type: "email_change",
            email: fresh,
            token: fromCurrent.code,
          });
          assertEquals(first.body, {
            msg: "Confirmation link accepted. Please proceed to confirm link sent to the other email",
            code: "200",
          });
          const followed = await fetch(fromNew.link, { redirect: "manual" });
          const fragment = fragmentOf(followed.headers.get("location")!);
          assertEquals(fragment.get("type"), "email_change");
          assertEquals(
            (await client(stack).auth.getUser(fragment.get("access_token")!)).data.user?.email,
            third,
          );
        });
      },
    );

    await t.step(
      "with confirmations on: a confirmation mail, email_not_confirmed until the link is followed",
      async () => {
        await withEnv({ GOTRUE_MAILER_AUTOCONFIRM: "false" }, async () => {
          const target = uniqueEmail("confirm");
          const settings = await (await fetch(`${stack.gateway.url}/auth/v1/settings`, {
            headers: { apikey: localPublishableKey },
          })).json();
          assertEquals([settings.mailer_autoconfirm, settings.external.email], [false, true]);
          const { data, error } = await client(stack).auth.signUp({ email: target, password });
          assertEquals([error, data.session], [null, null]);
          assertEquals(data.user?.email, target);
          const early = await client(stack).auth.signInWithPassword({ email: target, password });
          assertEquals([early.error?.status, early.error?.code], [400, "email_not_confirmed"]);
          const resent = await client(stack).auth.signUp({ email: target, password });
          assertEquals([resent.error?.status, resent.error?.code], [429, "over_email_send_rate_limit"]);
          const resend = await client(stack).auth.resend({ type: "signup", email: target });
          assertEquals([resend.error?.status, resend.error?.code], [429, "over_email_send_rate_limit"]);
          assertEquals(
            (await client(stack).auth.resend({ type: "signup", email: uniqueEmail("none") })).error,
            null,
          );
          assertEquals((await mailsTo(mailbox, target)).length, 1, "one confirmation mail");
          const firstMail = await latestMail(mailbox, target);
          await withEnv({ GOTRUE_SMTP_MAX_FREQUENCY: "0s" }, async () => {
            assertEquals((await client(stack).auth.resend({ type: "signup", email: target })).error, null);
          });
          assertEquals((await mailsTo(mailbox, target)).length, 2, "resent");
          const replaced = await fetch(firstMail.link, { redirect: "manual" });
          assertEquals(
            fragmentOf(replaced.headers.get("location")!).get("error_code"),
            "otp_expired",
            "the new mail replaces the old link",
          );
          const mail = await latestMail(mailbox, target);
          assertEquals(mail.Subject, "Confirm your email address");
          const followed = await fetch(mail.link, { redirect: "manual" });
          assertEquals(followed.status, 303);
          assertEquals(fragmentOf(followed.headers.get("location")!).get("type"), "signup");
          const signedIn = await client(stack).auth.signInWithPassword({ email: target, password });
          assertEquals(signedIn.error, null);
          // A confirmed address signing up again gets a made-up user, not an error: nothing is revealed.
          const repeated = await client(stack).auth.signUp({ email: target, password });
          assertEquals(repeated.error, null);
          assert(repeated.data.user?.id !== signedIn.data.user?.id, "a made-up id");
        });
      },
    );

    await t.step(
      "the hourly mail limit ([auth.rate_limit] email_sent) while confirmations are on",
      async () => {
        await withEnv({ GOTRUE_MAILER_AUTOCONFIRM: "false", GOTRUE_RATE_LIMIT_EMAIL_SENT: "0" }, async () => {
          const limited = await client(stack).auth.resetPasswordForEmail(email);
          assertEquals([limited.error?.status, limited.error?.code], [429, "over_email_send_rate_limit"]);
          assertEquals(limited.error?.message, "email rate limit exceeded");
        });
      },
    );

    await t.step(
      "invitations (secret key) are delivered into the mailbox; the link signs the invitee in",
      async () => {
        const target = uniqueEmail("invitee");
        const refused = await authPost(stack, "/invite", { email: target });
        assertEquals(refused.status, 401, "a publishable key is not the service role");
        const invited = await authPost(stack, "/invite", { email: target }, {
          apikey: localSecretKey,
          authorization: `Bearer ${localSecretKey}`,
        });
        assertEquals(invited.status, 200);
        const mail = await latestMail(mailbox, target);
        assertEquals(mail.Subject, "You've been invited");
        const followed = await fetch(mail.link, { redirect: "manual" });
        assertEquals(fragmentOf(followed.headers.get("location")!).get("type"), "invite");
        const again = await authPost(stack, "/invite", { email: target }, { apikey: localSecretKey });
        assertEquals([again.status, again.body.code], [422, "email_exists"]);
      },
    );

    await t.step("the gateway asks for an API key; CORS for the app", async () => {
      const none = await fetch(`${stack.gateway.url}/auth/v1/settings`);
      assertEquals([none.status, (await none.json()).message], [401, "No API key found in request"]);
      const wrong = await fetch(`${stack.gateway.url}/auth/v1/settings`, {
        headers: { apikey: "sb_publishable_x" },
      });
      assertEquals([wrong.status, (await wrong.json()).message], [401, "Invalid API key"]);
      const preflight = await fetch(`${stack.gateway.url}/auth/v1/token?grant_type=password`, {
        method: "OPTIONS",
        headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
      });
      assertEquals(preflight.status, 204);
      assertEquals(preflight.headers.get("access-control-allow-origin"), "*");
      await preflight.body?.cancel();
    });

    await t.step("the mailbox serves Mailpit's API: list, message with Text and HTML, delete", async () => {
      const listing = await (await fetch(`${mailbox.url}/api/v1/messages`)).json();
      assert(
        listing.total > 0 && listing.count === listing.messages.length,
        JSON.stringify(listing).slice(0, 200),
      );
      const [first] = listing.messages as MailSummary[];
      assertEquals(Object.keys(first).sort(), [
        "Attachments",
        "Bcc",
        "Cc",
        "Created",
        "From",
        "ID",
        "MessageID",
        "Read",
        "ReplyTo",
        "Size",
        "Snippet",
        "Subject",
        "Tags",
        "To",
        "Username",
      ]);
      const message = await (await fetch(`${mailbox.url}/api/v1/message/${first.ID}`)).json();
      assert(typeof message.Text === "string" && message.HTML.includes("<a href="), "Text and HTML");
      const page = await fetch(`${mailbox.url}/`);
      assert((await page.text()).includes(first.Subject.replace("'", "&#39;")), "the page lists the mails");
      const deleted = await fetch(`${mailbox.url}/api/v1/messages`, { method: "DELETE" });
      assertEquals(await deleted.text(), "ok");
      assertEquals((await (await fetch(`${mailbox.url}/api/v1/messages`)).json()).total, 0);
    });
  } finally {
    await mailbox.close();
    await stack.close();
  }
});
