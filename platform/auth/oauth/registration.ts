/** RFC 7591 dynamic client registration, as Supabase Auth validates it (`oauthserver/service.go`). */
import { authSettings } from "../project_settings.ts";
import { httpError, randomToken, sha256Base64Url } from "./responses.ts";
import type { AuthMethod, ClientType, OAuthClient } from "./state.ts";
import { saveClient } from "./store.ts";

/** GoTrue's redirect URI rule for registration: absolute, no fragment, http only on loopback, no script schemes. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri === "") return "redirect URI cannot be empty";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "invalid URL format";
  }
  if (!url.protocol || !url.host) return "must have scheme and host";
  if (["javascript:", "data:", "file:", "vbscript:", "about:", "blob:"].includes(url.protocol)) {
    return `scheme '${url.protocol.slice(0, -1)}' is not allowed for security reasons`;
  }
  if (url.protocol === "http:" && !["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) {
    return "HTTP scheme only allowed for localhost";
  }
  if (uri.includes("#")) return "fragment not allowed in redirect URI";
  return undefined;
}

/** A client response as GoTrue answers it (`oauthServerClientToResponse`); the secret only when given. */
export function clientJson(client: OAuthClient, secret?: string): Record<string, unknown> {
  return {
    client_id: client.id,
    ...(secret ? { client_secret: secret } : {}),
    client_type: client.type,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.authMethod,
    grant_types: client.grantTypes,
    response_types: ["code"],
    ...(client.name ? { client_name: client.name } : {}),
    ...(client.uri ? { client_uri: client.uri } : {}),
    ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    registration_type: client.registrationType,
    created_at: client.createdAt,
    updated_at: client.updatedAt ?? client.createdAt,
  };
}

/** GoTrue's OAuthServerClientRegisterParams.validate and registerOAuthServerClient: a client, or a problem. */
export function newClient(
  body: Record<string, unknown>,
  registrationType: "dynamic" | "manual",
): { client: OAuthClient; secret?: string } | { problem: string } {
  const redirectUris = body.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    return { problem: "redirect_uris is required" };
  }
  if (redirectUris.length > 10) return { problem: "redirect_uris cannot exceed 10 items" };
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { problem: `invalid redirect_uri '${uri}': ${problem}` };
  }
  const grantTypes = Array.isArray(body.grant_types) && body.grant_types.length > 0
    ? body.grant_types as string[]
    : ["authorization_code", "refresh_token"];
  if (grantTypes.some((grant) => grant !== "authorization_code" && grant !== "refresh_token")) {
    return { problem: "grant_types must only contain 'authorization_code' and/or 'refresh_token'" };
  }
  const method = body.token_endpoint_auth_method as string | undefined;
  if (method !== undefined && !["none", "client_secret_basic", "client_secret_post"].includes(method)) {
    return {
      problem: "token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]",
    };
  }
  const explicitType = body.client_type as string | undefined;
  if (explicitType !== undefined && explicitType !== "public" && explicitType !== "confidential") {
    return { problem: "client_type must be 'public' or 'confidential'" };
  }
  const inferred: ClientType = method === "none" ? "public" : "confidential";
  if (explicitType && method && explicitType !== inferred) {
    return {
      problem:
        `client_type '${explicitType}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${inferred}')`,
    };
  }
  const type: ClientType = (explicitType as ClientType | undefined) ?? (method ? inferred : "confidential");
  const authMethod: AuthMethod = (method as AuthMethod | undefined) ??
    (type === "public" ? "none" : "client_secret_basic");
  const secret = type === "confidential" ? randomToken(32) : undefined;
  const client: OAuthClient = {
    id: crypto.randomUUID(),
    type,
    authMethod,
    secretHash: secret ? sha256Base64Url(secret) : undefined,
    redirectUris: redirectUris as string[],
    grantTypes,
    name: typeof body.client_name === "string" ? body.client_name : "",
    uri: typeof body.client_uri === "string" ? body.client_uri : "",
    logoUri: typeof body.logo_uri === "string" ? body.logo_uri : "",
    registrationType,
    createdAt: new Date().toISOString(),
  };
  return { client, secret };
}

export async function register(request: Request): Promise<Response> {
  if (!authSettings().oauthServer.allowDynamicRegistration) {
    return httpError(
      request,
      403,
      "oauth_dynamic_client_registration_disabled",
      "Dynamic client registration is not enabled",
    );
  }
  let body: Record<string, unknown>;
  try {
    body = await request.json();
  } catch {
    return httpError(request, 400, "bad_json", "Invalid JSON body");
  }
  const made = newClient(body, "dynamic");
  if ("problem" in made) return httpError(request, 400, "validation_failed", made.problem);
  await saveClient(made.client);
  return Response.json(clientJson(made.client, made.secret), { status: 201 });
}
