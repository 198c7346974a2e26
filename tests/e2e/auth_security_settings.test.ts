/**
 * The Auth settings the project ships (supabase/config.toml, docs/deploy.md "Auth security settings") as the
 * stand-in enforces them, the way GoTrue does (what auth-js's suite taught, with this project's values):
 * reauthentication before a password change in an old session (the mailed nonce), the current password,
 * anonymous sign-ins and manual linking off; and MFA with TOTP when a project turns it on (enrol, challenge,
 * verify to aal2, a password change then needing aal2, unenrol).
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { totpCode } from "../../platform/auth/totp.ts";
import { allMails } from "../../platform/mailbox/store.ts";
import { localPublishableKey } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const password = "Settings-pass-4";

async function signedUp(
  stack: TestStack,
): Promise<{ client: SupabaseClient; email: string; userId: string }> {
  const client = createClient(stack.gateway.url, localPublishableKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const email = uniqueEmail("settings");
  const { data, error } = await client.auth.signUp({ email, password });
  assertEquals(error, null);
  return { client, email, userId: data.user!.id };
}

Deno.test(
  "auth settings: a password change in a day-old session needs the mailed nonce and the current password",
  options,
  async () => {
    const stack = await startStack();
    try {
      const { client, email, userId } = await signedUp(stack);
      await stack
        .sql`update auth.sessions set created_at = now() - interval '25 hours' where user_id = ${userId}`;
      const noNonce = await client.auth.updateUser({
        password: "Changed-pass-5",
        current_password: password,
      });
      assertEquals([noNonce.error?.status, noNonce.error?.code], [400, "reauthentication_needed"]);
      assertEquals((await client.auth.reauthenticate()).error, null);
      const mail = allMails().find((one) =>
        one.To[0]?.Address === email && one.Subject === "Confirm reauthentication"
      );
      const nonce = mail!.Text.match(/\d{6}/)![0];
      const wrongNonce = await client.auth.updateUser({
        password: "Changed-pass-5",
        current_password: password,
        nonce: nonce === "000000" ? "111111" : "000000",
      });
      assertEquals([wrongNonce.error?.status, wrongNonce.error?.code], [422, "reauthentication_not_valid"]);
      const noCurrent = await client.auth.updateUser({ password: "Changed-pass-5", nonce });
      assertEquals(noCurrent.error?.code, "current_password_required");
      const changed = await client.auth.updateUser({
        password: "Changed-pass-5",
        current_password: password,
        nonce,
      });
      assertEquals(changed.error, null);
      const reused = await client.auth.updateUser({
        password: "Changed-pass-6",
        current_password: "Changed-pass-5",
        nonce,
      });
      assertEquals(reused.error?.code, "reauthentication_not_valid", "a nonce is used once");
    } finally {
      await stack.close();
    }
  },
);

Deno.test("auth settings: anonymous sign-ins and manual linking are off", options, async () => {
  const stack = await startStack();
  try {
    const { client } = await signedUp(stack);
    const anonymous = await createClient(stack.gateway.url, localPublishableKey, {
      auth: { persistSession: false },
    })
      .auth.signInAnonymously();
    assertEquals([anonymous.error?.status, anonymous.error?.code], [422, "anonymous_provider_disabled"]);
    const identities = (await client.auth.getUserIdentities()).data!.identities;
    const unlink = await client.auth.unlinkIdentity(identities[0]);
    assertEquals([unlink.error?.status, unlink.error?.code], [404, "manual_linking_disabled"]);
  } finally {
    await stack.close();
  }
});

Deno.test("auth settings: MFA with TOTP where a project turns it on", options, async () => {
  const stack = await startStack({
    GOTRUE_MFA_TOTP_ENROLL_ENABLED: "true",
    GOTRUE_MFA_TOTP_VERIFY_ENABLED: "true",
  });
  try {
    const { client } = await signedUp(stack);
    const enrolled = await client.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone app" });
    assertEquals(enrolled.error, null);
    const factorId = enrolled.data!.id;
    const secret = enrolled.data!.totp.secret;
    assert(enrolled.data!.totp.uri.startsWith("otpauth://totp/"));
    const taken = await client.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone app" });
    assertEquals(taken.error?.code, "mfa_factor_name_conflict");

    const wrong = await client.auth.mfa.challengeAndVerify({
      factorId,
      code: "000000" === totpCode(secret) ? "111111" : "000000",
    });
    assertEquals([wrong.error?.status, wrong.error?.message], [422, "Invalid TOTP code entered"]);
    const verified = await client.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret) });
    assertEquals(verified.error, null);
    const aal = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    assertEquals([aal.data?.currentLevel, aal.data?.nextLevel], ["aal2", "aal2"]);
    const factors = await client.auth.mfa.listFactors();
    assertEquals(factors.data?.totp.map((factor) => factor.id), [factorId]);

    // Another session at aal1 may not change the password while a factor is verified.
    const other = createClient(stack.gateway.url, localPublishableKey, { auth: { persistSession: false } });
    const user = (await client.auth.getUser()).data.user!;
    await other.auth.signInWithPassword({ email: user.email!, password });
    const aal1 = await other.auth.updateUser({ password: "Changed-pass-5", current_password: password });
    assertEquals([aal1.error?.status, aal1.error?.code], [401, "insufficient_aal"]);
    const unenrolAal1 = await other.auth.mfa.unenroll({ factorId });
    assertEquals(unenrolAal1.error?.code, "insufficient_aal");
    assertEquals((await client.auth.mfa.unenroll({ factorId })).error, null);
  } finally {
    await stack.close();
  }
});
