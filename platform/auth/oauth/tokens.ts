/**
 * The token endpoint, as Supabase Auth answers it (`oauthserver/handlers.go`, `client_auth.go`,
 * `internal/tokens`): client authentication, the code exchange with PKCE, refresh-token rotation.
 */
import { authDatabase } from "../database.ts";
import { httpError, oauthError, sameText, sha256Base64Url, uuidPattern } from "./responses.ts";
import { AuthError } from "../errors.ts";
import { clientOfRefreshToken, issueSession, refreshSession, type TokenResponse } from "../sessions.ts";
import { type AuthMethod, authorizations, type OAuthClient } from "./state.ts";
import { clientById } from "./store.ts";

interface ClientCredentials {
  clientId: string;
  secret: string;
  method: AuthMethod;
}

/** GoTrue's ExtractClientCredentials: Basic header, else the JSON or form body. */
function clientCredentials(request: Request, params: Record<string, string>): ClientCredentials | string {
  const authorization = request.headers.get("authorization") ?? "";
  if (authorization.startsWith("Basic ")) {
    let decoded: string;
    try {
      decoded = atob(authorization.slice(6));
    } catch {
      return "invalid basic auth encoding";
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return "invalid basic auth format";
    return {
      clientId: decoded.slice(0, colon),
      secret: decoded.slice(colon + 1),
      method: "client_secret_basic",
    };
  }
  if (!params.client_id) return "client_id is required";
  return {
    clientId: params.client_id,
    secret: params.client_secret ?? "",
    method: params.client_secret ? "client_secret_post" : "none",
  };
}

async function tokenParams(request: Request): Promise<Record<string, string> | undefined> {
  const type = request.headers.get("content-type") ?? "";
  try {
    if (type.includes("application/json")) {
      const json = await request.json();
      return Object.fromEntries(
        Object.entries(json ?? {}).filter(([, value]) => typeof value === "string"),
      ) as Record<string, string>;
    }
    return Object.fromEntries(new URLSearchParams(await request.text()));
  } catch {
    return undefined;
  }
}

/** The OAuth answer of a session's tokens: no user object (GoTrue's oauthResponse). */
function oauthTokens(tokens: TokenResponse): Response {
  return Response.json({
    access_token: tokens.access_token,
    token_type: tokens.token_type,
    expires_in: tokens.expires_in,
    refresh_token: tokens.refresh_token,
  });
}

async function exchangeCode(
  request: Request,
  client: OAuthClient,
  params: Record<string, string>,
): Promise<Response> {
  if (!params.code) return oauthError("invalid_request", "code is required for authorization_code grant");
  const authorization = [...authorizations.values()].find(
    (each) => each.status === "approved" && each.code === params.code,
  );
  if (!authorization) return oauthError("invalid_grant", "Invalid authorization code");
  if (authorization.expiresAt <= Date.now()) {
    return oauthError("invalid_grant", "Authorization code has expired");
  }
  if (authorization.clientId !== client.id) {
    return oauthError("invalid_grant", "Authorization code was not issued for this client");
  }
  if (params.resource && params.resource !== authorization.resource) {
    return oauthError("invalid_grant", "Authorization code resource does not match the resource parameter");
  }
  if (params.redirect_uri && params.redirect_uri !== authorization.redirectUri) {
    return oauthError("invalid_grant", "Invalid redirect_uri");
  }
  const verifier = params.code_verifier ?? "";
  if (!verifier) {
    return oauthError(
      "invalid_grant",
      "PKCE verification failed: code_verifier is required when PKCE challenge is present",
    );
  }
  const expected = authorization.codeChallengeMethod === "s256" ? sha256Base64Url(verifier) : verifier;
  if (!sameText(expected, authorization.codeChallenge)) {
    return oauthError(
      "invalid_grant",
      "PKCE verification failed: code challenge does not match previously saved code verifier",
    );
  }
  // Codes are single use: the authorization is gone once exchanged.
  authorizations.delete(authorization.id);
  const [user] = await authDatabase()<{ id: string }[]>`
    select id from auth.users where id = ${authorization.userId!} and deleted_at is null`;
  if (!user) return oauthError("invalid_grant", "User not found for authorization code");
  // A normal session of the user, as GoTrue keeps it: a row of auth.sessions with oauth_client_id.
  const tokens = await authDatabase().begin((tx) =>
    issueSession(tx, user.id, "oauth_provider/authorization_code", request, {
      clientId: client.id,
      scopes: authorization.scope,
    })
  );
  return oauthTokens(tokens);
}

async function refresh(
  request: Request,
  client: OAuthClient,
  params: Record<string, string>,
): Promise<Response> {
  if (!params.refresh_token) {
    return oauthError("invalid_request", "refresh_token is required for refresh_token grant");
  }
  const sessionClient = await clientOfRefreshToken(authDatabase(), params.refresh_token);
  if (sessionClient === undefined) {
    return httpError(
      request,
      400,
      "refresh_token_not_found",
      "Invalid Refresh Token: Refresh Token Not Found",
    );
  }
  if (sessionClient === null) {
    return oauthError("invalid_client", "Client authentication not allowed for non-OAuth session");
  }
  if (sessionClient !== client.id) {
    return oauthError("invalid_client", "Client does not match the session's OAuth client");
  }
  try {
    return oauthTokens(await refreshSession(authDatabase(), params.refresh_token));
  } catch (error) {
    if (error instanceof AuthError) return httpError(request, error.status, error.code, error.message);
    throw error;
  }
}

export async function token(request: Request): Promise<Response> {
  const params = await tokenParams(request);
  const credentials = params ? clientCredentials(request, params) : "failed to parse form";
  if (typeof credentials === "string") {
    return httpError(request, 400, "invalid_credentials", `Invalid client credentials: ${credentials}`);
  }
  if (!uuidPattern.test(credentials.clientId)) {
    return httpError(request, 400, "invalid_credentials", "Invalid client_id format");
  }
  const client = await clientById(credentials.clientId);
  if (!client) return httpError(request, 400, "invalid_credentials", "Invalid client credentials");
  if (credentials.method !== client.authMethod) {
    return httpError(
      request,
      400,
      "invalid_credentials",
      `invalid authentication method: client is registered for '${client.authMethod}' but '${credentials.method}' was used`,
    );
  }
  if (client.type === "public" && credentials.secret) {
    return httpError(request, 400, "invalid_credentials", "public clients must not provide client_secret");
  }
  if (client.type === "confidential" && !sameText(sha256Base64Url(credentials.secret), client.secretHash!)) {
    return httpError(request, 400, "invalid_credentials", "invalid client credentials");
  }
  const grantType = params!.grant_type ?? "";
  if (!grantType) return oauthError("invalid_request", "grant_type is required");
  if (!client.grantTypes.includes(grantType)) {
    return oauthError("unsupported_grant_type", `Client is not allowed to use grant type: ${grantType}`);
  }
  if (grantType === "authorization_code") return await exchangeCode(request, client, params!);
  if (grantType === "refresh_token") return await refresh(request, client, params!);
  return oauthError("unsupported_grant_type", `Unsupported grant type: ${grantType}`);
}
