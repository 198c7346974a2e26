import postgres from "postgres";
import { config } from "../config.ts";
import { textLiteral } from "./literals.ts";

export type Sql = postgres.Sql;
export type Transaction = postgres.TransactionSql;
/** Runs work in one transaction under some identity (`asService`, or a test's own runner). */
export type TransactionRunner = <T>(work: (tx: Transaction) => Promise<T>) => Promise<T>;

let shared: Sql | undefined;

/** The process-wide connection pool to `SUPABASE_DB_URL`. */
export function database(): Sql {
  if (shared) return shared;
  const url = config.databaseUrl();
  if (!url) throw new Error("SUPABASE_DB_URL is not set");
  shared = postgres(url, {
    max: Number(Deno.env.get("DB_POOL_SIZE") ?? 10),
    idle_timeout: 20,
    prepare: false,
    onnotice: () => {},
    connection: { application_name: "domain-watchlist" },
  });
  return shared;
}

/** The statement that makes the rest of a transaction run as the account (no parameters; see literals.ts). */
export function accountIdentityStatement(userId: string): string {
  const claims = JSON.stringify({ sub: userId, role: "authenticated", aud: "authenticated" });
  return `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${
    textLiteral(claims)
  }, true)`;
}

/**
 * Runs `work` in one transaction as the given account: role `authenticated` with the account's JWT
 * claims, so `auth.uid()` and every row-level-security policy apply.
 */
export function asAccount<T>(userId: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return database().begin(async (tx) => {
    // Pipelined: the identity goes without parameters (so it costs no describe round trip) in the same
    // write as the work's first statement, on the same connection and in order; never a round trip of its
    // own. If it fails, the transaction is aborted and the work fails with it.
    const identity = tx.unsafe(accountIdentityStatement(userId)).execute();
    identity.catch(() => {});
    const result = await work(tx);
    await identity;
    return result;
  }) as Promise<T>;
}

/**
 * Runs one statement without parameters (see literals.ts) as the account, in one round trip: the identity
 * and the statement go as one simple-protocol query, which PostgreSQL runs as a single implicit
 * transaction (so the identity, set with `is_local`, holds for the statement and ends with it, and a
 * failure rolls both back). No `begin`/`commit` of their own, no reserved connection.
 */
export async function asAccountStatement<T>(userId: string, statement: string): Promise<T[]> {
  const results = await database().unsafe(`${accountIdentityStatement(userId)};\n${statement}`)
    .simple() as unknown as unknown[][];
  return results[results.length - 1] as T[];
}

/** Runs `work` in one transaction as `service_role` (bypasses RLS; used before an account is known). */
export function asService<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  return database().begin(async (tx) => {
    await tx`select set_config('role', 'service_role', true)`;
    return await work(tx);
  }) as Promise<T>;
}
