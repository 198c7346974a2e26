/**
 * The OAuth 2.1 server of the local Auth stand-in, the way Supabase Auth implements it (supabase/auth
 * `internal/api/oauthserver`, `internal/api/jwks.go`, `internal/tokens`), under `/auth/v1`:
 * - `GET /.well-known/oauth-authorization-server` (only when the server is enabled) and
 *   `/.well-known/openid-configuration`: RFC 8414 metadata; the gateway also answers the host-root form
 *   `/.well-known/oauth-authorization-server/auth/v1` as Supabase's does;
 * - `POST /oauth/clients/register`: RFC 7591 dynamic registration (when allowed); public clients
 *   (`token_endpoint_auth_method: none`) or confidential ones (a secret, shown once);
 * - `GET /oauth/authorize`: checks the client and its registered redirect URI exactly (a JSON 400 that does
 *   not redirect otherwise), then the rest (errors redirected to the client), PKCE required, and redirects
 *   the browser to the app's consent page, `<Site URL><authorization_url_path>?authorization_id=…`;
 * - `GET /oauth/authorizations/{id}` and `POST /oauth/authorizations/{id}/consent` (`{"action": "approve" |
 *   "deny"}`), which the consent page calls with the signed-in user's session token through supabase-js
 *   (`auth.oauth.getAuthorizationDetails`, `approveAuthorization`, `denyAuthorization`): details (or, when
 *   the user already consented to those scopes, only `{"redirect_url"}` at once), then `{"redirect_url": …}`
 *   carrying the code or `error=access_denied`; GoTrue's caller errors (401 `no_authorization`, 403
 *   `bad_jwt` / `user_not_found`, 400 for a foreign Origin, 404 `oauth_authorization_not_found`);
 * - `POST /oauth/token`: `authorization_code` with PKCE (S256 or plain), single-use codes bound to client,
 *   redirect URI and resource; `refresh_token` with GoTrue's rotation (../sessions.ts), by the session's own
 *   client only. Access tokens are ES256 JWTs signed with the stand-in's key (published in the JWKS) with
 *   Supabase's claims and `client_id`; their audience is `authenticated`, never the resource (Supabase Auth
 *   stores an RFC 8707 `resource` and checks it at the token endpoint but does not put it in the token).
 * Errors have GoTrue's shapes: `{error, error_description}` (400) from the token endpoint's OAuth errors,
 * its HTTP errors elsewhere. Clients and consents are in the database (store.ts), pending authorizations
 * in this process's memory; the sessions and refresh tokens it issues are the user's sessions in
 * `auth.sessions` (with `oauth_client_id`) and `auth.refresh_tokens`, refreshed as GoTrue refreshes any
 * session (rotation and its reuse interval), by their client only. Differences from hosted: no rate limits,
 * no ID tokens or userinfo. The parts: signing.ts (key, JWKS), registration.ts, admin_clients.ts (the admin
 * API), store.ts, authorization.ts, tokens.ts, state.ts, responses.ts; the user's grants (`GET`/`DELETE
 * /user/oauth/grants`) are routed with `/user` from ../server.ts (grants.ts).
 */
import { sessionIssuer } from "../../../supabase/functions/_shared/session/jwt.ts";
import { authSettings } from "../project_settings.ts";
import { authorizationDetails, authorize, consent } from "./authorization.ts";
import { register } from "./registration.ts";
import { httpError } from "./responses.ts";
import { supportedScopes } from "./state.ts";
import { token } from "./tokens.ts";

export { localSigningKeys } from "./signing.ts";

function metadata(): Record<string, unknown> {
  const issuer = sessionIssuer();
  const { oauthServer } = authSettings();
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    ...(oauthServer.enabled && oauthServer.allowDynamicRegistration
      ? { registration_endpoint: `${issuer}/oauth/clients/register` }
      : {}),
    scopes_supported: supportedScopes,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256", "HS256", "ES256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    code_challenge_methods_supported: ["S256", "plain"],
  };
}

/** Answers one request of the OAuth server (`path` without `/auth/v1`), or undefined when it is not one. */
export async function handleOAuthServerRequest(
  request: Request,
  path: string,
): Promise<Response | undefined> {
  const { enabled } = authSettings().oauthServer;
  const method = request.method;
  if (method === "GET" && path === "/.well-known/openid-configuration") return Response.json(metadata());
  if (method === "GET" && path === "/.well-known/oauth-authorization-server") {
    return enabled
      ? Response.json(metadata(), { headers: { "Cache-Control": "public, max-age=600" } })
      : httpError(request, 404, "feature_disabled", "OAuth server is disabled");
  }
  if (!path.startsWith("/oauth/")) return undefined;
  if (!enabled) return httpError(request, 404, "feature_disabled", "OAuth server is disabled");
  if (method === "POST" && path === "/oauth/clients/register") return await register(request);
  if (method === "GET" && path === "/oauth/authorize") return authorize(request);
  if (method === "POST" && path === "/oauth/token") return await token(request);
  const consentPath = path.match(/^\/oauth\/authorizations\/([^/]+)(\/consent)?$/);
  if (consentPath && method === "GET" && !consentPath[2]) {
    return await authorizationDetails(request, decodeURIComponent(consentPath[1]));
  }
  if (consentPath && method === "POST" && consentPath[2]) {
    return await consent(request, decodeURIComponent(consentPath[1]));
  }
  return undefined;
}
