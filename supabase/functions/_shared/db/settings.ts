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
    poolSize: intEnv("DB_POOL_SIZE", 3, 1, 100),
    limiterPoolSize: intEnv("DB_LIMITER_POOL_SIZE", 2, 1, 20),
    connectTimeoutMs: intEnv("DB_CONNECT_TIMEOUT_MS", 3_000, 100, 60_000),
    statementTimeoutMs: intEnv("DB_STATEMENT_TIMEOUT_MS", 5_000, 100, 600_000),
    idleTimeoutMs: intEnv("DB_IDLE_TIMEOUT_MS", 10_000, 1_000, 600_000),
  };
}

/** TLS as libpq's `sslmode` means it: `require` encrypts without verifying, `verify-*` verifies. */
export type TlsSetting = false | { rejectUnauthorized: boolean };

/**
 * Splits `sslmode` (and the libpq-only parameters node-postgres would misread) off a connection URL.
 * node-postgres treats `sslmode=require` as `verify-full`, which rejects the certificates Supabase's
 * pooler presents; libpq semantics are kept here instead.
 */
export function connectionTarget(url: string): { connectionString: string; ssl: TlsSetting } {
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
  return { connectionString: parsed.toString(), ssl };
}
