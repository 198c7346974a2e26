/**
 * The local stand-in for Supabase Auth (GoTrue), served by the local gateway under `/auth/v1/...`, answering
 * what supabase-js sends as GoTrue answers it (docs/runtime.md, "Auth stand-in"). This module only routes;
 * the parts live in ./auth/ and ./oauth/:
 * - sign-up and sign-in (./auth/signup.ts, token.ts, otp.ts, verify.ts, user.ts, settings.ts):
 *   `POST /signup`, `POST /token?grant_type=password|refresh_token|pkce`, `POST /otp`, `GET|POST /verify`,
 *   `GET|PUT /user`, `POST /logout`, `POST /recover`, `POST /resend`, `GET /settings`; state in the database's `auth`
 *   schema as GoTrue keeps it, session tokens ES256-signed with the stand-in's key (./oauth/signing.ts), mails
 *   into the local mailbox (./mailbox/);
 * - `GET /.well-known/jwks.json`: the public half of that key;
 * - the admin API (admin credentials only): `POST /invite`, `POST /admin/generate_link` (./admin.ts), the
 *   users API `/admin/users…` with their MFA factors (./admin_users.ts), the OAuth server's clients
 *   `/admin/oauth/clients…` (./oauth/admin_clients.ts);
 * - MFA with TOTP `/factors…` (./mfa.ts), `GET /reauthenticate` (./reauthenticate.ts), identity linking
 *   `/user/identities/…` (./identities.ts), and the features this project keeps off answered as GoTrue with
 *   them off (./disabled.ts: SSO, web3, id_token);
 * - the OAuth 2.1 server (./oauth/server.ts), and the signed-in user's grants of it (./oauth/grants.ts):
 *   `GET /user/oauth/grants`, `DELETE /user/oauth/grants?client_id=`; its sessions are the user's sessions
 *   in `auth.sessions` with `oauth_client_id`, as GoTrue keeps them.
 * As on hosted, the gateway asks for an API key (`apikey` header or query: a publishable or secret key, or a
 * legacy JWT key) on every path but the open ones (`GET /verify`, the JWKS, discovery and the OAuth server's
 * browser paths), and answers CORS for any origin. Settings come from supabase/config.toml or GoTrue's own
 * variables (./project_settings.ts; AUTH_CONFIG_TOML names another file). Needs SUPABASE_DB_URL.
 */
import { DatabaseUnavailableError } from "../../supabase/functions/_shared/db/failures.ts";
import { generateLink, invite } from "./admin.ts";
import { handleAdminUsers } from "./admin_users.ts";
import { handleFactors } from "./mfa.ts";
import { handleIdentities } from "./identities.ts";
import { sso } from "./disabled.ts";
import { reauthenticate } from "./reauthenticate.ts";
import { handleAdminClients } from "./oauth/admin_clients.ts";
import { AuthError, errorResponse } from "./errors.ts";
import { otp, recover, resend } from "./otp.ts";
import { settings } from "./settings.ts";
import { signup } from "./signup.ts";
import { token } from "./token.ts";
import { getUser, logout, updateUser } from "./user.ts";
import { verify } from "./verify.ts";
import { listGrants, revokeGrant } from "./oauth/grants.ts";
import { handleOAuthServerRequest, localSigningKeys } from "./oauth/server.ts";
import { roleOfApiKey } from "../secrets.ts";
import { errorForLog } from "../../supabase/functions/_shared/log_text.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** GoTrue's own routes the stand-in serves, by `METHOD path`; all of them ask for an API key. */
const routes: Record<string, Handler> = {
  "POST /signup": signup,
  "POST /token": token,
  "POST /otp": otp,
  "POST /verify": verify,
  "GET /user": getUser,
  "PUT /user": updateUser,
  "POST /logout": logout,
  "GET /reauthenticate": reauthenticate,
  "GET /user/oauth/grants": listGrants,
  "DELETE /user/oauth/grants": revokeGrant,
  "POST /recover": recover,
  "POST /resend": resend,
  "GET /settings": settings,
  "POST /invite": invite,
  "POST /admin/generate_link": generateLink,
};

/** GoTrue's routes with path parameters, by prefix: each answers undefined for a path it does not serve. */
const prefixed: {
  prefix: string;
  handle: (request: Request, path: string) => Promise<Response | undefined>;
}[] = [
  { prefix: "/admin/users", handle: handleAdminUsers },
  { prefix: "/admin/oauth/clients", handle: handleAdminClients },
  { prefix: "/factors", handle: handleFactors },
  { prefix: "/user/identities/", handle: handleIdentities },
  { prefix: "/sso", handle: sso },
];

/** Paths the gateway serves without an API key (supabase CLI's Kong: auth-v1-open*, jwks, discovery). */
function isOpenPath(method: string, path: string): boolean {
  return (method === "GET" && path === "/verify") || path.startsWith("/.well-known/") ||
    path.startsWith("/oauth/") || path === "/invite" || path.startsWith("/admin/");
}

const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers":
    "authorization, apikey, content-type, x-client-info, x-supabase-api-version, x-supabase-client-platform, x-supabase-client-platform-version, x-supabase-client-runtime, x-supabase-client-runtime-version",
  "access-control-expose-headers": "x-supabase-api-version, x-sb-error-code",
  "access-control-max-age": "3600",
};

/** The gateway's API-key check: 401 in its shape without a key of this project. */
function apiKeyRefusal(request: Request): Response | undefined {
  const key = request.headers.get("apikey") ?? new URL(request.url).searchParams.get("apikey");
  if (!key) {
    return Response.json({
      message: "No API key found in request",
      hint: "No `apikey` request header or url param was found.",
    }, { status: 401 });
  }
  if (!roleOfApiKey(key)) {
    return Response.json({
      message: "Invalid API key",
      hint: "Double check your Supabase `anon` or `service_role` API key.",
    }, { status: 401 });
  }
  return undefined;
}

function notServed(request: Request, path: string): Response {
  return errorResponse(
    request,
    new AuthError(
      404,
      "not_found",
      `The local Auth stand-in does not serve ${request.method} /auth/v1${path}`,
    ),
  );
}

/** The gateway's API-key check, then `work`, its errors answered as GoTrue answers them. */
async function guarded(request: Request, path: string, work: () => Promise<Response>): Promise<Response> {
  if (!isOpenPath(request.method, path)) {
    const refusal = apiKeyRefusal(request);
    if (refusal) return refusal;
  }
  try {
    return await work();
  } catch (error) {
    if (error instanceof AuthError) return errorResponse(request, error);
    if (error instanceof DatabaseUnavailableError) {
      return errorResponse(request, new AuthError(503, "unexpected_failure", "Database unavailable"));
    }
    console.error(`[auth] ${request.method} /auth/v1${path} failed: ${errorForLog(error)}`);
    return errorResponse(
      request,
      new AuthError(
        500,
        "unexpected_failure",
        "Unexpected failure, please check server logs for more information",
      ),
    );
  }
}

async function answer(request: Request, path: string): Promise<Response> {
  if (path === "/.well-known/jwks.json" && request.method === "GET") {
    return Response.json(await localSigningKeys(), { headers: { "Cache-Control": "public, max-age=600" } });
  }
  const handler = routes[`${request.method} ${path}`] ??
    (request.method === "GET" && path === "/verify" ? verify : undefined);
  if (handler) return await guarded(request, path, async () => await handler(request));
  for (const served of prefixed) {
    if (path.startsWith(served.prefix)) {
      return await guarded(
        request,
        path,
        async () => await served.handle(request, path) ?? notServed(request, path),
      );
    }
  }
  const oauth = await handleOAuthServerRequest(request, path);
  return oauth ?? notServed(request, path);
}

/** Answers one `/auth/v1/...` request of the local gateway. */
export async function handleAuthRequest(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/^\/auth\/v1/, "");
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: corsHeaders });
  const response = await answer(request, path);
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(corsHeaders)) {
    if (!headers.has(name) && name !== "access-control-max-age" && name !== "access-control-allow-methods") {
      headers.set(name, value);
    }
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
