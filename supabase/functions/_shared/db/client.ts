/**
 * The functions' database access: one pool per isolate (docs/connections.md) and
 * the two ways in, `asAccount` (RLS applies) and `asService`. Faults surface as `DatabaseUnavailableError`
 * (503 `service_unavailable`), never as a crash.
 */
import { connect, type Sql, type Transaction } from "./sql.ts";
import { databaseSettings } from "./settings.ts";
import { textLiteral } from "./literals.ts";

export type { Sql, Transaction } from "./sql.ts";
/** Runs work in one transaction under some identity (`asService`, or a test's own runner). */
export type TransactionRunner = <T>(work: (tx: Transaction) => Promise<T>) => Promise<T>;

let shared: Sql | undefined;
let limiterPool: Sql | undefined;

function openPool(max: number, applicationName: string): Sql {
  const settings = databaseSettings();
  if (!settings.url) throw new Error("SUPABASE_DB_URL is not set");
  return connect(settings.url, {
    max,
    idle_timeout: settings.idleTimeoutMs / 1000,
    connectTimeoutMs: settings.connectTimeoutMs,
    statementTimeoutMs: settings.statementTimeoutMs,
    applicationName,
    sslRootCert: settings.sslRootCert,
  });
}

/** The isolate-wide connection pool to `DB_POOLER_URL`, else `SUPABASE_DB_URL`. */
export function database(): Sql {
  return shared ??= openPool(databaseSettings().poolSize, "domain-watchlist");
}

/**
 * The isolate's connections for the project-wide rate limiter's calls (`DB_LIMITER_POOL_SIZE`, opened on first
 * use): each is one short statement whose answer times a request start, so it must not queue behind the
 * isolate's other work in `database()` (a poller run's claims and records can keep every connection busy).
 */
export function limiterDatabase(): Sql {
  return limiterPool ??= openPool(databaseSettings().limiterPoolSize, "domain-watchlist-limiter");
}

/** Closes the isolate's pools (the local stack's shutdown); the next `database()` opens a new one. */
export async function closeDatabase(timeoutSeconds = 1): Promise<void> {
  const pools = [shared, limiterPool];
  shared = undefined;
  limiterPool = undefined;
  await Promise.all(pools.map((pool) => pool?.end({ timeout: timeoutSeconds })));
}

/**
 * The JWT claims a transaction runs with as an account, as SQL text of type text, from an SQL expression
 * that holds the account's id. The one place these claims are made.
 */
export function accountClaimsSql(userIdSql: string, organizationIdSql?: string): string {
  // An organization's API key (docs/organizations.md) adds the claim `organization_id`: the request acts on
  // that organization's list only, as the member who made the key.
  const organization = organizationIdSql ? `, 'organization_id', ${organizationIdSql}` : "";
  return `json_build_object('sub', ${userIdSql}, 'role', 'authenticated', 'aud', 'authenticated'${organization})::text`;
}

/** The statement that makes the rest of a transaction run as the account (no parameters; see literals.ts). */
export function accountIdentityStatement(userId: string, organizationId?: string | null): string {
  return `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${
    accountClaimsSql(textLiteral(userId), organizationId ? textLiteral(organizationId) : undefined)
  }, true)`;
}

/**
 * Makes the rest of the transaction `tx` run as the account: role `authenticated` with the account's JWT
 * claims, so `auth.uid()` and every row-level-security policy apply. The one way the code base acts as an
 * account; scripts and tests use it on their own connections (`scripts/lib/accounts.ts`).
 */
export async function actAsAccount(
  tx: Transaction,
  userId: string,
  organizationId?: string | null,
): Promise<void> {
  await tx.unsafe(accountIdentityStatement(userId, organizationId));
}

/** Runs `work` in one transaction as the given account (see `actAsAccount`). */
export function asAccount<T>(
  userId: string,
  work: (tx: Transaction) => Promise<T>,
  organizationId?: string | null,
): Promise<T> {
  return database().begin(async (tx) => {
    await actAsAccount(tx, userId, organizationId);
    return await work(tx);
  });
}

/**
 * Runs one statement without parameters (see literals.ts) as the account, in one round trip: the identity
 * and the statement go as one simple-protocol query (node-postgres uses it for a query without values),
 * which PostgreSQL runs as a single implicit transaction (so the identity, set with `is_local`, holds for
 * the statement and ends with it, and a failure rolls both back). The rows are the last statement's.
 */
export async function asAccountStatement<T>(
  userId: string,
  statement: string,
  organizationId?: string | null,
): Promise<T[]> {
  return await database().unsafe<T[]>(`${accountIdentityStatement(userId, organizationId)};\n${statement}`);
}

/** Runs `work` in one transaction as `service_role` (bypasses RLS; used before an account is known). */
export function asService<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  return database().begin(async (tx) => {
    await tx`select set_config('role', 'service_role', true)`;
    return await work(tx);
  });
}
