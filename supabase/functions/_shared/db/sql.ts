/**
 * The project's PostgreSQL driver: node-postgres (`pg`) behind the tagged-template call style the code
 * base uses (tx`select … ${x}`, `sql.begin`, `tx.json`), so a database fault can only ever reject a query.
 *
 * Why not postgres.js: its 3.4.x releases throw from a `setImmediate` callback when a socket closes while
 * a write is queued (`nextWrite`), which no caller can catch and which ends the process (docs/connections.md).
 * node-postgres reports every socket fault through promise rejections and `error` events; this module
 * listens for `error` on the pool and on every client for its whole life, so an `error` event can never be
 * unhandled either.
 *
 * Semantics kept from before: statements are unnamed (nothing prepared survives a statement, so it works
 * behind a transaction-mode pooler), every interpolated value is a bound parameter, timestamps come back
 * as `Date`, `int8`/`numeric` as strings, `json`/`jsonb` parsed.
 *
 * Faults: a connection that cannot be made, or that is found lost before COMMIT was sent, is replaced
 * once by a fresh connection and the work run again (nothing of it can have been committed: the session
 * that ran it is gone). So the work given to `begin` must only do database work. A lost COMMIT, a
 * statement timeout, and a second loss are a `DatabaseUnavailableError` (503).
 */
import pg from "pg";
import { classifyDatabaseError, isConnectionLost, isUnreachable } from "./failures.ts";
import { connectionTarget } from "./settings.ts";
import { type JsonParameter, jsonParameter, statementFrom } from "./template.ts";
import { errorForLog } from "../log_text.ts";

/** A result row; untyped unless the query names its row type (as postgres.js' `Row` was). */
// deno-lint-ignore no-explicit-any
export type Row = Record<string, any>;
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** Tagged-template queries; `T` is the array of rows the statement returns. */
export interface Queryable {
  <T extends readonly unknown[] = Row[]>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  /** A statement given as text (parameters as `$1…`); without values several statements may be sent. */
  unsafe<T extends readonly unknown[] = Row[]>(text: string, values?: unknown[]): Promise<T>;
  /** Sends `value` as JSON text (for `json`/`jsonb` parameters). */
  json(value: unknown): JsonParameter;
}

/** The statements of one transaction, all on one connection. */
export interface TransactionSql extends Queryable {
  /** Runs `work` inside a savepoint: rolled back to it when `work` throws. */
  savepoint<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T>;
}
export type Transaction = TransactionSql;

export interface Listener {
  unlisten(): Promise<void>;
}

/** A connection pool. */
export interface Sql extends Queryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  begin<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T>;
  /**
   * Several statements without parameters, sent as one simple-protocol query: one round trip, run by
   * PostgreSQL as one implicit transaction (a failing statement rolls back all of them). The rows of each
   * statement, in order.
   */
  script(text: string): Promise<Row[][]>;
  /** LISTEN on a dedicated connection that comes back by itself after a database restart. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Listener>;
  /** Closes every connection; waits at most `timeout` seconds for those in use. */
  end(options?: { timeout?: number }): Promise<void>;
}

export interface ConnectOptions {
  /** Connections at most (default 10). */
  max?: number;
  /** Seconds an idle connection is kept (default 10). */
  idle_timeout?: number;
  /** Longest wait in milliseconds for a new connection's TCP and startup handshake (default 10 000). */
  connectTimeoutMs?: number;
  /** Longest wait in milliseconds for a free pool slot (default 10 000). */
  queueTimeoutMs?: number;
  /** When set, each transaction runs with this `statement_timeout` (`set local`, pooler-safe). */
  statementTimeoutMs?: number;
  /** `application_name` shown in `pg_stat_activity`. */
  applicationName?: string;
  /** PEM certificate(s) trusted for a TLS connection besides the runtime's roots (`DB_SSL_ROOT_CERT`). */
  sslRootCert?: string;
  /** Accepted for compatibility with postgres.js options; notices are always ignored. */
  onnotice?: unknown;
  /** Accepted for compatibility; statements are never prepared by name. */
  prepare?: boolean;
}

// The few node-postgres shapes used here (the package ships no types).
interface PgResult {
  rows: Row[];
}
interface PgClient {
  query(config: { text: string; values?: unknown[] }): Promise<PgResult | PgResult[]>;
  connect(): Promise<void>;
  end(): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): void;
  release?(error?: unknown): void;
}
interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): void;
}

const dateOid = 1082;
const intervalOid = 1186;

/** node-postgres' parsers, except `date` as a UTC `Date` and `interval` as text, as postgres.js gave them. */
const typeParsers = {
  getTypeParser(oid: number, format?: string) {
    if (oid === dateOid) return (value: string) => new Date(value);
    if (oid === intervalOid) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
};

function rowsOf(result: PgResult | PgResult[]): Row[] {
  return Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows;
}

function ignoreError(): void {}

function isPoolWait(error: unknown): boolean {
  return /timeout exceeded when trying to connect/i.test(String((error as Error)?.message));
}

/** Logs pool-level connection errors, at most once per 10 s so an outage does not flood the log. */
function quietLogger(label: string): (error: unknown) => void {
  let lastAt = 0;
  return (error) => {
    const now = Date.now();
    if (now - lastAt < 10_000) return;
    lastAt = now;
    console.warn(`[db] ${label}: ${errorForLog(error)}`);
  };
}

function queryable(run: (text: string, values: unknown[]) => Promise<Row[]>): Queryable {
  const query = (<T extends readonly unknown[]>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const statement = statementFrom(strings, values);
    return run(statement.text, statement.values) as unknown as Promise<T>;
  }) as Queryable;
  query.unsafe = <T extends readonly unknown[]>(text: string, values: unknown[] = []) =>
    run(text, values) as unknown as Promise<T>;
  query.json = jsonParameter;
  return query;
}

async function runOn(client: PgClient, text: string, values: unknown[]): Promise<Row[]> {
  return rowsOf(await client.query(values.length > 0 ? { text, values } : { text }));
}

async function runScriptOn(client: PgClient, text: string): Promise<Row[][]> {
  const result = await client.query({ text });
  return Array.isArray(result) ? result.map((each) => each.rows ?? []) : [result.rows];
}

/**
 * A transaction on one client. Savepoints started side by side (`Promise.all`) run one after another:
 * interleaved, one's `release` would also release the other's. A savepoint's work gets a transaction of its
 * own level, so a nested savepoint does not wait for the one it is inside.
 */
function transactionOn(client: PgClient, counter = { savepoints: 0 }): TransactionSql {
  let queue: Promise<unknown> = Promise.resolve();
  const tx = queryable((text, values) => runOn(client, text, values)) as TransactionSql;
  tx.savepoint = (work) => {
    const run = async () => {
      const name = `sp_${++counter.savepoints}`;
      await runOn(client, `savepoint ${name}`, []);
      try {
        const result = await work(transactionOn(client, counter));
        await runOn(client, `release savepoint ${name}`, []);
        return result;
      } catch (error) {
        if (!isUnreachable(error)) await runOn(client, `rollback to savepoint ${name}`, []);
        throw error;
      }
    };
    const result = queue.then(run, run);
    queue = result.catch(() => {});
    return result;
  };
  return tx;
}

/** Opens a pool to `url` (a `postgresql://` URL; `sslmode` read as libpq reads it). */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  const target = connectionTarget(url, options.sslRootCert);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const clientConfig = {
    connectionString: target.connectionString,
    ssl: target.ssl,
    application_name: options.applicationName ?? "domain-watchlist",
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    types: typeParsers,
    // A statement the server never answers (a dead peer, no RST) still ends, after the server-side limit.
    query_timeout: options.statementTimeoutMs ? options.statementTimeoutMs + 2_000 : undefined,
  };
  // The pool's own `connectionTimeoutMillis` bounds the wait for a slot; each client keeps the connect bound.
  const BoundedClient = class extends pg.Client {
    constructor(config: Record<string, unknown>) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  };
  const pool: PgPool = new pg.Pool({
    ...clientConfig,
    Client: BoundedClient,
    connectionTimeoutMillis: options.queueTimeoutMs ?? 10_000,
    max: options.max ?? 10,
    idleTimeoutMillis: (options.idle_timeout ?? 10) * 1000,
    allowExitOnIdle: true,
  });
  const logIdleError = quietLogger("idle connection lost");
  // An idle client's error reaches the pool, which drops the client; without a listener it would throw.
  pool.on("error", logIdleError);
  // A client in use has no listener of the pool's; this one stays for its whole life.
  pool.on("connect", (client) => (client as PgClient).on("error", ignoreError));

  const beginStatement = options.statementTimeoutMs
    ? `begin; set local statement_timeout = ${Math.round(options.statementTimeoutMs)}`
    : "begin";

  /** A connection outside the pool, for the one retry after a connection failure. */
  async function freshClient(): Promise<PgClient> {
    const client: PgClient = new pg.Client(clientConfig);
    client.on("error", ignoreError);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(ignoreError);
      throw error;
    }
    client.release = (error?: unknown) => {
      void error;
      void client.end().catch(ignoreError);
    };
    return client;
  }

  function release(client: PgClient | undefined, error?: unknown): void {
    // A client released with an error is closed instead of going back to the pool.
    client?.release?.(error === undefined ? undefined : (error ?? true));
  }

  /** One retry on a fresh connection per call, spent by whichever step first finds the connection lost. */
  interface RetryBudget {
    left: number;
  }

  /** Checks out a connection (a fresh one once the budget is spent) and runs `opening` on it. */
  async function opened(opening: string | undefined, budget: RetryBudget, fresh: boolean): Promise<PgClient> {
    for (;;) {
      let client: PgClient | undefined;
      try {
        client = fresh ? await freshClient() : await pool.connect();
        if (opening) await runOn(client, opening, []);
        return client;
      } catch (error) {
        release(client, error);
        // A full pool (no slot in time) is load, not a broken connection: no extra connection for it.
        if (budget.left > 0 && isConnectionLost(error) && !isPoolWait(error)) {
          budget.left--;
          fresh = true;
          continue;
        }
        throw classifyDatabaseError(error);
      }
    }
  }

  /** One query on a pooled connection (replaced once when found lost before the query was sent). */
  async function onPooled<T>(run: (client: PgClient) => Promise<T>): Promise<T> {
    const client = await opened(undefined, { left: 1 }, false);
    try {
      const result = await run(client);
      release(client);
      return result;
    } catch (error) {
      release(client, isUnreachable(error) ? error : undefined);
      throw classifyDatabaseError(error);
    }
  }

  const sql = queryable((text, values) => onPooled((client) => runOn(client, text, values))) as Sql;
  sql.script = (text) => onPooled((client) => runScriptOn(client, text));

  sql.begin = async <T>(work: (tx: TransactionSql) => Promise<T>): Promise<T> => {
    const budget: RetryBudget = { left: 1 };
    let fresh = false;
    for (;;) {
      const client = await opened(beginStatement, budget, fresh);
      let result: T;
      try {
        result = await work(transactionOn(client));
      } catch (error) {
        if (isConnectionLost(error)) {
          release(client, error);
          // Nothing was committed (no COMMIT was sent and the session is gone): run the work once more.
          if (budget.left > 0) {
            budget.left--;
            fresh = true;
            continue;
          }
        } else if (isUnreachable(error)) {
          release(client, error);
        } else {
          await runOn(client, "rollback", []).then(() => release(client), (rollbackError) => {
            release(client, rollbackError);
          });
        }
        throw classifyDatabaseError(error);
      }
      try {
        await runOn(client, "commit", []);
      } catch (error) {
        // The outcome of a COMMIT cut off by a lost connection is unknown: never retried.
        release(client, isUnreachable(error) ? error : undefined);
        throw classifyDatabaseError(error);
      }
      release(client);
      return result;
    }
  };

  sql.listen = (channel, onNotify) => listenOn(clientConfig, channel, onNotify);

  let ended: Promise<void> | undefined;
  sql.end = (endOptions = {}) => {
    ended ??= pool.end().catch(ignoreError);
    const timeoutMs = (endOptions.timeout ?? 5) * 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    return Promise.race([ended, deadline]).finally(() => clearTimeout(timer));
  };
  return sql;
}

/** LISTEN on its own connection; reconnects (every second) after the connection is lost. */
async function listenOn(
  clientConfig: Record<string, unknown>,
  channel: string,
  onNotify: (payload: string) => void,
): Promise<Listener> {
  let closed = false;
  let client: PgClient | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const quoted = `"${channel.replaceAll('"', '""')}"`;

  async function open(): Promise<void> {
    const next: PgClient = new pg.Client(clientConfig);
    client = next;
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      void next.end().catch(ignoreError);
      if (!closed) retry = setTimeout(() => void open().catch(ignoreError), 1_000);
    };
    next.on("error", onLost);
    next.on("end", onLost);
    next.on("notification", (message) => onNotify(String((message as { payload?: string }).payload ?? "")));
    try {
      await next.connect();
      await next.query({ text: `listen ${quoted}` });
    } catch (error) {
      onLost();
      throw error;
    }
  }

  await open();
  return {
    async unlisten() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(ignoreError);
    },
  };
}
