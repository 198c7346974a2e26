/**
 * `deno task start`'s stand-in for the app's OAuth consent page, so a person can try an MCP connector's
 * OAuth flow by hand. Supabase Auth sends the browser to `<Site URL><authorization_url_path>?authorization_id=…`
 * (supabase/config.toml); the real page belongs to the app, signs the user in and calls Auth's
 * `GET /oauth/authorizations/{id}` and `POST …/consent` with the user's session. This one is served on the
 * Site URL's port when that is a loopback http URL; instead of a sign-in it asks which local account
 * approves (no password: local use only), makes that account's session token with the local JWT secret and
 * makes the same two calls, then sends the browser on to the client's redirect URL.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authSettings } from "./auth_settings.ts";
import { sessionToken } from "./secrets.ts";

export interface ConsentPageOptions {
  /** The Auth base (`<AUTH_BASE_URL or SUPABASE_URL>`), whose `/auth/v1` serves the OAuth server. */
  authBaseUrl: string;
  databaseUrl: string;
  jwtSecret: string;
  /** Prefilled account. */
  defaultEmail: string;
}

export interface RunningConsentPage {
  url: string;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, body: string, status = 200): Response {
  return new Response(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}input{font:inherit;width:100%}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8" } },
  );
}

function form(authorizationId: string, email: string, note = ""): Response {
  return page(
    "Connect an assistant to Domain Watchlist",
    `${note ? `<p><strong>${escapeHtml(note)}</strong></p>` : ""}
<p>An MCP client asks to use your Domain Watchlist account (the local stack's stand-in for the app's
consent page: choose the local account that approves; there is no password).</p>
<form method="post"><input type="hidden" name="authorization_id" value="${escapeHtml(authorizationId)}">
<p><label>Account email<br><input name="email" value="${escapeHtml(email)}"></label></p>
<p><button name="action" value="approve">Approve</button><button name="action" value="deny">Deny</button></p>
</form>`,
  );
}

async function decide(options: ConsentPageOptions, sql: postgres.Sql, data: FormData): Promise<Response> {
  const authorizationId = String(data.get("authorization_id") ?? "");
  const email = String(data.get("email") ?? "").trim();
  const action = data.get("action") === "approve" ? "approve" : "deny";
  const [user] = await sql<{ id: string; email: string }[]>`
    select id, email from auth.users where lower(email) = lower(${email}) and deleted_at is null`;
  if (!user) return form(authorizationId, email, `There is no local account ${email}.`);
  const token = await sessionToken(user, { secret: options.jwtSecret, supabaseUrl: options.authBaseUrl });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const base = `${options.authBaseUrl}/auth/v1/oauth/authorizations/${encodeURIComponent(authorizationId)}`;
  const details = await fetch(base, { headers });
  const detailsBody = await details.json();
  if (!details.ok) return form(authorizationId, email, `Auth answered ${details.status}: ${detailsBody.msg}`);
  // Consented before to these scopes: Auth approves at once and answers with the redirect.
  if (detailsBody.redirect_url) return Response.redirect(detailsBody.redirect_url, 303);
  const decided = await fetch(`${base}/consent`, {
    method: "POST",
    headers,
    body: JSON.stringify({ action }),
  });
  const decidedBody = await decided.json();
  if (!decided.ok) return form(authorizationId, email, `Auth answered ${decided.status}: ${decidedBody.msg}`);
  return Response.redirect(decidedBody.redirect_url, 303);
}

/**
 * Serves the page on the Site URL's port; undefined (with the reason) when the Site URL is not a loopback
 * http URL or its port is taken.
 */
export function startConsentPage(options: ConsentPageOptions): RunningConsentPage | string {
  const { siteUrl, oauthServer } = authSettings();
  const site = new URL(siteUrl);
  if (!oauthServer.enabled || !oauthServer.authorizationPath) return "the OAuth server is not enabled";
  if (site.protocol !== "http:" || !["localhost", "127.0.0.1"].includes(site.hostname)) {
    return `the Site URL ${siteUrl} is not a local http URL`;
  }
  const path = oauthServer.authorizationPath.startsWith("/")
    ? oauthServer.authorizationPath
    : `/${oauthServer.authorizationPath}`;
  const sql = postgres.connect(options.databaseUrl, { max: 1, idle_timeout: 20, onnotice: () => {} });
  let server: Deno.HttpServer;
  try {
    server = Deno.serve(
      { hostname: "127.0.0.1", port: Number(site.port || 80), onListen: () => {} },
      async (request) => {
        const url = new URL(request.url);
        if (url.pathname !== path) {
          return page("Not found", "<p>Only the consent page is served here.</p>", 404);
        }
        if (request.method === "GET") {
          return form(url.searchParams.get("authorization_id") ?? "", options.defaultEmail);
        }
        if (request.method === "POST") {
          return await decide(options, sql, await request.formData());
        }
        return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
      },
    );
  } catch (error) {
    void sql.end();
    return `port ${site.port || 80} is taken (${(error as Error).message})`;
  }
  return {
    url: `${site.origin}${path}`,
    async close() {
      await server.shutdown();
      await sql.end({ timeout: 1 });
    },
  };
}
