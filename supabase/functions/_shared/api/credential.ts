/**
 * The credential of an API request, read once from its headers: an API key (`x-api-key`, every route), or
 * on `/mcp` also an OAuth access token of the project's Supabase Auth (`Authorization: Bearer`). Either way
 * it names an account; which SQL function admits that account is the credential's own business.
 */
import { createHash } from "node:crypto";
import { booleanLiteral, hexTextLiteral, uuidLiteral } from "../db/literals.ts";
import { ApiError } from "../http/errors.ts";
import { bearerToken } from "../http/bearer.ts";
import { type OAuthTokenCaller, verifyOAuthAccessToken } from "../session/jwt.ts";

/**
 * SHA-256 hex of the UTF-8 text. Synchronous (node:crypto): WebCrypto's digest is an async operation
 * handed to another thread, which cost more than the hash itself on every API request.
 */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Logged per request; never the credential itself. */
export type CredentialKind = "api_key" | "oauth_token";

export interface Credential {
  kind: CredentialKind;
  /**
   * The call of the SQL function that admits this credential's account (plan gate, and the daily count
   * when `count`): a row of outcome, user_id, plan_id, allowed, request_limit, remaining, reset_at. No
   * parameters (db/literals.ts), so that it can open a one-round-trip script.
   */
  admissionCall(count: boolean): string;
  /**
   * The named argument of `private.api_watchlist_page` that names this credential's account (`p_key_hash`
   * or `p_account`), for a personal list's page read with its admission (api_access.ts).
   */
  pageAdmission: string;
  /** The 401 sentence when that function finds no account. */
  unknownMessage: string;
  /**
   * An organization's API key (`dwo_…`, docs/organizations.md): the request is about the organization's
   * list. Known before the look-up, so a request's statement can be chosen first; the look-up must agree.
   */
  organizationKey: boolean;
}

/** The start of an organization's API key (a personal key starts `dwl_`). */
export const organizationKeyPrefix = "dwo_";

/** Keys are far shorter; anything longer is refused before it is hashed. */
const maxKeyLength = 200;

function apiKeyCredential(header: string | undefined, missingMessage: string): Credential {
  const key = header?.trim();
  if (!key || key.length > maxKeyLength) throw new ApiError("unauthorized", missingMessage);
  const keyHash = sha256Hex(key);
  return {
    kind: "api_key",
    admissionCall: (count) =>
      `private.authorize_api_request(${hexTextLiteral(keyHash)}, ${booleanLiteral(count)})`,
    pageAdmission: `p_key_hash => ${hexTextLiteral(keyHash)}`,
    unknownMessage: "The API key is unknown or has been revoked.",
    organizationKey: key.startsWith(organizationKeyPrefix),
  };
}

function oauthCredential(caller: OAuthTokenCaller): Credential {
  const account = uuidLiteral(caller.userId);
  return {
    kind: "oauth_token",
    admissionCall: (count) =>
      `(select t.*, null::uuid as organization_id
          from private.authorize_account_request(${account}, ${booleanLiteral(count)}) as t)`,
    pageAdmission: `p_account => ${account}`,
    unknownMessage: "The account of this access token no longer exists.",
    organizationKey: false,
  };
}

/**
 * Verified access tokens, so that a token is verified once and not on every request (an ES256 signature
 * check costs more CPU than the rest of a request). Keyed by the whole token, kept until its expiry, at most
 * `maxCachedTokens` (the oldest go first). Nothing here outlives the isolate.
 */
const maxCachedTokens = 1000;
const verifiedTokens = new Map<string, OAuthTokenCaller>();

async function verifiedToken(token: string): Promise<OAuthTokenCaller> {
  const cached = verifiedTokens.get(token);
  if (cached && cached.expiresAt * 1000 > Date.now()) return cached;
  if (cached) verifiedTokens.delete(token);
  let caller: OAuthTokenCaller;
  try {
    caller = await verifyOAuthAccessToken(token);
  } catch (error) {
    if (error instanceof ApiError && error.code === "unauthorized") {
      throw new ApiError(
        "unauthorized",
        "The access token is invalid or has expired: authorize again with this project's Supabase Auth.",
      );
    }
    throw error;
  }
  if (verifiedTokens.size >= maxCachedTokens) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, caller);
  return caller;
}

/** Whether a request offers an OAuth access token (for the `error="invalid_token"` of a 401 challenge). */
export function offersBearerToken(headers: { authorization?: string; apiKey?: string }): boolean {
  return headers.apiKey === undefined && bearerToken(headers.authorization) !== null;
}

/**
 * The request's credential: `x-api-key` when present (it wins over an Authorization header), else, where
 * `acceptsOAuth`, a bearer access token. 401 when there is neither or the token is not valid.
 */
export async function credentialOf(
  headers: { apiKey: string | undefined; authorization: string | undefined },
  acceptsOAuth: boolean,
): Promise<Credential> {
  if (acceptsOAuth && headers.apiKey === undefined) {
    const token = bearerToken(headers.authorization);
    if (token !== null) return oauthCredential(await verifiedToken(token));
    return apiKeyCredential(
      undefined,
      "Send an API key in the x-api-key header, or an OAuth access token as `Authorization: Bearer <token>`.",
    );
  }
  return apiKeyCredential(headers.apiKey, "Send a valid API key in the x-api-key header.");
}
