/**
 * A local fake of Supabase Auth (GoTrue) for tests, on 127.0.0.1 and a free port. It serves:
 * - `GET /auth/v1/.well-known/jwks.json`: the public half of an ES256 key pair (kid `fake-es256`);
 * - `POST /auth/v1/admin/generate_link` (type invite): sends nothing; answers the redirect Auth would use
 *   (`redirect_to` only when the Site URL or the allow list permits it, as GoTrue does) or 422
 *   `email_exists`; records each request in `links`;
 * - `POST /auth/v1/invite`: answers as `inviteAnswer` says (200 with a user, 422 `email_exists` in GoTrue's
 *   error shape, or 500) and records each request, Authorization header, the requested `redirect_to` and
 *   the redirect the email would really carry (`sentRedirect`) included.
 * `sign()` issues session tokens the way Supabase Auth does, signed with the served key by default.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { redirectAuthWouldUse } from "../../platform/auth/redirects.ts";

/** `error_naming_address`: a 500 whose message quotes the invitee's address (logs must not repeat it). */
export type InviteAnswer = "ok" | "email_exists" | "error" | "error_naming_address";

export interface RecordedInvite {
  authorization: string | null;
  apikey: string | null;
  redirectTo: string | null;
  /** The link the email carries: `redirectTo` when allowed, else the Site URL (GoTrue's silent fallback). */
  sentRedirect: string;
  body: { email?: string; data?: Record<string, unknown> };
}

export interface SignOptions {
  /** Default ES256 with the served key. */
  alg?: "ES256" | "RS256" | "EdDSA" | "HS256";
  /** The signing key; defaults to the served ES256 private key. For HS256, the secret bytes. */
  key?: CryptoKey | Uint8Array;
  kid?: string;
  /** Default `<url>/auth/v1`. */
  issuer?: string;
  /** Default `authenticated`. */
  audience?: string;
  /** Seconds since the epoch; default one hour from now. */
  expiresAt?: number;
}

export interface FakeAuth {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234` (its `/auth/v1` is Auth). */
  url: string;
  issuer: string;
  jwks: { keys: JWK[] };
  publicKey: CryptoKey;
  inviteAnswer: InviteAnswer;
  invites: RecordedInvite[];
  /** generate_link requests (requested `redirect_to`). */
  links: (string | null)[];
  /** Auth's Site URL; default the fake's own URL. */
  siteUrl: string;
  /** Auth's Redirect URLs (globs); default none. */
  redirectAllowList: string[];
  jwksRequests: number;
  /** A session JWT with Supabase's claims (`role: authenticated`) plus `claims`. */
  sign(claims: Record<string, unknown>, options?: SignOptions): Promise<string>;
  close(): Promise<void>;
}

export const fakeKeyId = "fake-es256";

/** GoTrue marks its error bodies with this header; supabase-js then reads `code` from the body. */
const apiVersionHeaders = { "x-supabase-api-version": "2024-01-01" };

export async function startFakeAuth(): Promise<FakeAuth> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: fakeKeyId, alg: "ES256", use: "sig" };

  const fake: FakeAuth = {
    url: "",
    issuer: "",
    jwks: { keys: [publicJwk] },
    publicKey,
    inviteAnswer: "ok",
    invites: [],
    links: [],
    siteUrl: "",
    redirectAllowList: [],
    jwksRequests: 0,
    sign: (claims, options = {}) => {
      const alg = options.alg ?? "ES256";
      return new SignJWT({ role: "authenticated", aal: "aal1", session_id: crypto.randomUUID(), ...claims })
        .setProtectedHeader({
          alg,
          typ: "JWT",
          ...(alg === "HS256" ? {} : { kid: options.kid ?? fakeKeyId }),
        })
        .setIssuer(options.issuer ?? fake.issuer)
        .setAudience(options.audience ?? "authenticated")
        .setIssuedAt()
        .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 3600)
        .sign(options.key ?? privateKey);
    },
    close: () => server.shutdown(),
  };

  const emailExists = () =>
    Response.json(
      { code: "email_exists", msg: "A user with this email address has already been registered" },
      { status: 422, headers: apiVersionHeaders },
    );

  const generateLink = async (request: Request): Promise<Response> => {
    const body = await request.json().catch(() => ({}));
    const redirectTo = new URL(request.url).searchParams.get("redirect_to");
    fake.links.push(redirectTo);
    if (fake.inviteAnswer === "email_exists") return emailExists();
    const redirect = redirectAuthWouldUse(fake.siteUrl, fake.redirectAllowList, redirectTo);
    const now = new Date().toISOString();
    return Response.json({
      id: crypto.randomUUID(),
      aud: "authenticated",
      role: "authenticated",
      email: body.email,
      invited_at: now,
      created_at: now,
      updated_at: now,
      action_link: `${fake.issuer}/verify?token=fake&type=invite&redirect_to=${encodeURIComponent(redirect)}`,
      email_otp: "000000",
      hashed_token: "fake",
      verification_type: "invite",
      redirect_to: redirect,
    }, { headers: apiVersionHeaders });
  };

  const invite = async (request: Request): Promise<Response> => {
    const body = await request.json().catch(() => ({}));
    const redirectTo = new URL(request.url).searchParams.get("redirect_to");
    fake.invites.push({
      authorization: request.headers.get("authorization"),
      apikey: request.headers.get("apikey"),
      redirectTo,
      sentRedirect: redirectAuthWouldUse(fake.siteUrl, fake.redirectAllowList, redirectTo),
      body,
    });
    if (fake.inviteAnswer === "email_exists") return emailExists();
    if (fake.inviteAnswer === "error" || fake.inviteAnswer === "error_naming_address") {
      const msg = fake.inviteAnswer === "error"
        ? "Error sending invite email"
        : `Error sending invite email to ${body.email}`;
      return Response.json({ code: "unexpected_failure", msg }, { status: 500, headers: apiVersionHeaders });
    }
    const now = new Date().toISOString();
    return Response.json({
      id: crypto.randomUUID(),
      aud: "authenticated",
      role: "authenticated",
      email: body.email,
      invited_at: now,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: body.data ?? {},
      identities: [],
      created_at: now,
      updated_at: now,
    }, { headers: apiVersionHeaders });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/auth/v1/.well-known/jwks.json") {
      fake.jwksRequests++;
      return Response.json(fake.jwks);
    }
    if (request.method === "POST" && path === "/auth/v1/invite") return invite(request);
    if (request.method === "POST" && path === "/auth/v1/admin/generate_link") return generateLink(request);
    return Response.json({ code: "not_found", msg: "Not found" }, { status: 404 });
  });
  fake.url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  fake.issuer = `${fake.url}/auth/v1`;
  fake.siteUrl = fake.url;
  return fake;
}
