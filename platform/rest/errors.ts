/**
 * PostgREST's error answers, as `src/PostgREST/Error.hs` (PostgREST 12–16) makes them: a JSON body
 * `{code, message, details, hint}` (details and hint `null` when absent), the status PostgREST gives each
 * `PGRSTxxx` code, and its SQLSTATE → HTTP mapping for errors the database raises. Pure: no I/O.
 */

export interface ErrorBody {
  code: string;
  message: string;
  /** Text, or (PGRST201) the list of candidate relationships. */
  details: string | null | Record<string, string>[];
  hint: string | null;
}

/** One error answer: the status, the body and any extra headers (`WWW-Authenticate`). */
export class PostgrestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
    this.name = "PostgrestError";
  }
}

function pgrst(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
  headers: Record<string, string> = {},
): PostgrestError {
  return new PostgrestError(status, { code, message, details, hint }, headers);
}

/** The errors PostgREST raises itself (its `PGRSTxxx` codes), named as in Error.hs. */
export const pgrstErrors = {
  /** PGRST100: a query parameter (select, filter, order, or/and, columns, on_conflict) does not parse. */
  queryParam: (message: string, details: string) => pgrst(400, "PGRST100", message, details),
  /** PGRST101: a method other than GET/HEAD/POST on `/rpc/<fn>`. */
  invalidRpcMethod: (method: string) => pgrst(405, "PGRST101", `Cannot use the ${method} method on RPC`),
  /** PGRST102: a body that is not valid JSON (or not the JSON the request needs). */
  invalidBody: (message: string) => pgrst(400, "PGRST102", message),
  /** PGRST103: a Range/limit that cannot be satisfied. */
  invalidRange: (details: string) => pgrst(416, "PGRST103", "Requested range not satisfiable", details),
  /** PGRST106: an Accept-Profile/Content-Profile naming a schema that is not exposed. */
  unacceptableSchema: (schema: string, exposed: readonly string[]) =>
    pgrst(
      406,
      "PGRST106",
      `Invalid schema: ${schema}`,
      null,
      `Only the following schemas are exposed: ${exposed.join(", ")}`,
    ),
  /** PGRST107: an Accept header none of whose media types can be produced. */
  mediaType: (types: readonly string[]) =>
    pgrst(406, "PGRST107", `None of these media types are available: ${types.join(", ")}`),
  /** PGRST108: a filter, order or limit on an embedded resource the `select` does not embed. */
  notEmbedded: (resource: string) =>
    pgrst(
      400,
      "PGRST108",
      `'${resource}' is not an embedded resource in this request`,
      null,
      `Verify that '${resource}' is included in the 'select' query parameter.`,
    ),
  /** PGRST122: preferences PostgREST does not know, sent with `Prefer: handling=strict`. */
  invalidPreferences: (invalid: readonly string[]) =>
    pgrst(
      400,
      "PGRST122",
      "Invalid preferences given with handling=strict",
      `Invalid preferences: ${invalid.join(", ")}`,
    ),
  /** PGRST123: aggregates (`count()`, `col.sum()`) while `db-aggregates-enabled` is off, as on Supabase. */
  aggregatesNotAllowed: () => pgrst(400, "PGRST123", "Use of aggregate functions is not allowed"),
  /** PGRST116: `application/vnd.pgrst.object+json` asked for, and the result is not exactly one row. */
  singularity: (rows: number) =>
    pgrst(
      406,
      "PGRST116",
      "Cannot coerce the result to a single JSON object",
      `The result contains ${rows} rows`,
    ),
  /** PGRST117: a method the resource does not take. */
  unsupportedMethod: (method: string) => pgrst(405, "PGRST117", `Unsupported HTTP method: ${method}`),
  /** PGRST125: a path that is neither `/<table>` nor `/rpc/<fn>`. */
  invalidResourcePath: () => pgrst(404, "PGRST125", "Invalid path specified in request URL"),
  /** PGRST126: the root (OpenAPI) endpoint, which the stand-in does not serve. */
  openApiDisabled: () => pgrst(404, "PGRST126", "Root endpoint metadata is disabled"),
  /** PGRST127: something PostgREST does but this stand-in does not (details say what). */
  notImplemented: (details: string) => pgrst(400, "PGRST127", "Feature not implemented", details),
  /** PGRST202: no function of that name takes these named arguments. */
  noRpc: (
    schema: string,
    name: string,
    argumentNames: readonly string[],
    viaPost: boolean,
    hint: string | null,
  ) => {
    const sorted = [...argumentNames].sort();
    const withParams = sorted.length === 0
      ? " without parameters"
      : ` with parameter${sorted.length > 1 ? "s" : ""} ${sorted.join(", ")}`;
    return pgrst(
      404,
      "PGRST202",
      `Could not find the function ${schema}.${name}${
        sorted.length === 0 ? " without parameters" : `(${sorted.join(", ")})`
      } in the schema cache`,
      `Searched for the function ${schema}.${name}${withParams}${
        viaPost ? " or with a single unnamed json/jsonb parameter" : ""
      }, but no matches were found in the schema cache.`,
      hint,
    );
  },
  /** PGRST203: several overloads take these arguments. */
  ambiguousRpc: (signatures: readonly string[]) =>
    pgrst(
      300,
      "PGRST203",
      `Could not choose the best candidate function between: ${signatures.join(", ")}`,
      null,
      "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
    ),
  /** PGRST204: a column named in the payload or `columns` that the table does not have. */
  columnNotFound: (table: string, column: string) =>
    pgrst(400, "PGRST204", `Could not find the '${column}' column of '${table}' in the schema cache`),
  /** PGRST205: no table or view of that name in the exposed schema. */
  tableNotFound: (table: string, hint: string | null, schema = "public") =>
    pgrst(404, "PGRST205", `Could not find the table '${schema}.${table}' in the schema cache`, null, hint),
  /** PGRST124: a mutation touching more rows than `Prefer: max-affected` allows (with handling=strict). */
  maxAffected: (affected: number) =>
    pgrst(
      400,
      "PGRST124",
      "Query result exceeds max-affected preference constraint",
      `The query affects ${affected} rows`,
    ),
  /** PGRST128: `max-affected` with `handling=strict` on a function that does not return SETOF or TABLE. */
  maxAffectedRpc: () =>
    pgrst(
      400,
      "PGRST128",
      "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
    ),
  /** PGRST301: a JWT that cannot be decoded or verified. */
  jwtDecode: (message: string) =>
    pgrst(401, "PGRST301", message, null, null, {
      "WWW-Authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
    }),
  /** PGRST303: a JWT whose claims are not acceptable (expired, not yet valid, …). */
  jwtClaims: (message: string) =>
    pgrst(401, "PGRST303", message, null, null, {
      "WWW-Authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
    }),
  /** PGRST000/PGRST003: the database cannot be reached, or no connection was free in time. */
  connection: (details: string | null) => pgrst(503, "PGRST000", "Database connection error.", details),
  /** PGRST003: no connection of the pool came free in time. */
  poolTimeout: () => pgrst(504, "PGRST003", "Timed out acquiring connection from connection pool."),
};

/**
 * The HTTP status PostgREST answers for a database error (`mapSQLtoHTTP`). `authenticated` is true when
 * the request ran as a role other than the anonymous one (insufficient privilege: 403, else 401).
 */
export function statusOfSqlState(code: string, message: string, authenticated: boolean): number {
  const startsWith = (prefix: string) => code.startsWith(prefix);
  if (startsWith("08")) return 503;
  if (startsWith("09")) return 500;
  if (startsWith("0L") || startsWith("0P")) return 403;
  if (code === "23503" || code === "23505") return 409;
  if (code === "25006") return 405;
  if (code === "21000") return message.endsWith("requires a WHERE clause") ? 400 : 500;
  if (code === "22023") return /^role.*does not exist$/.test(message) ? 401 : 400;
  if (startsWith("25")) return 500;
  if (startsWith("28")) return 403;
  if (startsWith("2D") || startsWith("38") || startsWith("39") || startsWith("3B") || startsWith("40")) {
    return 500;
  }
  if (code === "53400") return 500;
  if (startsWith("53")) return 503;
  if (startsWith("54") || startsWith("55")) return 500;
  if (code === "57P01") return 503;
  if (startsWith("57") || startsWith("58") || startsWith("F0") || startsWith("HV")) return 500;
  if (code === "P0001") return 400;
  if (startsWith("P0") || startsWith("XX")) return 500;
  if (code === "42883") return message.startsWith("function xmlagg(") ? 406 : 404;
  if (code === "42P01") return 404;
  if (code === "42P17") return 500;
  if (code === "42501") return authenticated ? 403 : 401;
  const custom = code.match(/^PT(\d{3})$/);
  if (custom) return Number(custom[1]);
  if (startsWith("PT")) return 500;
  return 400;
}

/** The fields of a PostgreSQL error as node-postgres reports them. */
export interface DatabaseErrorFields {
  code: string;
  message: string;
  detail?: string | null;
  hint?: string | null;
}

/** True for an error the database server raised (a SQLSTATE), as opposed to a driver or socket fault. */
export function isDatabaseError(error: unknown): error is DatabaseErrorFields {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) &&
    typeof (error as { message?: unknown }).message === "string";
}

/**
 * PostgREST's answer to a database error: the SQLSTATE as `code`, the server's message, detail and hint,
 * and `WWW-Authenticate: Bearer` with a 401. A `RAISE SQLSTATE 'PGRST'` with JSON message and detail sets
 * the code, message, status and headers itself, as PostgREST allows.
 */
export function fromDatabaseError(error: DatabaseErrorFields, authenticated: boolean): PostgrestError {
  if (error.code === "PGRST") {
    const raised = raisedPgrst(error);
    if (raised) return raised;
    return pgrst(
      500,
      "PGRST121",
      `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
      "Invalid JSON value for MESSAGE or DETAIL",
      "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.",
    );
  }
  const status = statusOfSqlState(error.code, error.message, authenticated);
  return new PostgrestError(
    status,
    { code: error.code, message: error.message, details: error.detail ?? null, hint: error.hint ?? null },
    status === 401 ? { "WWW-Authenticate": "Bearer" } : {},
  );
}

function raisedPgrst(error: DatabaseErrorFields): PostgrestError | undefined {
  try {
    const message = JSON.parse(error.message);
    const detail = JSON.parse(error.detail ?? "");
    if (typeof message?.code !== "string" || typeof message?.message !== "string") return undefined;
    if (typeof detail?.status !== "number" || typeof detail?.headers !== "object") return undefined;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(detail.headers ?? {})) headers[name] = String(value);
    return new PostgrestError(detail.status, {
      code: message.code,
      message: message.message,
      details: typeof message.details === "string" ? message.details : null,
      hint: typeof message.hint === "string" ? message.hint : null,
    }, headers);
  } catch {
    return undefined;
  }
}

/** The response PostgREST sends for an error (`Content-Type: application/json; charset=utf-8`). */
export function errorResponse(error: PostgrestError, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.body), {
    status: error.status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Proxy-Status": `PostgREST; error=${error.body.code}`,
      ...error.headers,
      ...extraHeaders,
    },
  });
}
