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
 *    which case sent what, so that cases that never reach the server are not counted.
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
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith(target)) return realFetch(input, init);
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("apikey")) headers.set("apikey", key);
  const state = expect.getState();
  const test = require("node:path").basename(state.testPath) + " › " + state.currentTestName;
  const entry = { test, method: init.method ?? "GET", url, headers: Object.fromEntries(headers) };
  try {
    const response = await realFetch(input, { ...init, headers });
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

/** The suite's test files (`*.test.ts` directly in test/, as upstream runs them), sorted as its sequencer does. */
async function testFiles(testDir: string, only?: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(testDir)) {
    if (entry.isFile && entry.name.endsWith(".test.ts") && (!only || entry.name.includes(only))) {
      names.push(entry.name);
    }
  }
  return names.sort((a, b) => a.localeCompare(b));
}

/** Empties the fixture's tables (identities restarted) and loads its seed again. */
async function resetFixture(cluster: Cluster, packageDir: string): Promise<void> {
  await psql(cluster, {
    sql: `do $$ declare names text; begin
      select string_agg(format('%I.%I', n.nspname, c.relname), ', ') into names
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       where n.nspname in ('public', 'personal') and c.relkind in ('r', 'p') and not c.relispartition;
      if names is not null then execute 'truncate ' || names || ' restart identity cascade'; end if;
    end $$;`,
  });
  await psql(cluster, { file: join(packageDir, "test/supabase/seed.sql") });
}

/** Runs the suite and prints the counts; resolves to the exit code (0 when the suite ran, whatever passed). */
export async function runPostgrestSuite(options: SuiteOptions): Promise<number> {
  const work = await Deno.makeTempDir({ prefix: "postgrest-js-suite-" });
  const databaseDir = await Deno.makeTempDir({ prefix: "postgrest-js-suite-db-" });
  const cluster = clusterAt(databaseDir, freePort());
  let server: Deno.HttpServer | undefined;
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

    Deno.env.set("SUPABASE_DB_URL", cluster.url);
    Deno.env.set("DB_SSL_ROOT_CERT", await Deno.readTextFile(cluster.caFile));
    Deno.env.set("AUTH_JWT_SECRET", localJwtSecret);
    Deno.env.set("PGRST_DB_SCHEMAS", await fixtureSchemas(packageDir));
    const { handleRestRequest } = await import("../../../platform/rest/handler.ts");
    const port = freePort();
    server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, handleRestRequest);
    const restUrl = `http://127.0.0.1:${port}/rest/v1`;
    console.log(`Data API stand-in on ${restUrl} (schemas ${Deno.env.get("PGRST_DB_SCHEMAS")})`);

    await pointTestsAt(join(packageDir, "test"), restUrl);
    await Deno.writeTextFile(join(packageDir, "suite-hook.cjs"), hookSource);
    await Deno.writeTextFile(join(packageDir, "jest.suite.config.cjs"), jestConfigSource);
    const requestLog = join(work, "requests.jsonl");
    const files = await testFiles(join(packageDir, "test"), options.only);
    const results: CaseResult[] = [];
    for (const file of files) {
      // Each file starts from the fixture's seed: hosted keeps `Prefer: tx=rollback` off, so the rows the
      // suite meant to roll back stay, and would change what the next files read.
      await resetFixture(cluster, packageDir);
      console.log(`jest test/${file} …`);
      const resultFile = join(work, `results-${file}.json`);
      await runInherited(join(work, "node_modules", ".bin", "jest"), [
        "--config",
        "jest.suite.config.cjs",
        "--ci",
        "--runInBand",
        "--silent",
        "--json",
        `--outputFile=${resultFile}`,
        `test/${file}`,
      ], {
        cwd: packageDir,
        env: { SUITE_REST_URL: restUrl, SUITE_API_KEY: localPublishableKey, SUITE_REQUEST_LOG: requestLog },
      });
      try {
        results.push(...caseResults(JSON.parse(await Deno.readTextFile(resultFile)) as JestJson));
      } catch {
        console.log(`  (no result for ${file})`);
      }
    }
    const report = tally(results, await readLines<SentRequest>(requestLog));
    console.log(`\n${formatReport(report, { verbose: options.verbose })}`);
    return 0;
  } finally {
    await server?.shutdown().catch(() => {});
    const { closeRestDatabase } = await import("../../../platform/rest/database.ts");
    await closeRestDatabase().catch(() => {});
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(databaseDir, { recursive: true }).catch(() => {});
    if (Deno.env.get("SUITE_KEEP") !== "1") await Deno.remove(work, { recursive: true }).catch(() => {});
    else console.log(`kept ${work}`);
  }
}
