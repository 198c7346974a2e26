/**
 * The local stand-in for Supabase Auth (GoTrue), served by the local gateway under `/auth/v1/...`, so the
 * session endpoints and the MCP OAuth flow work without internet:
 * - `GET /auth/v1/.well-known/jwks.json`: the public half of the stand-in's ES256 signing key, which signs
 *   its OAuth access tokens (local session tokens are HS256, signed with AUTH_JWT_SECRET);
 * - the OAuth 2.1 server (./oauth/server.ts): discovery, dynamic client registration, authorize, the
 *   consent page's calls and the token endpoint;
 * - `POST /auth/v1/admin/generate_link` and `POST /auth/v1/invite` (service-role or secret key required): a
 *   registered address is a 422 `email_exists` in GoTrue's error shape; otherwise the user is created in
 *   auth.users with `invited_at` (or re-invited when an earlier invitation was never accepted).
 *   generate_link sends nothing and answers the redirect the email would carry; invite prints the "email"
 *   on the console instead of sending it.
 * The invitations apply GoTrue's redirect rule (./auth_redirects.ts): `redirect_to` is honoured only when it
 * matches the Site URL or the redirect allow list, else the Site URL is used silently, as on hosted. The
 * settings come from supabase/config.toml or GoTrue's own variables (./auth_settings.ts). Needs
 * SUPABASE_DB_URL.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authDatabase as database } from "./auth_database.ts";
import { redirectAuthWouldUse } from "./auth_redirects.ts";
import { authSettings } from "./auth_settings.ts";
import { handleOAuthServerRequest, localSigningKeys } from "./oauth/server.ts";
import { roleOfApiKey } from "./secrets.ts";

/** GoTrue marks its error bodies with this header; supabase-js then reads `code` from the body. */
const apiVersionHeaders = { "x-supabase-api-version": "2024-01-01" };

function authError(status: number, code: string, msg: string): Response {
  return Response.json({ code, msg }, { status, headers: apiVersionHeaders });
}

interface AuthUserRow {
  id: string;
  email: string;
  invited_at: Date | null;
  email_confirmed_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

function userObject(row: AuthUserRow): Record<string, unknown> {
  return {
    id: row.id,
    aud: "authenticated",
    role: "authenticated",
    email: row.email,
    phone: "",
    invited_at: row.invited_at?.toISOString() ?? null,
    confirmation_sent_at: row.invited_at?.toISOString() ?? null,
    app_metadata: row.raw_app_meta_data ?? {},
    user_metadata: row.raw_user_meta_data ?? {},
    identities: [],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    is_anonymous: false,
  };
}

/** A secret key (or the legacy service-role JWT) in `apikey` or as the bearer token, as GoTrue's admin API takes it. */
function isServiceRole(request: Request): boolean {
  const bearer = request.headers.get("authorization")?.match(/^Bearer +(\S+)$/i)?.[1];
  return roleOfApiKey(bearer) === "service_role" ||
    roleOfApiKey(request.headers.get("apikey")) === "service_role";
}

function effectiveRedirect(request: Request): string {
  const { siteUrl, allowList } = authSettings();
  return redirectAuthWouldUse(siteUrl, allowList, new URL(request.url).searchParams.get("redirect_to"));
}

async function invite(request: Request, sendEmail: boolean): Promise<Response> {
  if (!isServiceRole(request)) {
    return authError(401, "no_authorization", "This endpoint requires a service-role key");
  }
  let body: { email?: unknown; data?: unknown };
  try {
    body = await request.json();
  } catch {
    return authError(400, "bad_json", "Could not parse the request body as JSON");
  }
  const email = typeof body.email === "string" ? body.email.trim().toLowerCase() : "";
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    return authError(400, "validation_failed", "Unable to validate email address");
  }
  const data = body.data && typeof body.data === "object" ? body.data : {};
  const redirectTo = effectiveRedirect(request);

  const user = await database().begin(async (tx) => {
    const [existing] = await tx<AuthUserRow[]>`
      select * from auth.users where lower(email) = ${email} for update`;
    if (existing?.email_confirmed_at) return undefined;
    if (existing) {
      const [reinvited] = await tx<AuthUserRow[]>`
        update auth.users
           set invited_at = now(), updated_at = now(),
               raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || ${
        tx.json(data as postgres.JSONValue)
      }
         where id = ${existing.id}
        returning *`;
      return reinvited;
    }
    const [created] = await tx<AuthUserRow[]>`
      insert into auth.users (email, invited_at, confirmation_sent_at, raw_app_meta_data, raw_user_meta_data)
      values (${email}, now(), now(), '{"provider":"email","providers":["email"]}',
              ${tx.json(data as postgres.JSONValue)})
      returning *`;
    return created;
  }) as AuthUserRow | undefined;

  if (!user) {
    return authError(422, "email_exists", "A user with this email address has already been registered");
  }
  if (!sendEmail) {
    return Response.json({
      ...userObject(user),
      action_link: `${new URL(request.url).origin}/auth/v1/verify?type=invite&redirect_to=${
        encodeURIComponent(redirectTo)
      }`,
      email_otp: "",
      hashed_token: "",
      verification_type: "invite",
      redirect_to: redirectTo,
    }, { headers: apiVersionHeaders });
  }
  console.log(`Invite email for ${email}: ${redirectTo}`);
  return Response.json(userObject(user), { headers: apiVersionHeaders });
}

/** Answers one `/auth/v1/...` request of the local gateway. */
export async function handleAuthRequest(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/^\/auth\/v1/, "");
  if (path === "/.well-known/jwks.json" && request.method === "GET") {
    return Response.json(await localSigningKeys(), { headers: { "Cache-Control": "public, max-age=600" } });
  }
  if (path === "/invite" && request.method === "POST") return await invite(request, true);
  if (path === "/admin/generate_link" && request.method === "POST") return await invite(request, false);
  const oauth = await handleOAuthServerRequest(request, path);
  if (oauth) return oauth;
  return authError(
    404,
    "not_found",
    `The local Auth stand-in does not serve ${request.method} /auth/v1${path}`,
  );
}
