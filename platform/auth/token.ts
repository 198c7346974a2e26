/**
 * `POST /auth/v1/token?grant_type=password|refresh_token|pkce` (supabase/auth `internal/api/token.go`,
 * `token_refresh.go`): wrong or unknown credentials are one answer, 400 `invalid_credentials` "Invalid login
 * credentials"; an unconfirmed address is 400 `email_not_confirmed`; other grant types are 400
 * `invalid_credentials` "unsupported_grant_type" (GoTrue's own answer). A sign-in with a password that no
 * longer meets the strength rules still succeeds and says so in `weak_password`, as GoTrue does.
 */
import { authDatabase } from "./database.ts";
import { authSettings } from "./project_settings.ts";
import { AuthError, badRequest, jsonBody, jsonResponse, stringField, unprocessable } from "./errors.ts";
import { exchangeAuthCode } from "./flow_state.ts";
import { checkPasswordStrength } from "./rules.ts";
import { clientOfRefreshToken, issueSession, refreshSession } from "./sessions.ts";
import { idTokenGrant, web3Grant } from "./disabled.ts";
import { isBanned, passwordMatches, userByEmail } from "./users.ts";

const invalidLogin = () => badRequest("invalid_credentials", "Invalid login credentials");

async function passwordGrant(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const email = stringField(body, "email");
  const phone = stringField(body, "phone");
  const password = stringField(body, "password");
  if (email !== "" && phone !== "") {
    throw badRequest(
      "validation_failed",
      "Only an email address or phone number should be provided on login.",
    );
  }
  if (phone !== "") throw unprocessable("phone_provider_disabled", "Phone logins are disabled");
  if (email === "") throw badRequest("validation_failed", "missing email or phone");
  const settings = authSettings();
  if (!settings.email.enabled) throw unprocessable("email_provider_disabled", "Email logins are disabled");
  const sql = authDatabase();
  const user = await userByEmail(sql, email);
  if (!user || !user.has_password) throw invalidLogin();
  if (isBanned(user)) throw badRequest("user_banned", "User is banned");
  if (!(await passwordMatches(sql, user.id, password))) throw invalidLogin();
  if (!user.email_confirmed_at) throw badRequest("email_not_confirmed", "Email not confirmed");
  let weak: { message: string; reasons: string[] } | undefined;
  try {
    checkPasswordStrength(password, {
      minLength: settings.passwordMinLength,
      requiredCharacters: settings.passwordRequiredCharacters,
    });
  } catch (error) {
    if (error instanceof AuthError && error.code === "weak_password") {
      weak = {
        message: error.message,
        reasons: (error.extra.weak_password as { reasons: string[] }).reasons,
      };
    }
  }
  const session = await sql.begin((tx) => issueSession(tx, user.id, "password", request));
  return jsonResponse(request, weak ? { ...session, weak_password: weak } : session);
}

export async function token(request: Request): Promise<Response> {
  const grantType = new URL(request.url).searchParams.get("grant_type") ?? "";
  if (grantType === "password") return await passwordGrant(request);
  if (grantType === "refresh_token") {
    const body = await jsonBody(request);
    const refreshToken = stringField(body, "refresh_token");
    // An assistant's (OAuth) session is refreshed only at /oauth/token by its client, as GoTrue checks.
    if (await clientOfRefreshToken(authDatabase(), refreshToken)) {
      return Response.json({
        error: "invalid_client",
        error_description: "Client authentication required for OAuth session",
      }, { status: 400 });
    }
    return jsonResponse(request, await refreshSession(authDatabase(), refreshToken));
  }
  if (grantType === "pkce") {
    const body = await jsonBody(request);
    return jsonResponse(
      request,
      await exchangeAuthCode(
        authDatabase(),
        stringField(body, "auth_code"),
        stringField(body, "code_verifier"),
        request,
      ),
    );
  }
  if (grantType === "web3") return await web3Grant();
  if (grantType === "id_token") return await idTokenGrant(request);
  throw badRequest("invalid_credentials", "unsupported_grant_type");
}
