/**
 * `deno task admin preflight --db-url <url>`: is a target database (a hosted project's, through its pooler)
 * ready to run the service? It checks that every file of supabase/migrations is in the supabase CLI's
 * history table, that the Vault secrets the pg_cron jobs read are present, that every job the migrations
 * schedule exists and is active, and that each function's URL answers. It reads only, and prints what is
 * missing (names, never a secret's value). `findings` is pure; `inspect` does the I/O.
 */
import { join } from "node:path";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { migrationFiles } from "./migrate.ts";
import { functionsDir, migrationsDir } from "./paths.ts";

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
}

export interface Finding {
  check: "migrations" | "vault" | "cron" | "functions";
  ok: boolean;
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
  return result;
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

/**
 * Reads the target's state. The functions are probed at `functionsUrl` (…/functions/v1), else at the Vault
 * secret project_url's `/functions/v1`.
 */
export async function inspect(sql: postgres.Sql, functionsUrl?: string): Promise<TargetState> {
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
  return {
    localMigrations,
    appliedVersions,
    vaultSecrets: vaultRows?.filter((row) => (row.value ?? "") !== "").map((row) => row.name) ?? null,
    expectedJobs: scheduledJobNames(texts),
    jobs,
    functions,
  };
}

/** The report's lines: one per check, `ok` or `MISSING`, and what to do. */
export function report(found: Finding[]): string {
  return found.map((finding) => `${finding.ok ? "ok     " : "MISSING"} ${finding.check}: ${finding.detail}`)
    .join("\n");
}
