/**
 * `deno task test`: everything, on a fresh machine too. Format, lint and type checks on this Deno (the
 * tools' Deno, 2.9); a type check of the functions and tests on Deno 2.1.4, the Deno of hosted Edge
 * Functions; then a throwaway PostgreSQL cluster on a free port (installed when missing, TLS on) with bootstrap
 * (as superuser), the migrations applied by the real supabase CLI (`supabase db push --db-url`, over TLS)
 * and the seed (as the non-superuser `postgres`); pgTAP; then every Deno test
 * (unit, integration, database, end to end) on Deno 2.1.4 against that database. Cleans up and ends with
 * one line `total: N passed, N failed, N skipped` (skipped: Deno tests marked `ignore` and pgTAP `# SKIP`
 * lines; a test may skip itself only for something outside the repository, see docs/testing.md).
 *
 * `deno task test <path>…` runs only the named tests (Deno test files or folders, and pgTAP files named
 * `*.test.sql`) on a fresh cluster, without the format, lint and type checks: for a quick loop while working.
 */
import { join } from "node:path";
import { pgTestsDir, repoRoot } from "../platform/paths.ts";
import { type Cluster, clusterAt, freePort, psql, stopCluster } from "../platform/postgres/cluster.ts";
import { prepareDatabase } from "../platform/stack.ts";
import { runInherited } from "../platform/run.ts";
import { readDenoSummary, readTap, type TapResult } from "./lib/test_summary.ts";
import { localJwtSecret } from "../platform/secrets.ts";
import { hostedDenoEnv, hostedDenoPath, hostedDenoVersion, hostedLockfile } from "./lib/hosted_deno.ts";
import { dumpSchema } from "../platform/postgres/schema_dump.ts";
import { supabaseDir } from "../platform/paths.ts";

const deno = Deno.execPath();
const toolsLock = "--lock=deno.tools.lock";
/** Deno 2.1 reads `deno.lock` (version 4) and must find everything in it, as the deploy bundler does. */
const hostedLock = [`--lock=${hostedLockfile}`, "--frozen"];
const typeChecked = ["supabase/functions", "scripts", "platform", "tests", "bench", "app"];
let passed = 0;
let failed = 0;
let skipped = 0;

async function step(name: string, args: string[], executable = deno): Promise<void> {
  console.log(`\n▶ ${name}`);
  const code = await runInherited(executable, args, { cwd: repoRoot, env: hostedDenoEnv });
  if (code === 0) passed++;
  else {
    failed++;
    console.log(`✗ ${name} failed (exit ${code})`);
  }
}

const only = Deno.args;
const onlySql = only.filter((arg) => arg.endsWith(".test.sql")).map((arg) => arg.split("/").pop());
const onlyDeno = only.filter((arg) => !arg.endsWith(".test.sql"));

async function pgTap(databaseUrl: string, port: number, baseDir: string): Promise<void> {
  console.log("\n▶ pgTAP (supabase/tests/database)");
  const cluster = { ...clusterAt(baseDir, port), url: databaseUrl };
  const files = [];
  for await (const entry of Deno.readDir(pgTestsDir)) {
    if (!entry.isFile || !entry.name.endsWith(".test.sql")) continue;
    if (only.length > 0 && !onlySql.includes(entry.name)) continue;
    files.push(entry.name);
  }
  for (const file of files.sort()) {
    let result: TapResult;
    try {
      result = readTap(await psql(cluster, { file: join(pgTestsDir, file) }));
    } catch (error) {
      result = { passed: 0, failed: 1, skipped: 0, output: String((error as Error).message) };
    }
    passed += result.passed;
    failed += result.failed;
    skipped += result.skipped;
    const mark = result.failed === 0 ? "ok" : "FAILED";
    const skips = result.skipped > 0 ? `, ${result.skipped} skipped` : "";
    console.log(`  ${mark.padEnd(6)} ${file} (${result.passed} passed, ${result.failed} failed${skips})`);
    if (result.failed > 0) {
      console.log(result.output.split("\n").filter((line) => !/^\s*ok \d+/.test(line)).join("\n"));
    }
  }
}

/** supabase/schema.sql is what the migrations make (`deno task schema` regenerates it). */
async function schemaIsCurrent(cluster: Cluster): Promise<void> {
  console.log("\n▶ supabase/schema.sql matches the migrations");
  const committed = await Deno.readTextFile(join(supabaseDir, "schema.sql")).catch(() => "");
  if (committed === await dumpSchema(cluster)) {
    passed++;
  } else {
    failed++;
    console.log(
      "✗ supabase/schema.sql is out of date: run `deno task schema` and commit it (docs/database.md)",
    );
  }
}

/**
 * The pgTAP folder as `supabase test db` runs it: `pg_prove --ext .pg --ext .sql -r` over supabase/tests, as
 * postgres (its helpers must not be taken for tests, and nothing may be left behind).
 */
async function pgProve(cluster: Cluster): Promise<void> {
  console.log("\n▶ pg_prove --ext .pg --ext .sql -r supabase/tests (what `supabase test db` runs)");
  const code = await runInherited("pg_prove", ["--ext", ".pg", "--ext", ".sql", "-r", "tests"], {
    cwd: supabaseDir,
    env: {
      PGHOST: "127.0.0.1",
      PGPORT: String(cluster.port),
      PGUSER: "postgres",
      PGPASSWORD: "postgres",
      PGDATABASE: "postgres",
    },
  });
  if (code === 0) passed++;
  else {
    failed++;
    console.log(`✗ pg_prove failed (exit ${code})`);
  }
}

async function denoTests(hostedDeno: string, env: Record<string, string>): Promise<void> {
  console.log(`\n▶ deno test (tests/) on Deno ${hostedDenoVersion}, the hosted Edge Functions' Deno`);
  const child = new Deno.Command(hostedDeno, {
    args: ["test", "-A", "--no-check", ...hostedLock, ...(only.length > 0 ? onlyDeno : ["tests/"])],
    cwd: repoRoot,
    // Plain output, so the summary line can be read.
    // TOOLS_DENO: tests that run a tool (deno task admin, the MCP conformance runner) use this Deno for it.
    env: { ...env, ...hostedDenoEnv, TOOLS_DENO: deno, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const text = decoder.decode(chunk, { stream: true });
    Deno.stdout.writeSync(chunk);
    tail = (tail + text).slice(-4000);
  }
  const status = await child.status;
  const summary = readDenoSummary(tail);
  if (summary) {
    passed += summary.passed;
    failed += summary.failed;
    skipped += summary.ignored;
  }
  if (!status.success && (!summary || summary.failed === 0)) failed++;
}

async function main(): Promise<void> {
  const hostedDeno = await hostedDenoPath();
  if (only.length === 0) {
    await step("deno fmt --check", ["fmt", "--check"]);
    await step("deno lint", ["lint"]);
    await step("deno check", ["check", toolsLock, ...typeChecked]);
    await step(
      `deno check on Deno ${hostedDenoVersion} (functions and tests, with ${hostedLockfile})`,
      // Not --frozen: Deno 2.1's check adds `npm:@types/node@*` to its graph but never writes it to the lockfile.
      ["check", `--lock=${hostedLockfile}`, "supabase/functions", "tests"],
      hostedDeno,
    );
  }

  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-test-db-" });
  const port = freePort();
  const cluster = clusterAt(baseDir, port);
  try {
    console.log(`\n▶ PostgreSQL 15 throwaway cluster on 127.0.0.1:${port}`);
    await prepareDatabase(cluster);
    if (only.length === 0) await schemaIsCurrent(cluster);
    if (only.length === 0 || onlySql.length > 0) await pgTap(cluster.url, port, baseDir);
    if (only.length === 0) await pgProve(cluster);
    if (only.length === 0 || onlyDeno.length > 0) {
      await denoTests(hostedDeno, {
        SUPABASE_DB_URL: cluster.url,
        // The cluster speaks TLS too; tests that connect with sslmode=require trust its local CA.
        DB_SSL_ROOT_CERT: await Deno.readTextFile(cluster.caFile),
        AUTH_JWT_SECRET: Deno.env.get("AUTH_JWT_SECRET") || localJwtSecret,
      });
    }
  } catch (error) {
    failed++;
    console.error(`✗ ${(error as Error).message}`);
  } finally {
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(baseDir, { recursive: true }).catch(() => {});
  }

  // Tools parse the line's start (`total: N passed, N failed`); the skipped count comes last.
  console.log(`\ntotal: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  Deno.exit(failed === 0 ? 0 : 1);
}

await main();
