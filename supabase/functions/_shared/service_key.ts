/**
 * The project's secret API key for calling Supabase Auth's admin API. The new secret key from
 * `SUPABASE_SECRET_KEYS` comes first: Supabase injects it into every function as a JSON object of named
 * `sb_secret_…` keys, `{"default":"sb_secret_…"}` (`default` first, else the first one). The legacy
 * `SUPABASE_SERVICE_ROLE_KEY` (a JWT, being retired) is the fallback. `serviceKeyFrom` is pure: it takes
 * the two values, so it is tested without the environment; `serviceKeyNotice` says which one is used,
 * never the key.
 */
export type ServiceKeySource = "SUPABASE_SECRET_KEYS" | "SUPABASE_SERVICE_ROLE_KEY";

export interface ServiceKey {
  key: string;
  source: ServiceKeySource;
}

function secretKeyFrom(secretKeysJson: string | undefined): string | undefined {
  if (!secretKeysJson) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretKeysJson);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const keys = parsed as Record<string, unknown>;
  const named = typeof keys.default === "string" && keys.default ? keys.default : undefined;
  return named ?? Object.values(keys).find((value): value is string => typeof value === "string" && !!value);
}

export function serviceKeyFrom(
  secretKeysJson: string | undefined,
  serviceRoleKey: string | undefined,
): ServiceKey | undefined {
  const secretKey = secretKeyFrom(secretKeysJson);
  if (secretKey) return { key: secretKey, source: "SUPABASE_SECRET_KEYS" };
  if (serviceRoleKey) return { key: serviceRoleKey, source: "SUPABASE_SERVICE_ROLE_KEY" };
  return undefined;
}

/** The one log line that says which key a function uses (its name only, never its value). */
export function serviceKeyNotice(key: ServiceKey | undefined): string {
  if (!key) {
    return "[auth-admin] no secret key: neither SUPABASE_SECRET_KEYS nor SUPABASE_SERVICE_ROLE_KEY is set";
  }
  return key.source === "SUPABASE_SECRET_KEYS"
    ? "[auth-admin] using the secret key from SUPABASE_SECRET_KEYS"
    : "[auth-admin] using the legacy SUPABASE_SERVICE_ROLE_KEY (SUPABASE_SECRET_KEYS is not set)";
}
