/** The local Auth stand-in's own small pool to the local database (auth.users). Needs SUPABASE_DB_URL. */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

let sql: postgres.Sql | undefined;

export function authDatabase(): postgres.Sql {
  if (sql) return sql;
  const url = Deno.env.get("SUPABASE_DB_URL");
  if (!url) throw new Error("SUPABASE_DB_URL is not set");
  sql = postgres.connect(url, { max: 2, idle_timeout: 20, onnotice: () => {} });
  return sql;
}
