/**
 * The authorization endpoint and the two calls of the app's consent page, as Supabase Auth answers them
 * (`oauthserver/authorize.go`).
 */
import { bearerToken as readBearerToken } from "../../../supabase/functions/_shared/http/bearer.ts";
import { verifySession } from "../../../supabase/functions/_shared/session/jwt.ts";
import { authDatabase } from "../database.ts";
import { isRedirectAllowed } from "../redirects.ts";
import { authSettings } from "../project_settings.ts";
import { errorRedirect, httpError, randomToken, redirect, uuidPattern, withQuery } from "./responses.ts";
import {
  type Authorization,
  authorizations,
  authorizationTtlMs,
  defaultScope,
  supportedScopes,
} from "./state.ts";
import { activeConsent, clientById, grantScopes } from "./store.ts";

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

export async function authorize(request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const clientId = params.get("client_id") ?? "";
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!clientId) return httpError(request, 400, "validation_failed", "client_id is required");
  if (!redirectUri) return httpError(request, 400, "validation_failed", "redirect_uri is required");
  if (!uuidPattern.test(clientId)) {
    return httpError(request, 400, "oauth_client_not_found", "invalid client_id format");
  }
  const client = await clientById(clientId);
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

/**
 * The consent page's caller, checked as GoTrue's `requireAuthentication` and `validateRequestOrigin` do: no
 * bearer token is a 401 `no_authorization`; a token that does not verify is a 403 `bad_jwt`; a user that does
 * not exist (any more) is a 403 `user_not_found`; an Origin (when sent) must be the Site URL's or an allowed
 * redirect URL's, else a 400.
 */
async function consentCaller(request: Request): Promise<{ userId: string; email: string } | Response> {
  const authorization = request.headers.get("authorization");
  if (readBearerToken(authorization) === null) {
    return httpError(request, 401, "no_authorization", "This endpoint requires a valid Bearer token");
  }
  let userId: string;
  try {
    userId = (await verifySession(authorization)).userId;
  } catch {
    return httpError(request, 403, "bad_jwt", "invalid JWT: unable to parse or verify signature");
  }
  const [user] = await authDatabase()<{ email: string | null }[]>`
    select email from auth.users where id = ${userId}`;
  if (!user) return httpError(request, 403, "user_not_found", "User from sub claim in JWT does not exist");
  const origin = request.headers.get("origin");
  const { siteUrl, allowList } = authSettings();
  if (origin && !isRedirectAllowed(siteUrl, allowList, origin)) {
    return httpError(request, 400, "validation_failed", "unauthorized request origin");
  }
  return { userId, email: user.email ?? "" };
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

export async function authorizationDetails(request: Request, id: string): Promise<Response> {
  const caller = await consentCaller(request);
  if (caller instanceof Response) return caller;
  const authorization = pendingAuthorization(request, id, "authorization request cannot be processed");
  if (authorization instanceof Response) return authorization;
  if (authorization.userId === undefined) {
    authorization.userId = caller.userId;
    const granted = await activeConsent(caller.userId, authorization.clientId);
    if (granted && scopesOf(authorization.scope).every((scope) => granted.scopes.includes(scope))) {
      approve(authorization);
      return Response.json({ redirect_url: successRedirectUrl(authorization) });
    }
  } else if (authorization.userId !== caller.userId) {
    return httpError(request, 404, "oauth_authorization_not_found", "authorization not found");
  }
  const client = await clientById(authorization.clientId);
  if (!client) return httpError(request, 404, "oauth_authorization_not_found", "authorization not found");
  return Response.json({
    authorization_id: authorization.id,
    redirect_uri: authorization.redirectUri,
    client: {
      id: client.id,
      ...(client.name ? { name: client.name } : {}),
      ...(client.uri ? { uri: client.uri } : {}),
      ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    },
    user: { id: caller.userId, ...(caller.email ? { email: caller.email } : {}) },
    scope: authorization.scope,
  });
}

export async function consent(request: Request, id: string): Promise<Response> {
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
  // As GoTrue's UpdateScopes: the scopes join the ones granted before, and granted_at becomes now.
  await grantScopes(caller.userId, pending.clientId, scopesOf(pending.scope));
  return Response.json({ redirect_url: successRedirectUrl(pending) });
}
