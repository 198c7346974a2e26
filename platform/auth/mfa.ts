/**
 * GoTrue's MFA with TOTP (supabase/auth `internal/api/mfa.go`), for a signed-in caller (./caller.ts), with
 * `[auth.mfa]` settings (`max_enrolled_factors`, `[auth.mfa.totp] enroll_enabled / verify_enabled`):
 * - `POST /factors {factor_type: "totp", friendly_name?, issuer?}`: an unverified factor with its secret, URI
 *   and QR code (422 `mfa_totp_enroll_not_enabled` when enrolment is off; a name taken 422
 *   `mfa_factor_name_conflict`; with a verified factor an aal1 session is 403 `insufficient_aal`); phone and
 *   WebAuthn factors are 422 as their enrolment is off;
 * - `POST /factors/{id}/challenge`: `{id, type, expires_at}` (challenges live 300 s);
 * - `POST /factors/{id}/verify {challenge_id, code}`: a wrong code is 422 `mfa_verification_failed` "Invalid
 *   TOTP code entered"; a right one verifies the factor, drops the user's other unverified factors, makes the
 *   session aal2 (amr `totp`) and answers new tokens;
 * - `DELETE /factors/{id}`: `{id}`; a verified factor needs an aal2 session (422 `insufficient_aal`).
 * The user object's `factors` (./users.ts) carries them; the admin API lists and deletes them
 * (`/admin/users/{id}/factors`, ./admin_users.ts). Difference from hosted: the QR code is a plain SVG that
 * shows the URI as text, not a scannable code (no QR encoder here; the secret and URI are as GoTrue's).
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authenticatedCaller } from "./caller.ts";
import { authDatabase } from "./database.ts";
import {
  AuthError,
  badRequest,
  forbidden,
  jsonBody,
  jsonResponse,
  stringField,
  unprocessable,
} from "./errors.ts";
import { authSettings } from "./project_settings.ts";
import { upgradeSession } from "./sessions.ts";
import { newTotpSecret, totpMatches, totpUri } from "./totp.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const challengeLifetimeSeconds = 300;

export interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  secret: string | null;
  created_at: Date;
  updated_at: Date;
  last_challenged_at: Date | null;
}

/** A factor as GoTrue answers it (no secret). */
export function factorJson(factor: FactorRow): Record<string, unknown> {
  return {
    id: factor.id,
    ...(factor.friendly_name ? { friendly_name: factor.friendly_name } : {}),
    factor_type: factor.factor_type,
    status: factor.status,
    created_at: factor.created_at.toISOString(),
    updated_at: factor.updated_at.toISOString(),
    ...(factor.last_challenged_at ? { last_challenged_at: factor.last_challenged_at.toISOString() } : {}),
  };
}

export async function factorsOf(sql: postgres.Queryable, userId: string): Promise<FactorRow[]> {
  return await sql<FactorRow[]>`
    select id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at, last_challenged_at
      from auth.mfa_factors where user_id = ${userId} order by created_at`;
}

/** GoTrue's loadFactor: a factor of this user, 404 otherwise. */
export async function ownedFactor(sql: postgres.Queryable, userId: string, id: string): Promise<FactorRow> {
  if (!uuidPattern.test(id)) throw new AuthError(404, "validation_failed", "factor_id must be an UUID");
  const [factor] = await sql<FactorRow[]>`
    select id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at, last_challenged_at
      from auth.mfa_factors where id = ${id} and user_id = ${userId}`;
  if (!factor) throw new AuthError(404, "mfa_factor_not_found", "Factor not found");
  return factor;
}

/** A plain SVG carrying the URI as text (see the module comment). */
function qrPlaceholder(uri: string): string {
  const text = uri.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="200" ` +
    `height="200" viewBox="0 0 200 200"><rect width="200" height="200" fill="#fff"/><text x="4" y="100" ` +
    `font-size="6">${text}</text></svg>`;
}

async function enroll(request: Request): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const body = await jsonBody(request);
  const type = stringField(body, "factor_type");
  const settings = authSettings().mfa;
  if (type === "phone") {
    throw unprocessable("mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone");
  }
  if (type === "webauthn") {
    throw unprocessable("mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn");
  }
  if (type !== "totp") {
    throw badRequest("validation_failed", "factor_type needs to be totp, phone, or webauthn");
  }
  if (!settings.totpEnroll) {
    throw unprocessable("mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP");
  }
  const friendlyName = stringField(body, "friendly_name");
  const issuer = stringField(body, "issuer") || new URL(authSettings().siteUrl).host;
  const factor = await sql.begin(async (tx) => {
    await tx`delete from auth.mfa_factors where user_id = ${caller.user.id} and status = 'unverified'
              and created_at < now() - interval '300 seconds'`;
    const factors = await factorsOf(tx, caller.user.id);
    if (friendlyName && factors.some((one) => one.friendly_name === friendlyName)) {
      throw unprocessable(
        "mfa_factor_name_conflict",
        `A factor with the friendly name "${friendlyName}" for this user already exists`,
      );
    }
    const verified = factors.filter((one) => one.status === "verified").length;
    if (factors.length >= settings.maxEnrolledFactors || verified >= settings.maxVerifiedFactors) {
      throw unprocessable(
        "too_many_enrolled_mfa_factors",
        "Maximum number of verified factors reached, unenroll to continue",
      );
    }
    if (verified > 0 && caller.session && caller.session.aal !== "aal2") {
      throw forbidden("insufficient_aal", "AAL2 required to enroll a new factor");
    }
    const secret = newTotpSecret();
    const [row] = await tx<FactorRow[]>`
      insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, secret)
      values (gen_random_uuid(), ${caller.user.id}, ${friendlyName}, 'totp', 'unverified', ${secret})
      returning id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at, last_challenged_at`;
    return row;
  });
  const uri = totpUri(issuer, caller.user.email ?? "", factor.secret!);
  return jsonResponse(request, {
    id: factor.id,
    type: "totp",
    friendly_name: factor.friendly_name ?? "",
    totp: { qr_code: qrPlaceholder(uri), secret: factor.secret, uri },
  });
}

async function challenge(request: Request, factorId: string): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const factor = await ownedFactor(sql, caller.user.id, factorId);
  if (!authSettings().mfa.totpVerify) {
    throw unprocessable("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP");
  }
  const [row] = await sql<{ id: string; created_at: Date }[]>`
    insert into auth.mfa_challenges (id, factor_id) values (gen_random_uuid(), ${factor.id})
    returning id, created_at`;
  await sql`update auth.mfa_factors set last_challenged_at = now() where id = ${factor.id}`;
  return jsonResponse(request, {
    id: row.id,
    type: factor.factor_type,
    expires_at: Math.floor(row.created_at.getTime() / 1000) + challengeLifetimeSeconds,
  });
}

async function verify(request: Request, factorId: string): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const factor = await ownedFactor(sql, caller.user.id, factorId);
  const body = await jsonBody(request);
  const code = stringField(body, "code");
  const challengeId = stringField(body, "challenge_id");
  if (code === "") throw badRequest("validation_failed", "Code needs to be non-empty");
  if (!authSettings().mfa.totpVerify) {
    throw unprocessable("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP");
  }
  const [found] = uuidPattern.test(challengeId)
    ? await sql<{ id: string; created_at: Date }[]>`
        select id, created_at from auth.mfa_challenges where id = ${challengeId} and factor_id = ${factor.id}`
    : [];
  if (!found) {
    throw unprocessable("mfa_factor_not_found", "MFA factor with the provided challenge ID not found");
  }
  if (Date.now() > found.created_at.getTime() + challengeLifetimeSeconds * 1000) {
    await sql`delete from auth.mfa_challenges where id = ${found.id}`;
    throw unprocessable(
      "mfa_challenge_expired",
      `MFA challenge ${found.id} has expired, verify against another challenge or create a new challenge.`,
    );
  }
  if (!totpMatches(factor.secret ?? "", code)) {
    throw unprocessable("mfa_verification_failed", "Invalid TOTP code entered");
  }
  if (!caller.session) throw forbidden("session_not_found", "Session not found");
  const tokens = await sql.begin(async (tx) => {
    await tx`update auth.mfa_challenges set verified_at = now() where id = ${found.id}`;
    await tx`update auth.mfa_factors set status = 'verified', updated_at = now() where id = ${factor.id}`;
    await tx`delete from auth.mfa_factors
              where user_id = ${caller.user.id} and status = 'unverified' and factor_type = 'totp'`;
    return await upgradeSession(tx, caller.user.id, caller.session!.id, "totp", "aal2");
  });
  return jsonResponse(request, tokens);
}

async function unenroll(request: Request, factorId: string): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const factor = await ownedFactor(sql, caller.user.id, factorId);
  if (factor.status === "verified" && caller.session?.aal !== "aal2") {
    throw unprocessable("insufficient_aal", "AAL2 required to unenroll verified factor");
  }
  await sql`delete from auth.mfa_factors where id = ${factor.id}`;
  return jsonResponse(request, { id: factor.id });
}

/** Routes `/factors…`; undefined for another path. */
export async function handleFactors(request: Request, path: string): Promise<Response | undefined> {
  const match = path.match(/^\/factors\/?(?:([^/]+)\/?(challenge|verify)?\/?)?$/);
  if (!match) return undefined;
  const [, id, action] = match;
  if (!id && request.method === "POST") return await enroll(request);
  if (!id) return undefined;
  const factorId = decodeURIComponent(id);
  if (action === "challenge" && request.method === "POST") return await challenge(request, factorId);
  if (action === "verify" && request.method === "POST") return await verify(request, factorId);
  if (!action && request.method === "DELETE") return await unenroll(request, factorId);
  return undefined;
}
