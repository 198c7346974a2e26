/**
 * A throwaway PostgreSQL cluster on a free port, migrated as `deno task test` makes it, for the tasks that
 * drive the app in a browser outside the test suite (`deno task screenshots`, `deno task bench:app`). Sets
 * the environment the test support reads (SUPABASE_DB_URL, DB_SSL_ROOT_CERT, AUTH_JWT_SECRET) and removes
 * the cluster afterwards.
 */
import { clusterAt, freePort, stopCluster } from "./cluster.ts";
import { prepareDatabase } from "../stack.ts";
import { localJwtSecret } from "../secrets.ts";

export async function withThrowawayDatabase<T>(work: () => Promise<T>): Promise<T> {
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-app-db-" });
  const cluster = clusterAt(baseDir, freePort());
  try {
    console.log(`PostgreSQL 15 throwaway cluster on 127.0.0.1:${cluster.port} …`);
    await prepareDatabase(cluster);
    Deno.env.set("SUPABASE_DB_URL", cluster.url);
    Deno.env.set("DB_SSL_ROOT_CERT", await Deno.readTextFile(cluster.caFile));
    if (!Deno.env.get("AUTH_JWT_SECRET")) Deno.env.set("AUTH_JWT_SECRET", localJwtSecret);
    return await work();
  } finally {
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(baseDir, { recursive: true }).catch(() => {});
  }
}
