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
 *   "deny"}`), which the consent page calls with the signed-in user's session token: details (or, when the
 *   user already consented to those scopes, the redirect at once), then `{"redirect_url": …}` carrying the
 *   code or `error=access_denied`;
 * - `POST /oauth/token`: `authorization_code` with PKCE (S256 or plain), single-use codes bound to client,
 *   redirect URI and resource; `refresh_token` with rotation (a rotated token used again is refused and ends
 *   its session). Access tokens are ES256 JWTs signed with the stand-in's key (published in the JWKS) with
 *   Supabase's claims and `client_id`; their audience is `authenticated`, never the resource (Supabase Auth
 *   stores an RFC 8707 `resource` and checks it at the token endpoint but does not put it in the token).
 * Errors have GoTrue's shapes: `{error, error_description}` (400) from the token endpoint's OAuth errors,
 * its HTTP errors elsewhere. State lives in this process's memory. Differences from hosted: no rate limits,
 * no refresh-token reuse interval (a rotated token is refused at once), no ID tokens or userinfo.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { createHash, timingSafeEqual } from "node:crypto";
import { verifySession } from "../../supabase/functions/_shared/session/jwt.ts";
import { sessionIssuer } from "../../supabase/functions/_shared/session/jwt.ts";
import { authDatabase } from "./auth_database.ts";
import { isRedirectAllowed } from "./auth_redirects.ts";
import { authSettings } from "./auth_settings.ts";

// ------------------------------------------------------------------------------------------------------
// Signing key
// ------------------------------------------------------------------------------------------------------

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

let signingKey: Promise<SigningKey> | undefined;

function localSigningKey(): Promise<SigningKey> {
  return signingKey ??= (async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = `local-es256-${crypto.randomUUID().slice(0, 8)}`;
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
  })();
}

/** The JWKS: the public half of the stand-in's ES256 key (made once per process). */
export async function localSigningKeys(): Promise<{ keys: JWK[] }> {
  return { keys: [(await localSigningKey()).publicJwk] };
}

export interface AccessTokenOptions {
  /** Default `<AUTH_BASE_URL or SUPABASE_URL>/auth/v1`. */
  issuer?: string;
  /** Seconds since the epoch; default now + the configured JWT expiry. */
  expiresAt?: number;
}

/** A JWT signed with the stand-in's key, with `claims` as given (tests make tokens the server would not). */
export async function signWithLocalKey(
  claims: Record<string, unknown>,
  options: AccessTokenOptions = {},
): Promise<string> {
  const key = await localSigningKey();
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
    .setIssuer(options.issuer ?? sessionIssuer())
    .setIssuedAt(now)
    .setExpirationTime(options.expiresAt ?? now + authSettings().jwtExpirySeconds)
    .sign(key.privateKey);
}

// ------------------------------------------------------------------------------------------------------
// State
// ------------------------------------------------------------------------------------------------------

type ClientType = "public" | "confidential";
type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

interface OAuthClient {
  id: string;
  type: ClientType;
  authMethod: AuthMethod;
  secretHash?: string;
  redirectUris: string[];
  grantTypes: string[];
  name: string;
  uri: string;
  logoUri: string;
  registrationType: "dynamic" | "manual";
  createdAt: string;
}

interface Authorization {
  id: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  resource: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  userId?: string;
  status: "pending" | "approved" | "denied" | "expired";
  code?: string;
  expiresAt: number;
}

interface Session {
  id: string;
  userId: string;
  clientId: string;
  scope: string;
  ended: boolean;
}

interface RefreshToken {
  sessionId: string;
  revoked: boolean;
}

const clients = new Map<string, OAuthClient>();
const authorizations = new Map<string, Authorization>();
const consents = new Map<string, Set<string>>();
const sessions = new Map<string, Session>();
const refreshTokens = new Map<string, RefreshToken>();

/** GoTrue's default authorization lifetime (GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL). */
const authorizationTtlMs = 10 * 60 * 1000;
/** The scopes Supabase Auth supports; a request without scope gets the default. */
const supportedScopes = ["openid", "profile", "email", "phone", "offline_access"];
const defaultScope = "email";

// ------------------------------------------------------------------------------------------------------
// Responses in GoTrue's shapes
// ------------------------------------------------------------------------------------------------------

/** GoTrue's HTTPError: `{code, msg}` for API version 2024-01-01 callers (supabase-js), else the older form. */
function httpError(request: Request, status: number, code: string, msg: string): Response {
  const versioned = (request.headers.get("x-supabase-api-version") ?? "") >= "2024-01-01";
  return Response.json(versioned ? { code, msg } : { code: status, error_code: code, msg }, {
    status,
    headers: { "x-sb-error-code": code, ...(versioned ? { "x-supabase-api-version": "2024-01-01" } : {}) },
  });
}

/** GoTrue's OAuthError (RFC 6749 §5.2): always 400. */
function oauthError(error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status: 400 });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

function errorRedirect(uri: string, error: string, description: string, state: string): Response {
  return redirect(withQuery(uri, { error, error_description: description, state }));
}

function randomToken(bytes = 24): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(bytes))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sha256Base64Url(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

function sameText(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

// ------------------------------------------------------------------------------------------------------
// Discovery
// ------------------------------------------------------------------------------------------------------

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

// ------------------------------------------------------------------------------------------------------
// Dynamic client registration
// ------------------------------------------------------------------------------------------------------

/** GoTrue's redirect URI rule for registration: absolute, no fragment, http only on loopback, no script schemes. */
function redirectUriProblem(uri: unknown): string | undefined {
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

async function register(request: Request): Promise<Response> {
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
  const invalid = (msg: string) => httpError(request, 400, "validation_failed", msg);
  const redirectUris = body.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) return invalid("redirect_uris is required");
  if (redirectUris.length > 10) return invalid("redirect_uris cannot exceed 10 items");
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) return invalid(`invalid redirect_uri '${uri}': ${problem}`);
  }
  const grantTypes = Array.isArray(body.grant_types) && body.grant_types.length > 0
    ? body.grant_types as string[]
    : ["authorization_code", "refresh_token"];
  if (grantTypes.some((grant) => grant !== "authorization_code" && grant !== "refresh_token")) {
    return invalid("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
  const method = body.token_endpoint_auth_method as string | undefined;
  if (method !== undefined && !["none", "client_secret_basic", "client_secret_post"].includes(method)) {
    return invalid(
      "token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]",
    );
  }
  const explicitType = body.client_type as string | undefined;
  if (explicitType !== undefined && explicitType !== "public" && explicitType !== "confidential") {
    return invalid("client_type must be 'public' or 'confidential'");
  }
  const inferred: ClientType = method === "none" ? "public" : "confidential";
  if (explicitType && method && explicitType !== inferred) {
    return invalid(
      `client_type '${explicitType}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${inferred}')`,
    );
  }
  const type: ClientType = (explicitType as ClientType | undefined) ?? (method ? inferred : "confidential");
  const authMethod: AuthMethod = (method as AuthMethod | undefined) ??
    (type === "public" ? "none" : "client_secret_basic");
  const secret = type === "confidential" ? randomToken(32) : undefined;
  const now = new Date().toISOString();
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
    registrationType: "dynamic",
    createdAt: now,
  };
  clients.set(client.id, client);
  return Response.json({
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
    created_at: now,
    updated_at: now,
  }, { status: 201 });
}

// ------------------------------------------------------------------------------------------------------
// Authorization
// ------------------------------------------------------------------------------------------------------

function remainingParameterProblem(params: URLSearchParams): string | undefined {
  const responseType = params.get("response_type") || "code";
  if (responseType !== "code") return "only response_type=code is supported";
  const scopes = (params.get("scope") || defaultScope).trim().split(/ +/).filter(Boolean);
  if (scopes.length === 0) return "scope parameter cannot be empty";
  const unsupported = scopes.find((scope) => !supportedScopes.includes(scope));
  if (unsupported) return `unsupported scope: ${unsupported}`;
  const resource = params.get("resource") ?? "";
  if (resource) {
    let url: URL;
    try {
      url = new URL(resource);
    } catch {
      return "resource must be an absolute URI";
    }
    if (resource.includes("#")) return "resource must not include a fragment component";
    if (url.search) return "resource must not include a query component";
  }
  const challenge = params.get("code_challenge") ?? "";
  const method = params.get("code_challenge_method") ?? "";
  if (!challenge || !method) return "PKCE flow requires both code_challenge and code_challenge_method";
  if (!["s256", "plain"].includes(method.toLowerCase())) {
    return "code_challenge_method must be 'S256' or 'plain'";
  }
  if (challenge.length < 43 || challenge.length > 128) {
    return "code_challenge must be between 43 and 128 characters";
  }
  return undefined;
}

function authorize(request: Request): Response {
  const params = new URL(request.url).searchParams;
  const clientId = params.get("client_id") ?? "";
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!clientId) return httpError(request, 400, "validation_failed", "client_id is required");
  if (!redirectUri) return httpError(request, 400, "validation_failed", "redirect_uri is required");
  if (!uuidPattern.test(clientId)) {
    return httpError(request, 400, "oauth_client_not_found", "invalid client_id format");
  }
  const client = clients.get(clientId.toLowerCase());
  if (!client) return httpError(request, 400, "oauth_client_not_found", "invalid client_id");
  // Exact string match, and no redirect: an unregistered URI cannot be trusted with even an error.
  if (!client.redirectUris.includes(redirectUri)) {
    return httpError(request, 400, "validation_failed", "invalid redirect_uri");
  }
  const state = params.get("state") ?? "";
  const problem = remainingParameterProblem(params);
  if (problem) return errorRedirect(redirectUri, "invalid_request", problem, state);
  const { siteUrl, oauthServer } = authSettings();
  if (!oauthServer.authorizationPath) {
    return errorRedirect(redirectUri, "server_error", "oauth authorization path not configured", state);
  }
  const authorization: Authorization = {
    id: randomToken(24),
    clientId: client.id,
    redirectUri,
    scope: params.get("scope") || defaultScope,
    state,
    resource: params.get("resource") ?? "",
    codeChallenge: params.get("code_challenge")!,
    codeChallengeMethod: params.get("code_challenge_method")!.toLowerCase(),
    status: "pending",
    expiresAt: Date.now() + authorizationTtlMs,
  };
  authorizations.set(authorization.id, authorization);
  const path = oauthServer.authorizationPath.startsWith("/")
    ? oauthServer.authorizationPath
    : `/${oauthServer.authorizationPath}`;
  return redirect(`${siteUrl.replace(/\/+$/, "")}${path}?authorization_id=${authorization.id}`);
}

function successRedirectUrl(authorization: Authorization): string {
  return withQuery(authorization.redirectUri, { code: authorization.code, state: authorization.state });
}

function approve(authorization: Authorization): void {
  authorization.status = "approved";
  authorization.code = crypto.randomUUID();
}

function scopesOf(scope: string): string[] {
  return scope.trim().split(/ +/).filter(Boolean);
}

/** The consent page's caller: Origin (when sent) must be the Site URL's or an allowed redirect URL. */
async function consentCaller(request: Request): Promise<{ userId: string } | Response> {
  const origin = request.headers.get("origin");
  const { siteUrl, allowList } = authSettings();
  if (origin && !isRedirectAllowed(siteUrl, allowList, origin)) {
    return httpError(request, 400, "validation_failed", "unauthorized request origin");
  }
  try {
    return await verifySession(request.headers.get("authorization"));
  } catch {
    return httpError(request, 401, "no_authorization", "This endpoint requires a valid Bearer token");
  }
}

/** The pending authorization `id`, or the response that says why it cannot be processed. */
function pendingAuthorization(request: Request, id: string, notPending: string): Authorization | Response {
  const authorization = authorizations.get(id);
  const notFound = () => httpError(request, 404, "oauth_authorization_not_found", "authorization not found");
  if (!authorization) return notFound();
  if (authorization.expiresAt <= Date.now()) {
    authorization.status = "expired";
    return notFound();
  }
  if (authorization.status !== "pending") return httpError(request, 400, "validation_failed", notPending);
  return authorization;
}

async function authorizationDetails(request: Request, id: string): Promise<Response> {
  const caller = await consentCaller(request);
  if (caller instanceof Response) return caller;
  const authorization = pendingAuthorization(request, id, "authorization request cannot be processed");
  if (authorization instanceof Response) return authorization;
  if (authorization.userId === undefined) {
    authorization.userId = caller.userId;
    const granted = consents.get(`${caller.userId} ${authorization.clientId}`);
    if (granted && scopesOf(authorization.scope).every((scope) => granted.has(scope))) {
      approve(authorization);
      return Response.json({ redirect_url: successRedirectUrl(authorization) });
    }
  } else if (authorization.userId !== caller.userId) {
    return httpError(request, 404, "oauth_authorization_not_found", "authorization not found");
  }
  const client = clients.get(authorization.clientId)!;
  const [user] = await authDatabase()<{ email: string | null }[]>`
    select email from auth.users where id = ${caller.userId}`;
  return Response.json({
    authorization_id: authorization.id,
    redirect_uri: authorization.redirectUri,
    client: {
      id: client.id,
      ...(client.name ? { name: client.name } : {}),
      ...(client.uri ? { uri: client.uri } : {}),
      ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    },
    user: { id: caller.userId, email: user?.email ?? "" },
    scope: authorization.scope,
  });
}

async function consent(request: Request, id: string): Promise<Response> {
  const caller = await consentCaller(request);
  if (caller instanceof Response) return caller;
  let body: { action?: unknown };
  try {
    body = await request.json();
  } catch {
    return httpError(request, 400, "bad_json", "invalid JSON body");
  }
  if (body.action !== "approve" && body.action !== "deny") {
    return httpError(request, 400, "validation_failed", "action must be 'approve' or 'deny'");
  }
  const pending = pendingAuthorization(request, id, "authorization request is no longer pending");
  if (pending instanceof Response) return pending;
  if (pending.userId !== caller.userId) {
    return httpError(request, 404, "oauth_authorization_not_found", "authorization not found");
  }
  if (body.action === "deny") {
    pending.status = "denied";
    return Response.json({
      redirect_url: withQuery(pending.redirectUri, {
        error: "access_denied",
        error_description: "User denied the request",
        state: pending.state,
      }),
    });
  }
  approve(pending);
  const key = `${caller.userId} ${pending.clientId}`;
  consents.set(key, new Set([...consents.get(key) ?? [], ...scopesOf(pending.scope)]));
  return Response.json({ redirect_url: successRedirectUrl(pending) });
}

// ------------------------------------------------------------------------------------------------------
// Token endpoint
// ------------------------------------------------------------------------------------------------------

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

async function issueTokens(session: Session): Promise<Response> {
  const [user] = await authDatabase()<
    { email: string | null; raw_app_meta_data: unknown; raw_user_meta_data: unknown }[]
  >`select email, raw_app_meta_data, raw_user_meta_data from auth.users
     where id = ${session.userId} and deleted_at is null`;
  if (!user) return oauthError("invalid_grant", "User not found for authorization code");
  const expiresIn = authSettings().jwtExpirySeconds;
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await signWithLocalKey({
    sub: session.userId,
    aud: "authenticated",
    email: user.email ?? "",
    phone: "",
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: "authenticated",
    aal: "aal1",
    amr: [{ method: "oauth_provider/authorization_code", timestamp: now }],
    session_id: session.id,
    is_anonymous: false,
    client_id: session.clientId,
    scope: session.scope,
  }, { expiresAt: now + expiresIn });
  const refreshToken = randomToken(9);
  refreshTokens.set(refreshToken, { sessionId: session.id, revoked: false });
  return Response.json({
    access_token: accessToken,
    token_type: "bearer",
    expires_in: expiresIn,
    refresh_token: refreshToken,
  });
}

async function exchangeCode(client: OAuthClient, params: Record<string, string>): Promise<Response> {
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
  const session: Session = {
    id: crypto.randomUUID(),
    userId: authorization.userId!,
    clientId: client.id,
    scope: authorization.scope,
    ended: false,
  };
  sessions.set(session.id, session);
  return await issueTokens(session);
}

async function refresh(
  request: Request,
  client: OAuthClient,
  params: Record<string, string>,
): Promise<Response> {
  if (!params.refresh_token) {
    return oauthError("invalid_request", "refresh_token is required for refresh_token grant");
  }
  const token = refreshTokens.get(params.refresh_token);
  const session = token ? sessions.get(token.sessionId) : undefined;
  if (!token || !session || session.ended) {
    return httpError(
      request,
      400,
      "refresh_token_not_found",
      "Invalid Refresh Token: Refresh Token Not Found",
    );
  }
  if (session.clientId !== client.id) {
    return oauthError("invalid_client", "Client does not match the session's OAuth client");
  }
  if (token.revoked) {
    // A rotated token used again: possibly stolen, so the whole session ends.
    session.ended = true;
    return httpError(request, 400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
  }
  token.revoked = true;
  return await issueTokens(session);
}

async function token(request: Request): Promise<Response> {
  const params = await tokenParams(request);
  const credentials = params ? clientCredentials(request, params) : "failed to parse form";
  if (typeof credentials === "string") {
    return httpError(request, 400, "invalid_credentials", `Invalid client credentials: ${credentials}`);
  }
  if (!uuidPattern.test(credentials.clientId)) {
    return httpError(request, 400, "invalid_credentials", "Invalid client_id format");
  }
  const client = clients.get(credentials.clientId.toLowerCase());
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
  if (grantType === "authorization_code") return await exchangeCode(client, params!);
  if (grantType === "refresh_token") return await refresh(request, client, params!);
  return oauthError("unsupported_grant_type", `Unsupported grant type: ${grantType}`);
}

// ------------------------------------------------------------------------------------------------------
// Routing
// ------------------------------------------------------------------------------------------------------

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
