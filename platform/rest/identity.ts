/**
 * Who a Data API request runs as, decided as Supabase's gateway and PostgREST decide it:
 * - the gateway first wants a project key in `apikey` (header, or `?apikey=`): a publishable or secret key
 *   (`sb_publishable_…` / `sb_secret_…`), or a legacy anon / service_role JWT (`roleOfApiKey`, secrets.ts).
 *   None is a 401 `No API key found in request`; an unknown one a 401 `Invalid API key` (the gateway's shape);
 * - `Authorization: Bearer <token>` then decides the role, as PostgREST does: absent, or one of the new keys
 *   (supabase-js sends the key itself when nobody is signed in), it is the key's role with claims
 *   `{"role": …}`; otherwise a JWT verified by its own `alg` (HS256 with AUTH_JWT_SECRET, ES256 with the local
 *   Auth's key), whose `role` claim is the role (`anon` when it has none). A token that does not verify is a
 *   401 PGRST301, an expired one PGRST303, in PostgREST's words.
 * Only `anon`, `authenticated` and `service_role` may be taken on (Supabase's `authenticator` can become no
 * other role): any other role claim is PostgreSQL's `permission denied to set role` (42501, 403).
 */
import { decodeProtectedHeader, type JWTPayload, jwtVerify } from "jose";
import { roleOfApiKey } from "../secrets.ts";
import { localVerificationKeys } from "../auth/oauth/signing.ts";
import { fromDatabaseError, pgrstErrors, PostgrestError } from "./errors.ts";

export type DatabaseRole = "anon" | "authenticated" | "service_role";

export interface Identity {
  role: DatabaseRole;
  /** The verified claims, with `role` set, as PostgREST puts them in `request.jwt.claims`. */
  claims: Record<string, unknown>;
}

const roles: readonly string[] = ["anon", "authenticated", "service_role"];

/** The gateway's own 401s (Kong's shape: `message` and `hint`, no PostgREST code). */
export class GatewayKeyError extends Error {
  constructor(readonly body: { message: string; hint: string }) {
    super(body.message);
  }
}

function apiKeyOf(request: Request): string | null {
  return request.headers.get("apikey") ?? new URL(request.url).searchParams.get("apikey");
}

/** The bearer token; undefined without one (PostgREST reads another scheme, e.g. Basic, as no token). */
function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Bearer(?:\s+(.*))?$/i);
  return match ? (match[1] ?? "").trim() : undefined;
}

/** JWT verification as PostgREST words its failures. */
async function verifiedClaims(token: string): Promise<JWTPayload> {
  if (token === "") throw pgrstErrors.jwtDecode("Empty JWT is sent in Authorization header");
  const parts = token.split(".").length;
  if (parts !== 3) throw pgrstErrors.jwtDecode(`Expected 3 parts in JWT; got ${parts}`);
  let algorithm: unknown;
  try {
    algorithm = decodeProtectedHeader(token).alg;
  } catch {
    throw pgrstErrors.jwtDecode("JWT couldn't be decoded");
  }
  try {
    if (algorithm === "HS256") {
      const secret = Deno.env.get("AUTH_JWT_SECRET");
      if (!secret) throw pgrstErrors.jwtDecode("No suitable key or wrong key type");
      return (await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ["HS256"] })).payload;
    }
    if (algorithm === "ES256") {
      return (await jwtVerify(token, await localVerificationKeys(), { algorithms: ["ES256"] })).payload;
    }
  } catch (error) {
    if (error instanceof PostgrestError) throw error;
    const code = (error as { code?: string })?.code;
    if (code === "ERR_JWT_EXPIRED") throw pgrstErrors.jwtClaims("JWT expired");
    if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") {
      const claim = (error as { claim?: string }).claim;
      if (claim === "nbf") throw pgrstErrors.jwtClaims("JWT not yet valid");
      if (claim === "iat") throw pgrstErrors.jwtClaims("JWT issued at future");
      throw pgrstErrors.jwtClaims("Parsing claims failed");
    }
    if (code === "ERR_JWKS_NO_MATCHING_KEY") throw pgrstErrors.jwtDecode("No suitable key or wrong key type");
    throw pgrstErrors.jwtDecode("JWT cryptographic operation failed");
  }
  throw pgrstErrors.jwtDecode("Wrong or unsupported encoding algorithm");
}

function keyIdentity(role: "anon" | "service_role"): Identity {
  return { role, claims: { role } };
}

/** The identity of one request; throws `GatewayKeyError` or a `PostgrestError` (401/403). */
export async function identityOf(request: Request): Promise<Identity> {
  const apiKey = apiKeyOf(request);
  if (!apiKey) {
    throw new GatewayKeyError({
      message: "No API key found in request",
      hint: "No `apikey` request header or url param was found.",
    });
  }
  const keyRole = roleOfApiKey(apiKey);
  if (!keyRole) {
    throw new GatewayKeyError({
      message: "Invalid API key",
      hint: "Double check your Supabase `anon` or `service_role` API key.",
    });
  }
  const bearer = bearerOf(request);
  if (bearer === undefined) return keyIdentity(keyRole);
  if (bearer.startsWith("sb_")) {
    const bearerRole = roleOfApiKey(bearer);
    if (!bearerRole) {
      throw new GatewayKeyError({
        message: "Invalid API key",
        hint: "Double check your Supabase `anon` or `service_role` API key.",
      });
    }
    return keyIdentity(bearerRole);
  }
  return await jwtIdentity(bearer);
}

async function jwtIdentity(token: string): Promise<Identity> {
  const payload = await verifiedClaims(token);
  const role = typeof payload.role === "string" && payload.role !== "" ? payload.role : "anon";
  if (!roles.includes(role)) {
    throw fromDatabaseError({ code: "42501", message: `permission denied to set role "${role}"` }, true);
  }
  return { role: role as DatabaseRole, claims: { ...payload, role } };
}
