/**
 * The local stand-in for Supabase's Data API (PostgREST) under `/rest/v1`: one request, one transaction,
 * run as PostgREST runs it (docs/runtime.md, "Data API stand-in"):
 * `set_config('role', …)` to the caller's role, `request.jwt.claims`, `request.method`, `request.path`,
 * `request.headers` and `request.cookies` set for the transaction, `search_path` to the exposed schema and
 * `extensions`; then the catalog is read, the statement built (statements.ts) and run, and the answer shaped
 * as PostgREST shapes it (status, `Content-Range`, `Preference-Applied`, error bodies). GET and HEAD, and POST
 * to a STABLE or IMMUTABLE function, run read-only, as in PostgREST (a write there is 25006, 405).
 */
import { isUnreachable } from "../../supabase/functions/_shared/db/failures.ts";
import type { TransactionSql } from "../../supabase/functions/_shared/db/sql.ts";
import { findRoutines, findTable, type TableInfo } from "./catalog.ts";
import { corsHeaders, preflightResponse } from "./cors.ts";
import { restDatabase } from "./database.ts";
import { errorResponse, fromDatabaseError, isDatabaseError, pgrstErrors, PostgrestError } from "./errors.ts";
import { GatewayKeyError, type Identity, identityOf } from "./identity.ts";
import {
  contentRange,
  parsePreferences,
  preferenceApplied,
  type Preferences,
  readStatus,
  requestedRange,
} from "./preferences.ts";
import { parseQueryParams, type QueryParams } from "./query_params.ts";
import {
  type BodyShape,
  callStatement,
  chooseRoutine,
  deleteStatement,
  exposedSchema,
  insertStatement,
  readStatement,
  type Statement,
  updateStatement,
} from "./statements.ts";
import { errorForLog } from "../../supabase/functions/_shared/log_text.ts";

/** supabase/config.toml `[api] max_rows`: no read answers more rows than this. */
const maxRows = 1000;
const exposedSchemas = [exposedSchema];
const searchPath = '"public", "extensions"';

interface ResultRow {
  body: string;
  page_total: number;
  total: string | number | null;
  /** Rows an upsert (merge-duplicates) inserted rather than updated; null otherwise. */
  inserted: number | null;
}

type Target = { kind: "table"; name: string } | { kind: "rpc"; name: string };

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw pgrstErrors.invalidResourcePath();
  }
}

function targetOf(pathname: string): Target | "root" {
  const path = pathname.replace(/^\/rest\/v1/, "");
  const segments = path.split("/").filter((segment, index) => index > 0 || segment !== "");
  if (segments.length === 0 || (segments.length === 1 && segments[0] === "")) return "root";
  if (segments.length === 1) return { kind: "table", name: decodedSegment(segments[0]) };
  if (segments.length === 2 && segments[0] === "rpc") {
    return { kind: "rpc", name: decodedSegment(segments[1]) };
  }
  throw pgrstErrors.invalidResourcePath();
}

/** The body shape the Accept header asks for; anything else PostgREST cannot produce is PGRST107. */
function shapeOf(accept: string | null): BodyShape {
  if (!accept) return { single: false, stripNulls: false };
  const offered = accept.split(",").map((each) => each.trim()).filter(Boolean);
  for (const entry of offered) {
    const [type, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    const stripNulls = parameters.includes("nulls=stripped");
    if (["*/*", "application/*", "application/json"].includes(type)) {
      return { single: false, stripNulls: false };
    }
    if (type === "application/vnd.pgrst.array+json" || type === "application/vnd.pgrst.array") {
      return { single: false, stripNulls };
    }
    if (type === "application/vnd.pgrst.object+json" || type === "application/vnd.pgrst.object") {
      return { single: true, stripNulls };
    }
  }
  throw pgrstErrors.mediaType(offered.map((entry) => entry.split(";")[0].trim()));
}

function contentType(shape: BodyShape): string {
  const base = shape.single ? "application/vnd.pgrst.object+json" : "application/json";
  return `${base}; charset=utf-8`;
}

function checkProfile(request: Request): boolean {
  const reading = request.method === "GET" || request.method === "HEAD";
  const profile = request.headers.get(reading ? "accept-profile" : "content-profile");
  if (profile === null) return false;
  if (!exposedSchemas.includes(profile)) throw pgrstErrors.unacceptableSchema(profile, exposedSchemas);
  return true;
}

async function jsonBody(request: Request, emptyAs?: unknown): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "" && emptyAs !== undefined) return emptyAs;
  try {
    return JSON.parse(text);
  } catch {
    throw pgrstErrors.invalidBody("Empty or invalid json");
  }
}

/** The request's headers as PostgREST gives them to SQL: names lowercased, `cookie` left out. */
function headersJson(request: Request): string {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (name !== "cookie") headers[name] = value;
  });
  return JSON.stringify(headers);
}

function cookiesJson(request: Request): string {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0) cookies[part.slice(0, index).trim()] = part.slice(index + 1).trim();
  }
  return JSON.stringify(cookies);
}

/**
 * Supabase's role settings, which PostgREST applies with the role (`ALTER ROLE … SET statement_timeout`):
 * anon 3 s, authenticated 8 s, service_role none of its own (the authenticator's 8 s).
 */
export const statementTimeouts: Record<Identity["role"], string> = {
  anon: "3s",
  authenticated: "8s",
  service_role: "8s",
};

/** The transaction's settings, as PostgREST's `txVarQuery` sets them (all local to the transaction). */
async function setRequestContext(
  tx: TransactionSql,
  request: Request,
  identity: Identity,
  path: string,
): Promise<void> {
  await tx`
    select set_config('search_path', ${searchPath}, true),
           set_config('statement_timeout', ${statementTimeouts[identity.role]}, true),
           set_config('role', ${identity.role}, true),
           set_config('request.jwt.claims', ${JSON.stringify(identity.claims)}, true),
           set_config('request.method', ${request.method}, true),
           set_config('request.path', ${path}, true),
           set_config('request.headers', ${headersJson(request)}, true),
           set_config('request.cookies', ${cookiesJson(request)}, true)`;
}

/** Makes the rest of the transaction read-only (allowed after queries: only read-write must come first). */
async function readOnly(tx: TransactionSql): Promise<void> {
  await tx.unsafe("set transaction read only");
}

async function run(tx: TransactionSql, statement: Statement, shape: BodyShape): Promise<ResultRow> {
  const [row] = await tx.unsafe<ResultRow[]>(statement.text, statement.values);
  if (shape.single && row.page_total !== 1) throw pgrstErrors.singularity(row.page_total);
  return row;
}

function totalOf(row: ResultRow): number | undefined {
  return row.total === null ? undefined : Number(row.total);
}

function writtenColumns(table: TableInfo, keys: Iterable<string>, query: QueryParams): string[] {
  const columns = query.columns ?? [...new Set(keys)];
  for (const column of columns) {
    if (!table.columns.includes(column)) throw pgrstErrors.columnNotFound(table.name, column);
  }
  return columns;
}

function requireWhere(query: QueryParams, verb: "UPDATE" | "DELETE"): void {
  // Supabase loads pg-safeupdate for the API: a mutation without any filter is refused by the database.
  if (query.filters.length === 0 && query.logic.length === 0) {
    throw fromDatabaseError({ code: "21000", message: `${verb} requires a WHERE clause` }, true);
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

async function answerTable(
  tx: TransactionSql,
  request: Request,
  name: string,
  query: QueryParams,
  preferences: Preferences,
  shape: BodyShape,
  search: URLSearchParams,
): Promise<Answer> {
  const table = await findTable(tx, name);
  if (!table) throw pgrstErrors.tableNotFound(name, null);
  const withCount = preferences.count !== undefined;
  const representation = preferences.return === "representation";
  const applied = (kinds: Parameters<typeof preferenceApplied>[1]): Record<string, string> => {
    const value = preferenceApplied(preferences, kinds);
    return value ? { "Preference-Applied": value } : {};
  };
  const method = request.method;
  if (method === "GET" || method === "HEAD") {
    await readOnly(tx);
    const range = requestedRange(method, request.headers.get("range"), query.limit, query.offset, maxRows);
    const row = await run(tx, readStatement(name, query, range, shape, withCount), shape);
    const total = totalOf(row);
    const status = readStatus(range.offset, row.page_total, total);
    const headers = {
      "Content-Range": contentRange(range.offset, range.offset + row.page_total - 1, total),
      "Content-Location": `/${name}${search.size > 0 ? `?${search}` : ""}`,
      "Content-Type": contentType(shape),
      ...applied(["count"]),
    };
    if (status === 416) {
      throw pgrstErrors.invalidRange(
        `An offset of ${range.offset} was requested, but there are only ${total} rows.`,
      );
    }
    return { status, headers, body: method === "HEAD" ? null : row.body };
  }
  if (method === "POST") {
    const payload = await jsonBody(request);
    const rows = Array.isArray(payload) ? payload : [payload];
    if (!rows.every((each) => each !== null && typeof each === "object" && !Array.isArray(each))) {
      throw pgrstErrors.invalidBody("All object keys must match");
    }
    // Without `columns`, PostgREST wants every object of an array to have the same keys.
    const keysOf = (row: unknown) => Object.keys(row as object).sort().join(",");
    if (query.columns === undefined && rows.some((row) => keysOf(row) !== keysOf(rows[0]))) {
      throw pgrstErrors.invalidBody("All object keys must match");
    }
    const columns = writtenColumns(table, rows.flatMap((each) => Object.keys(each as object)), query);
    const conflictColumns = query.onConflict ?? table.primaryKey;
    const statement = insertStatement(name, rows as Record<string, unknown>[], query, shape, {
      columns,
      representation,
      onConflict: preferences.resolution
        ? { resolution: preferences.resolution, columns: conflictColumns }
        : undefined,
    });
    const row = await run(tx, statement, shape);
    const headers: Record<string, string> = {
      "Content-Range": contentRange(1, 0, withCount ? row.page_total : undefined),
      ...applied(["return", "count", "resolution", "missing"]),
    };
    if (representation) headers["Content-Type"] = contentType(shape);
    // PostgREST: 201, except a merge that inserted nothing (it only updated) is 200.
    const status = row.inserted !== null && row.inserted <= 0 ? 200 : 201;
    return { status, headers, body: representation ? row.body : null };
  }
  if (method === "PATCH") {
    const payload = await jsonBody(request);
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
      throw pgrstErrors.invalidBody("Expected a JSON object to update the rows with");
    }
    const columns = writtenColumns(table, Object.keys(payload), query);
    requireWhere(query, "UPDATE");
    let row: ResultRow;
    if (columns.length === 0) {
      row = { body: shape.single ? "null" : "[]", page_total: 0, total: null, inserted: null };
      if (shape.single) throw pgrstErrors.singularity(0);
    } else {
      const statement = updateStatement(
        name,
        payload as Record<string, unknown>,
        columns,
        query,
        shape,
        representation,
      );
      row = await run(tx, statement, shape);
    }
    const headers: Record<string, string> = {
      "Content-Range": contentRange(0, row.page_total - 1, withCount ? row.page_total : undefined),
      ...applied(["return", "count", "missing"]),
    };
    if (representation) headers["Content-Type"] = contentType(shape);
    return { status: representation ? 200 : 204, headers, body: representation ? row.body : null };
  }
  if (method === "DELETE") {
    requireWhere(query, "DELETE");
    const row = await run(tx, deleteStatement(name, query, shape, representation), shape);
    const headers: Record<string, string> = {
      "Content-Range": contentRange(1, 0, withCount ? row.page_total : undefined),
      ...applied(["return", "count"]),
    };
    if (representation) headers["Content-Type"] = contentType(shape);
    return { status: representation ? 200 : 204, headers, body: representation ? row.body : null };
  }
  if (method === "PUT") {
    throw pgrstErrors.notImplemented("PUT (single-row upsert) is not served by the local Data API stand-in");
  }
  throw pgrstErrors.unsupportedMethod(method);
}

async function answerRpc(
  tx: TransactionSql,
  request: Request,
  name: string,
  query: QueryParams,
  preferences: Preferences,
  shape: BodyShape,
  args: Record<string, unknown>,
): Promise<Answer> {
  const viaPost = request.method === "POST";
  const routine = chooseRoutine(await findRoutines(tx, name), name, Object.keys(args), viaPost);
  // PostgREST's transaction mode: GET/HEAD, and POST to a STABLE or IMMUTABLE function, run read-only.
  if (!viaPost || routine.volatility !== "volatile") await readOnly(tx);
  const range = requestedRange(
    request.method,
    request.headers.get("range"),
    query.limit,
    query.offset,
    maxRows,
  );
  const withCount = preferences.count !== undefined;
  const row = await run(tx, callStatement(routine, args, query, range, shape, withCount), shape);
  const total = totalOf(row);
  const rangeHeader = contentRange(range.offset, range.offset + row.page_total - 1, total);
  const appliedValue = preferenceApplied(preferences, ["count"]);
  const headers: Record<string, string> = {
    "Content-Range": rangeHeader,
    ...(appliedValue ? { "Preference-Applied": appliedValue } : {}),
  };
  if (routine.returns === "void") return { status: 204, headers, body: null };
  headers["Content-Type"] = contentType(shape);
  const status = readStatus(range.offset, row.page_total, total);
  return { status, headers, body: request.method === "HEAD" ? null : row.body };
}

async function answer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const target = targetOf(url.pathname);
  if (target === "root") throw pgrstErrors.openApiDisabled();
  const method = request.method;
  if (target.kind === "rpc" && !["GET", "HEAD", "POST"].includes(method)) {
    throw pgrstErrors.invalidRpcMethod(method);
  }
  const identity = await identityOf(request);
  const negotiatedProfile = checkProfile(request);
  const shape = shapeOf(request.headers.get("accept"));
  const preferences = parsePreferences(request.headers.get("prefer"));
  const search = new URLSearchParams(url.search);
  search.delete("apikey");
  const rpcRead = target.kind === "rpc" && method !== "POST";
  const query = parseQueryParams(search, rpcRead);
  let args: Record<string, unknown> = {};
  if (target.kind === "rpc") {
    if (rpcRead) args = query.rpcArgs;
    else {
      const body = await jsonBody(request, {});
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        throw pgrstErrors.invalidBody("The function's arguments must be a JSON object of named arguments");
      }
      args = body as Record<string, unknown>;
    }
  }
  const path = url.pathname.replace(/^\/rest\/v1/, "");
  const authenticated = identity.role !== "anon";
  let result: Answer;
  try {
    result = await restDatabase().begin(async (tx) => {
      await setRequestContext(tx, request, identity, path);
      return target.kind === "table"
        ? await answerTable(tx, request, target.name, query, preferences, shape, search)
        : await answerRpc(tx, request, target.name, query, preferences, shape, args);
    });
  } catch (error) {
    if (isDatabaseError(error) && !isUnreachable(error)) throw fromDatabaseError(error, authenticated);
    throw error;
  }
  const headers: Record<string, string> = { ...result.headers };
  if (negotiatedProfile) headers["Content-Profile"] = exposedSchema;
  return new Response(result.body, { status: result.status, headers });
}

function failure(error: unknown): Response {
  if (error instanceof PostgrestError) return errorResponse(error);
  if (error instanceof GatewayKeyError) {
    return Response.json(error.body, { status: 401 });
  }
  if (isUnreachable(error)) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? null;
    if (cause && /timeout exceeded when trying to connect/i.test(cause)) {
      return errorResponse(pgrstErrors.poolTimeout());
    }
    return errorResponse(pgrstErrors.connection(cause));
  }
  console.error(`[rest] ${errorForLog(error)}`);
  return errorResponse(
    new PostgrestError(500, {
      code: "PGRSTX00",
      message: "Internal error of the local Data API stand-in",
      details: null,
      hint: null,
    }),
  );
}

/** Answers one `/rest/v1/...` request of the local gateway. */
export async function handleRestRequest(request: Request): Promise<Response> {
  const origin = request.headers.get("origin");
  if (request.method === "OPTIONS") return preflightResponse(request);
  let response: Response;
  try {
    response = await answer(request);
  } catch (error) {
    response = failure(error);
  }
  if (origin) {
    for (const [name, value] of Object.entries(corsHeaders())) {
      response.headers.set(name, value);
    }
  }
  return response;
}
