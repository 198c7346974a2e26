/**
 * The first deploy, as it meets a NEW hosted Supabase project: a fresh cluster holding exactly what a new
 * project's database has (platform/postgres/new_project.ts; docs/database.md, "A new project's database")
 * gets every migration applied in order, from zero, by the real CLI (`supabase db push --db-url`, over TLS,
 * as the non-superuser postgres). Every migration must create the extensions it uses (pg_cron, pg_net)
 * before using them; the outcome must be the very schema the normal path (the suite's own database, made by
 * `deno task test`) has.
 */
import { bootstrapSql } from "../../platform/paths.ts";
import { clusterAt, psql, stopCluster } from "../../platform/postgres/cluster.ts";
import { migrationFiles } from "../../platform/postgres/migrate.ts";
import {
  differencesFromNewProject,
  extensionsTheMigrationsCreate,
  makeNewProjectCluster,
  readInventory,
} from "../../platform/postgres/new_project.ts";
import { dumpSchema } from "../../platform/postgres/schema_dump.ts";
import { pushMigrations } from "../../platform/postgres/supabase_cli.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

/** The line-by-line differences of two texts (first 40), for a readable failure. */
function lineDifferences(expected: string, actual: string): string {
  const a = expected.split("\n");
  const b = new Set(actual.split("\n"));
  const c = new Set(a);
  return [
    ...a.filter((line) => !b.has(line)).map((line) => `- ${line}`),
    ...actual.split("\n").filter((line) => !c.has(line)).map((line) => `+ ${line}`),
  ].slice(0, 40).join("\n");
}

Deno.test({
  name:
    "a new project's database: every migration applies from zero with supabase db push, to the normal schema",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const baseDir = await Deno.makeTempDir({ prefix: "watchlist-new-project-" });
    const fresh = await makeNewProjectCluster(baseDir);
    try {
      await t.step("the cluster starts with exactly what a new project has", async () => {
        assertEquals(differencesFromNewProject(await readInventory(fresh)), []);
      });

      await t.step(
        "the bootstrap run again (as every start does) adds nothing and opens nothing",
        async () => {
          await psql(fresh, { file: bootstrapSql }, { asSuperuser: true });
          assertEquals(differencesFromNewProject(await readInventory(fresh)), []);
          const granted = await psql(fresh, {
            sql: `copy (select p.oid::regprocedure from pg_proc p
                 where p.pronamespace = 'extensions'::regnamespace and p.prosecdef
                   and has_function_privilege('postgres', p.oid, 'EXECUTE')) to stdout`,
          }, { asSuperuser: true });
          assertEquals(
            granted.trim(),
            "",
            "no security-definer helper of the bootstrap is executable by postgres",
          );
        },
      );

      await t.step("supabase db push applies every migration, in order, as postgres", async () => {
        assertEquals(await pushMigrations(fresh.tlsUrl), await migrationFiles());
      });

      await t.step(
        "the migrations created pg_cron and pg_net, and nothing else a new project lacks",
        async () => {
          assertEquals(
            differencesFromNewProject(await readInventory(fresh), {
              extensions: extensionsTheMigrationsCreate,
              schemas: ["cron", "net", "private", "supabase_migrations"],
            }),
            [],
          );
        },
      );

      await t.step(
        "the schema equals the one the normal path made (pg_dump of public and private, cron jobs)",
        async () => {
          const normal = clusterAt(baseDir, Number(new URL(databaseUrl()).port));
          const expected = await dumpSchema(normal);
          const actual = await dumpSchema(fresh);
          assertEquals(actual === expected, true, lineDifferences(expected, actual));
        },
      );
    } finally {
      await stopCluster(fresh).catch(() => {});
      await Deno.remove(baseDir, { recursive: true }).catch(() => {});
    }
  },
});
