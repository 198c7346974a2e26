/**
 * Brings a local database to the state a Supabase project would have: the local-only bootstrap (what
 * Supabase itself provides, run as the superuser `supabase_admin`), then every migration not yet applied,
 * in file-name order, recorded in `supabase_migrations.schema_migrations` as the supabase CLI does, then
 * `supabase/seed.sql` once. Migrations and seed run as `postgres`, which is not a superuser: as on
 * Supabase, where `supabase db push` connects as `postgres`.
 */
import { join } from "node:path";
import { bootstrapSql, migrationsDir, seedSql } from "./paths.ts";
import { type Cluster, psql, superuser } from "./postgres.ts";

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

async function appliedVersions(cluster: Cluster): Promise<Set<string>> {
  await psql(cluster, {
    sql: `create schema if not exists supabase_migrations;
          create table if not exists supabase_migrations.schema_migrations (
            version text primary key, name text, statements text[]);
          create table if not exists supabase_migrations.seed_files (path text primary key, hash text);`,
  });
  const out = await psql(cluster, {
    sql: "copy (select version from supabase_migrations.schema_migrations) to stdout",
  });
  return new Set(out.split("\n").filter(Boolean));
}

/** Applies bootstrap, pending migrations and (once) the seed. Returns the migrations it applied. */
export async function migrate(cluster: Cluster): Promise<string[]> {
  await requireSupabaseAdmin(cluster);
  await psql(cluster, { file: bootstrapSql }, { asSuperuser: true });
  const applied = await appliedVersions(cluster);
  const newlyApplied: string[] = [];
  for (const file of await migrationFiles()) {
    const [version, ...rest] = file.replace(/\.sql$/, "").split("_");
    if (applied.has(version)) continue;
    const name = rest.join("_").replaceAll("'", "''");
    await psql(cluster, { file: join(migrationsDir, file) });
    await psql(cluster, {
      sql:
        `insert into supabase_migrations.schema_migrations (version, name) values ('${version}', '${name}')`,
    });
    newlyApplied.push(file);
  }
  const seeded = await psql(cluster, {
    sql: "copy (select count(*) from supabase_migrations.seed_files where path = 'seed.sql') to stdout",
  });
  if (seeded.trim() === "0") {
    await psql(cluster, { file: seedSql });
    await psql(cluster, { sql: "insert into supabase_migrations.seed_files (path) values ('seed.sql')" });
  }
  return newlyApplied;
}
