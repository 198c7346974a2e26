/**
 * The functions' connection settings, read from the environment (README "Configuration",
 * docs/connections.md). Pure apart from reading the environment.
 */
import { config, intEnv } from "../config.ts";

export interface DatabaseSettings {
  /** `DB_POOLER_URL` when set (Supavisor/PgBouncer in transaction mode), else `SUPABASE_DB_URL`. */
  url: string | undefined;
  /** Connections one function instance (isolate) keeps at most. */
  poolSize: number;
  /** More connections for the rate limiter's calls alone (`limiterDatabase()`), opened when first used. */
  limiterPoolSize: number;
  /** `DB_SSL_ROOT_CERT`: PEM certificate(s) trusted for the database's TLS, besides the runtime's roots. */
  sslRootCert: string | undefined;
  /** Longest wait for a connection: a free pool slot plus the TCP and startup handshake. */
  connectTimeoutMs: number;
  /** `statement_timeout` of each transaction (set with `set local`, so it holds under a pooler too). */
  statementTimeoutMs: number;
  /** An idle pooled connection is closed after this long. */
  idleTimeoutMs: number;
}

export function databaseSettings(): DatabaseSettings {
  return {
    url: Deno.env.get("DB_POOLER_URL") || config.databaseUrl(),
    // Two connections per isolate in all, the limiter's included (docs/connections.md, "Sizing").
    poolSize: intEnv("DB_POOL_SIZE", 1, 1, 100),
    limiterPoolSize: intEnv("DB_LIMITER_POOL_SIZE", 1, 1, 20),
    sslRootCert: Deno.env.get("DB_SSL_ROOT_CERT") || undefined,
    connectTimeoutMs: intEnv("DB_CONNECT_TIMEOUT_MS", 3_000, 100, 60_000),
    statementTimeoutMs: intEnv("DB_STATEMENT_TIMEOUT_MS", 5_000, 100, 600_000),
    idleTimeoutMs: intEnv("DB_IDLE_TIMEOUT_MS", 10_000, 1_000, 600_000),
  };
}

/**
 * TLS as libpq's `sslmode` means it: `require` asks not to verify, `verify-*` verifies. On Deno 2.1 (hosted
 * edge-runtime) node:tls verifies the certificate and host name whatever `rejectUnauthorized` says, so a
 * server whose certificate is signed by a private authority (Supabase's own root CA, the local stack's CA)
 * needs that authority in `ca` (`DB_SSL_ROOT_CERT`), which is trusted besides the runtime's roots.
 */
export type TlsSetting = false | { rejectUnauthorized: boolean; ca?: string };

/**
 * Splits `sslmode` (and the libpq-only parameters node-postgres would misread) off a connection URL.
 * node-postgres treats `sslmode=require` as `verify-full`; libpq semantics are kept here instead.
 * `rootCert` (PEM) is added to the trusted authorities of a TLS connection.
 */
export function connectionTarget(
  url: string,
  rootCert?: string,
): { connectionString: string; ssl: TlsSetting } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, ssl: false };
  }
  const mode = parsed.searchParams.get("sslmode") ?? "disable";
  for (const name of ["sslmode", "sslrootcert", "sslcert", "sslkey", "uselibpqcompat"]) {
    parsed.searchParams.delete(name);
  }
  const ssl: TlsSetting = mode === "verify-full" || mode === "verify-ca"
    ? { rejectUnauthorized: true }
    : mode === "require" || mode === "prefer"
    ? { rejectUnauthorized: false }
    : false;
  if (ssl && rootCert) ssl.ca = rootCert;
  return { connectionString: parsed.toString(), ssl };
}
