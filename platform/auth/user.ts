/**
 * `GET /auth/v1/user`, `PUT /auth/v1/user` and `POST /auth/v1/logout` (supabase/auth `user.go`,
 * `logout.go`), for a caller with a session token (./caller.ts):
 * - GET answers the user object;
 * - PUT changes `data` (merged into user_metadata, a null value removes a key) and `password` (strength
 *   rules; the same password again is 422 `same_password`; the other sessions end and the mail tokens are
 *   cleared, as GoTrue's UpdatePassword does); `app_metadata` needs an admin (403 `not_admin`); a new
 *   `email` already taken is 422 `email_exists`, else the change mails go out (./mail.ts) and the user shows
 *   `new_email` until the change is verified (./verify.ts);
 * - logout ends sessions by `scope` (`global`, the default; `local`; `others`) and answers 204.
 */
import { authDatabase } from "./database.ts";
import { authSettings } from "./project_settings.ts";
import { authenticatedCaller, type Caller } from "./caller.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { verifyNonce } from "./reauthenticate.ts";
import {
  AuthError,
  badRequest,
  forbidden,
  jsonBody,
  jsonResponse,
  objectField,
  stringField,
  unprocessable,
} from "./errors.ts";
import { createFlowState } from "./flow_state.ts";
import { sendEmailChangeMails } from "./mail.ts";
import { checkPasswordStrength, pkceParams, validEmail } from "./rules.ts";
import { endSessions } from "./sessions.ts";
import { passwordMatches, setPassword, userByEmail, userById, userJson } from "./users.ts";

export async function getUser(request: Request): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const audience = Array.isArray(caller.claims.aud) ? caller.claims.aud[0] : caller.claims.aud;
  if (audience !== "authenticated") {
    throw badRequest("validation_failed", "Token audience doesn't match request audience");
  }
  return jsonResponse(request, await userJson(sql, caller.user));
}

export async function updateUser(request: Request): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const body = await jsonBody(request);
  const data = objectField(body, "data");
  const appData = objectField(body, "app_metadata");
  const password = body.password;
  if (password !== undefined && password !== null && typeof password !== "string") {
    throw badRequest("bad_json", "Could not parse request body as JSON: password must be a string");
  }
  const settings = authSettings();
  if (typeof password === "string") {
    checkPasswordStrength(password, {
      minLength: settings.passwordMinLength,
      requiredCharacters: settings.passwordRequiredCharacters,
    });
  }
  if (appData) throw forbidden("not_admin", "Updating app_metadata requires admin privileges");
  let newEmail: string | undefined;
  if (typeof body.email === "string" && body.email !== "") {
    const email = validEmail(body.email);
    if (email !== caller.user.email) {
      const other = await userByEmail(sql, email);
      if (other && other.id !== caller.user.id) {
        throw unprocessable("email_exists", "A user with this email address has already been registered");
      }
      newEmail = email;
    }
  }
  const pkce = pkceParams(stringField(body, "code_challenge_method"), stringField(body, "code_challenge"));
  await passwordChangeAllowed(sql, caller, body, newEmail !== undefined);
  if (typeof password === "string" && password !== "" && caller.user.has_password) {
    if (await passwordMatches(sql, caller.user.id, password)) {
      throw unprocessable("same_password", "New password should be different from the old password.");
    }
  }
  await sql.begin(async (tx) => {
    if (typeof password === "string" && needsNonce(caller)) {
      await verifyNonce(tx, caller.user.id, caller.user.email ?? "", stringField(body, "nonce"));
    }
    if (typeof password === "string") {
      await setPassword(tx, caller.user.id, password);
      await tx`update auth.users
                  set confirmation_token = '', confirmation_sent_at = null, recovery_token = '',
                      recovery_sent_at = null, email_change_token_new = '', email_change_sent_at = null
                where id = ${caller.user.id}`;
      await tx`delete from auth.one_time_tokens where user_id = ${caller.user.id}`;
      await endSessions(tx, caller.user.id, caller.session?.id, caller.session ? "others" : "global");
    }
    if (newEmail) {
      const current = (await userById(tx, caller.user.id, true))!;
      if (pkce) await createFlowState(tx, current.id, "email_change", pkce);
      await sendEmailChangeMails(tx, request, current, newEmail, { pkce: !!pkce });
    }
    if (data) {
      await tx`
        update auth.users
           set raw_user_meta_data = jsonb_strip_nulls(coalesce(raw_user_meta_data, '{}'::jsonb) || ${
        tx.json(data)
      }),
               updated_at = now()
         where id = ${caller.user.id}`;
    }
  });
  return jsonResponse(request, await userJson(sql, (await userById(sql, caller.user.id))!));
}

/** GoTrue's reauthentication rule: `secure_password_change` and no session, or one older than 24 h. */
function needsNonce(caller: Caller): boolean {
  if (!authSettings().securePasswordChange) return false;
  return !caller.session || Date.now() > caller.session.created_at.getTime() + 24 * 3600 * 1000;
}

/**
 * GoTrue's UserUpdate checks before a password or email change, in its order: with a verified MFA factor an
 * aal1 session is 401 `insufficient_aal`; an anonymous user's password needs an address; with
 * `secure_password_change` a session older than 24 h needs a nonce (400 `reauthentication_needed`; the nonce
 * itself is checked in the transaction); with the current password required (outside a recovery session)
 * `current_password` must be given (400 `current_password_required`) and right (400
 * `current_password_invalid`).
 */
async function passwordChangeAllowed(
  sql: postgres.Queryable,
  caller: Caller,
  body: Record<string, unknown>,
  changesEmail: boolean,
): Promise<void> {
  const password = typeof body.password === "string" ? body.password : undefined;
  const [{ verified }] = await sql<{ verified: number }[]>`
    select count(*)::int as verified from auth.mfa_factors where user_id = ${caller.user.id} and status = 'verified'`;
  if (verified > 0 && caller.session?.aal !== "aal2" && ((password ?? "") !== "" || changesEmail)) {
    throw new AuthError(
      401,
      "insufficient_aal",
      "AAL2 session is required to update email or password when MFA is enabled.",
    );
  }
  if (password === undefined) return;
  if (caller.user.is_anonymous && password !== "" && !changesEmail) {
    throw unprocessable(
      "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed",
    );
  }
  if (needsNonce(caller) && stringField(body, "nonce") === "") {
    throw badRequest("reauthentication_needed", "Password update requires reauthentication");
  }
  // GoTrue's Session.IsRecovery: a session from a mail's code or link (otp, magiclink, recovery).
  const recovery =
    caller.session?.amr.some((entry) => ["otp", "magiclink", "recovery"].includes(entry.method)) ??
      false;
  if (password !== "" && caller.user.has_password && authSettings().requireCurrentPassword && !recovery) {
    const current = stringField(body, "current_password");
    if (current === "") {
      throw badRequest("current_password_required", "Current password required when setting new password.");
    }
    if (!(await passwordMatches(sql, caller.user.id, current))) {
      throw badRequest("current_password_invalid", "Current password required when setting new password.");
    }
  }
}

export async function logout(request: Request): Promise<Response> {
  const scope = new URL(request.url).searchParams.get("scope") ?? "";
  if (!["", "global", "local", "others"].includes(scope)) {
    throw badRequest("validation_failed", `Unsupported logout scope "${scope}"`);
  }
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  await endSessions(
    sql,
    caller.user.id,
    caller.session?.id,
    (scope || "global") as "global" | "local" | "others",
  );
  return new Response(null, { status: 204 });
}
