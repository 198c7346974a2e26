/**
 * The Auth settings the local stand-in applies, as a hosted project would have them: from supabase/config.toml
 * (`[auth]` and `[auth.oauth_server]`, the local copy of a project's Auth settings), each overridable by
 * GoTrue's own environment variable.
 */
import { join } from "node:path";
import { supabaseDir } from "../paths.ts";

export interface AuthSettings {
  /** Site URL (`site_url`, GOTRUE_SITE_URL). */
  siteUrl: string;
  /** Redirect URLs (`additional_redirect_urls`, GOTRUE_URI_ALLOW_LIST, comma-separated). */
  allowList: string[];
  /** Access token lifetime in seconds (`jwt_expiry`, GOTRUE_JWT_EXP). */
  jwtExpirySeconds: number;
  /** `enable_signup` (GOTRUE_DISABLE_SIGNUP is its inverse). */
  enableSignup: boolean;
  /** `enable_refresh_token_rotation` (GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED). */
  refreshTokenRotation: boolean;
  /** `refresh_token_reuse_interval` in seconds (GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL). */
  refreshTokenReuseIntervalSeconds: number;
  /** `minimum_password_length` (GOTRUE_PASSWORD_MIN_LENGTH). */
  passwordMinLength: number;
  /** `password_requirements` as GoTrue's character sets (GOTRUE_PASSWORD_REQUIRED_CHARACTERS, `:`-separated). */
  passwordRequiredCharacters: string[];
  email: {
    /** `[auth.email] enable_signup` (GOTRUE_EXTERNAL_EMAIL_ENABLED). */
    enabled: boolean;
    /** `[auth.email] enable_confirmations`; GOTRUE_MAILER_AUTOCONFIRM is its inverse. */
    enableConfirmations: boolean;
    /** `[auth.email] double_confirm_changes` (GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED). */
    doubleConfirmChanges: boolean;
    /** `[auth.email] max_frequency`: one mail of a kind per address per this long (GOTRUE_SMTP_MAX_FREQUENCY). */
    maxFrequencySeconds: number;
    /** `[auth.email] otp_length` (GOTRUE_MAILER_OTP_LENGTH). */
    otpLength: number;
    /** `[auth.email] otp_expiry` in seconds (GOTRUE_MAILER_OTP_EXP). */
    otpExpirySeconds: number;
  };
  /** `enable_anonymous_sign_ins` (GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED). */
  anonymousSignIns: boolean;
  /** `enable_manual_linking` (GOTRUE_SECURITY_MANUAL_LINKING_ENABLED). */
  manualLinking: boolean;
  /**
   * `[auth.email] secure_password_change` (GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION): a
   * password change in a session older than 24 h needs a reauthentication nonce.
   */
  securePasswordChange: boolean;
  /**
   * GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD (Management API
   * `security_update_password_require_current_password`; the CLI's config.toml has no key for it and refuses
   * unknown keys): a password change outside a recovery session needs `current_password`. Unset, it is what
   * this project sets on hosted (`projectRequiresCurrentPassword`, docs/deploy.md) when the stand-in reads
   * supabase/config.toml, and GoTrue's default (off) for another config file (AUTH_CONFIG_TOML).
   */
  requireCurrentPassword: boolean;
  mfa: {
    /** `[auth.mfa] max_enrolled_factors` (GOTRUE_MFA_MAX_ENROLLED_FACTORS). */
    maxEnrolledFactors: number;
    /** GOTRUE_MFA_MAX_VERIFIED_FACTORS (GoTrue's default 10). */
    maxVerifiedFactors: number;
    /** `[auth.mfa.totp] enroll_enabled` (GOTRUE_MFA_TOTP_ENROLL_ENABLED). */
    totpEnroll: boolean;
    /** `[auth.mfa.totp] verify_enabled` (GOTRUE_MFA_TOTP_VERIFY_ENABLED). */
    totpVerify: boolean;
  };
  /** `[auth.rate_limit] email_sent`: mails per hour, the whole Auth (GOTRUE_RATE_LIMIT_EMAIL_SENT). */
  emailSentPerHour: number;
  oauthServer: {
    /** `[auth.oauth_server] enabled`, GOTRUE_OAUTH_SERVER_ENABLED. */
    enabled: boolean;
    /** `allow_dynamic_registration`, GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION. */
    allowDynamicRegistration: boolean;
    /** The app's consent page under the Site URL (`authorization_url_path`, GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH). */
    authorizationPath: string;
  };
}

/** supabase/config.toml, or the file AUTH_CONFIG_TOML names (`deno task suites:auth` gives the suite's own). */
function configToml(): string {
  try {
    return Deno.readTextFileSync(Deno.env.get("AUTH_CONFIG_TOML") || join(supabaseDir, "config.toml"));
  } catch {
    return "";
  }
}

/** The body of one `[section]` of a TOML text (up to the next section header). */
function tomlSection(text: string, name: string): string {
  const header = name.replace(/[.[\]]/g, "\\$&");
  return text.match(new RegExp(`^\\[${header}\\]\\s*$([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`, "m"))?.[1] ?? "";
}

function tomlString(section: string, key: string): string | undefined {
  return section.match(new RegExp(`^${key}\\s*=\\s*"([^"]*)"`, "m"))?.[1];
}

function tomlValue(section: string, key: string): string | undefined {
  return section.match(new RegExp(`^${key}\\s*=\\s*([^\\s#]+)`, "m"))?.[1];
}

function tomlStrings(section: string, key: string): string[] | undefined {
  const list = section.match(new RegExp(`^${key}\\s*=\\s*\\[([^\\]]*)\\]`, "m"))?.[1];
  return list === undefined ? undefined : [...list.matchAll(/"([^"]*)"/g)].map((match) => match[1]);
}

function envFlag(name: string): boolean | undefined {
  const value = Deno.env.get(name);
  return value === undefined || value === "" ? undefined : value === "true";
}

/** A Go duration as config.toml writes it (`"60s"`, `"1m"`, `"1h30m"`), or plain seconds, in seconds. */
export function durationSeconds(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  let seconds = 0;
  let matched = false;
  for (const [, value, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    matched = true;
    seconds += Number(value) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[unit];
  }
  return matched ? seconds : 60;
}

/**
 * GoTrue's required character sets from GOTRUE_PASSWORD_REQUIRED_CHARACTERS (`:`-separated sets), else from
 * config.toml's `password_requirements` as the supabase CLI maps it.
 */
function passwordRequirements(env: string | undefined, toml: string | undefined): string[] {
  if (env !== undefined && env !== "") return env.split(":").filter(Boolean);
  const lower = "abcdefghijklmnopqrstuvwxyz";
  const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const digits = "0123456789";
  const symbols = "!@#$%^&*()_+-=[]{};'\\:\"|<>?,./`~";
  switch (toml) {
    case "letters_digits":
      return [lower + upper, digits];
    case "lower_upper_letters_digits":
      return [lower, upper, digits];
    case "lower_upper_letters_digits_symbols":
      return [lower, upper, digits, symbols];
    default:
      return [];
  }
}

/** The settings in force now (read on each call, so a test may change the environment). */
/**
 * The one Auth setting of this project that config.toml cannot hold, as docs/deploy.md has the operator set it
 * on hosted (Management API `security_update_password_require_current_password`).
 */
export const projectRequiresCurrentPassword = true;

export function authSettings(): AuthSettings {
  const text = configToml();
  const mfa = tomlSection(text, "auth.mfa");
  const totp = tomlSection(text, "auth.mfa.totp");
  const auth = tomlSection(text, "auth");
  const oauth = tomlSection(text, "auth.oauth_server");
  const email = tomlSection(text, "auth.email");
  const rateLimit = tomlSection(text, "auth.rate_limit");
  const envList = Deno.env.get("GOTRUE_URI_ALLOW_LIST");
  const number = (envName: string, section: string, key: string, fallback: number) =>
    Number(Deno.env.get(envName) || tomlValue(section, key) || fallback);
  const autoconfirm = envFlag("GOTRUE_MAILER_AUTOCONFIRM");
  return {
    siteUrl: Deno.env.get("GOTRUE_SITE_URL") || tomlString(auth, "site_url") || "http://localhost:3000",
    allowList: envList !== undefined
      ? envList.split(",").map((entry) => entry.trim()).filter(Boolean)
      : tomlStrings(auth, "additional_redirect_urls") ?? [],
    jwtExpirySeconds: Number(Deno.env.get("GOTRUE_JWT_EXP") || tomlValue(auth, "jwt_expiry") || 3600),
    enableSignup: envFlag("GOTRUE_DISABLE_SIGNUP") !== undefined
      ? !envFlag("GOTRUE_DISABLE_SIGNUP")
      : tomlValue(auth, "enable_signup") !== "false",
    refreshTokenRotation: envFlag("GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED") ??
      tomlValue(auth, "enable_refresh_token_rotation") !== "false",
    refreshTokenReuseIntervalSeconds: number(
      "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL",
      auth,
      "refresh_token_reuse_interval",
      10,
    ),
    passwordMinLength: number("GOTRUE_PASSWORD_MIN_LENGTH", auth, "minimum_password_length", 6),
    passwordRequiredCharacters: passwordRequirements(
      Deno.env.get("GOTRUE_PASSWORD_REQUIRED_CHARACTERS"),
      tomlString(auth, "password_requirements"),
    ),
    email: {
      enabled: envFlag("GOTRUE_EXTERNAL_EMAIL_ENABLED") ?? tomlValue(email, "enable_signup") !== "false",
      enableConfirmations: autoconfirm !== undefined
        ? !autoconfirm
        : tomlValue(email, "enable_confirmations") === "true",
      doubleConfirmChanges: envFlag("GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED") ??
        tomlValue(email, "double_confirm_changes") !== "false",
      maxFrequencySeconds: durationSeconds(
        Deno.env.get("GOTRUE_SMTP_MAX_FREQUENCY") || tomlString(email, "max_frequency") || "60s",
      ),
      otpLength: number("GOTRUE_MAILER_OTP_LENGTH", email, "otp_length", 6),
      otpExpirySeconds: number("GOTRUE_MAILER_OTP_EXP", email, "otp_expiry", 3600),
    },
    anonymousSignIns: envFlag("GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED") ??
      tomlValue(auth, "enable_anonymous_sign_ins") === "true",
    manualLinking: envFlag("GOTRUE_SECURITY_MANUAL_LINKING_ENABLED") ??
      tomlValue(auth, "enable_manual_linking") === "true",
    securePasswordChange: envFlag("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION") ??
      tomlValue(email, "secure_password_change") === "true",
    requireCurrentPassword: envFlag("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD") ??
      (Deno.env.get("AUTH_CONFIG_TOML") ? false : projectRequiresCurrentPassword),
    mfa: {
      maxEnrolledFactors: number("GOTRUE_MFA_MAX_ENROLLED_FACTORS", mfa, "max_enrolled_factors", 10),
      maxVerifiedFactors: Number(Deno.env.get("GOTRUE_MFA_MAX_VERIFIED_FACTORS") || 10),
      totpEnroll: envFlag("GOTRUE_MFA_TOTP_ENROLL_ENABLED") ?? tomlValue(totp, "enroll_enabled") === "true",
      totpVerify: envFlag("GOTRUE_MFA_TOTP_VERIFY_ENABLED") ?? tomlValue(totp, "verify_enabled") === "true",
    },
    emailSentPerHour: number("GOTRUE_RATE_LIMIT_EMAIL_SENT", rateLimit, "email_sent", 30),
    oauthServer: {
      enabled: envFlag("GOTRUE_OAUTH_SERVER_ENABLED") ?? tomlValue(oauth, "enabled") === "true",
      allowDynamicRegistration: envFlag("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION") ??
        tomlValue(oauth, "allow_dynamic_registration") === "true",
      authorizationPath: Deno.env.get("GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH") ??
        tomlString(oauth, "authorization_url_path") ?? "",
    },
  };
}
