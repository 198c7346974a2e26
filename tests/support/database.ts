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

/** The local certificate authority that signed the test cluster's certificate (PEM; `deno task test` sets it). */
export function databaseCaCertificate(): string {
  const pem = Deno.env.get("DB_SSL_ROOT_CERT");
  if (!pem) throw new Error("DB_SSL_ROOT_CERT is not set: run the suite with `deno task test`");
  return pem;
}

/** SUPABASE_DB_URL asking for TLS (`sslmode=require`), as a hosted connection string does. */
export function tlsDatabaseUrl(): string {
  const url = new URL(databaseUrl());
  url.searchParams.set("sslmode", "require");
  return url.toString();
}
