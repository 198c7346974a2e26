/**
 * The SQL of one Data API request, shaped as PostgREST's (`Query/QueryBuilder.hs`, `Query/Statements.hs`):
 * the main query in a CTE, then one row with the JSON body (`json_agg` of the rows, PostgreSQL's own JSON),
 * the number of rows in the page and, when asked, the total. Names come from the parsed request but are
 * always quoted identifiers (`"…"`, `"` doubled); every value is a bound parameter (`$n`); type names come
 * from the catalog (function parameters) or are plain words (casts, checked here). Pure: no I/O.
 */
import { buildLevel, newBuildState, type ReadCatalog } from "./embedding.ts";
import { orderSql, Parameters, qualified, quoteIdentifier, rangeSql, whereSql } from "./fragments.ts";
import type { QueryParams } from "./query_params.ts";
import type { RowRange } from "./preferences.ts";
import type { Relation } from "./relationships.ts";
import type { SelectItem } from "./select.ts";

export { quoteIdentifier };

export interface Statement {
  text: string;
  values: unknown[];
}

/** The shape of the body: an array of rows, or one object (`application/vnd.pgrst.object+json`). */
export interface BodyShape {
  single: boolean;
  stripNulls: boolean;
  /** `text/csv` or `application/geo+json` (PostgREST's built-in media types); JSON otherwise. */
  format?: "csv" | "geojson";
}

/** The body expression over `_postgrest_t` (PostgREST's `asJsonF` / `asJsonSingleF`). */
function bodySql(shape: BodyShape, scalar: "no" | "one" | "set" = "no"): string {
  // PostgREST's asCsvF and asGeoJsonF (Query/SqlFragment.hs).
  if (shape.format === "csv") {
    return "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k FROM " +
      "(SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || chr(10) || " +
      "coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10)), '')";
  }
  if (shape.format === "geojson") {
    return "json_build_object('type', 'FeatureCollection', 'features', " +
      "coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text";
  }
  const rows = scalar === "no" ? "_postgrest_t" : "_postgrest_t.pgrst_scalar";
  const strip = (expression: string) => shape.stripNulls ? `json_strip_nulls(${expression})` : expression;
  if (shape.single || scalar === "one") return `coalesce(${strip(`json_agg(${rows})->0`)}, 'null')::text`;
  return `coalesce(${strip(`json_agg(${rows})`)}, '[]')::text`;
}

function finalSelect(body: string, total: string, from: string, inserted = "null"): string {
  return `SELECT ${body} AS body, pg_catalog.count(_postgrest_t)::int AS page_total, ${total} AS total, ` +
    `${inserted} AS inserted FROM ${from}`;
}

/**
 * PostgREST's count of the rows an upsert inserted (`pgrst.inserted`): +1 for each proposed row, -1 for
 * each that updated instead, so a merge that only updated answers 200 rather than 201.
 */
const countInserted = (sign: "+" | "-") =>
  `pg_catalog.set_config('pgrst.inserted', (coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0) ${sign} 1)::text, true) <> '${
    sign === "+" ? "0" : "-1"
  }'`;
const insertedSql = "nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int";

/** The rows of one level with their embedded resources: `SELECT … FROM <from> <joins> WHERE …`. */
function levelQuery(
  parameters: Parameters,
  catalog: ReadCatalog,
  query: QueryParams,
  from: string,
  qualifier: string,
  relation: Relation | undefined,
  extraConditions: string[] = [],
): { select: string; fromWhere: string; order: string } {
  const state = newBuildState(parameters, catalog, query);
  const level = buildLevel(state, query.select, qualifier, relation, []);
  const { scope, conditions } = level.scopeConditions(query);
  const where = whereSql(scope, qualifier, parameters, [
    ...extraConditions,
    ...level.conditions,
    ...conditions,
  ]);
  const selectList = level.selectList.length > 0 ? level.selectList.join(", ") : "";
  return {
    select: selectList,
    fromWhere: `${from}${level.joins.map((join) => ` ${join}`).join("")}${where}`,
    order: orderSql(scope.order, qualifier, parameters),
  };
}

/** `GET /rest/v1/<table>`: one statement for the page, and the total when `count` is asked. */
export function readStatement(
  target: Relation,
  query: QueryParams,
  range: RowRange,
  shape: BodyShape,
  withCount: boolean,
  catalog: ReadCatalog,
): Statement {
  const parameters = new Parameters();
  const qualifier = quoteIdentifier(target.name);
  const from = `${qualified(target.schema, target.name)} AS ${qualifier}`;
  const level = levelQuery(parameters, catalog, query, from, qualifier, target);
  const source = `SELECT ${level.select} FROM ${level.fromWhere}${level.order}${rangeSql(range)}`;
  const total = withCount ? `(SELECT pg_catalog.count(*) FROM ${level.fromWhere})::bigint` : "null";
  return {
    text: `WITH pgrst_source AS (${source}) ${
      finalSelect(bodySql(shape), total, "(SELECT * FROM pgrst_source) _postgrest_t")
    }`,
    values: parameters.values,
  };
}

/** The count query PostgREST plans for `count=planned` (its EXPLAIN row estimate is the total). */
export function plannedCountStatement(target: Relation, query: QueryParams, catalog: ReadCatalog): Statement {
  const parameters = new Parameters();
  const qualifier = quoteIdentifier(target.name);
  const from = `${qualified(target.schema, target.name)} AS ${qualifier}`;
  const level = levelQuery(parameters, catalog, query, from, qualifier, target);
  return { text: `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${level.fromWhere}`, values: parameters.values };
}

function hasEmbeds(select: readonly SelectItem[]): boolean {
  return select.some((item) => item.kind === "embed" || item.kind === "star");
}

/**
 * `RETURNING` the columns `select` names (`*` or embedded resources: every column), as PostgREST does: a
 * column the role may not read is never touched unless asked for; `RETURNING 1` without a representation,
 * only to count the rows.
 */
function returningSql(table: string, select: readonly SelectItem[], representation: boolean): string {
  if (!representation) return " RETURNING 1";
  if (hasEmbeds(select)) return ` RETURNING ${table}.*`;
  const columns = [
    ...new Set(select.flatMap((item) => item.kind === "column" ? [item.name] : [])),
  ];
  if (columns.length === 0) return " RETURNING 1";
  return ` RETURNING ${columns.map((column) => `${table}.${quoteIdentifier(column)}`).join(", ")}`;
}

function mutationResult(
  target: Relation,
  mutation: string,
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
  parameters: Parameters,
  catalog: ReadCatalog,
  inserted = "null",
): string {
  const qualifier = quoteIdentifier(target.name);
  let from = "(SELECT * FROM pgrst_source) _postgrest_t";
  if (representation) {
    const level = levelQuery(
      parameters,
      catalog,
      { ...query, filters: [], logic: [], order: query.order },
      `pgrst_source AS ${qualifier}`,
      qualifier,
      target,
    );
    from = `(SELECT ${level.select} FROM ${level.fromWhere}${level.order}) _postgrest_t`;
  }
  return `WITH pgrst_source AS (${mutation}) ${
    finalSelect(representation ? bodySql(shape) : "''", "null", from, inserted)
  }`;
}

export interface InsertOptions {
  /** The columns to insert (the `columns` parameter, else the keys of the payload). */
  columns: readonly string[];
  representation: boolean;
  /** `Prefer: resolution=…` with the conflict target (on_conflict, else the primary key). */
  onConflict?: { resolution: "merge-duplicates" | "ignore-duplicates"; columns: readonly string[] };
  /**
   * `Prefer: missing=default`: the written columns' default expressions (catalog text); a key a row lacks
   * takes the column's default, not NULL. Undefined for `missing=null`.
   */
  defaults?: Record<string, string>;
}

/**
 * `POST /rest/v1/<table>`: the rows come as one JSON parameter through `json_populate_recordset`; with
 * `missing=default`, as PostgREST's `fromJsonBodyF`: each element is `jsonb_build_object(<column>, <its
 * default>, …) || element`, so every default is evaluated once per row (a sequence advances for each row,
 * as on PostgREST) and the payload's keys win.
 */
export function insertStatement(
  target: Relation,
  rows: readonly Record<string, unknown>[],
  query: QueryParams,
  shape: BodyShape,
  options: InsertOptions,
  catalog: ReadCatalog,
): Statement {
  const parameters = new Parameters();
  const table = qualified(target.schema, target.name);
  const columns = options.columns.map(quoteIdentifier);
  let mutation: string;
  if (options.defaults && columns.length > 0) {
    const defaults = options.columns.filter((column) => options.defaults![column] !== undefined).map((
      column,
    ) => `${parameters.add(column)}::text, ${options.defaults![column]}`);
    const body = parameters.add(JSON.stringify(rows));
    mutation = `INSERT INTO ${table}(${columns.join(", ")}) SELECT ${
      columns.map((column) => `_.${column}`).join(", ")
    } FROM (SELECT jsonb_agg(jsonb_build_object(${defaults.join(", ")}) || pgrst_element) AS val ` +
      `FROM jsonb_array_elements(${body}::jsonb) pgrst_element) pgrst_json_defs, ` +
      `LATERAL jsonb_populate_recordset(NULL::${table}, pgrst_json_defs.val) _`;
  } else {
    const body = parameters.add(JSON.stringify(rows));
    mutation = `INSERT INTO ${table}${columns.length > 0 ? `(${columns.join(", ")})` : ""} ` +
      `SELECT ${columns.join(", ")} FROM json_populate_recordset(NULL::${table}, ${body}::json) _`;
  }
  const conflictTarget = options.onConflict?.columns.map(quoteIdentifier).join(", ");
  const merging = options.onConflict?.resolution === "merge-duplicates" && !!conflictTarget &&
    columns.length > 0;
  if (merging) mutation += ` WHERE ${countInserted("+")}`;
  if (conflictTarget) {
    mutation += merging
      ? ` ON CONFLICT(${conflictTarget}) DO UPDATE SET ${
        columns.map((column) => `${column} = EXCLUDED.${column}`).join(", ")
      } WHERE ${countInserted("-")}`
      : ` ON CONFLICT(${conflictTarget}) DO NOTHING`;
  }
  mutation += returningSql(table, query.select, options.representation);
  const countsInserted = merging;
  return {
    text: mutationResult(
      target,
      mutation,
      query,
      shape,
      options.representation,
      parameters,
      catalog,
      countsInserted ? insertedSql : "null",
    ),
    values: parameters.values,
  };
}

/** `PATCH /rest/v1/<table>`: the new values as one JSON parameter through `json_populate_record`. */
export function updateStatement(
  target: Relation,
  values: Record<string, unknown>,
  columns: readonly string[],
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
  catalog: ReadCatalog,
): Statement {
  const parameters = new Parameters();
  const table = qualified(target.schema, target.name);
  const qualifier = quoteIdentifier(target.name);
  const body = parameters.add(JSON.stringify(values));
  const set = columns.map((column) => `${quoteIdentifier(column)} = pgrst_body.${quoteIdentifier(column)}`);
  const mutation = `UPDATE ${table} AS ${qualifier} SET ${set.join(", ")} FROM (SELECT * FROM ` +
    `json_populate_record(NULL::${table}, ${body}::json)) pgrst_body${
      whereSql(query, qualifier, parameters)
    }${returningSql(qualifier, query.select, representation)}`;
  return {
    text: mutationResult(target, mutation, query, shape, representation, parameters, catalog),
    values: parameters.values,
  };
}

/** `DELETE /rest/v1/<table>`. */
export function deleteStatement(
  target: Relation,
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
  catalog: ReadCatalog,
): Statement {
  const parameters = new Parameters();
  const table = qualified(target.schema, target.name);
  const qualifier = quoteIdentifier(target.name);
  const mutation = `DELETE FROM ${table} AS ${qualifier}${whereSql(query, qualifier, parameters)}${
    returningSql(qualifier, query.select, representation)
  }`;
  return {
    text: mutationResult(target, mutation, query, shape, representation, parameters, catalog),
    values: parameters.values,
  };
}
