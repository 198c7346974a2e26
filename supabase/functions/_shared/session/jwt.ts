/**
 * Verifies the JWTs Supabase Auth issues: the session JWT the signed-in app sends (`Authorization: Bearer
 * <token>`), and the access tokens of its OAuth 2.1 server that assistants send to `/mcp`.
 *
 * The token's own `alg` picks exactly one way to verify it, so keys are never confused:
 * - ES256 / RS256 / EdDSA (Ed25519; also written `Ed25519`): Supabase's JSON Web Key Set (`SUPABASE_JWKS` when set, else
 *   `<AUTH_BASE_URL>/auth/v1/.well-known/jwks.json`, fetched and cached by jose);
 * - HS256: the project's shared secret, only when `AUTH_JWT_SECRET` is configured;
 * - anything else (including `none`): refused.
 * Every token must carry issuer `<AUTH_BASE_URL>/auth/v1`, audience `authenticated`, an expiry in the
 * future, role `authenticated` and a user id (`sub`, a UUID). An OAuth access token must also be signed
 * with an asymmetric key (the OAuth server signs with the project's JWKS keys) and carry the `client_id`
 * of the OAuth client it was issued to: that claim is what tells it from a plain session token.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { bearerToken as readBearerToken } from "../http/bearer.ts";

export interface SessionUser {
  userId: string;
  email: string | null;
}

type KeySet = JWTVerifyGetKey;

/** The asymmetric signing keys Supabase Auth offers: ECC P-256, RSA and Ed25519. */
const asymmetricAlgorithms = ["ES256", "RS256", "EdDSA", "Ed25519"];
const sessionAudience = "authenticated";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** jose error codes that mean "this token is not acceptable" (401), as opposed to a failure on our side. */
const rejectedTokenCodes = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWT_INVALID",
  "ERR_JWS_INVALID",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
]);

const remoteKeySets = new Map<string, KeySet>();
const localKeySets = new Map<string, KeySet>();

export function sessionIssuer(): string {
  return `${authBase()}/auth/v1`;
}

function authBase(): string {
  return config.authBaseUrl().replace(/\/+$/, "");
}

function unauthorized(
  message = "Sign in again: the session token is missing, invalid or expired.",
): ApiError {
  return new ApiError("unauthorized", message);
}

/** The bearer token of an Authorization header; 401 when there is none. */
export function bearerToken(authorization: string | null | undefined): string {
  const token = readBearerToken(authorization);
  if (token === null) {
    throw unauthorized("Send the session token in the Authorization header as `Bearer <token>`.");
  }
  return token;
}

/**
 * The key set for asymmetric tokens: `SUPABASE_JWKS` (JSON key set or its URL), else Auth's JWKS URL. An
 * inline key set falls back to Auth's JWKS URL for a `kid` it does not hold (a rotated key), at most once per
 * `jwksRefetchIntervalMs` per process (jose's remote key sets have the same cool-down of their own).
 */
function asymmetricKeySet(): KeySet {
  const configured = config.supabaseJwks()?.trim();
  if (configured && !/^https?:\/\//i.test(configured)) {
    return inlineKeySetWithRefetch(localKeySet(configured), authJwksUrl());
  }
  const url = configured ?? authJwksUrl();
  let keySet = remoteKeySets.get(url);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(url));
    remoteKeySets.set(url, keySet);
  }
  return keySet;
}

function authJwksUrl(): string {
  return `${authBase()}/auth/v1/.well-known/jwks.json`;
}

/** At most one fetch of the JWKS URL per this interval per process, however many unknown `kid`s arrive. */
export const jwksRefetchIntervalMs = 30_000;
const jwksFetchTimeoutMs = 5_000;

interface FetchedKeys {
  /** When the fetch started (ms since the epoch). */
  at: number;
  /** The fetched key set; null when the fetch failed. */
  keys: Promise<KeySet | null>;
}
const fetchedKeySets = new Map<string, FetchedKeys>();

/** Auth's key set as last fetched from `url`, fetched again only when the last fetch is a window old. */
function refetchedKeySet(url: string): Promise<KeySet | null> {
  const last = fetchedKeySets.get(url);
  if (last && Date.now() - last.at < jwksRefetchIntervalMs) return last.keys;
  const keys = fetch(url, { signal: AbortSignal.timeout(jwksFetchTimeoutMs) })
    .then(async (response) => {
      if (!response.ok) {
        await response.body?.cancel();
        return null;
      }
      const body = await response.json() as { keys?: unknown };
      return Array.isArray(body?.keys) ? createLocalJWKSet({ keys: body.keys }) : null;
    })
    .catch(() => null);
  fetchedKeySets.set(url, { at: Date.now(), keys });
  return keys;
}

/** The inline key set; for a `kid` it does not hold, Auth's JWKS (refetched as above) before refusing. */
function inlineKeySetWithRefetch(inline: KeySet, url: string): KeySet {
  return async (header, token) => {
    try {
      return await inline(header, token);
    } catch (error) {
      if ((error as { code?: unknown })?.code !== "ERR_JWKS_NO_MATCHING_KEY") throw error;
      const fetched = await refetchedKeySet(url);
      if (!fetched) throw error;
      return await fetched(header, token);
    }
  };
}

function localKeySet(json: string): KeySet {
  let keySet = localKeySets.get(json);
  if (!keySet) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error("SUPABASE_JWKS is neither a JSON Web Key Set nor an http(s) URL");
    }
    const keys = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown })?.keys;
    if (!Array.isArray(keys)) throw new Error('SUPABASE_JWKS must be a JSON Web Key Set ({"keys": [...]})');
    keySet = createLocalJWKSet({ keys });
    localKeySets.set(json, keySet);
  }
  return keySet;
}

/** Which keys may verify a token: the JWKS only, or the JWKS and the HS256 secret when one is configured. */
type AcceptedKeys = "asymmetric" | "asymmetric_or_shared";

async function verifiedPayload(token: string, accepted: AcceptedKeys): Promise<JWTPayload> {
  let algorithm: unknown;
  try {
    algorithm = decodeProtectedHeader(token).alg;
  } catch {
    throw unauthorized();
  }
  const claims = {
    issuer: sessionIssuer(),
    audience: sessionAudience,
    requiredClaims: ["exp", "sub"],
  };
  if (algorithm === "HS256" && accepted === "asymmetric_or_shared") {
    const secret = config.authJwtSecret();
    if (!secret) throw unauthorized();
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      ...claims,
      algorithms: ["HS256"],
    });
    return payload;
  }
  if (typeof algorithm === "string" && asymmetricAlgorithms.includes(algorithm)) {
    const { payload } = await jwtVerify(token, asymmetricKeySet(), {
      ...claims,
      algorithms: asymmetricAlgorithms,
    });
    return payload;
  }
  throw unauthorized();
}

/** A verified token of a user (role `authenticated`, `sub` a UUID); 401 for any token that is not one. */
async function verifiedUserPayload(
  token: string,
  accepted: AcceptedKeys,
): Promise<JWTPayload & { sub: string }> {
  let payload: JWTPayload;
  try {
    payload = await verifiedPayload(token, accepted);
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    if (typeof code === "string" && rejectedTokenCodes.has(code)) throw unauthorized();
    throw error;
  }
  if (payload.role !== "authenticated" || typeof payload.sub !== "string" || !uuidPattern.test(payload.sub)) {
    throw unauthorized();
  }
  return payload as JWTPayload & { sub: string };
}

/**
 * The signed-in user behind an Authorization header. Invalid, expired, foreign or unsigned tokens are a 401;
 * an OAuth access token (it carries `client_id`: an assistant's token, which may only use the MCP tools) is
 * a 403; a key set that cannot be fetched or read is an error on our side (500).
 */
export async function verifySession(authorization: string | null | undefined): Promise<SessionUser> {
  const payload = await verifiedUserPayload(bearerToken(authorization), "asymmetric_or_shared");
  if (isOAuthClientPayload(payload)) {
    throw new ApiError(
      "forbidden",
      "An assistant's access token cannot manage the account: sign in to the app to do this.",
    );
  }
  return {
    userId: payload.sub.toLowerCase(),
    email: typeof payload.email === "string" ? payload.email : null,
  };
}

/**
 * Whether a verified token was issued to an OAuth client (an assistant): it carries `client_id`. The same
 * rule as SQL's `public.is_oauth_client_token()`.
 */
function isOAuthClientPayload(payload: JWTPayload): boolean {
  return payload.client_id !== undefined && payload.client_id !== null && payload.client_id !== "";
}

/** The account and OAuth client behind an access token of the project's OAuth 2.1 server. */
export interface OAuthTokenCaller {
  userId: string;
  clientId: string;
  /** The token's expiry, seconds since the epoch. */
  expiresAt: number;
}

/**
 * Verifies an access token of the project's OAuth 2.1 server (not the whole header: the caller has taken
 * it from `Authorization: Bearer`). 401 for anything else: a session token without `client_id`, an HS256
 * token, a foreign issuer, an expired or forged token; a key set that cannot be fetched is a 500.
 */
export async function verifyOAuthAccessToken(token: string): Promise<OAuthTokenCaller> {
  const payload = await verifiedUserPayload(token, "asymmetric");
  const clientId = payload.client_id;
  if (typeof clientId !== "string" || clientId === "" || typeof payload.exp !== "number") {
    throw unauthorized("Send an access token issued to an OAuth client of this project's Supabase Auth.");
  }
  return { userId: payload.sub.toLowerCase(), clientId, expiresAt: payload.exp };
}
