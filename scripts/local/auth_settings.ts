/**
 * The Auth settings the local stand-in applies, as a hosted project would have them: from supabase/config.toml
 * (`[auth]` and `[auth.oauth_server]`, the local copy of a project's Auth settings), each overridable by
 * GoTrue's own environment variable.
 */
import { join } from "node:path";
import { supabaseDir } from "./paths.ts";

export interface AuthSettings {
  /** Site URL (`site_url`, GOTRUE_SITE_URL). */
  siteUrl: string;
  /** Redirect URLs (`additional_redirect_urls`, GOTRUE_URI_ALLOW_LIST, comma-separated). */
  allowList: string[];
  /** Access token lifetime in seconds (`jwt_expiry`, GOTRUE_JWT_EXP). */
  jwtExpirySeconds: number;
  oauthServer: {
    /** `[auth.oauth_server] enabled`, GOTRUE_OAUTH_SERVER_ENABLED. */
    enabled: boolean;
    /** `allow_dynamic_registration`, GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION. */
    allowDynamicRegistration: boolean;
    /** The app's consent page under the Site URL (`authorization_url_path`, GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH). */
    authorizationPath: string;
  };
}

function configToml(): string {
  try {
    return Deno.readTextFileSync(join(supabaseDir, "config.toml"));
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

/** The settings in force now (read on each call, so a test may change the environment). */
export function authSettings(): AuthSettings {
  const text = configToml();
  const auth = tomlSection(text, "auth");
  const oauth = tomlSection(text, "auth.oauth_server");
  const envList = Deno.env.get("GOTRUE_URI_ALLOW_LIST");
  return {
    siteUrl: Deno.env.get("GOTRUE_SITE_URL") || tomlString(auth, "site_url") || "http://localhost:3000",
    allowList: envList !== undefined
      ? envList.split(",").map((entry) => entry.trim()).filter(Boolean)
      : tomlStrings(auth, "additional_redirect_urls") ?? [],
    jwtExpirySeconds: Number(Deno.env.get("GOTRUE_JWT_EXP") || tomlValue(auth, "jwt_expiry") || 3600),
    oauthServer: {
      enabled: envFlag("GOTRUE_OAUTH_SERVER_ENABLED") ?? tomlValue(oauth, "enabled") === "true",
      allowDynamicRegistration: envFlag("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION") ??
        tomlValue(oauth, "allow_dynamic_registration") === "true",
      authorizationPath: Deno.env.get("GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH") ??
        tomlString(oauth, "authorization_url_path") ?? "",
    },
  };
}
