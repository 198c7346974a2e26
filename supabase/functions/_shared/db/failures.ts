/**
 * Which database errors mean "the database cannot be reached right now" (answered 503
 * `service_unavailable` with `Retry-After`, never 500), as opposed to errors of the statement itself.
 * Pure: no I/O. See docs/connections.md.
 */

/** Seconds a client is told to wait (`Retry-After`) while the database cannot be reached. */
export const retryAfterSeconds = 5;

/** The database could not be reached, or the connection broke before the work was known to be done. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The database cannot be reached: ${describe(cause)}`, { cause });
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * SQLSTATEs of a server that is going away, not yet up, or out of connections; class 08 (connection
 * exception) is matched as a whole. 57014 is a statement cancelled by `statement_timeout`: the database is
 * too slow to answer in time, which the caller sees the same way.
 */
const unavailableStates = new Set(["57P01", "57P02", "57P03", "57P05", "53300", "53400", "57014"]);

/** Socket-level error codes (Node's `code`) and Deno error names of a connection that failed or broke. */
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ERR_SOCKET_CLOSED",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
]);
const socketErrorNames = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "BrokenPipe",
  "TimedOut",
  "NotConnected",
  "UnexpectedEof",
]);

/**
 * Deno's Node compatibility reports some socket failures without a known errno: `code` "UNKNOWN" with the
 * socket call that failed (e.g. "write UNKNOWN" when the server closed the connection under a write).
 */
const socketSyscalls = new Set(["read", "write", "connect"]);

/** Messages node-postgres uses for a connection that failed, broke, timed out or was never usable. */
const driverMessages = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i,
  /not queryable/i,
  /connection (?:is )?closed/i,
  /cannot use a pool after calling end/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /server closed the connection/i,
  /socket (?:hang up|closed)/i,
];

/** True when `error` (or what it wraps) says the database is unreachable rather than the statement wrong. */
export function isUnreachable(error: unknown, depth = 0): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!error || typeof error !== "object" || depth > 3) return false;
  const { code, syscall, name, message, cause, errors } = error as {
    code?: unknown;
    syscall?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string") {
    if (code.startsWith("08") && code.length === 5) return true;
    if (unavailableStates.has(code) || socketCodes.has(code)) return true;
    if (code === "UNKNOWN" && typeof syscall === "string" && socketSyscalls.has(syscall)) return true;
  }
  if (typeof name === "string" && socketErrorNames.has(name)) return true;
  if (typeof message === "string" && driverMessages.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isUnreachable(inner, depth + 1))) return true;
  return cause !== undefined && cause !== error && isUnreachable(cause, depth + 1);
}

/** Too slow rather than gone: a statement timeout, or a statement the server never answered. */
function isTimeout(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "57014" || (typeof message === "string" && /query read timeout/i.test(message));
}

/**
 * The connection was refused, broke, or the server ended the session: retrying on a fresh connection may
 * succeed. Timeouts are excluded (a retry would only double the wait).
 */
export function isConnectionLost(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return isConnectionLost(error.cause);
  return isUnreachable(error) && !isTimeout(error);
}

/** `DatabaseUnavailableError` for an unreachable database; any other error unchanged. */
export function classifyDatabaseError(error: unknown): unknown {
  return isUnreachable(error) && !(error instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError(error)
    : error;
}

function describe(error: unknown): string {
  if (error && typeof error === "object") {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const text = typeof message === "string" && message ? message : String(error);
    return typeof code === "string" ? `${text} (${code})` : text;
  }
  return String(error);
}
