/**
 * The database every database, integration and end-to-end test runs against: `SUPABASE_DB_URL`, which
 * `deno task test` always sets (a throwaway cluster with bootstrap, migrations and seed applied). Without it
 * a test fails with this message; it never skips itself (docs/testing.md).
 */
export function databaseUrl(): string {
  const url = Deno.env.get("SUPABASE_DB_URL");
  if (!url) throw new Error("SUPABASE_DB_URL is not set: run the suite with `deno task test`");
  return url;
}
