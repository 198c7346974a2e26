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
import { findRoutines, findTable, readCatalog, routineNames, type TableInfo } from "./catalog.ts";
import { embeds } from "./embedding.ts";
import type { ReadCatalog } from "./embedding.ts";
import { corsHeaders, preflightResponse } from "./cors.ts";
import { restDatabase } from "./database.ts";
import { errorResponse, fromDatabaseError, isDatabaseError, pgrstErrors, PostgrestError } from "./errors.ts";
import { GatewayKeyError, type Identity, identityOf } from "./identity.ts";
import {
  contentRange,
  maxAffectedApplies,
  parsePreferences,
  preferenceApplied,
  type Preferences,
  readStatus,
  requestedRange,
} from "./preferences.ts";
import { parseQueryParams, type QueryParams } from "./query_params.ts";
import {
  type BodyShape,
  deleteStatement,
  insertStatement,
  plannedCountStatement,
  readStatement,
  type Statement,
  updateStatement,
} from "./statements.ts";
import { type BodyMedia, callStatement, chooseRoutine } from "./rpc.ts";
import { quoteIdentifier } from "./fragments.ts";
import { errorForLog } from "../../supabase/functions/_shared/log_text.ts";

/** supabase/config.toml `[api] max_rows`: no read answers more rows than this. */
const maxRows = 1000;

/**
 * The exposed schemas (PostgREST's `db-schemas`; Supabase's `[api] schemas`): `PGRST_DB_SCHEMAS`, comma
 * separated, else `public`. The first is the default profile.
 */
export function exposedSchemas(): string[] {
  const configured = (Deno.env.get("PGRST_DB_SCHEMAS") ?? "").split(",").map((each) => each.trim()).filter(
    Boolean,
  );
  return configured.length > 0 ? configured : ["public"];
}

/** `search_path`: the request's schema, then Supabase's `extra_search_path` (public, extensions). */
function searchPathOf(schema: string): string {
  return [...new Set([schema, "public", "extensions"])].map(quoteIdentifier).join(", ");
}

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
    if (type === "text/csv") return { single: false, stripNulls: false, format: "csv" };
    if (type === "application/geo+json") return { single: false, stripNulls: false, format: "geojson" };
  }
  throw pgrstErrors.mediaType(offered.map((entry) => entry.split(";")[0].trim()));
}

/** True for an empty body or a JSON object (named arguments); false for any other JSON. */
function isObjectBody(raw: string | undefined): boolean {
  if (raw === undefined || raw.trim() === "") return true;
  try {
    const body = JSON.parse(raw);
    return body !== null && typeof body === "object" && !Array.isArray(body);
  } catch {
    return false;
  }
}

function bodyMedia(contentType: string | null): BodyMedia {
  const type = (contentType ?? "application/json").split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type === "") return "json";
  if (type === "text/plain") return "text";
  if (type === "text/xml") return "xml";
  if (type === "application/octet-stream") return "bytea";
  return "other";
}

function contentType(shape: BodyShape): string {
  if (shape.format === "csv") return "text/csv; charset=utf-8";
  if (shape.format === "geojson") return "application/geo+json; charset=utf-8";
  const base = shape.single ? "application/vnd.pgrst.object+json" : "application/json";
  return `${base}; charset=utf-8`;
}

/** The schema of the request: Accept-Profile (GET/HEAD) or Content-Profile, else the first exposed. */
function profileOf(request: Request): { schema: string; negotiated: boolean } {
  const schemas = exposedSchemas();
  const reading = request.method === "GET" || request.method === "HEAD";
  const profile = request.headers.get(reading ? "accept-profile" : "content-profile");
  if (profile === null) return { schema: schemas[0], negotiated: schemas.length > 1 };
  if (!schemas.includes(profile)) throw pgrstErrors.unacceptableSchema(profile, schemas);
  return { schema: profile, negotiated: true };
}

async function jsonBody(request: Request, emptyAs?: unknown, raw?: string): Promise<unknown> {
  const text = raw ?? await request.text();
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
  schema: string,
): Promise<void> {
  await tx`
    select set_config('search_path', ${searchPathOf(schema)}, true),
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

/**
 * `count=planned` reads the planner's row estimate, as PostgREST does; `estimated` is exact up to
 * `max_rows` and the estimate beyond it.
 */
async function plannedTotal(tx: TransactionSql, statement: Statement): Promise<number> {
  const [row] = await tx.unsafe<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }[]>(
    statement.text,
    statement.values,
  );
  const plan = row["QUERY PLAN"];
  const parsed = typeof plan === "string" ? JSON.parse(plan) : plan;
  return Math.round(parsed[0].Plan["Plan Rows"]);
}

/** PGRST124 when `max-affected` (with `handling=strict`) is exceeded; the transaction then rolls back. */
function checkMaxAffected(preferences: Preferences, affected: number): void {
  if (maxAffectedApplies(preferences) && affected > preferences.maxAffected!) {
    throw pgrstErrors.maxAffected(affected);
  }
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
  schema: string,
  query: QueryParams,
  preferences: Preferences,
  shape: BodyShape,
  search: URLSearchParams,
): Promise<Answer> {
  const table = await findTable(tx, schema, name);
  if (!table) throw pgrstErrors.tableNotFound(name, null, schema);
  const target = { schema, name };
  const catalog: ReadCatalog = await readCatalog(tx, exposedSchemas(), embeds(query.select));
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
    const exact = preferences.count === "exact" || preferences.count === "estimated";
    const row = await run(tx, readStatement(target, query, range, shape, exact, catalog), shape);
    let total = totalOf(row);
    if (preferences.count === "planned" || (preferences.count === "estimated" && (total ?? 0) > maxRows)) {
      total = await plannedTotal(tx, plannedCountStatement(target, query, catalog));
    }
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
    const statement = insertStatement(target, rows as Record<string, unknown>[], query, shape, {
      columns,
      representation,
      onConflict: preferences.resolution
        ? { resolution: preferences.resolution, columns: conflictColumns }
        : undefined,
      defaults: preferences.missing === "default" ? table.defaults : undefined,
    }, catalog);
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
        target,
        payload as Record<string, unknown>,
        columns,
        query,
        shape,
        representation,
        catalog,
      );
      row = await run(tx, statement, shape);
    }
    checkMaxAffected(preferences, row.page_total);
    const headers: Record<string, string> = {
      "Content-Range": contentRange(0, row.page_total - 1, withCount ? row.page_total : undefined),
      ...applied(["return", "count", "missing", "handling", "max-affected"]),
    };
    if (representation) headers["Content-Type"] = contentType(shape);
    return { status: representation ? 200 : 204, headers, body: representation ? row.body : null };
  }
  if (method === "DELETE") {
    requireWhere(query, "DELETE");
    const row = await run(tx, deleteStatement(target, query, shape, representation, catalog), shape);
    checkMaxAffected(preferences, row.page_total);
    const headers: Record<string, string> = {
      "Content-Range": contentRange(1, 0, withCount ? row.page_total : undefined),
      ...applied(["return", "count", "handling", "max-affected"]),
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
  schema: string,
  query: QueryParams,
  preferences: Preferences,
  shape: BodyShape,
  args: Record<string, unknown>,
  rawBody: string | undefined,
  media: BodyMedia,
): Promise<Answer> {
  const viaPost = request.method === "POST";
  const overloads = await findRoutines(tx, schema, name);
  const names = overloads.length === 0 ? await routineNames(tx, schema) : [];
  const routine = chooseRoutine(overloads, schema, name, Object.keys(args), viaPost, media, names);
  const unnamed = routine.parameters.length === 1 && routine.parameters[0].name === "";
  if (viaPost && media === "json" && !unnamed && !isObjectBody(rawBody)) {
    throw pgrstErrors.invalidBody("The function's arguments must be a JSON object of named arguments");
  }
  if (maxAffectedApplies(preferences) && !routine.returnsSet) throw pgrstErrors.maxAffectedRpc();
  const catalog = await readCatalog(tx, exposedSchemas(), embeds(query.select));
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
  const statement = callStatement(routine, args, rawBody, query, range, shape, withCount, catalog);
  const row = await run(tx, statement, shape);
  checkMaxAffected(preferences, row.page_total);
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
  const profile = profileOf(request);
  const shape = shapeOf(request.headers.get("accept"));
  const preferences = parsePreferences(request.headers.get("prefer"));
  const search = new URLSearchParams(url.search);
  search.delete("apikey");
  const rpcRead = target.kind === "rpc" && method !== "POST";
  const query = parseQueryParams(search, rpcRead);
  let args: Record<string, unknown> = {};
  let rawBody: string | undefined;
  const media = bodyMedia(request.headers.get("content-type"));
  if (target.kind === "rpc") {
    if (rpcRead) args = query.rpcArgs;
    else {
      rawBody = await request.text();
      if (media === "json") {
        const body = await jsonBody(request, {}, rawBody);
        if (body !== null && typeof body === "object" && !Array.isArray(body)) {
          args = body as Record<string, unknown>;
        } else args = {};
      }
    }
  }
  const path = url.pathname.replace(/^\/rest\/v1/, "");
  const authenticated = identity.role !== "anon";
  let result: Answer;
  try {
    result = await restDatabase().begin(async (tx) => {
      await setRequestContext(tx, request, identity, path, profile.schema);
      return target.kind === "table"
        ? await answerTable(tx, request, target.name, profile.schema, query, preferences, shape, search)
        : await answerRpc(
          tx,
          request,
          target.name,
          profile.schema,
          query,
          preferences,
          shape,
          args,
          rawBody,
          media,
        );
    });
  } catch (error) {
    if (isDatabaseError(error) && !isUnreachable(error)) throw fromDatabaseError(error, authenticated);
    throw error;
  }
  const headers: Record<string, string> = { ...result.headers };
  if (profile.negotiated) headers["Content-Profile"] = profile.schema;
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
