/**
 * A new hosted Supabase project's database, before its first migration: what it has (written down here and
 * in docs/database.md, "A new project's database", with the sources), a cluster made with exactly that (the
 * local bootstrap), and what it holds, read back to be compared. tests/e2e/fresh_project.test.ts applies
 * every migration to such a cluster with the real CLI, as a first deploy does.
 */
import { bootstrapSql } from "../paths.ts";
import { type Cluster, clusterAt, ensureCluster, freePort, psql, startCluster } from "./cluster.ts";

/** Extensions a new project has enabled, with their schema (pg_graphql is off by default since 2026-04). */
export const newProjectExtensions: Record<string, string> = {
  pg_stat_statements: "extensions",
  pgcrypto: "extensions",
  plpgsql: "pg_catalog",
  supabase_vault: "vault",
  "uuid-ossp": "extensions",
};

/** What the migrations add to them: every one is created by the first migration that needs it. */
export const extensionsTheMigrationsCreate: Record<string, string> = {
  pg_cron: "pg_catalog",
  pg_net: "extensions",
};

/** Schemas of a new project (besides PostgreSQL's own): Auth's, Storage's, Realtime's, GraphQL's, the pooler's. */
export const newProjectSchemas = [
  "auth",
  "extensions",
  "graphql",
  "graphql_public",
  "pgbouncer",
  "public",
  "realtime",
  "storage",
  "vault",
];

/** Roles of a new project (besides PostgreSQL's predefined pg_* roles). */
export const newProjectRoles = [
  "anon",
  "authenticated",
  "authenticator",
  "dashboard_user",
  "pgbouncer",
  "postgres",
  "service_role",
  "supabase_admin",
  "supabase_auth_admin",
  "supabase_etl_admin",
  "supabase_read_only_user",
  "supabase_realtime_admin",
  "supabase_replication_admin",
  "supabase_storage_admin",
];

/** Event triggers a new project has (the pooler's and PostgREST's are not stood in for here). */
export const newProjectEventTriggers = [
  "issue_graphql_placeholder",
  "issue_pg_cron_access",
  "issue_pg_graphql_access",
  "issue_pg_net_access",
  "pgrst_ddl_watch",
  "pgrst_drop_watch",
];

export interface DatabaseInventory {
  extensions: Record<string, string>;
  schemas: string[];
  roles: string[];
  superusers: string[];
  eventTriggers: string[];
  /** `postgres`: superuser, createdb, createrole, bypassrls, login; and whether it is in the API roles. */
  postgresRole: string;
}

async function rows(cluster: Cluster, query: string): Promise<string[][]> {
  const out = await psql(cluster, { sql: `copy (${query}) to stdout` }, { asSuperuser: true });
  return out.split("\n").filter(Boolean).map((line) => line.split("\t"));
}

/** What a cluster holds, read as the superuser. */
export async function readInventory(cluster: Cluster): Promise<DatabaseInventory> {
  const extensions = Object.fromEntries(
    await rows(
      cluster,
      "select e.extname, n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace order by 1",
    ),
  );
  const schemas = (await rows(
    cluster,
    `select nspname from pg_namespace
      where nspname not like 'pg\\_%' and nspname <> 'information_schema' order by 1`,
  )).map(([name]) => name);
  const roles =
    (await rows(cluster, "select rolname from pg_roles where rolname not like 'pg\\_%' order by 1"))
      .map(([name]) => name);
  const superusers = (await rows(cluster, "select rolname from pg_roles where rolsuper order by 1"))
    .map(([name]) => name);
  const eventTriggers = (await rows(cluster, "select evtname from pg_event_trigger order by 1"))
    .map(([name]) => name);
  const [[postgresRole]] = await rows(
    cluster,
    `select concat_ws(' ',
       case when rolsuper then 'superuser' else 'nosuperuser' end,
       case when rolcreatedb then 'createdb' end, case when rolcreaterole then 'createrole' end,
       case when rolbypassrls then 'bypassrls' end, case when rolcanlogin then 'login' end,
       case when pg_has_role('postgres', 'anon', 'member') and pg_has_role('postgres', 'authenticated', 'member')
             and pg_has_role('postgres', 'service_role', 'member') then 'api-roles' end)
       from pg_roles where rolname = 'postgres'`,
  );
  return { extensions, schemas, roles, superusers, eventTriggers, postgresRole };
}

/** What `postgres` is on a new project (supabase/postgres demote-postgres, grant_auth_roles_to_postgres). */
export const newProjectPostgresRole = "nosuperuser createdb createrole bypassrls login api-roles";

/**
 * Differences between a cluster's inventory and a new project's: extensions and schemas must be exactly the
 * new project's (plus `extra`, what migrations made), the roles and event triggers a subset of its own, and
 * supabase_admin the only superuser. Empty when it matches.
 */
export function differencesFromNewProject(
  inventory: DatabaseInventory,
  extra: { extensions?: Record<string, string>; schemas?: string[] } = {},
): string[] {
  const differences: string[] = [];
  const expectedExtensions = { ...newProjectExtensions, ...extra.extensions };
  for (const [name, schema] of Object.entries(inventory.extensions)) {
    if (!(name in expectedExtensions)) {
      differences.push(`extension ${name} (in ${schema}) is not on a new project`);
    } else if (expectedExtensions[name] !== schema) {
      differences.push(
        `extension ${name} is in schema ${schema}, on a new project in ${expectedExtensions[name]}`,
      );
    }
  }
  for (const name of Object.keys(expectedExtensions)) {
    if (!(name in inventory.extensions)) differences.push(`extension ${name} is missing`);
  }
  const expectedSchemas = new Set([...newProjectSchemas, ...(extra.schemas ?? [])]);
  for (const schema of inventory.schemas) {
    if (!expectedSchemas.has(schema)) differences.push(`schema ${schema} is not on a new project`);
  }
  for (const schema of expectedSchemas) {
    if (!inventory.schemas.includes(schema)) differences.push(`schema ${schema} is missing`);
  }
  for (const role of inventory.roles) {
    if (!newProjectRoles.includes(role) && !role.startsWith("supabase_")) {
      differences.push(`role ${role} is not on a new project`);
    }
  }
  for (
    const role of ["anon", "authenticated", "service_role", "authenticator", "postgres", "supabase_admin"]
  ) {
    if (!inventory.roles.includes(role)) differences.push(`role ${role} is missing`);
  }
  if (inventory.superusers.join(",") !== "supabase_admin") {
    differences.push(
      `superusers are ${inventory.superusers.join(", ")}, on a new project only supabase_admin`,
    );
  }
  for (const trigger of inventory.eventTriggers) {
    if (!newProjectEventTriggers.includes(trigger)) {
      differences.push(`event trigger ${trigger} is not on a new project`);
    }
  }
  if (inventory.postgresRole !== newProjectPostgresRole) {
    differences.push(`postgres is "${inventory.postgresRole}", on a new project "${newProjectPostgresRole}"`);
  }
  return differences;
}

/** A new cluster in `baseDir` holding exactly a new project's database (the bootstrap, nothing else). */
export async function makeNewProjectCluster(baseDir: string): Promise<Cluster> {
  const cluster = clusterAt(baseDir, freePort());
  await ensureCluster(cluster);
  await startCluster(cluster);
  await psql(cluster, { file: bootstrapSql }, { asSuperuser: true });
  return cluster;
}
