/**
 * The real supabase CLI (platform/postgres/supabase_cli.ts) against the test cluster, whose migrations it
 * applied with `db push --db-url` (platform/postgres/migrate.ts): its own history agrees with
 * supabase/migrations, and a second push has nothing to do.
 */
import { migrationFiles } from "../../platform/postgres/migrate.ts";
import { appliedMigrationFiles, requireSupabaseCli } from "../../platform/postgres/supabase_cli.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { tlsDatabaseUrl } from "../support/database.ts";

Deno.test("supabase migration list --db-url: every local migration is applied on the database", async () => {
  const { stdout } = await requireSupabaseCli(["migration", "list", "--db-url", tlsDatabaseUrl()]);
  const rows = [...stdout.matchAll(/^\s*`?(\d{14})?`?\s*\|\s*`?(\d{14})?`?\s*\|/gm)]
    .map((match) => ({ local: match[1] ?? "", remote: match[2] ?? "" }));
  const versions = (await migrationFiles()).map((file) => file.split("_")[0]);
  assertEquals(rows.map((row) => row.local), versions, stdout);
  assertEquals(rows.map((row) => row.remote), versions, "each local version has its remote twin");
});

Deno.test("supabase db push --dry-run: the database is up to date", async () => {
  const { stdout, stderr } = await requireSupabaseCli([
    "db",
    "push",
    "--dry-run",
    "--db-url",
    tlsDatabaseUrl(),
  ]);
  assert(`${stdout}${stderr}`.includes("Remote database is up to date."), `${stdout}${stderr}`);
  assertEquals(appliedMigrationFiles(stderr), []);
});
