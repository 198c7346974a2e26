/**
 * `GET /auth/v1/verify` (a mail's link) and `POST /auth/v1/verify` (the 6-digit code, or a token hash), as
 * GoTrue answers them (supabase/auth `internal/api/verify.go`), for the types `signup`, `invite`,
 * `magiclink`, `recovery` and `email` (either of the first two kinds of token):
 * - GET redirects (303) to the redirect GoTrue honours with the session in the URL fragment
 *   (`#access_token=…&expires_at=…&expires_in=…&refresh_token=…&sb=&token_type=bearer&type=…`, the implicit
 *   flow), or with `?code=` for a PKCE link (token `pkce_…`), or with the error in the fragment
 *   (`#error=access_denied&error_code=otp_expired&error_description=…&sb=`);
 * - POST answers the session as JSON; a wrong or used code is 403 `otp_expired` "Token has expired or is
 *   invalid", a link's used or expired token 403 `otp_expired` "Email link is invalid or has expired".
 * A token is used once: confirming clears `confirmation_token`, a magic link or recovery `recovery_token`.
 * An invited user without a password gets a random one (the app then asks for one), as GoTrue does.
 */
import type * as postgres from "../../../supabase/functions/_shared/db/sql.ts";
import { authDatabase } from "../auth_database.ts";
import { authSettings } from "../auth_settings.ts";
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

async function userByCode(
  tx: postgres.TransactionSql,
  type: string,
  email: string,
  hash: string,
): Promise<{ user: UserRow; type: string }> {
  if (type !== "email" && !confirmationTypes.has(type) && !recoveryTypes.has(type)) {
    throw badRequest("validation_failed", "Unsupported verification type");
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

/** Uses the token up: confirms (sign-up, invitation) or clears the recovery token (and confirms). */
async function applyVerification(tx: postgres.TransactionSql, user: UserRow, type: string): Promise<void> {
  if (confirmationTypes.has(type)) {
    if (!user.has_password && user.invited_at) await setPassword(tx, user.id, crypto.randomUUID() + "Aa1!");
    await confirmUser(tx, user.id);
    return;
  }
  await tx`update auth.users set recovery_token = '', updated_at = now() where id = ${user.id}`;
  await tx`delete from auth.one_time_tokens where user_id = ${user.id} and token_type = 'recovery_token'`;
  if (!user.email_confirmed_at) await confirmUser(tx, user.id);
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
  let outcome: { session?: TokenResponse; code?: string; type: string };
  try {
    outcome = await authDatabase().begin(async (tx) => {
      const found = await userByTokenHash(tx, type, token);
      await applyVerification(tx, found.user, found.type);
      if (pkce) return { code: await issueAuthCode(tx, found.user.id, found.type), type: found.type };
      return { session: await issueSession(tx, found.user.id, "otp", request), type: found.type };
    });
  } catch (error) {
    if (error instanceof AuthError) return redirect(errorRedirect(redirectTo, error, pkce));
    throw error;
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
    if (phone !== "" && email === "") {
      throw badRequest("phone_provider_disabled", "Unsupported phone provider");
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
    const found = token !== ""
      ? await userByCode(tx, type, address, tokenHash(address, token))
      : await userByTokenHash(tx, type, hash);
    await applyVerification(tx, found.user, found.type);
    return await issueSession(tx, found.user.id, "otp", request);
  });
  return jsonResponse(request, session);
}

export function verify(request: Request): Promise<Response> {
  return request.method === "GET" ? verifyGet(request) : verifyPost(request);
}
