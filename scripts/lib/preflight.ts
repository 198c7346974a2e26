/**
 * `deno task admin preflight --db-url <url>`: is a target database (a hosted project's, through its pooler)
 * ready to run the service? It checks that every file of supabase/migrations is in the supabase CLI's
 * history table, that the Vault secrets the pg_cron jobs read are present, that every job the migrations
 * schedule exists and is active, that each function's URL answers, and that the project's Supabase Auth can
 * serve MCP over OAuth: its OAuth 2.1 server's discovery document (RFC 8414, where MCP clients look for it),
 * with a `registration_endpoint` (dynamic client registration), and a JWKS with an asymmetric key (`/mcp`
 * refuses HS256 tokens); and what a first deploy meets (./preflight_deploy.ts: pg_cron and pg_net, the pooler
 * URL's form, Auth's custom SMTP, an ECC (P-256) signing key). It reads only, and prints what is missing
 * (names, never a secret's value); a check it cannot read from here prints `skip`.
 * `findings` is pure; `inspect` does the I/O.
 */
import { join } from "node:path";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { migrationFiles } from "../../platform/postgres/migrate.ts";
import { functionsDir, migrationsDir } from "../../platform/paths.ts";
import {
  type DeployFinding,
  deployFindings,
  type DeployState,
  installedExtensions,
  projectRefOf,
  readAuthMailConfig,
} from "./preflight_deploy.ts";

/** The Vault secrets `invoke_rdap_poller()` and `invoke_alert_delivery()` read. */
export const requiredVaultSecrets = ["project_url", "poller_secret"] as const;

/** Where each function answers a bare request without credentials (405, 401 or 200: it is deployed). */
const probePaths: Record<string, string> = { "api-v1": "/openapi.json" };

export interface TargetState {
  localMigrations: string[];
  /** null: the history table does not exist. */
  appliedVersions: string[] | null;
  /** Names of the required Vault secrets with a non-empty value; null: Vault cannot be read. */
  vaultSecrets: string[] | null;
  expectedJobs: string[];
  /** null: pg_cron's job table cannot be read. */
  jobs: { jobname: string; active: boolean }[] | null;
  /** Each function's probe: its HTTP status, or null when nothing answered. */
  functions: { name: string; url: string; status: number | null }[];
  /** The Auth server's discovery document; null when no project URL is known. */
  authServer: AuthServerProbe | null;
  /** What a first deploy meets (scripts/lib/preflight_deploy.ts); absent: not inspected. */
  deploy?: DeployState;
}

/** What one GET of a JSON document gave: its status (null: no answer) and body (null: not a JSON object). */
export interface JsonProbe {
  url: string;
  status: number | null;
  body: Record<string, unknown> | null;
}

export interface AuthServerProbe {
  /** The issuer the service names to MCP clients: `<AUTH_BASE_URL or project URL>/auth/v1`. */
  issuer: string;
  discovery: JsonProbe;
  /** The JWKS of the document's `jwks_uri` (else `<issuer>/.well-known/jwks.json`). */
  jwks: JsonProbe;
}

export interface Finding {
  check: "migrations" | "vault" | "cron" | "functions" | "oauth" | "jwks" | DeployFinding["check"];
  ok: boolean;
  /** Could not be read from here: reported as `skip`, never a failure. */
  unchecked?: boolean;
  detail: string;
}

/** Job names the migrations schedule: `cron.schedule('<name>', …)`. */
export function scheduledJobNames(sqlTexts: string[]): string[] {
  const names = new Set<string>();
  for (const text of sqlTexts) {
    for (const match of text.matchAll(/cron\.schedule\(\s*'([^']+)'/g)) names.add(match[1]);
  }
  return [...names].sort();
}

function versionOf(file: string): string {
  return file.split("_")[0];
}

/** A function answers when anything but "not found" or a server error comes back. */
function answers(status: number | null): boolean {
  return status !== null && status !== 404 && status < 500;
}

export function findings(state: TargetState): Finding[] {
  const result: Finding[] = [];
  if (state.appliedVersions === null) {
    result.push({
      check: "migrations",
      ok: false,
      detail: "supabase_migrations.schema_migrations does not exist: run `supabase db push`",
    });
  } else {
    const applied = new Set(state.appliedVersions);
    const missing = state.localMigrations.filter((file) => !applied.has(versionOf(file)));
    const local = new Set(state.localMigrations.map(versionOf));
    const unknown = state.appliedVersions.filter((version) => !local.has(version));
    result.push({
      check: "migrations",
      ok: missing.length === 0 && unknown.length === 0,
      detail: missing.length > 0
        ? `not applied: ${missing.join(", ")} (run \`supabase db push\`)`
        : unknown.length > 0
        ? `applied but not in supabase/migrations: ${unknown.join(", ")}`
        : `${state.localMigrations.length} of ${state.localMigrations.length} applied`,
    });
  }
  const secrets = new Set(state.vaultSecrets ?? []);
  const missingSecrets = requiredVaultSecrets.filter((name) => !secrets.has(name));
  result.push({
    check: "vault",
    ok: state.vaultSecrets !== null && missingSecrets.length === 0,
    detail: state.vaultSecrets === null
      ? "Vault cannot be read (is supabase_vault installed, and is this the postgres role?)"
      : missingSecrets.length > 0
      ? `missing: ${missingSecrets.join(", ")} (the pg_cron jobs send nothing until both exist)`
      : `${requiredVaultSecrets.join(", ")} present`,
  });
  const jobs = new Map((state.jobs ?? []).map((job) => [job.jobname, job.active]));
  const absent = state.expectedJobs.filter((name) => !jobs.has(name));
  const inactive = state.expectedJobs.filter((name) => jobs.get(name) === false);
  result.push({
    check: "cron",
    ok: state.jobs !== null && absent.length === 0 && inactive.length === 0,
    detail: state.jobs === null ? "cron.job cannot be read (is pg_cron enabled?)" : [
      absent.length > 0 ? `missing jobs: ${absent.join(", ")}` : "",
      inactive.length > 0 ? `inactive jobs: ${inactive.join(", ")}` : "",
    ].filter(Boolean).join("; ") || `${state.expectedJobs.join(", ")} active`,
  });
  const silent = state.functions.filter((probe) => !answers(probe.status));
  result.push({
    check: "functions",
    ok: state.functions.length > 0 && silent.length === 0,
    detail: state.functions.length === 0
      ? "no functions URL: store the Vault secret project_url or pass --functions-url"
      : silent.length > 0
      ? `not answering: ${
        silent.map((probe) => `${probe.name} (${probe.status ?? "no answer"} from ${probe.url})`).join(", ")
      } (run \`supabase functions deploy\`)`
      : `${state.functions.map((probe) => `${probe.name} ${probe.status}`).join(", ")}`,
  });
  result.push(...authServerFindings(state.authServer));
  if (state.deploy) result.push(...deployFindings(state.deploy));
  return result;
}

/** The key types of asymmetric JWKs (RFC 7518 §6): EC, RSA, and OKP (RFC 8037). `oct` is a shared secret. */
const asymmetricKeyTypes = new Set(["EC", "RSA", "OKP"]);

function statusText(probe: JsonProbe): string {
  return probe.status === null ? `no answer from ${probe.url}` : `${probe.status} from ${probe.url}`;
}

/** The two checks of the project's Supabase Auth as MCP over OAuth needs it (docs/deploy.md). */
export function authServerFindings(auth: AuthServerProbe | null): Finding[] {
  if (auth === null) {
    const detail = "no project URL: store the Vault secret project_url or pass --auth-url / --functions-url";
    return [{ check: "oauth", ok: false, detail }, { check: "jwks", ok: false, detail }];
  }
  const document = auth.discovery.body;
  let oauth: Finding;
  if (document === null) {
    oauth = {
      check: "oauth",
      ok: false,
      detail:
        `no OAuth 2.1 server discovery document (${statusText(auth.discovery)}): enable the OAuth 2.1 ` +
        "server (Authentication → OAuth Server)",
    };
  } else if (document.issuer !== auth.issuer) {
    oauth = {
      check: "oauth",
      ok: false,
      detail: `the discovery document's issuer is ${JSON.stringify(document.issuer)}, not ${auth.issuer}`,
    };
  } else if (typeof document.registration_endpoint !== "string" || document.registration_endpoint === "") {
    oauth = {
      check: "oauth",
      ok: false,
      detail:
        "no registration_endpoint: allow dynamic client registration (Authentication → OAuth Server); " +
        "Claude and ChatGPT register themselves",
    };
  } else if (
    !Array.isArray(document.code_challenge_methods_supported) ||
    !document.code_challenge_methods_supported.includes("S256")
  ) {
    oauth = { check: "oauth", ok: false, detail: "the discovery document does not offer PKCE with S256" };
  } else {
    oauth = {
      check: "oauth",
      ok: true,
      detail:
        `${auth.discovery.url}: issuer ${auth.issuer}, registration_endpoint ${document.registration_endpoint}`,
    };
  }
  const keys = Array.isArray(auth.jwks.body?.keys) ? auth.jwks.body.keys as Record<string, unknown>[] : null;
  const asymmetric = (keys ?? []).filter((key) => asymmetricKeyTypes.has(String(key?.kty)));
  const jwks: Finding = keys === null
    ? { check: "jwks", ok: false, detail: `no JSON Web Key Set (${statusText(auth.jwks)})` }
    : asymmetric.length === 0
    ? {
      check: "jwks",
      ok: false,
      detail: `${auth.jwks.url} has no asymmetric key (HS256 only): switch to asymmetric JWT signing keys ` +
        "(Project Settings → JWT Keys); /mcp refuses HS256 tokens",
    }
    : {
      check: "jwks",
      ok: true,
      detail: `${auth.jwks.url}: ${
        asymmetric.map((key) => `${key.alg ?? key.kty}${key.kid ? ` ${key.kid}` : ""}`).join(", ")
      }`,
    };
  return [oauth, jwks];
}

/** Runs `query`, or gives null when the object it reads does not exist or may not be read. */
async function orNull<T>(query: () => Promise<T>): Promise<T | null> {
  try {
    return await query();
  } catch {
    return null;
  }
}

export async function functionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(functionsDir)) {
    if (entry.isDirectory && !entry.name.startsWith("_")) names.push(entry.name);
  }
  return names.sort();
}

async function probe(url: string): Promise<number | null> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return null;
  }
}

async function probeJson(url: string): Promise<JsonProbe> {
  try {
    const response = await fetch(url, {
      redirect: "manual",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    const isObject = response.ok && typeof body === "object" && body !== null && !Array.isArray(body);
    return { url, status: response.status, body: isObject ? body as Record<string, unknown> : null };
  } catch {
    return { url, status: null, body: null };
  }
}

/**
 * The project's Supabase Auth as an MCP client finds it: the RFC 8414 document at the host root with the
 * issuer's path inserted (`/.well-known/oauth-authorization-server/auth/v1`), then the JWKS it names.
 */
export async function inspectAuthServer(projectUrl: string): Promise<AuthServerProbe> {
  const issuer = `${projectUrl.replace(/\/+$/, "")}/auth/v1`;
  const issuerUrl = new URL(issuer);
  const discovery = await probeJson(
    `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname}`,
  );
  const named = discovery.body?.jwks_uri;
  const jwks = await probeJson(
    typeof named === "string" && named ? named : `${issuer}/.well-known/jwks.json`,
  );
  return { issuer, discovery, jwks };
}

/**
 * Reads the target's state. The functions are probed at `functionsUrl` (…/functions/v1), else at the Vault
 * secret project_url's `/functions/v1`. Supabase Auth is looked for at `authUrl` (the project URL whose
 * `/auth/v1` serves it, as AUTH_BASE_URL), else at the project URL of `functionsUrl` or of the Vault secret.
 */
export async function inspect(
  sql: postgres.Sql,
  functionsUrl?: string,
  authUrl?: string,
  databaseUrl?: string,
): Promise<TargetState> {
  const localMigrations = await migrationFiles();
  const texts = await Promise.all(
    localMigrations.map((file) => Deno.readTextFile(join(migrationsDir, file))),
  );
  const appliedVersions = await orNull(async () =>
    (await sql<
      { version: string }[]
    >`select version from supabase_migrations.schema_migrations order by version`)
      .map((row) => row.version)
  );
  const vaultRows = await orNull(() =>
    sql<{ name: string; value: string }[]>`
      select name, decrypted_secret as value from vault.decrypted_secrets where name = any(${[
      ...requiredVaultSecrets,
    ]})`
  );
  const jobs = await orNull(() =>
    sql<{ jobname: string; active: boolean }[]>`select jobname, active from cron.job`
  );
  const projectUrl = vaultRows?.find((row) => row.name === "project_url")?.value;
  const base = (functionsUrl ?? (projectUrl ? `${projectUrl.replace(/\/+$/, "")}/functions/v1` : undefined))
    ?.replace(/\/+$/, "");
  const functions = base
    ? await Promise.all((await functionNames()).map(async (name) => {
      const url = `${base}/${name}${probePaths[name] ?? ""}`;
      return { name, url, status: await probe(url) };
    }))
    : [];
  const authBase = authUrl ?? (base ? base.replace(/\/functions\/v1$/, "") : projectUrl);
  const authServer = authBase ? await inspectAuthServer(authBase) : null;
  return {
    localMigrations,
    appliedVersions,
    authServer,
    deploy: databaseUrl === undefined
      ? undefined
      : await inspectDeploy(sql, databaseUrl, authServer, authBase),
    vaultSecrets: vaultRows?.filter((row) => (row.value ?? "") !== "").map((row) => row.name) ?? null,
    expectedJobs: scheduledJobNames(texts),
    jobs,
    functions,
  };
}

/** What a first deploy meets: extensions, the pooler URL's form, Auth's SMTP, the signing key's type. */
async function inspectDeploy(
  sql: postgres.Sql,
  databaseUrl: string,
  authServer: AuthServerProbe | null,
  projectUrl: string | undefined,
): Promise<DeployState> {
  const keys = authServer?.jwks.body?.keys;
  return {
    extensions: await installedExtensions(sql),
    databaseUrl,
    authMail: await readAuthMailConfig(
      projectRefOf(databaseUrl, projectUrl),
      Deno.env.get("SUPABASE_ACCESS_TOKEN") || undefined,
    ),
    jwksKeys: Array.isArray(keys) ? keys as Record<string, unknown>[] : null,
    jwksUrl: authServer?.jwks.url ?? null,
  };
}

/** A finding that fails the preflight (a `skip` never does). */
export function failed(finding: Finding): boolean {
  return !finding.ok && !finding.unchecked;
}

/** The report's lines: one per check, `ok`, `MISSING` or `skip` (not readable from here), and what to do. */
export function report(found: Finding[]): string {
  return found.map((finding) =>
    `${
      finding.unchecked ? "skip   " : finding.ok ? "ok     " : "MISSING"
    } ${finding.check}: ${finding.detail}`
  ).join("\n");
}
