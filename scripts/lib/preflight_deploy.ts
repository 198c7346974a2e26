/**
 * The preflight checks of what a first deploy to a new hosted project meets (docs/deploy.md): the extensions
 * the migrations create (a new project has neither pg_cron nor pg_net), the pooler URL's form for
 * `supabase db push --db-url` (the session pooler), Auth's custom SMTP (Supabase's default sender reaches only
 * the project's team) when the Management API can be read, and an ECC (P-256) signing key in the JWKS.
 * The findings are pure; `inspectDeploy` and `readAuthMailConfig` do the I/O.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";

/** The extensions the migrations create on a new project. */
export const extensionsTheMigrationsNeed = ["pg_cron", "pg_net"] as const;

export interface DeployFinding {
  check: "extensions" | "pooler" | "smtp" | "signing-key";
  ok: boolean;
  /** Could not be read from here: reported, never a failure. */
  unchecked?: boolean;
  detail: string;
}

/** Auth's mail settings as the Management API gives them (`GET /v1/projects/{ref}/config/auth`). */
export interface AuthMailConfig {
  smtpHost: string | null;
  smtpPort: string | null;
}

export interface DeployState {
  /** Installed extensions' names; null: pg_extension could not be read. */
  extensions: string[] | null;
  /** The --db-url preflight was given. */
  databaseUrl: string;
  /** Auth's mail settings; null: not readable (no access token or no project ref), with the reason. */
  authMail: AuthMailConfig | { unreadable: string };
  /** The project's JWKS keys; null: no key set could be read. */
  jwksKeys: Record<string, unknown>[] | null;
  jwksUrl: string | null;
}

export function extensionsFinding(installed: string[] | null): DeployFinding {
  if (installed === null) {
    return { check: "extensions", ok: false, detail: "pg_extension cannot be read" };
  }
  const missing = extensionsTheMigrationsNeed.filter((name) => !installed.includes(name));
  return missing.length > 0
    ? {
      check: "extensions",
      ok: false,
      detail: `not created: ${missing.join(", ")} (the migrations create them: run \`supabase db push\`)`,
    }
    : { check: "extensions", ok: true, detail: `${extensionsTheMigrationsNeed.join(", ")} created` };
}

/** A Supabase pooler host: `aws-0-<region>.pooler.supabase.com` (newer projects: `aws-1-…`). */
const poolerHost = /^aws-\d+-[a-z0-9-]+\.pooler\.supabase\.com$/i;

/** The project ref in a Supabase connection string or project URL, else null. */
export function projectRefOf(...urls: (string | undefined)[]): string | null {
  for (const text of urls) {
    if (!text) continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      continue;
    }
    const user = decodeURIComponent(url.username);
    const fromUser = /^postgres\.([a-z0-9]{20})$/.exec(user)?.[1];
    const fromHost = /^(?:db\.)?([a-z0-9]{20})\.supabase\.co$/.exec(url.hostname)?.[1];
    if (fromUser ?? fromHost) return (fromUser ?? fromHost)!;
  }
  return null;
}

/**
 * The --db-url's form: `supabase db push --db-url` is given the session pooler (port 5432), the one the CLI
 * itself uses for a linked project (supabase/cli internal/utils/connect.go: "Supavisor transaction mode does not
 * support prepared statement"). The pooler knows the project by the user `postgres.<ref>`.
 */
export function poolerFinding(databaseUrl: string): DeployFinding {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { check: "pooler", ok: false, detail: "--db-url is not a connection string" };
  }
  if (!poolerHost.test(url.hostname)) {
    return {
      check: "pooler",
      ok: true,
      unchecked: true,
      detail: `${url.hostname} is not a Supabase pooler host (aws-0-<region>.pooler.supabase.com)`,
    };
  }
  const user = decodeURIComponent(url.username);
  if (!/^postgres\.[a-z0-9]+$/.test(user)) {
    return {
      check: "pooler",
      ok: false,
      detail: `the pooler's user must be postgres.<project ref>, not ${JSON.stringify(user)}`,
    };
  }
  const port = url.port || "5432";
  if (port === "6543") {
    return {
      check: "pooler",
      ok: true,
      unchecked: true,
      detail:
        "transaction pooler (6543): right for the functions' DB_POOLER_URL; `supabase db push --db-url` " +
        "needs the session pooler, the same URL with port 5432",
    };
  }
  return port === "5432"
    ? {
      check: "pooler",
      ok: true,
      detail: `session pooler ${url.hostname}:5432 as ${user}: what db push needs`,
    }
    : { check: "pooler", ok: false, detail: `port ${port}: the pooler listens on 5432 (session) and 6543` };
}

export function smtpFinding(mail: DeployState["authMail"]): DeployFinding {
  if ("unreadable" in mail) return { check: "smtp", ok: true, unchecked: true, detail: mail.unreadable };
  if (!mail.smtpHost) {
    return {
      check: "smtp",
      ok: false,
      detail: "Auth sends mail with Supabase's default sender, which reaches only the project's team: " +
        "set up custom SMTP (Authentication → Emails → SMTP Settings), or outsiders never get their " +
        "confirmation mail",
    };
  }
  return { check: "smtp", ok: true, detail: `custom SMTP ${mail.smtpHost}:${mail.smtpPort ?? "?"}` };
}

/** An ECC (P-256) key (ES256) in the project's JWKS: the kind docs/deploy.md has the OAuth server sign with. */
export function signingKeyFinding(
  keys: Record<string, unknown>[] | null,
  jwksUrl: string | null,
): DeployFinding {
  if (keys === null) {
    return { check: "signing-key", ok: false, detail: "no JSON Web Key Set could be read (see jwks)" };
  }
  const ecc = keys.filter((key) => key.kty === "EC" && key.crv === "P-256");
  if (ecc.length === 0) {
    const kinds = keys.map((key) => `${key.alg ?? key.kty}`).join(", ") || "no keys";
    return {
      check: "signing-key",
      ok: false,
      detail: `${jwksUrl} has ${kinds} but no ECC (P-256) key: create one (Project Settings → JWT Keys → ` +
        "Create standby key → ECC (P-256)) and rotate it in",
    };
  }
  return {
    check: "signing-key",
    ok: true,
    detail: `ECC (P-256) ${
      ecc.map((key) => `${key.alg ?? "ES256"}${key.kid ? ` ${key.kid}` : ""}`).join(", ")
    }`,
  };
}

export function deployFindings(state: DeployState): DeployFinding[] {
  return [
    extensionsFinding(state.extensions),
    poolerFinding(state.databaseUrl),
    smtpFinding(state.authMail),
    signingKeyFinding(state.jwksKeys, state.jwksUrl),
  ];
}

/**
 * Auth's SMTP settings through the Management API (`SUPABASE_ACCESS_TOKEN`: a personal access token, the
 * kind `supabase login` stores). Only the host and port are kept: never the user, password or sender address.
 */
export async function readAuthMailConfig(
  ref: string | null,
  token: string | undefined,
  apiBase = "https://api.supabase.com",
): Promise<DeployState["authMail"]> {
  if (!token) {
    return {
      unreadable: "not checked: set SUPABASE_ACCESS_TOKEN (a personal access token) to read Auth's SMTP",
    };
  }
  if (!ref) return { unreadable: "not checked: no project ref in --db-url or the project URL" };
  try {
    const response = await fetch(`${apiBase.replace(/\/+$/, "")}/v1/projects/${ref}/config/auth`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { unreadable: `not checked: the Management API answered ${response.status}` };
    }
    const body = await response.json() as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);
    return {
      smtpHost: text(body.smtp_host),
      smtpPort: text(body.smtp_port) ?? (typeof body.smtp_port === "number" ? String(body.smtp_port) : null),
    };
  } catch {
    return { unreadable: "not checked: the Management API did not answer" };
  }
}

/** Installed extensions' names, or null when pg_extension cannot be read. */
export async function installedExtensions(sql: postgres.Sql): Promise<string[] | null> {
  try {
    return (await sql<{ extname: string }[]>`select extname from pg_catalog.pg_extension order by 1`)
      .map((row) => row.extname);
  } catch {
    return null;
  }
}
