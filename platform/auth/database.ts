/** The local Auth stand-in's own small pool to the local database (the auth schema). Needs SUPABASE_DB_URL. */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

let sql: postgres.Sql | undefined;

export function authDatabase(): postgres.Sql {
  if (sql) return sql;
  const url = Deno.env.get("SUPABASE_DB_URL");
  if (!url) throw new Error("SUPABASE_DB_URL is not set");
  // Over TLS as the functions connect (`deno task start` gives them the TLS URL and the local CA).
  sql = postgres.connect(url, {
    max: 2,
    idle_timeout: 20,
    onnotice: () => {},
    sslRootCert: Deno.env.get("DB_SSL_ROOT_CERT") || undefined,
  });
  return sql;
}
