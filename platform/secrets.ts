/**
 * Keys of the local stack. The JWT secret is the well-known one the supabase CLI uses for its own local
 * stack: it protects nothing but this machine's throwaway database.
 */
import { SignJWT } from "jose";

export const localJwtSecret = "super-secret-jwt-token-with-at-least-32-characters-long";
export const localPollerSecret = "local-poller-secret";
export const localTelegramWebhookSecret = "local-telegram-webhook-secret";
export const localTelegramBotUsername = "DomainWatchlistLocalBot";

function sign(claims: Record<string, unknown>, secret: string, expiresIn: string): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

/** The anon and service-role keys Supabase hands every function, signed with the local secret. */
export async function localApiKeys(
  secret = localJwtSecret,
): Promise<{ anonKey: string; serviceRoleKey: string }> {
  return {
    anonKey: await sign({ iss: "supabase-demo", role: "anon" }, secret, "10y"),
    serviceRoleKey: await sign({ iss: "supabase-demo", role: "service_role" }, secret, "10y"),
  };
}

/**
 * A session JWT as Supabase Auth issues it for a signed-in user; issuer `<supabaseUrl>/auth/v1`, so pass
 * the Auth base the functions verify against (AUTH_BASE_URL, else SUPABASE_URL).
 */
export function sessionToken(
  user: { id: string; email: string },
  options: { secret: string; supabaseUrl: string; expiresIn?: string },
): Promise<string> {
  return new SignJWT({
    sub: user.id,
    email: user.email,
    role: "authenticated",
    aal: "aal1",
    session_id: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(`${options.supabaseUrl}/auth/v1`)
    .setAudience("authenticated")
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "1h")
    .sign(new TextEncoder().encode(options.secret));
}

/**
 * The new Supabase API keys of the local stack: the fixed ones `supabase start` prints (well known, they
 * protect nothing but this machine). Hosted injects them into every function as JSON objects of named keys,
 * `SUPABASE_PUBLISHABLE_KEYS` and `SUPABASE_SECRET_KEYS` (`{"default":"sb_…"}`).
 */
export const localPublishableKey = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";
export const localSecretKey = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz";

/** `{"default":"sb_…"}` as hosted injects it, for SUPABASE_PUBLISHABLE_KEYS / SUPABASE_SECRET_KEYS. */
export function namedKeysJson(key: string): string {
  return JSON.stringify({ default: key });
}

/** The values of a JSON object of named keys (SUPABASE_*_KEYS); none when unset or not such an object. */
export function keysOfJson(json: string | undefined): string[] {
  if (!json) return [];
  try {
    const parsed = JSON.parse(json);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return [];
    return Object.values(parsed).filter((value): value is string =>
      typeof value === "string" && value !== ""
    );
  } catch {
    return [];
  }
}

export type ApiKeyRole = "anon" | "service_role";

/**
 * The Postgres role an `apikey` stands for, as Supabase's gateway maps it: a publishable key of
 * `SUPABASE_PUBLISHABLE_KEYS` (or the legacy `SUPABASE_ANON_KEY` JWT) is `anon`, a secret key of
 * `SUPABASE_SECRET_KEYS` (or the legacy `SUPABASE_SERVICE_ROLE_KEY` JWT) is `service_role`; anything else is
 * no key of this project (undefined). Unset variables fall back to the local keys. Reads the environment on
 * each call; `env` lets tests pass their own.
 */
export function roleOfApiKey(
  key: string | null | undefined,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): ApiKeyRole | undefined {
  if (!key) return undefined;
  const publishable = env("SUPABASE_PUBLISHABLE_KEYS");
  const secret = env("SUPABASE_SECRET_KEYS");
  const publishableKeys = publishable ? keysOfJson(publishable) : [localPublishableKey];
  const secretKeys = secret ? keysOfJson(secret) : [localSecretKey];
  if (secretKeys.includes(key) || key === env("SUPABASE_SERVICE_ROLE_KEY")) return "service_role";
  if (publishableKeys.includes(key) || key === env("SUPABASE_ANON_KEY")) return "anon";
  return undefined;
}
