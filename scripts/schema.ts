/**
 * `deno task schema`: the current schema, generated from the migrations. Builds a throwaway cluster, applies
 * the local bootstrap and the migrations exactly as `deno task test` does, and dumps what the migrations made
 * (schemas `public` and `private`, with grants, and the pg_cron jobs) with pg_dump in a stable order:
 *
 *   deno task schema            rewrites supabase/schema.sql
 *   deno task schema --check    exits 1, saying so, when supabase/schema.sql is out of date (CI runs it)
 *   deno task schema --stdout   prints the dump (to compare two migration histories)
 *
 * docs/database.md, "The current schema", says when the file must be regenerated.
 */
import { join } from "node:path";
import { run } from "../platform/run.ts";
import { repoRoot } from "../platform/paths.ts";
import { clusterAt, freePort, stopCluster } from "../platform/postgres/cluster.ts";
import { prepareDatabase } from "../platform/stack.ts";
import { dumpSchema } from "../platform/postgres/schema_dump.ts";

const schemaFile = join(repoRoot, "supabase", "schema.sql");
const mode = Deno.args[0] ?? "--write";

async function generate(): Promise<string> {
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-schema-" });
  const cluster = clusterAt(baseDir, freePort());
  try {
    await prepareDatabase(cluster);
    return await dumpSchema(cluster);
  } finally {
    await stopCluster(cluster).catch(() => {});
    await run("rm", ["-rf", baseDir], { quiet: true }).catch(() => {});
  }
}

const schema = await generate();
if (mode === "--stdout") {
  await Deno.stdout.write(new TextEncoder().encode(schema));
} else if (mode === "--check") {
  const committed = await Deno.readTextFile(schemaFile).catch(() => "");
  if (committed !== schema) {
    console.error("supabase/schema.sql is out of date: run `deno task schema` and commit the result.");
    Deno.exit(1);
  }
  console.log("supabase/schema.sql matches the migrations.");
} else {
  await Deno.writeTextFile(schemaFile, schema);
  console.log("wrote supabase/schema.sql");
}
