/**
 * The OAuth server's admin API (supabase/auth `oauthserver/handlers.go`, routed under `/admin/oauth/clients`
 * behind requireAdminCredentials and requireOAuthServerEnabled), as supabase-js `auth.admin.oauth.*` calls it:
 * - `POST /admin/oauth/clients`: manual registration, validated as dynamic registration is (400
 *   `validation_failed` with GoTrue's message); 201 with the secret, shown once;
 * - `GET /admin/oauth/clients`: `{clients}`, newest first (GoTrue pages nothing yet, whatever `page` says);
 * - `GET|PUT|DELETE /admin/oauth/clients/{client_id}`: a client id that is not a UUID is 400
 *   `validation_failed` "invalid client_id format", an unknown one 404 `oauth_client_not_found`; PUT changes
 *   only the fields given (none: 400 "No fields provided for update"); DELETE answers 204 and ends the
 *   client's grants;
 * - `POST /admin/oauth/clients/{client_id}/regenerate_secret`: a new secret for a confidential client (400
 *   for a public one).
 */
import { requireAdmin } from "../admin_users.ts";
import { AuthError, badRequest, jsonBody, jsonResponse } from "../errors.ts";
import { authSettings } from "../project_settings.ts";
import { clientJson, newClient, redirectUriProblem } from "./registration.ts";
import { randomToken, sha256Base64Url, uuidPattern } from "./responses.ts";
import type { OAuthClient } from "./state.ts";
import { allClients, clientById, deleteClient, saveClient } from "./store.ts";

async function loadClient(id: string): Promise<OAuthClient> {
  if (!uuidPattern.test(id)) throw badRequest("validation_failed", "invalid client_id format");
  const client = await clientById(id);
  if (!client) throw new AuthError(404, "oauth_client_not_found", "OAuth client not found");
  return client;
}

function update(client: OAuthClient, body: Record<string, unknown>): void {
  const fields = ["redirect_uris", "grant_types", "client_name", "client_uri", "logo_uri"];
  if (!fields.some((field) => body[field] !== undefined && body[field] !== null)) {
    throw badRequest("validation_failed", "No fields provided for update");
  }
  if (Array.isArray(body.redirect_uris)) {
    if (body.redirect_uris.length === 0) {
      throw badRequest("validation_failed", "redirect_uris cannot be empty");
    }
    for (const uri of body.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw badRequest("validation_failed", `invalid redirect_uri '${uri}': ${problem}`);
    }
    client.redirectUris = body.redirect_uris as string[];
  }
  if (Array.isArray(body.grant_types)) {
    if (body.grant_types.some((grant) => grant !== "authorization_code" && grant !== "refresh_token")) {
      throw badRequest(
        "validation_failed",
        "grant_types must only contain 'authorization_code' and/or 'refresh_token'",
      );
    }
    client.grantTypes = body.grant_types as string[];
  }
  if (typeof body.client_name === "string") client.name = body.client_name;
  if (typeof body.client_uri === "string") client.uri = body.client_uri;
  if (typeof body.logo_uri === "string") client.logoUri = body.logo_uri;
  client.updatedAt = new Date().toISOString();
}

/** Routes `/admin/oauth/clients…`; undefined for another path. */
export async function handleAdminClients(request: Request, path: string): Promise<Response | undefined> {
  const match = path.match(/^\/admin\/oauth\/clients\/?(?:([^/]+)\/?(regenerate_secret)?\/?)?$/);
  if (!match) return undefined;
  await requireAdmin(request);
  if (!authSettings().oauthServer.enabled) {
    throw new AuthError(404, "feature_disabled", "OAuth server is disabled");
  }
  const [, id, regenerate] = match;
  const method = request.method;
  if (!id && method === "POST") {
    const made = newClient(await jsonBody(request), "manual");
    if ("problem" in made) throw badRequest("validation_failed", made.problem);
    await saveClient(made.client);
    return jsonResponse(request, clientJson(made.client, made.secret), 201);
  }
  if (!id && method === "GET") {
    const list = await allClients();
    return jsonResponse(request, { clients: list.map((client) => clientJson(client)) });
  }
  if (!id) return undefined;
  const client = await loadClient(decodeURIComponent(id));
  if (regenerate && method === "POST") {
    if (client.type !== "confidential") {
      throw badRequest("validation_failed", "Cannot regenerate secret for public client");
    }
    const secret = randomToken(32);
    client.secretHash = sha256Base64Url(secret);
    client.updatedAt = new Date().toISOString();
    await saveClient(client);
    return jsonResponse(request, clientJson(client, secret));
  }
  if (regenerate) return undefined;
  if (method === "GET") return jsonResponse(request, clientJson(client));
  if (method === "PUT") {
    update(client, await jsonBody(request));
    await saveClient(client);
    return jsonResponse(request, clientJson(client));
  }
  if (method === "DELETE") {
    await deleteClient(client.id);
    return new Response(null, { status: 204 });
  }
  return undefined;
}
