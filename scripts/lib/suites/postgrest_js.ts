/**
 * `deno task suites:postgrest <supabase-js checkout>`: postgrest-js's own test suite (supabase/supabase-js,
 * packages/core/postgrest-js/test), unmodified, against the local Data API stand-in (platform/rest/).
 * Nothing of supabase-js is kept in this repository: the developer fetches it (docs/runtime.md, "The
 * platform held to supabase-js's suites").
 *
 * 1. The package and the root tsconfig are exported (`git archive`) from the checkout (a work tree or a bare
 *    mirror; `SUPABASE_JS_REF`, default HEAD) into a temporary folder; the suite's test dependencies are
 *    installed there with npm (jest, ts-jest, typescript, zod, type-fest, tslib, prettier).
 * 2. A throwaway PostgreSQL 15 cluster on a free port gets the platform's bootstrap and what `supabase start`
 *    gives the fixture there (PostGIS; the CLI image's default grants in `public`), then the fixture's
 *    migration and seed (test/supabase/) as `postgres`.
 * 3. The Data API stand-in is served on a free port with the fixture's `[api] schemas` exposed
 *    (`PGRST_DB_SCHEMAS`).
 * 4. jest runs the suite as upstream does (`--runInBand`, sorted, v12 left out), pointed at the stand-in by
 *    URL and key only: `http://localhost:54321/rest/v1` becomes the stand-in's URL in the exported copy, and
 *    a setup hook adds the anon key (`apikey`, as Supabase's gateway wants) to requests for it, and records
 *    which case sent what, so that cases that never reach the server are not counted. Around a request with
 *    `Prefer: tx=rollback` (off on hosted: it commits) the hook asks the runner to put the fixture's tables
 *    back afterwards, so what one case meant to roll back does not change what the next ones read.
 * 5. The cases are counted by feature (postgrest_js_report.ts) and printed.
 */
import { join } from "node:path";
import {
  type Cluster,
  clusterAt,
  ensureCluster,
  ensurePostgresPackages,
  freePort,
  psql,
  startCluster,
  stopCluster,
} from "../../../platform/postgres/cluster.ts";
import { bootstrapSql } from "../../../platform/paths.ts";
import { run, runInherited } from "../../../platform/run.ts";
import { localJwtSecret, localPublishableKey } from "../../../platform/secrets.ts";
import { type CaseResult, formatReport, type SentRequest, tally } from "./postgrest_js_report.ts";

const packagePath = "packages/core/postgrest-js";
const upstreamUrl = "http://localhost:54321/rest/v1";

/** The suite's test dependencies, at the versions supabase-js's workspace catalog names. */
const testDependencies: Record<string, string> = {
  "jest": "30.4.2",
  "@jest/types": "^30.0.0",
  "@types/jest": "30.0.0",
  "@types/node": "20.19.9",
  "ts-jest": "^29.4.9",
  "typescript": "~5.8.3",
  "prettier": "^3.6.2",
  "tslib": "2.8.1",
  "type-fest": "^4.32.0",
  "zod": "^3.25.76",
};

/** The jest hook: adds the key to the stand-in's requests and records each request with its case. */
const hookSource = `
const { appendFileSync } = require("node:fs");
const target = process.env.SUITE_REST_URL;
const key = process.env.SUITE_API_KEY;
const log = process.env.SUITE_REQUEST_LOG;
const control = process.env.SUITE_CONTROL_URL;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith(target)) return realFetch(input, init);
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("apikey")) headers.set("apikey", key);
  const state = expect.getState();
  const test = require("node:path").basename(state.testPath) + " › " + state.currentTestName;
  const entry = { test, method: init.method ?? "GET", url, headers: Object.fromEntries(headers) };
  const rollback = /tx=rollback/.test(headers.get("prefer") ?? "");
  if (rollback) await realFetch(control + "/snapshot", { method: "POST" });
  try {
    const response = await realFetch(input, { ...init, headers });
    if (rollback) await realFetch(control + "/restore", { method: "POST" });
    entry.status = response.status;
    if (response.status >= 400) {
      try { entry.code = (await response.clone().json()).code ?? null; } catch { entry.code = null; }
    }
    return response;
  } finally {
    appendFileSync(log, JSON.stringify(entry) + "\\n");
  }
};
`;

const jestConfigSource = `
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\\\.tsx?$": ["ts-jest", { tsconfig: "tsconfig.test.json", diagnostics: false, isolatedModules: true }] },
  maxWorkers: 1,
  testSequencer: "<rootDir>/test/testSequencer.js",
  prettierPath: require.resolve("prettier"),
  testTimeout: 30000,
  setupFilesAfterEnv: ["<rootDir>/suite-hook.cjs"],
  testPathIgnorePatterns: ["/node_modules/", "/test/v12/"],
};
`;

export interface SuiteOptions {
  checkout: string;
  ref: string;
  verbose: boolean;
  /** Only the test files matching this pattern (jest's positional pattern). */
  only?: string;
}

async function isBareRepository(path: string): Promise<boolean> {
  try {
    return (await run("git", ["--git-dir", path, "rev-parse", "--is-bare-repository"], { quiet: true }))
      .trim() ===
      "true";
  } catch {
    return false;
  }
}

/** Exports the package and the root tsconfig from the checkout into `target`. */
async function exportPackage(checkout: string, ref: string, target: string): Promise<string> {
  const gitArgs = (await isBareRepository(checkout)) ? ["--git-dir", checkout] : ["-C", checkout];
  const commit = (await run("git", [...gitArgs, "rev-parse", ref], { quiet: true })).trim();
  const archive = join(target, "export.tar");
  await run("git", [...gitArgs, "archive", "--output", archive, commit, packagePath, "tsconfig.base.json"], {
    quiet: true,
  });
  await run("tar", ["-xf", archive, "-C", target], { quiet: true });
  await Deno.remove(archive);
  return commit;
}

/** Points the exported tests at the stand-in: the upstream URL becomes `url`. */
async function pointTestsAt(testDir: string, url: string): Promise<void> {
  for await (const entry of Deno.readDir(testDir)) {
    const path = join(testDir, entry.name);
    if (entry.isDirectory) await pointTestsAt(path, url);
    else if (entry.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(path);
      if (text.includes(upstreamUrl)) await Deno.writeTextFile(path, text.replaceAll(upstreamUrl, url));
    }
  }
}

async function installDependencies(root: string): Promise<void> {
  await Deno.writeTextFile(
    join(root, "package.json"),
    JSON.stringify({ name: "postgrest-js-suite", private: true, devDependencies: testDependencies }, null, 2),
  );
  console.log("npm install (the suite's test dependencies) …");
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: root, quiet: true });
}

/** PostGIS, which the fixture creates (`supabase start` has it); Debian's package, installed when missing. */
async function ensurePostgis(): Promise<void> {
  try {
    await Deno.stat("/usr/share/postgresql/15/extension/postgis.control");
  } catch {
    console.log("Installing PostGIS (Debian's postgresql-15-postgis-3) …");
    await run("apt-get", ["install", "-y", "--no-install-recommends", "postgresql-15-postgis-3"], {
      quiet: true,
    });
  }
}

/** What the fixture finds on `supabase start` and the platform's bootstrap does not give a new project. */
const fixtureEnvironmentSql = `
create extension if not exists postgis schema extensions;
grant set on parameter pgrst.db_plan_enabled, pgrst.db_aggregates_enabled, pgrst.db_tx_end to postgres;
alter default privileges for role postgres in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on functions to anon, authenticated, service_role;
`;

/** The fixture's `[api] schemas` (test/supabase/config.toml). */
async function fixtureSchemas(packageDir: string): Promise<string> {
  const config = await Deno.readTextFile(join(packageDir, "test", "supabase", "config.toml"));
  const api = config.split(/^\[api\]/m)[1]?.split(/^\[/m)[0] ?? "";
  const match = api.match(/^schemas\s*=\s*\[([^\]]*)\]/m);
  const names = match ? [...match[1].matchAll(/"([^"]+)"/g)].map((each) => each[1]) : ["public"];
  return names.join(",");
}

async function readLines<T>(path: string): Promise<T[]> {
  try {
    const text = await Deno.readTextFile(path);
    return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as T);
  } catch {
    return [];
  }
}

interface JestJson {
  testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
}

function caseResults(json: JestJson): CaseResult[] {
  return json.testResults.flatMap((file) =>
    file.assertionResults.map((each) => ({
      test: `${file.name.split("/").pop()} › ${each.fullName}`,
      passed: each.status === "passed",
    }))
  );
}

/**
 * Hosted keeps `Prefer: tx=rollback` off, so what a case meant to roll back commits; so that it does not
 * change what the next cases read, the runner puts the fixture's tables back as they were (the same rows in
 * the same physical order) after each such request. The answer itself is the stand-in's, as hosted gives it.
 */
const snapshotSql = `
drop schema if exists pgrst_suite_snapshot cascade;
create schema pgrst_suite_snapshot;
do $$ declare r record; begin
  for r in select n.nspname, c.relname from pg_catalog.pg_class c
             join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where n.nspname in ('public', 'personal') and c.relkind = 'r' loop
    execute format('create table pgrst_suite_snapshot.%I as select * from %I.%I order by ctid',
                   r.nspname || '.' || r.relname, r.nspname, r.relname);
  end loop;
end $$;`;

const restoreSql = `
set session_replication_role = replica;
do $$ declare r record; live text; kept text; columns text; begin
  for r in select split_part(c.relname, '.', 1) as nsp, split_part(c.relname, '.', 2) as rel, c.relname as snap
             from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'pgrst_suite_snapshot' and c.relkind = 'r' loop
    execute format('select string_agg(t::text, chr(10) order by ctid) from %I.%I t', r.nsp, r.rel) into live;
    execute format('select string_agg(t::text, chr(10) order by ctid) from pgrst_suite_snapshot.%I t', r.snap)
      into kept;
    if live is distinct from kept then
      select string_agg(format('%I', a.attname), ', ' order by a.attnum) into columns
        from pg_catalog.pg_attribute a
       where a.attrelid = format('%I.%I', r.nsp, r.rel)::regclass and a.attnum > 0 and not a.attisdropped
         and a.attgenerated = '';
      execute format('delete from %I.%I', r.nsp, r.rel);
      execute format('insert into %I.%I (%s) overriding system value select %s from pgrst_suite_snapshot.%I order by ctid',
                     r.nsp, r.rel, columns, columns, r.snap);
    end if;
  end loop;
end $$;
drop schema pgrst_suite_snapshot cascade;`;

/** The runner's own endpoint the jest hook calls around a `tx=rollback` request. */
function serveControl(cluster: Cluster): { url: string; server: Deno.HttpServer } {
  const port = freePort();
  const server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/snapshot") await psql(cluster, { sql: snapshotSql }, { asSuperuser: true });
    else if (path === "/restore") await psql(cluster, { sql: restoreSql }, { asSuperuser: true });
    else return new Response(null, { status: 404 });
    return new Response(null, { status: 204 });
  });
  return { url: `http://127.0.0.1:${port}`, server };
}

/** Runs the suite and prints the counts; resolves to the exit code (0 when the suite ran, whatever passed). */
export async function runPostgrestSuite(options: SuiteOptions): Promise<number> {
  const work = await Deno.makeTempDir({ prefix: "postgrest-js-suite-" });
  const databaseDir = await Deno.makeTempDir({ prefix: "postgrest-js-suite-db-" });
  const cluster = clusterAt(databaseDir, freePort());
  let server: Deno.HttpServer | undefined;
  let control: Deno.HttpServer | undefined;
  try {
    const commit = await exportPackage(options.checkout, options.ref, work);
    console.log(`supabase-js ${commit.slice(0, 12)}: ${packagePath} exported to ${work}`);
    const packageDir = join(work, packagePath);
    await installDependencies(work);

    await ensurePostgresPackages();
    await ensurePostgis();
    await ensureCluster(cluster);
    await startCluster(cluster);
    console.log(`PostgreSQL 15 throwaway cluster on 127.0.0.1:${cluster.port}; loading the fixture …`);
    await psql(cluster, { file: bootstrapSql }, { asSuperuser: true });
    await psql(cluster, { sql: fixtureEnvironmentSql }, { asSuperuser: true });
    await psql(cluster, { file: join(packageDir, "test/supabase/migrations/00000000000000_schema.sql") });
    await psql(cluster, { file: join(packageDir, "test/supabase/seed.sql") });

    Deno.env.set("SUPABASE_DB_URL", cluster.url);
    Deno.env.set("DB_SSL_ROOT_CERT", await Deno.readTextFile(cluster.caFile));
    Deno.env.set("AUTH_JWT_SECRET", localJwtSecret);
    Deno.env.set("PGRST_DB_SCHEMAS", await fixtureSchemas(packageDir));
    const { handleRestRequest } = await import("../../../platform/rest/handler.ts");
    const port = freePort();
    server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, handleRestRequest);
    const restUrl = `http://127.0.0.1:${port}/rest/v1`;
    console.log(`Data API stand-in on ${restUrl} (schemas ${Deno.env.get("PGRST_DB_SCHEMAS")})`);

    const controlServer = serveControl(cluster);
    control = controlServer.server;
    const controlUrl = controlServer.url;
    await pointTestsAt(join(packageDir, "test"), restUrl);
    await Deno.writeTextFile(join(packageDir, "suite-hook.cjs"), hookSource);
    await Deno.writeTextFile(join(packageDir, "jest.suite.config.cjs"), jestConfigSource);
    const requestLog = join(work, "requests.jsonl");
    const resultFile = join(work, "results.json");
    console.log("jest (postgrest-js's suite) …");
    await runInherited(join(work, "node_modules", ".bin", "jest"), [
      "--config",
      "jest.suite.config.cjs",
      "--ci",
      "--runInBand",
      "--silent",
      "--json",
      `--outputFile=${resultFile}`,
      ...(options.only ? [options.only] : []),
    ], {
      cwd: packageDir,
      env: {
        SUITE_REST_URL: restUrl,
        SUITE_API_KEY: localPublishableKey,
        SUITE_REQUEST_LOG: requestLog,
        SUITE_CONTROL_URL: controlUrl,
      },
    });
    const results = caseResults(JSON.parse(await Deno.readTextFile(resultFile)) as JestJson);
    const report = tally(results, await readLines<SentRequest>(requestLog));
    console.log(`\n${formatReport(report, { verbose: options.verbose })}`);
    return 0;
  } finally {
    await server?.shutdown().catch(() => {});
    await control?.shutdown().catch(() => {});
    const { closeRestDatabase } = await import("../../../platform/rest/database.ts");
    await closeRestDatabase().catch(() => {});
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(databaseDir, { recursive: true }).catch(() => {});
    if (Deno.env.get("SUITE_KEEP") !== "1") await Deno.remove(work, { recursive: true }).catch(() => {});
    else console.log(`kept ${work}`);
  }
}
