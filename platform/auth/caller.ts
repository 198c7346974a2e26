/**
 * The signed-in caller of `/user` and `/logout`, as GoTrue's requireAuthentication finds it
 * (supabase/auth `internal/api/auth.go`): a Bearer token verified by the stand-in's ES256 key (by `kid`) or,
 * for HS256, the project's JWT secret (AUTH_JWT_SECRET, as the admin tool and tests mint them); then the user
 * of `sub` and the session of `session_id` must still exist.
 */
import { createLocalJWKSet, type JWK, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
import { bearerToken } from "../../supabase/functions/_shared/http/bearer.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { localVerificationKeys } from "./oauth/signing.ts";
import { AuthError, badRequest, forbidden } from "./errors.ts";
import { sessionById, type SessionRow } from "./sessions.ts";
import { isBanned, userById, type UserRow } from "./users.ts";

export interface Caller {
  claims: JWTPayload & Record<string, unknown>;
  user: UserRow;
  session?: SessionRow;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GoTrue's GOTRUE_JWT_KEYS (a JSON array of JWKs, as `signing_keys_path` holds them): more keys whose public
 * halves verify tokens (`deno task suites:auth` gives the suite's RS256 key, as the CLI gives it to GoTrue).
 */
function configuredKeys(): JWTVerifyGetKey | undefined {
  const text = Deno.env.get("GOTRUE_JWT_KEYS");
  if (!text) return undefined;
  try {
    const keys = (JSON.parse(text) as JWK[]).filter((key) => key.kty === "RSA" || key.kty === "EC")
      .map(({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, key_ops: _ops, ...rest }) => rest);
    return createLocalJWKSet({ keys });
  } catch {
    return undefined;
  }
}

export async function verified(token: string): Promise<JWTPayload & Record<string, unknown>> {
  const keys = await localVerificationKeys();
  const secret = Deno.env.get("AUTH_JWT_SECRET");
  const extra = configuredKeys();
  try {
    const { payload } = await jwtVerify(token, async (header, input) => {
      if (header.alg === "HS256" && secret) return new TextEncoder().encode(secret);
      if (header.alg === "RS256" && extra) return await extra(header, input);
      return await keys(header, input);
    }, { algorithms: ["ES256", ...(secret ? ["HS256"] : []), ...(extra ? ["RS256"] : [])] });
    return payload as JWTPayload & Record<string, unknown>;
  } catch (error) {
    const reason = (error as { code?: string }).code === "ERR_JWT_EXPIRED"
      ? "token has invalid claims: token is expired"
      : (error as Error).message;
    throw forbidden("bad_jwt", `invalid JWT: unable to parse or verify signature, ${reason}`);
  }
}

export async function authenticatedCaller(sql: postgres.Queryable, request: Request): Promise<Caller> {
  const token = bearerToken(request.headers.get("authorization"));
  if (!token) throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const claims = await verified(token);
  if (typeof claims.sub !== "string" || claims.sub === "") {
    throw forbidden("bad_jwt", "invalid claim: missing sub claim");
  }
  if (!uuidPattern.test(claims.sub)) throw badRequest("bad_jwt", "invalid claim: sub claim must be a UUID");
  const user = await userById(sql, claims.sub);
  if (!user) throw forbidden("user_not_found", "User from sub claim in JWT does not exist");
  let session: SessionRow | undefined;
  const sessionId = claims.session_id;
  if (
    typeof sessionId === "string" && sessionId !== "" && sessionId !== "00000000-0000-0000-0000-000000000000"
  ) {
    if (!uuidPattern.test(sessionId)) {
      throw forbidden("bad_jwt", "invalid claim: session_id claim must be a UUID");
    }
    session = await sessionById(sql, sessionId);
    if (!session) throw forbidden("session_not_found", "Session from session_id claim in JWT does not exist");
  }
  if (isBanned(user)) throw forbidden("user_banned", "User is banned");
  return { claims, user, session };
}
