/**
 * What the migrations made, as text that is the same for the same schema: pg_dump of the schemas `public` and
 * `private` (definitions, owners, grants; no data) and the pg_cron jobs, without the lines pg_dump varies from
 * run to run (its version, and the random key of `\restrict`).
 */
import { run } from "../run.ts";
import { type Cluster, psql } from "./cluster.ts";

const pgDump = "/usr/lib/postgresql/15/bin/pg_dump";

const volatile = [/^-- Dumped (from|by) /, /^\\(un)?restrict /];

export async function dumpSchema(cluster: Cluster): Promise<string> {
  const dump = await run(pgDump, [
    "--schema-only",
    "--schema=public",
    "--schema=private",
    "-d",
    cluster.adminUrl,
  ], { quiet: true });
  const jobs = await psql(cluster, {
    sql: "copy (select jobname, schedule, command, active from cron.job order by jobname) to stdout",
  }, { asSuperuser: true });
  const lines = dump.split("\n").filter((line) => !volatile.some((pattern) => pattern.test(line)));
  const cron = jobs.split("\n").filter(Boolean).map((row) => {
    const [name, schedule, command, active] = row.split("\t");
    return `--   ${name} | ${schedule} | ${active === "t" ? "active" : "inactive"} | ${command}`;
  });
  return [
    "-- The current schema, generated from supabase/migrations by `deno task schema` (do not edit).",
    '-- CI fails when it is out of date; docs/database.md, "The current schema".',
    ...lines,
    "--",
    "-- pg_cron jobs (cron.job): name | schedule | active | command",
    ...cron,
    "",
  ].join("\n").replace(/\n{3,}/g, "\n\n");
}
