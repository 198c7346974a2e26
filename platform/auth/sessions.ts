/**
 * Sessions as GoTrue keeps them (`auth.sessions`, `auth.refresh_tokens`) and the session tokens it issues
 * (supabase/auth `internal/tokens/service.go`): an ES256 access token signed with the stand-in's key (kid in
 * the JWKS) carrying `iss`, `sub`, `aud`, `exp`, `iat`, `email`, `phone`, `app_metadata`, `user_metadata`,
 * `role`, `aal`, `amr`, `session_id`, `is_anonymous`; a refresh token rotated on each use (the used one is
 * revoked and becomes the parent of the next). A revoked token is still honoured when it is the parent of the
 * session's active one (its answer was lost: the active token is answered again) or within
 * `refresh_token_reuse_interval`; otherwise it is `refresh_token_already_used` and, with rotation on, every
 * token of the session is revoked.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authSettings } from "./project_settings.ts";
import { signWithLocalKey } from "./oauth/signing.ts";
import { AuthError, badRequest } from "./errors.ts";
import { isBanned, userById, userJson, type UserRow } from "./users.ts";

export interface AmrEntry {
  method: string;
  timestamp: number;
}

export interface SessionRow {
  id: string;
  user_id: string;
  aal: string;
  amr: AmrEntry[];
  created_at: Date;
  /** The OAuth client of an assistant's session (GoTrue's `oauth_client_id`), null for the user's own. */
  oauth_client_id: string | null;
  scopes: string | null;
}

const sessionColumns = "id, user_id, aal, amr, created_at, oauth_client_id, scopes";

export interface TokenResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
}

/** GoTrue's v1 refresh tokens: 12 lower-case letters and digits. */
function newRefreshToken(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => alphabet[byte % 36]).join("");
}

async function accessToken(
  user: UserRow,
  session: SessionRow,
): Promise<{ token: string; expiresAt: number; expiresIn: number }> {
  const expiresIn = authSettings().jwtExpirySeconds;
  const expiresAt = Math.floor(Date.now() / 1000) + expiresIn;
  const token = await signWithLocalKey({
    sub: user.id,
    aud: "authenticated",
    email: user.email ?? "",
    phone: user.phone ?? "",
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: user.role ?? "authenticated",
    aal: session.aal,
    amr: session.amr,
    session_id: session.id,
    is_anonymous: user.is_anonymous,
    ...(session.oauth_client_id ? { client_id: session.oauth_client_id, scope: session.scopes ?? "" } : {}),
  }, { expiresAt });
  return { token, expiresAt, expiresIn };
}

async function tokenResponse(
  tx: postgres.Queryable,
  user: UserRow,
  session: SessionRow,
  refreshToken: string,
): Promise<TokenResponse> {
  const { token, expiresAt, expiresIn } = await accessToken(user, session);
  return {
    access_token: token,
    token_type: "bearer",
    expires_in: expiresIn,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: await userJson(tx, user),
  };
}

/** A new session for a signed-in user (GoTrue's IssueRefreshToken): session row, refresh token, tokens. */
export async function issueSession(
  tx: postgres.TransactionSql,
  userId: string,
  method: string,
  request?: Request,
  oauth?: { clientId: string; scopes: string },
): Promise<TokenResponse> {
  const amr = [{ method, timestamp: Math.floor(Date.now() / 1000) }];
  const [session] = await tx.unsafe<SessionRow[]>(
    `insert into auth.sessions (id, user_id, aal, amr, user_agent, oauth_client_id, scopes)
     values (gen_random_uuid(), $1, 'aal1', $2::jsonb, $3, $4, $5)
     returning ${sessionColumns}`,
    [
      userId,
      JSON.stringify(amr),
      request?.headers.get("user-agent") ?? null,
      oauth?.clientId ?? null,
      oauth?.scopes ?? null,
    ],
  );
  const refreshToken = newRefreshToken();
  await tx`
    insert into auth.refresh_tokens (token, user_id, session_id) values (${refreshToken}, ${userId}, ${session.id})`;
  await tx`update auth.users set last_sign_in_at = now(), updated_at = now() where id = ${userId}`;
  await tx`
    update auth.identities set last_sign_in_at = now() where user_id = ${userId} and provider = 'email'`;
  const user = (await userById(tx, userId))!;
  return await tokenResponse(tx, user, session, refreshToken);
}

/**
 * New tokens for an existing session whose assurance changed (GoTrue's updateMFASessionAndClaims): `amr` gets
 * `method`, `aal` becomes `aal`, the session's refresh tokens are revoked and a new one is issued.
 */
export async function upgradeSession(
  tx: postgres.TransactionSql,
  userId: string,
  sessionId: string,
  method: string,
  aal: "aal1" | "aal2",
): Promise<TokenResponse> {
  const entry = { method, timestamp: Math.floor(Date.now() / 1000) };
  const [session] = await tx<SessionRow[]>`
    update auth.sessions
       set aal = ${aal}, amr = (select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(amr) e
                                 where e->>'method' <> ${method}) || ${tx.json([entry])}::jsonb,
           updated_at = now()
     where id = ${sessionId}
    returning id, user_id, aal, amr, created_at, oauth_client_id, scopes`;
  await tx`update auth.refresh_tokens set revoked = true, updated_at = now()
            where session_id = ${sessionId} and not revoked`;
  const refreshToken = newRefreshToken();
  await tx`
    insert into auth.refresh_tokens (token, user_id, session_id) values (${refreshToken}, ${userId}, ${sessionId})`;
  return await tokenResponse(tx, (await userById(tx, userId))!, session, refreshToken);
}

interface TokenRow {
  id: string;
  token: string;
  user_id: string;
  revoked: boolean;
  updated_at: Date;
  parent: string | null;
  session_id: string | null;
}

type RefreshOutcome = { ok: TokenResponse } | { error: AuthError };

/**
 * The OAuth client of the session a refresh token belongs to (null: the user's own session; undefined: no
 * such token), for GoTrue's check that an OAuth session is refreshed by its client only.
 */
export async function clientOfRefreshToken(
  sql: postgres.Queryable,
  refreshToken: string,
): Promise<string | null | undefined> {
  const [row] = await sql<{ oauth_client_id: string | null }[]>`
    select s.oauth_client_id from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id
     where t.token = ${refreshToken}`;
  return row ? row.oauth_client_id : undefined;
}

/** GoTrue's RefreshTokenGrant (refresh-token algorithm v1). */
export async function refreshSession(sql: postgres.Sql, refreshToken: string): Promise<TokenResponse> {
  if (refreshToken.length < 12 || (refreshToken.length === 12 && !/^[a-z0-9]{12}$/.test(refreshToken))) {
    throw badRequest("validation_failed", "Refresh token is not valid");
  }
  const outcome = await sql.begin(async (tx): Promise<RefreshOutcome> => {
    const [token] = await tx<TokenRow[]>`
      select id, token, user_id, revoked, updated_at, parent, session_id
        from auth.refresh_tokens where token = ${refreshToken} for update`;
    if (!token) {
      return {
        error: badRequest("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
      };
    }
    const user = await userById(tx, token.user_id);
    if (!user) {
      return {
        error: badRequest("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
      };
    }
    if (isBanned(user)) return { error: badRequest("user_banned", "Invalid Refresh Token: User Banned") };
    const [session] = token.session_id
      ? await tx<SessionRow[]>`
          select id, user_id, aal, amr, created_at, oauth_client_id, scopes
            from auth.sessions where id = ${token.session_id} for update`
      : [];
    if (!session) {
      return { error: badRequest("session_not_found", "Invalid Refresh Token: No Valid Session Found") };
    }
    const settings = authSettings();
    let issued: string | undefined;
    if (token.revoked) {
      const [active] = await tx<{ token: string; parent: string | null }[]>`
        select token, parent from auth.refresh_tokens
         where session_id = ${session.id} and not revoked order by id desc limit 1`;
      if (active && active.parent === token.token) {
        issued = active.token;
      } else if (Date.now() > token.updated_at.getTime() + settings.refreshTokenReuseIntervalSeconds * 1000) {
        if (settings.refreshTokenRotation) {
          await tx`update auth.refresh_tokens set revoked = true, updated_at = now()
                    where session_id = ${session.id} and not revoked`;
        }
        return { error: badRequest("refresh_token_already_used", "Invalid Refresh Token: Already Used") };
      }
    }
    if (!issued) {
      issued = newRefreshToken();
      await tx`update auth.refresh_tokens set revoked = true, updated_at = now() where id = ${token.id}`;
      await tx`
        insert into auth.refresh_tokens (token, user_id, session_id, parent)
        values (${issued}, ${user.id}, ${session.id}, ${token.token})`;
    }
    await tx`update auth.sessions set refreshed_at = now() at time zone 'utc', updated_at = now()
              where id = ${session.id}`;
    return { ok: await tokenResponse(tx, user, session, issued) };
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.ok;
}

export async function sessionById(sql: postgres.Queryable, id: string): Promise<SessionRow | undefined> {
  const [session] = await sql<SessionRow[]>`
    select id, user_id, aal, amr, created_at, oauth_client_id, scopes from auth.sessions where id = ${id}`;
  return session;
}

/** GoTrue's logout scopes: `global` ends every session of the user, `local` this one, `others` the rest. */
export async function endSessions(
  sql: postgres.Queryable,
  userId: string,
  sessionId: string | undefined,
  scope: "global" | "local" | "others",
): Promise<void> {
  if (sessionId && scope === "local") {
    await sql`delete from auth.sessions where id = ${sessionId}`;
  } else if (sessionId && scope === "others") {
    await sql`delete from auth.sessions where user_id = ${userId} and id <> ${sessionId}`;
  } else {
    await sql`delete from auth.sessions where user_id = ${userId}`;
    await sql`delete from auth.refresh_tokens where user_id = ${userId}`;
  }
}
