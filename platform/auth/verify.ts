/**
 * `GET /auth/v1/verify` (a mail's link) and `POST /auth/v1/verify` (the 6-digit code, or a token hash), as
 * GoTrue answers them (supabase/auth `internal/api/verify.go`), for the types `signup`, `invite`,
 * `magiclink`, `recovery`, `email` (either of the first two kinds of token) and `email_change` (from the new
 * address, and with `double_confirm_changes` while confirmations are on also from the current one: the first
 * answers GoTrue's "Confirmation link accepted…" message):
 * - GET redirects (303) to the redirect GoTrue honours with the session in the URL fragment
 *   (`#access_token=…&expires_at=…&expires_in=…&refresh_token=…&sb=&token_type=bearer&type=…`, the implicit
 *   flow), or with `?code=` for a PKCE link (token `pkce_…`), or with the error in the fragment
 *   (`#error=access_denied&error_code=otp_expired&error_description=…&sb=`);
 * - POST answers the session as JSON; a wrong or used code is 403 `otp_expired` "Token has expired or is
 *   invalid", a link's used or expired token 403 `otp_expired` "Email link is invalid or has expired".
 * A token is used once: confirming clears `confirmation_token`, a magic link or recovery `recovery_token`.
 * An invited user without a password gets a random one (the app then asks for one), as GoTrue does.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authDatabase } from "./database.ts";
import { authSettings } from "./project_settings.ts";
import {
  AuthError,
  badRequest,
  forbidden,
  jsonBody,
  jsonResponse,
  stringField,
  unprocessable,
} from "./errors.ts";
import { issueAuthCode } from "./flow_state.ts";
import { mailRedirect } from "./mail.ts";
import { otpExpired, pkcePrefix, tokenHash, validEmail } from "./rules.ts";
import { issueSession, type TokenResponse } from "./sessions.ts";
import { confirmUser, isBanned, setPassword, userByEmail, userById, type UserRow } from "./users.ts";

const confirmationTypes = new Set(["signup", "invite"]);
const recoveryTypes = new Set(["magiclink", "recovery"]);
const linkExpired = () => forbidden("otp_expired", "Email link is invalid or has expired");
const codeInvalid = () => forbidden("otp_expired", "Token has expired or is invalid");

async function userByTokenHash(
  tx: postgres.TransactionSql,
  type: string,
  hash: string,
): Promise<{ user: UserRow; type: string }> {
  if (type === "email_change") return await userByEmailChangeHash(tx, hash);
  let column: "confirmation_token" | "recovery_token" | "either";
  if (type === "email") column = "either";
  else if (confirmationTypes.has(type)) column = "confirmation_token";
  else if (recoveryTypes.has(type)) column = "recovery_token";
  else throw badRequest("validation_failed", "Invalid email verification type");
  const [row] = await tx<{ id: string }[]>`
    select id from auth.users
     where deleted_at is null and (
       (${column !== "recovery_token"} and confirmation_token = ${hash}) or
       (${column !== "confirmation_token"} and recovery_token = ${hash}))
     for update`;
  const user = row && await userById(tx, row.id);
  if (!user) throw linkExpired();
  if (isBanned(user)) throw forbidden("user_banned", "User is banned");
  let effective = type;
  if (type === "email") effective = user.recovery_token === hash ? "magiclink" : "signup";
  const sentAt = confirmationTypes.has(effective) ? user.confirmation_sent_at : user.recovery_sent_at;
  if (otpExpired(sentAt, authSettings().email.otpExpirySeconds)) throw linkExpired();
  return { user, type: effective };
}

const singleConfirmationAccepted =
  "Confirmation link accepted. Please proceed to confirm link sent to the other email";

async function userByEmailChangeHash(
  tx: postgres.TransactionSql,
  hash: string,
): Promise<{ user: UserRow; type: string }> {
  const [row] = await tx<{ id: string }[]>`
    select id from auth.users
     where deleted_at is null and ${hash} <> ''
       and (email_change_token_current = ${hash} or email_change_token_new = ${hash})
     for update`;
  const user = row && await userById(tx, row.id);
  if (!user) throw linkExpired();
  if (isBanned(user)) throw forbidden("user_banned", "User is banned");
  if (otpExpired(user.email_change_sent_at, authSettings().email.otpExpirySeconds)) throw linkExpired();
  return { user, type: "email_change" };
}

async function userByCode(
  tx: postgres.TransactionSql,
  type: string,
  email: string,
  hash: string,
): Promise<{ user: UserRow; type: string }> {
  if (
    type !== "email" && type !== "email_change" && !confirmationTypes.has(type) && !recoveryTypes.has(type)
  ) {
    throw badRequest("validation_failed", "Unsupported verification type");
  }
  if (type === "email_change") {
    const [row] = await tx<{ id: string }[]>`
      select id from auth.users
       where deleted_at is null and (
         (lower(email) = ${email} and email_change_token_current in (${hash}, ${pkcePrefix + hash})) or
         (lower(email_change) = ${email} and email_change_token_new in (${hash}, ${pkcePrefix + hash})))
       for update`;
    const user = row && await userById(tx, row.id);
    if (!user || otpExpired(user.email_change_sent_at, authSettings().email.otpExpirySeconds)) {
      throw codeInvalid();
    }
    if (isBanned(user)) throw forbidden("user_banned", "User is banned");
    return { user, type };
  }
  const user = await userByEmail(tx, email, true);
  if (!user) throw codeInvalid();
  if (isBanned(user)) throw forbidden("user_banned", "User is banned");
  const expiry = authSettings().email.otpExpirySeconds;
  const valid = (expected: string | null, sentAt: Date | null) =>
    !!expected && !otpExpired(sentAt, expiry) && (expected === hash || expected === pkcePrefix + hash);
  const asConfirmation = valid(user.confirmation_token, user.confirmation_sent_at);
  const asRecovery = valid(user.recovery_token, user.recovery_sent_at);
  if (type === "email" && asConfirmation) return { user, type: "signup" };
  if (type === "email" && asRecovery) return { user, type: "magiclink" };
  if (confirmationTypes.has(type) && asConfirmation) return { user, type };
  if (recoveryTypes.has(type) && asRecovery) return { user, type };
  throw codeInvalid();
}

/**
 * Uses the token up: confirms (sign-up, invitation), clears the recovery token (and confirms), or applies an
 * address change. Answers false when an address change waits for its other confirmation (GoTrue's
 * double_confirm_changes while confirmations are on).
 */
async function applyVerification(
  tx: postgres.TransactionSql,
  user: UserRow,
  type: string,
  hash: string,
): Promise<boolean> {
  if (confirmationTypes.has(type)) {
    if (!user.has_password && user.invited_at) await setPassword(tx, user.id, crypto.randomUUID() + "Aa1!");
    await confirmUser(tx, user.id);
    return true;
  }
  if (type === "email_change") return await applyEmailChange(tx, user, hash);
  await tx`update auth.users set recovery_token = '', updated_at = now() where id = ${user.id}`;
  await tx`delete from auth.one_time_tokens where user_id = ${user.id} and token_type = 'recovery_token'`;
  if (!user.email_confirmed_at) await confirmUser(tx, user.id);
  return true;
}

async function applyEmailChange(tx: postgres.TransactionSql, user: UserRow, hash: string): Promise<boolean> {
  const settings = authSettings();
  const matchesCurrent = hash !== "" &&
    (user.email_change_token_current === hash || user.email_change_token_current === pkcePrefix + hash);
  if (
    settings.email.enableConfirmations && settings.email.doubleConfirmChanges &&
    (user.email_change_confirm_status ?? 0) === 0 && user.email
  ) {
    await tx`update auth.users
                set email_change_confirm_status = 1,
                    email_change_token_current = case when ${matchesCurrent} then '' else email_change_token_current end,
                    email_change_token_new = case when ${matchesCurrent} then email_change_token_new else '' end
              where id = ${user.id}`;
    await tx`delete from auth.one_time_tokens where user_id = ${user.id}
               and token_type = ${matchesCurrent ? "email_change_token_current" : "email_change_token_new"}`;
    return false;
  }
  const newEmail = user.email_change ?? "";
  await tx`update auth.users
              set email = ${newEmail}, email_change = '', email_change_token_new = '',
                  email_change_token_current = '', email_change_sent_at = null, email_change_confirm_status = 0,
                  email_confirmed_at = now(), updated_at = now()
            where id = ${user.id}`;
  await tx`delete from auth.one_time_tokens
            where user_id = ${user.id} and token_type in ('email_change_token_new', 'email_change_token_current')`;
  await tx`update auth.identities
              set identity_data = identity_data || jsonb_build_object('email', ${newEmail}::text, 'email_verified', true),
                  updated_at = now()
            where user_id = ${user.id} and provider = 'email'`;
  return true;
}

function withFragment(url: string, params: Record<string, string>): string {
  const sorted = Object.keys(params).sort().map((key) =>
    `${encodeURIComponent(key)}=${encodeURIComponent(params[key])}`
  );
  return `${url.split("#")[0]}#${sorted.join("&")}`;
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location } });
}

/** GoTrue's prepErrorRedirectURL. */
function errorRedirect(redirectTo: string, error: AuthError, pkce: boolean): string {
  const oauthError = ({ 400: "invalid_request", 401: "unauthorized_client", 403: "access_denied" } as Record<
    number,
    string
  >)[error.status] ?? "server_error";
  let base = redirectTo.split("#")[0];
  if (pkce) {
    const url = new URL(base);
    url.searchParams.set("error", oauthError);
    url.searchParams.set("error_code", error.code);
    url.searchParams.set("error_description", error.message);
    base = url.href;
  }
  return withFragment(base, {
    error: oauthError,
    error_code: error.code,
    error_description: error.message,
    sb: "",
  });
}

async function verifyGet(request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams;
  const token = query.get("token") ?? "";
  const type = query.get("type") ?? "";
  const redirectTo = mailRedirect(request);
  if (type === "") throw badRequest("validation_failed", "Verify requires a verification type");
  if (token === "") throw badRequest("validation_failed", "Verify requires a token or a token hash");
  const pkce = token.startsWith(pkcePrefix);
  let outcome: { session?: TokenResponse; code?: string; type: string; pending?: boolean };
  try {
    outcome = await authDatabase().begin(async (tx) => {
      const found = await userByTokenHash(tx, type, token);
      if (!(await applyVerification(tx, found.user, found.type, token))) {
        return { pending: true, type: found.type };
      }
      if (pkce) return { code: await issueAuthCode(tx, found.user.id, found.type), type: found.type };
      return { session: await issueSession(tx, found.user.id, "otp", request), type: found.type };
    });
  } catch (error) {
    if (error instanceof AuthError) return redirect(errorRedirect(redirectTo, error, pkce));
    throw error;
  }
  if (outcome.pending) {
    // GoTrue's prepRedirectURL: the message in the fragment (and the query for PKCE).
    const url = new URL(redirectTo.split("#")[0]);
    if (pkce) url.searchParams.set("message", singleConfirmationAccepted);
    return redirect(withFragment(url.href, { message: singleConfirmationAccepted, sb: "" }));
  }
  if (outcome.code) {
    const url = new URL(redirectTo);
    url.searchParams.set("code", outcome.code);
    return redirect(url.href);
  }
  const session = outcome.session!;
  return redirect(withFragment(redirectTo, {
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    sb: "",
    token_type: session.token_type,
    type: outcome.type,
  }));
}

async function verifyPost(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const type = stringField(body, "type");
  const token = stringField(body, "token");
  const hash = stringField(body, "token_hash");
  const email = stringField(body, "email");
  const phone = stringField(body, "phone");
  if (type === "") throw badRequest("validation_failed", "Verify requires a verification type");
  if ((token === "") === (hash === "")) {
    throw badRequest("validation_failed", "Verify requires either a token or a token hash");
  }
  let address = "";
  if (token !== "") {
    if (phone !== "" && (type === "sms" || type === "phone_change")) {
      // GoTrue's isPhoneOtpVerification: the number is validated (E.164), then its code looked up; with the
      // phone provider off no user has a pending phone code, so it is GoTrue's "no such token" answer.
      const number = phone.replace(/^\+/, "").replaceAll(" ", "");
      if (!/^[1-9][0-9]{1,14}$/.test(number)) {
        throw badRequest("validation_failed", "Invalid phone number format (E.164 required)");
      }
      throw forbidden("otp_expired", "Token has expired or is invalid");
    }
    if (email === "") {
      throw badRequest(
        "validation_failed",
        "Only an email address or phone number should be provided on verify",
      );
    }
    try {
      address = validEmail(email);
    } catch {
      throw unprocessable("validation_failed", "Invalid email format");
    }
  } else if (email !== "" || phone !== "" || stringField(body, "redirect_to") !== "") {
    throw badRequest("validation_failed", "Only the token_hash and type should be provided");
  }
  const session = await authDatabase().begin(async (tx) => {
    const usedHash = token !== "" ? tokenHash(address, token) : hash;
    const found = token !== ""
      ? await userByCode(tx, type, address, usedHash)
      : await userByTokenHash(tx, type, hash);
    if (!(await applyVerification(tx, found.user, found.type, usedHash))) return undefined;
    return await issueSession(tx, found.user.id, "otp", request);
  });
  if (!session) return jsonResponse(request, { msg: singleConfirmationAccepted, code: "200" });
  return jsonResponse(request, session);
}

export function verify(request: Request): Promise<Response> {
  return request.method === "GET" ? verifyGet(request) : verifyPost(request);
}
