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
