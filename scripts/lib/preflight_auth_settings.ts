/**
 * `admin preflight`'s check of the Supabase Auth settings that keep a connected assistant's token from taking
 * over the account (docs/mcp.md, "What a connected assistant can and cannot do"; docs/deploy.md, "Auth
 * security settings"). They are read from the Management API (`GET /v1/projects/{ref}/config/auth`, the
 * endpoint `supabase config push` and the Dashboard use) with a personal access token
 * (SUPABASE_ACCESS_TOKEN, as the supabase CLI reads it); without a token or a project ref the check says it
 * cannot read them (and does not fail). `authSettingsFindings` is pure; `readAuthConfig` does the I/O.
 */

/** What each setting must be, by its Management API name, and why. */
export const requiredAuthSettings: { name: string; value: boolean; why: string }[] = [
  {
    name: "security_update_password_require_current_password",
    value: true,
    why: "a password change needs the current password",
  },
  {
    name: "security_update_password_require_reauthentication",
    value: true,
    why:
      "a password change in a session older than 24 h needs a mailed code (config.toml secure_password_change)",
  },
  {
    name: "mailer_secure_email_change_enabled",
    value: true,
    why: "an address change is confirmed from both addresses (config.toml double_confirm_changes)",
  },
  {
    name: "mfa_totp_enroll_enabled",
    value: false,
    why: "no MFA factor can be enrolled to lock the owner out",
  },
  { name: "mfa_phone_enroll_enabled", value: false, why: "no phone factor can be enrolled" },
  { name: "mfa_web_authn_enroll_enabled", value: false, why: "no WebAuthn factor can be enrolled" },
  { name: "external_anonymous_users_enabled", value: false, why: "anonymous sign-ins stay off" },
  { name: "security_manual_linking_enabled", value: false, why: "identities are not linked by the user" },
];

export interface AuthSettingsFinding {
  check: "auth-settings";
  ok: boolean;
  /** True when the settings could not be read (reported, not counted as missing). */
  unknown?: boolean;
  detail: string;
}

/** The finding for the project's Auth config (null: it could not be read, for `reason`). */
export function authSettingsFindings(
  config: Record<string, unknown> | null,
  reason = "",
): AuthSettingsFinding {
  if (config === null) {
    return {
      check: "auth-settings",
      ok: true,
      unknown: true,
      detail: `cannot read the project's Auth settings (${reason}); check them by hand: ` +
        requiredAuthSettings.map((setting) => `${setting.name} = ${setting.value}`).join(", "),
    };
  }
  const wrong = requiredAuthSettings.filter((setting) => config[setting.name] !== setting.value);
  if (wrong.length === 0) {
    return {
      check: "auth-settings",
      ok: true,
      detail: requiredAuthSettings.map((setting) => `${setting.name} = ${setting.value}`).join(", "),
    };
  }
  return {
    check: "auth-settings",
    ok: false,
    detail:
      wrong.map((setting) =>
        `${setting.name} is ${
          JSON.stringify(config[setting.name] ?? null)
        }, set ${setting.value} (${setting.why})`
      ).join("; ") + ' — docs/deploy.md, "Auth security settings"',
  };
}

/** The project ref of a hosted project URL (`https://<ref>.supabase.co[/…]`), else undefined. */
export function projectRefOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.match(/^([a-z0-9]{20})\.supabase\.(co|in)$/)?.[1];
  } catch {
    return undefined;
  }
}

/** Reads the Auth config of `ref` from the Management API; a finding either way. */
export async function readAuthSettings(
  ref: string | undefined,
  token: string | undefined,
  apiBase = Deno.env.get("SUPABASE_MANAGEMENT_API_URL") || "https://api.supabase.com",
): Promise<AuthSettingsFinding> {
  if (!ref) {
    return authSettingsFindings(
      null,
      "no project ref: pass --project-ref or a https://<ref>.supabase.co URL",
    );
  }
  if (!token) return authSettingsFindings(null, "no SUPABASE_ACCESS_TOKEN (a personal access token)");
  try {
    const response = await fetch(`${apiBase.replace(/\/+$/, "")}/v1/projects/${ref}/config/auth`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return authSettingsFindings(null, `the Management API answered ${response.status}`);
    }
    const body = await response.json();
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return authSettingsFindings(null, "the Management API answered no JSON object");
    }
    return authSettingsFindings(body as Record<string, unknown>);
  } catch {
    return authSettingsFindings(null, "the Management API did not answer");
  }
}
