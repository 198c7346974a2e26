/**
 * `POST /auth/v1/otp` (email: a magic link with its 6-digit code; supabase/auth `otp.go`, `magic_link.go`)
 * and `POST /auth/v1/recover` (`recover.go`):
 * - `/otp` to an address with no confirmed user signs it up first (a random password), unless
 *   `create_user: false` (422 `otp_disabled` "Signups not allowed for otp"); with confirmations on, that new
 *   user gets a confirmation mail instead of a magic link, as GoTrue does;
 * - `/recover` answers `{}` whether or not the address is registered, and mails only a registered one;
 * - `POST /auth/v1/resend` (`resend.go`, type `signup`) mails the confirmation again to an unconfirmed user;
 *   an unknown or confirmed address gets `{}` and no mail;
 * - all honour `code_challenge` (PKCE) and the mail limits (./mail.ts); all answer `{}`.
 */
import { authDatabase } from "./database.ts";
import { authSettings } from "./project_settings.ts";
import { badRequest, jsonBody, jsonResponse, objectField, stringField, unprocessable } from "./errors.ts";
import { createFlowState } from "./flow_state.ts";
import { type MailKind, sendAuthMail } from "./mail.ts";
import { pkceParams, validEmail } from "./rules.ts";
import { signupWithPassword } from "./signup.ts";
import { userByEmail } from "./users.ts";

async function mailExistingUser(
  request: Request,
  email: string,
  kind: MailKind,
  pkce: { method: string; challenge: string } | undefined,
): Promise<boolean> {
  return await authDatabase().begin(async (tx) => {
    const user = await userByEmail(tx, email, true);
    if (!user) return false;
    if (pkce) await createFlowState(tx, user.id, kind, pkce);
    await sendAuthMail(tx, request, user, kind, { pkce: !!pkce });
    return true;
  });
}

export async function otp(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const email = stringField(body, "email");
  const phone = stringField(body, "phone");
  if (email !== "" && phone !== "") {
    throw badRequest("validation_failed", "Only an email address or phone number should be provided");
  }
  if (email !== "" && stringField(body, "channel") !== "") {
    throw badRequest("validation_failed", "Channel should only be specified with Phone OTP");
  }
  const pkce = pkceParams(stringField(body, "code_challenge_method"), stringField(body, "code_challenge"));
  if (phone !== "") throw badRequest("phone_provider_disabled", "Unsupported phone provider");
  if (email === "") throw badRequest("validation_failed", "One of email or phone must be set");
  const address = validEmail(email);
  const createUser = body.create_user === undefined ? true : body.create_user === true;
  const existing = await userByEmail(authDatabase(), address);
  if (!createUser && !existing) throw unprocessable("otp_disabled", "Signups not allowed for otp");
  const settings = authSettings();
  if (!settings.email.enabled) throw unprocessable("email_provider_disabled", "Email logins are disabled");
  if (!existing?.email_confirmed_at) {
    // GoTrue signs the address up first (a random password): under autoconfirm it is confirmed at once and
    // gets the magic link below; with confirmations on it gets the confirmation mail instead.
    if (!settings.enableSignup) {
      throw unprocessable("signup_disabled", "Signups not allowed for this instance");
    }
    const data = objectField(body, "data") ?? {};
    const password = `${crypto.randomUUID()}aA1!`;
    await signupWithPassword(request, { email: address, password, data, pkce });
    if (settings.email.enableConfirmations) return jsonResponse(request, {});
  }
  await mailExistingUser(request, address, "magiclink", pkce);
  return jsonResponse(request, {});
}

export async function recover(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const email = stringField(body, "email");
  if (email === "") throw unprocessable("validation_failed", "Password recovery requires an email");
  const address = validEmail(email);
  const pkce = pkceParams(stringField(body, "code_challenge_method"), stringField(body, "code_challenge"));
  await mailExistingUser(request, address, "recovery", pkce);
  return jsonResponse(request, {});
}

export async function resend(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const type = stringField(body, "type");
  const email = stringField(body, "email");
  const phone = stringField(body, "phone");
  if (type === "sms" || type === "phone_change") {
    throw badRequest("phone_provider_disabled", "Phone logins are disabled");
  }
  if (type !== "signup" && type !== "email_change") {
    throw badRequest(
      "validation_failed",
      "Missing one of these types: signup, email_change, sms, phone_change",
    );
  }
  const pkce = pkceParams(stringField(body, "code_challenge_method"), stringField(body, "code_challenge"));
  if (email === "" && type === "signup") {
    throw badRequest("validation_failed", "Type provided requires an email address");
  }
  if (email !== "" && phone !== "") {
    throw badRequest("validation_failed", "Only an email address or phone number should be provided.");
  }
  if (email === "") throw badRequest("validation_failed", "Missing email address or phone number");
  if (!authSettings().email.enabled) throw badRequest("email_provider_disabled", "Email logins are disabled");
  const address = validEmail(email);
  // No email changes are pending on the stand-in (it offers none), so email_change resends nothing.
  if (type === "signup") {
    await authDatabase().begin(async (tx) => {
      const user = await userByEmail(tx, address, true);
      if (!user || user.email_confirmed_at) return;
      if (pkce) await createFlowState(tx, user.id, "signup", pkce);
      await sendAuthMail(tx, request, user, "signup", { pkce: !!pkce });
    });
  }
  return jsonResponse(request, {});
}
