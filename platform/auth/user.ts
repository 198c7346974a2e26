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
import { authenticatedCaller } from "./caller.ts";
import {
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
  if (typeof password === "string" && password !== "" && caller.user.has_password) {
    if (await passwordMatches(sql, caller.user.id, password)) {
      throw unprocessable("same_password", "New password should be different from the old password.");
    }
  }
  await sql.begin(async (tx) => {
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
