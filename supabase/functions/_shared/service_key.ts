/**
 * The project's secret API key for calling Supabase Auth's admin API: the legacy
 * `SUPABASE_SERVICE_ROLE_KEY` (a JWT) when Supabase provides it, else the new secret key from
 * `SUPABASE_SECRET_KEYS`, a JSON object of named `sb_secret_…` keys (`default` first, else the first one).
 * Pure: takes the two values, so it is tested without the environment.
 */
export function serviceKeyFrom(
  serviceRoleKey: string | undefined,
  secretKeysJson: string | undefined,
): string | undefined {
  if (serviceRoleKey) return serviceRoleKey;
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
