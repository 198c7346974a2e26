/**
 * Brings a local database to the state a Supabase project would have: the local-only bootstrap (what
 * Supabase itself provides, run as the superuser `supabase_admin`), then every pending migration with the
 * real supabase CLI's `supabase db push --db-url` over TLS, exactly as a deploy applies them to hosted
 * (its own statement splitter, each file in one implicit transaction, its history table
 * `supabase_migrations.schema_migrations`), then `supabase/seed.sql` once (local only). The CLI connects as
 * `postgres`, which is not a superuser: as on Supabase.
 */
import { bootstrapSql, migrationsDir, seedSql } from "../paths.ts";
import { pushMigrations } from "./supabase_cli.ts";
import { type Cluster, psql, superuser } from "./cluster.ts";

export async function migrationFiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(migrationsDir)) {
    if (entry.isFile && /^\d+_.+\.sql$/.test(entry.name)) names.push(entry.name);
  }
  return names.sort();
}

/** Clusters made before `postgres` stopped being the superuser cannot be converted: say what to do. */
async function requireSupabaseAdmin(cluster: Cluster): Promise<void> {
  try {
    await psql(cluster, { sql: "select 1" }, { asSuperuser: true });
  } catch {
    throw new Error(
      `The cluster in ${cluster.dataDir} has no superuser "${superuser}": it was made by an older version ` +
        "of this stack, in which postgres was the superuser. Stop it and delete its folder (rm -rf .local) " +
        "to recreate it the way Supabase runs: postgres as an ordinary role.",
    );
  }
}

/** The seed's row in the CLI's table of applied seed files (the same table `db push --include-seed` keeps). */
async function seedOnce(cluster: Cluster): Promise<void> {
  await psql(cluster, {
    sql: `create schema if not exists supabase_migrations;
          create table if not exists supabase_migrations.seed_files (path text not null primary key, hash text);`,
  });
  const seeded = await psql(cluster, {
    sql: "copy (select count(*) from supabase_migrations.seed_files where path = 'seed.sql') to stdout",
  });
  if (seeded.trim() !== "0") return;
  await psql(cluster, { file: seedSql });
  await psql(cluster, { sql: "insert into supabase_migrations.seed_files (path) values ('seed.sql')" });
}

/** Applies bootstrap, pending migrations (supabase CLI) and (once) the seed. Returns the migrations applied. */
export async function migrate(cluster: Cluster): Promise<string[]> {
  await requireSupabaseAdmin(cluster);
  await psql(cluster, { file: bootstrapSql }, { asSuperuser: true });
  const applied = await pushMigrations(cluster.tlsUrl);
  await seedOnce(cluster);
  return applied;
}
