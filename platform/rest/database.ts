/**
 * The Data API stand-in's own small pool to the local database (SUPABASE_DB_URL, trusting DB_SSL_ROOT_CERT
 * for TLS), apart from the functions' pools, as PostgREST keeps its own. Each request takes one connection
 * for one transaction.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

let pool: postgres.Sql | undefined;

/** Connections the stand-in keeps at most (PostgREST's `db-pool` is larger; one browser needs few). Each
 * transaction's statement timeout is its role's (handler.ts). */
export const restPoolSize = 4;

export function restDatabase(): postgres.Sql {
  if (pool) return pool;
  const url = Deno.env.get("SUPABASE_DB_URL");
  if (!url) throw new Error("SUPABASE_DB_URL is not set");
  pool = postgres.connect(url, {
    max: restPoolSize,
    idle_timeout: 10,
    applicationName: "local-data-api",
    sslRootCert: Deno.env.get("DB_SSL_ROOT_CERT") || undefined,
  });
  return pool;
}

/** Closes the pool (the next request opens a new one). */
export async function closeRestDatabase(): Promise<void> {
  const open = pool;
  pool = undefined;
  await open?.end({ timeout: 1 });
}
