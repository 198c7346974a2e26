/**
 * api-v1's route middleware. Each route names its guards (api-v1/index.ts):
 * - `requireApiKey` / `requireApiKeyOrToken` read the credential once and put it on the context (401 when
 *   there is none, or the access token is not valid); nothing is looked up yet;
 * - `admitRequest` admits the credential's account and counts the request (401/403/429), in one round trip;
 *   routes with a faster way (GET /domains, /mcp) admit in their own round trip instead, through the same
 *   functions (api_access.ts);
 * - `oauthChallenge` adds the RFC 9728 `WWW-Authenticate` challenge to every 401 of an OAuth-protected route.
 */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimitedError } from "../daily_limit/allowance.ts";
import { rateLimitHeaders } from "../http/rate_limit_headers.ts";
import { type AuthorizedRequest, authorizeRequest } from "./api_access.ts";
import { credentialOf, offersBearerToken } from "./credential.ts";
import type { ApiEnv } from "./context.ts";
import { protectedResourceMetadataUrl } from "./protected_resource.ts";

/** An API key in `x-api-key`. */
export const requireApiKey: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set(
    "credential",
    await credentialOf({ apiKey: c.req.header("x-api-key"), authorization: undefined }, false),
  );
  await next();
};

/**
 * An API key in `x-api-key`, or an OAuth access token of the project's Supabase Auth (`/mcp`). Logs which
 * kind each request used (or that it had none valid), never the credential itself.
 */
export const requireApiKeyOrToken: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const headers = { apiKey: c.req.header("x-api-key"), authorization: c.req.header("authorization") };
  let kind = "none";
  try {
    const credential = await credentialOf(headers, true);
    kind = credential.kind;
    c.set("credential", credential);
  } catch (error) {
    if (offersBearerToken(headers)) kind = "oauth_token (refused)";
    throw error;
  } finally {
    console.info(`[api-v1] ${c.req.method} ${c.req.path} request ${c.get("requestId")} credential: ${kind}`);
  }
  await next();
};

/** Puts the account on the context and the allowance in `RateLimit-*` headers; 429 when refused. */
export function admitAuthorized(c: Context<ApiEnv>, { account, allowance }: AuthorizedRequest): void {
  c.set("account", account);
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
  if (!allowance.allowed) throw rateLimitedError(allowance);
}

/** Admits and counts a request whose credential is on the context, before its handler runs. */
export async function admitCounted(c: Context<ApiEnv>): Promise<void> {
  admitAuthorized(c, await authorizeRequest(c.get("credential"), { count: true }));
}

/**
 * 401 for a key that is unknown or revoked (or a token whose account is gone) and 403 for plans without API
 * access (neither counted); otherwise counts the request against the account's daily limit, reports it in
 * `RateLimit-*` headers and refuses it with 429 when the limit is used up.
 */
export const admitRequest: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await admitCounted(c);
  await next();
};

/**
 * On an OAuth-protected route, every 401 (no credential, a bad or expired token, an unknown key) carries
 * `WWW-Authenticate: Bearer resource_metadata="<url>"`, where an MCP client discovers the authorization
 * server (RFC 9728 §5.1); with `error="invalid_token"` when a token was offered (RFC 6750 §3.1).
 */
export const oauthChallenge: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  if (c.res.status !== 401) return;
  const offered = offersBearerToken({
    apiKey: c.req.header("x-api-key"),
    authorization: c.req.header("authorization"),
  });
  c.header(
    "WWW-Authenticate",
    `Bearer resource_metadata="${protectedResourceMetadataUrl()}"${offered ? ', error="invalid_token"' : ""}`,
  );
};
