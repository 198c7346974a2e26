/**
 * `POST /auth/v1/signup` (supabase/auth `internal/api/signup.go`), email and password only:
 * - the password must pass the strength rules (422 `weak_password` with `reasons`); sign-up may be disabled
 *   (422 `signup_disabled`);
 * - without confirmations (`[auth.email] enable_confirmations = false`, the local default) the user is
 *   confirmed at once and the answer is a session; an address already registered is 422
 *   `user_already_exists` "User already registered";
 * - with confirmations, a confirmation mail goes to the mailbox and the answer is the user (no session); an
 *   address already confirmed gets a made-up user of the same shape, so the answer does not tell whether it is
 *   registered (GoTrue's sanitizeUser); an unconfirmed one gets the mail again (within max_frequency).
 * A new user's Free profile comes from the same trigger as on hosted (migration plans_and_profiles).
 */
import { authDatabase } from "./database.ts";
import { authSettings } from "./project_settings.ts";
import { badRequest, jsonBody, jsonResponse, objectField, stringField, unprocessable } from "./errors.ts";
import { createFlowState } from "./flow_state.ts";
import { sendAuthMail } from "./mail.ts";
import { checkPasswordStrength, pkceParams, validEmail } from "./rules.ts";
import { issueSession } from "./sessions.ts";
import {
  confirmUser,
  createEmailUser,
  retryOnDuplicate,
  userByEmail,
  userJson,
  type UserRow,
} from "./users.ts";

export async function signup(request: Request): Promise<Response> {
  const settings = authSettings();
  if (!settings.enableSignup) throw unprocessable("signup_disabled", "Signups not allowed for this instance");
  const body = await jsonBody(request);
  const password = stringField(body, "password");
  const phone = stringField(body, "phone");
  const data = objectField(body, "data") ?? {};
  if (stringField(body, "email") === "" && phone === "") return await signupAnonymously(request, data);
  if (password === "") throw badRequest("validation_failed", "Signup requires a valid password");
  checkPasswordStrength(password, {
    minLength: settings.passwordMinLength,
    requiredCharacters: settings.passwordRequiredCharacters,
  });
  if (phone !== "") {
    throw badRequest("phone_provider_disabled", "Phone signups are disabled");
  }
  const pkce = pkceParams(stringField(body, "code_challenge_method"), stringField(body, "code_challenge"));
  if (!settings.email.enabled) throw badRequest("email_provider_disabled", "Email signups are disabled");
  const email = validEmail(stringField(body, "email"));
  return await signupWithPassword(request, { email, password, data, pkce });
}

/**
 * GoTrue's anonymous sign-in (`POST /signup` without email or phone, `anonymous.go`): with
 * `enable_anonymous_sign_ins` off (this project's setting) 422 `anonymous_provider_disabled`; on, a user
 * with no address, `is_anonymous`, and a session (amr `anonymous`).
 */
async function signupAnonymously(request: Request, data: Record<string, unknown>): Promise<Response> {
  if (!authSettings().anonymousSignIns) {
    throw unprocessable("anonymous_provider_disabled", "Anonymous sign-ins are disabled");
  }
  const session = await authDatabase().begin(async (tx) => {
    const [{ id }] = await tx<{ id: string }[]>`
      insert into auth.users (aud, role, raw_app_meta_data, raw_user_meta_data, is_anonymous)
      values ('authenticated', 'authenticated', '{}', ${tx.json(data)}, true)
      returning id`;
    return await issueSession(tx, id, "anonymous", request);
  });
  return jsonResponse(request, session);
}

/** The sign-up itself (also the first step of a magic link to a new address). */
export async function signupWithPassword(
  request: Request,
  params: {
    email: string;
    password: string;
    data: Record<string, unknown>;
    pkce?: { method: string; challenge: string };
  },
): Promise<Response> {
  const settings = authSettings();
  const autoconfirm = !settings.email.enableConfirmations;
  const outcome = await retryOnDuplicate(() =>
    authDatabase().begin(async (tx) => {
      let user: UserRow | undefined = await userByEmail(tx, params.email, true);
      if (user?.email_confirmed_at) return { exists: true as const, user };
      if (!user) {
        user = await createEmailUser(tx, {
          email: params.email,
          password: params.password,
          data: params.data,
          confirmed: autoconfirm,
        });
        if (autoconfirm) return { session: await issueSession(tx, user.id, "password", request) };
      } else if (autoconfirm) {
        // GoTrue confirms an unconfirmed user (an earlier sign-up, an invitation) under autoconfirm and signs
        // it in; it does not change the user's password.
        await confirmUser(tx, user.id);
        return { session: await issueSession(tx, user.id, "password", request) };
      }
      if (params.pkce) await createFlowState(tx, user.id, "signup", params.pkce);
      await sendAuthMail(tx, request, user, "signup", { pkce: !!params.pkce });
      const fresh = (await userByEmail(tx, params.email))!;
      const json = await userJson(tx, fresh);
      if (fresh.invited_at) {
        json.user_metadata = {};
        json.identities = [];
      }
      return { user: json };
    })
  );
  if ("session" in outcome) return jsonResponse(request, outcome.session);
  if ("exists" in outcome) {
    if (autoconfirm) throw unprocessable("user_already_exists", "User already registered");
    return jsonResponse(request, sanitizedUser(params.email, params.data));
  }
  return jsonResponse(request, outcome.user);
}

/** GoTrue's sanitizeUser: a made-up unconfirmed user, so a repeated sign-up tells nothing. */
function sanitizedUser(email: string, data: Record<string, unknown>): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: crypto.randomUUID(),
    aud: "authenticated",
    role: "",
    email,
    phone: "",
    confirmation_sent_at: now,
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  };
}
