/**
 * The signed-in user's OAuth grants, as Supabase Auth answers them (`oauthserver/handlers.go`
 * UserListOAuthGrants / UserRevokeOAuthGrant, routed under `/user` behind requireAuthentication and
 * requireOAuthServerEnabled), called by supabase-js `auth.oauth.listGrants()` / `revokeGrant({ clientId })`
 * with the user's session token:
 * - `GET /user/oauth/grants`: `[{client: {id, name?, uri?, logo_uri?}, scopes: [...], granted_at}]`, the
 *   active consents, most recently granted first (`[]` when none);
 * - `DELETE /user/oauth/grants?client_id=<uuid>`: 204; the consent is gone (the client must ask again) and
 *   the client's sessions for this user end, so its refresh tokens are refused (`refresh_token_not_found`).
 *   A missing `client_id` or one that is not a UUID is 400 `validation_failed`; no active consent is 404
 *   `oauth_consent_not_found`.
 * The caller errors are those of `/user` (../auth/caller.ts); a disabled OAuth server is 404 `feature_disabled`.
 */
import { authDatabase } from "../database.ts";
import { authenticatedCaller } from "../caller.ts";
import { AuthError, badRequest, jsonResponse } from "../errors.ts";
import { authSettings } from "../project_settings.ts";
import { uuidPattern } from "./responses.ts";
import { revokeConsent, userConsents } from "./store.ts";

async function callerId(request: Request): Promise<string> {
  const caller = await authenticatedCaller(authDatabase(), request);
  if (!authSettings().oauthServer.enabled) {
    throw new AuthError(404, "feature_disabled", "OAuth server is disabled");
  }
  return caller.user.id;
}

export async function listGrants(request: Request): Promise<Response> {
  const userId = await callerId(request);
  const grants = (await userConsents(userId)).map(({ consent, client }) => ({
    client: {
      id: client.id,
      ...(client.name ? { name: client.name } : {}),
      ...(client.uri ? { uri: client.uri } : {}),
      ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    },
    scopes: consent.scopes,
    granted_at: consent.grantedAt,
  }));
  return jsonResponse(request, grants);
}

export async function revokeGrant(request: Request): Promise<Response> {
  const userId = await callerId(request);
  const clientId = new URL(request.url).searchParams.get("client_id") ?? "";
  if (!clientId) throw badRequest("validation_failed", "client_id query parameter is required");
  if (!uuidPattern.test(clientId)) throw badRequest("validation_failed", "invalid client_id format");
  // GoTrue's RevokeOAuthSessions: the consent is revoked and the client's sessions for this user are deleted,
  // their refresh tokens with them.
  if (!(await revokeConsent(userId, clientId.toLowerCase()))) {
    throw new AuthError(404, "oauth_consent_not_found", "No active grant found for this client");
  }
  return new Response(null, { status: 204 });
}
