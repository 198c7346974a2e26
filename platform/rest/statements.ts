/**
 * The SQL of one Data API request, shaped as PostgREST's (`Query/QueryBuilder.hs`, `Query/Statements.hs`):
 * the main query in a CTE, then one row with the JSON body (`json_agg` of the rows, PostgreSQL's own JSON),
 * the number of rows in the page and, when asked, the total. Names come from the parsed request but are
 * always quoted identifiers (`"…"`, `"` doubled); every value is a bound parameter (`$n`); type names come
 * from the catalog (function parameters) or are plain words (casts, checked here). Pure: no I/O.
 */
import { pgrstErrors } from "./errors.ts";
import type { Filter, LogicTree, OrderTerm, QueryParams, SelectField } from "./query_params.ts";
import type { RowRange } from "./preferences.ts";

export interface Statement {
  text: string;
  values: unknown[];
}

/** The shape of the body: an array of rows, or one object (`application/vnd.pgrst.object+json`). */
export interface BodyShape {
  single: boolean;
  stripNulls: boolean;
}

/** `"name"` with `"` doubled: any text is a safe identifier. */
export function quoteIdentifier(name: string): string {
  if (name.includes("\u0000")) throw pgrstErrors.queryParam("Identifiers cannot contain NUL", name);
  return `"${name.replaceAll('"', '""')}"`;
}

export const exposedSchema = "public";

function tableIdentifier(table: string): string {
  return `${quoteIdentifier(exposedSchema)}.${quoteIdentifier(table)}`;
}

/** Collects bound values; `add` answers the placeholder. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const castPattern = /^[A-Za-z_][A-Za-z0-9_]*( [A-Za-z_][A-Za-z0-9_]*)*(\[\])?$/;

function selectList(items: readonly SelectField[], qualifier: string): string {
  if (items.length === 0) return "";
  return items.map((item) => {
    if (item.name === "*") return `${qualifier}.*`;
    let expression = `${qualifier}.${quoteIdentifier(item.name)}`;
    if (item.cast !== undefined) {
      if (!castPattern.test(item.cast)) throw pgrstErrors.queryParam("Invalid cast", item.cast);
      expression = `CAST(${expression} AS ${item.cast})`;
    }
    const alias = item.alias ?? (item.cast !== undefined ? item.name : undefined);
    return alias === undefined ? expression : `${expression} AS ${quoteIdentifier(alias)}`;
  }).join(", ");
}

const quantSql: Record<string, string> = {
  eq: "=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  like: "LIKE",
  ilike: "ILIKE",
  match: "~",
  imatch: "~*",
};
const simpleSql: Record<string, string> = {
  neq: "<>",
  cs: "@>",
  cd: "<@",
  ov: "&&",
  sl: "<<",
  sr: ">>",
  nxr: "&<",
  nxl: "&>",
  adj: "-|-",
};

function filterSql(filter: Filter, qualifier: string, parameters: Parameters): string {
  const column = `${qualifier}.${quoteIdentifier(filter.column)}`;
  const operation = filter.operation;
  let sql: string;
  switch (operation.kind) {
    case "quant": {
      const isLike = operation.operator === "like" || operation.operator === "ilike";
      const value = isLike ? operation.value.replaceAll("*", "%") : operation.value;
      const operator = quantSql[operation.operator];
      sql = operation.quantifier
        ? `${column} ${operator} ${operation.quantifier.toUpperCase()}(${parameters.add(value)})`
        : `${column} ${operator} ${parameters.add(value)}`;
      break;
    }
    case "simple":
      sql = `${column} ${simpleSql[operation.operator]} ${parameters.add(operation.value)}`;
      break;
    case "in": {
      // `in.()` is an empty list (PostgREST: `= ANY('{}')`), so it matches nothing.
      const empty = operation.values.length === 1 && operation.values[0] === "";
      sql = `${column} = ANY(${parameters.add(empty ? [] : operation.values)})`;
      break;
    }
    case "is":
      sql = `${column} IS ${operation.value === "not_null" ? "NOT NULL" : operation.value.toUpperCase()}`;
      break;
    case "isdistinct":
      sql = `${column} IS DISTINCT FROM ${parameters.add(operation.value)}`;
      break;
  }
  return filter.negated ? `NOT (${sql})` : sql;
}

function logicSql(tree: LogicTree, qualifier: string, parameters: Parameters): string {
  if (tree.kind === "filter") return filterSql(tree.filter, qualifier, parameters);
  const joined = tree.children.map((child) => logicSql(child, qualifier, parameters))
    .join(tree.operator === "and" ? " AND " : " OR ");
  return `${tree.negated ? "NOT " : ""}(${joined})`;
}

/** ` WHERE …` for the filters and or/and trees (empty when there are none). */
function whereSql(query: QueryParams, qualifier: string, parameters: Parameters): string {
  const conditions = [
    ...query.filters.map((filter) => filterSql(filter, qualifier, parameters)),
    ...query.logic.map((tree) => logicSql(tree, qualifier, parameters)),
  ];
  return conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
}

function orderSql(order: readonly OrderTerm[], qualifier: string): string {
  if (order.length === 0) return "";
  return ` ORDER BY ${
    order.map((term) =>
      `${qualifier}.${quoteIdentifier(term.column)}${
        term.direction ? ` ${term.direction.toUpperCase()}` : ""
      }${term.nulls ? ` NULLS ${term.nulls.toUpperCase()}` : ""}`
    ).join(", ")
  }`;
}

function rangeSql(range: RowRange): string {
  return `${range.limit !== undefined ? ` LIMIT ${Math.trunc(range.limit)}` : ""}${
    range.offset > 0 ? ` OFFSET ${Math.trunc(range.offset)}` : ""
  }`;
}

/** The body expression over `_postgrest_t` (PostgREST's `asJsonF` / `asJsonSingleF`). */
function bodySql(shape: BodyShape, scalar: "no" | "one" | "set" = "no"): string {
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

/** `GET /rest/v1/<table>`: one statement for the page, and the total when `count` is asked. */
export function readStatement(
  table: string,
  query: QueryParams,
  range: RowRange,
  shape: BodyShape,
  withCount: boolean,
): Statement {
  const parameters = new Parameters();
  const qualifier = quoteIdentifier(table);
  const where = whereSql(query, qualifier, parameters);
  const source = `SELECT ${selectList(query.select, qualifier)} FROM ${tableIdentifier(table)}${where}${
    orderSql(query.order, qualifier)
  }${rangeSql(range)}`;
  const total = withCount
    ? `(SELECT pg_catalog.count(*) FROM ${tableIdentifier(table)}${where})::bigint`
    : "null";
  return {
    text: `WITH pgrst_source AS (${source}) ${
      finalSelect(bodySql(shape), total, "(SELECT * FROM pgrst_source) _postgrest_t")
    }`,
    values: parameters.values,
  };
}

/**
 * `RETURNING` the columns `select` names (`*`: every column), as PostgREST does: a column the role may not
 * read is never touched unless asked for; `RETURNING 1` without a representation, only to count the rows.
 */
function returningSql(table: string, select: readonly SelectField[], representation: boolean): string {
  if (!representation) return " RETURNING 1";
  if (select.some((item) => item.name === "*")) return ` RETURNING ${tableIdentifier(table)}.*`;
  const columns = [...new Set(select.map((item) => item.name))];
  if (columns.length === 0) return " RETURNING 1";
  return ` RETURNING ${
    columns.map((column) => `${tableIdentifier(table)}.${quoteIdentifier(column)}`).join(", ")
  }`;
}

function mutationResult(
  table: string,
  mutation: string,
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
  inserted = "null",
): string {
  const qualifier = quoteIdentifier(table);
  const from = representation
    ? `(SELECT ${selectList(query.select, qualifier)} FROM pgrst_source AS ${qualifier}) _postgrest_t`
    : "(SELECT * FROM pgrst_source) _postgrest_t";
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
}

/** `POST /rest/v1/<table>`: the rows come as one JSON parameter through `json_populate_recordset`. */
export function insertStatement(
  table: string,
  rows: readonly Record<string, unknown>[],
  query: QueryParams,
  shape: BodyShape,
  options: InsertOptions,
): Statement {
  const parameters = new Parameters();
  const columns = options.columns.map(quoteIdentifier);
  const body = parameters.add(JSON.stringify(rows));
  let mutation =
    `INSERT INTO ${tableIdentifier(table)}${columns.length > 0 ? `(${columns.join(", ")})` : ""} ` +
    `SELECT ${columns.join(", ")} FROM json_populate_recordset(NULL::${
      tableIdentifier(table)
    }, ${body}::json) _`;
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
  return {
    text: mutationResult(
      table,
      mutation,
      query,
      shape,
      options.representation,
      merging ? insertedSql : "null",
    ),
    values: parameters.values,
  };
}

/** `PATCH /rest/v1/<table>`: the new values as one JSON parameter through `json_populate_record`. */
export function updateStatement(
  table: string,
  values: Record<string, unknown>,
  columns: readonly string[],
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
): Statement {
  const parameters = new Parameters();
  const qualifier = quoteIdentifier(table);
  const body = parameters.add(JSON.stringify(values));
  const set = columns.map((column) => `${quoteIdentifier(column)} = pgrst_body.${quoteIdentifier(column)}`);
  const mutation = `UPDATE ${tableIdentifier(table)} SET ${set.join(", ")} FROM (SELECT * FROM ` +
    `json_populate_record(NULL::${tableIdentifier(table)}, ${body}::json)) pgrst_body${
      whereSql(query, qualifier, parameters)
    }${returningSql(table, query.select, representation)}`;
  return { text: mutationResult(table, mutation, query, shape, representation), values: parameters.values };
}

/** `DELETE /rest/v1/<table>`. */
export function deleteStatement(
  table: string,
  query: QueryParams,
  shape: BodyShape,
  representation: boolean,
): Statement {
  const parameters = new Parameters();
  const qualifier = quoteIdentifier(table);
  const mutation = `DELETE FROM ${tableIdentifier(table)}${whereSql(query, qualifier, parameters)}${
    returningSql(table, query.select, representation)
  }`;
  return { text: mutationResult(table, mutation, query, shape, representation), values: parameters.values };
}

export interface RoutineParameter {
  name: string;
  /** The type as `format_type` gives it (catalog text, never request text). */
  type: string;
  hasDefault: boolean;
  variadic: boolean;
}

export interface Routine {
  name: string;
  parameters: RoutineParameter[];
  volatility: "immutable" | "stable" | "volatile";
  returnsSet: boolean;
  returns: "void" | "scalar" | "composite";
}

/**
 * The overload of `name` that takes exactly these named arguments: every argument names a parameter and
 * every parameter without a default is given (PostgREST's rule). None is PGRST202, several PGRST203.
 */
export function chooseRoutine(
  overloads: readonly Routine[],
  name: string,
  argumentNames: readonly string[],
  viaPost: boolean,
): Routine {
  const given = new Set(argumentNames);
  const matching = overloads.filter((routine) =>
    argumentNames.every((argument) => routine.parameters.some((parameter) => parameter.name === argument)) &&
    routine.parameters.every((parameter) => parameter.hasDefault || given.has(parameter.name))
  );
  if (matching.length === 1) return matching[0];
  if (matching.length === 0) {
    const hint = overloads.length > 0
      ? `Perhaps you meant to call the function public.${name}(${
        overloads[0].parameters.map((parameter) => parameter.name).sort().join(", ")
      })`
      : null;
    throw pgrstErrors.noRpc(name, argumentNames, viaPost, hint);
  }
  throw pgrstErrors.ambiguousRpc(
    matching.map((routine) =>
      `public.${routine.name}(${
        routine.parameters.map((parameter) => `${parameter.name} => ${parameter.type}`).join(", ")
      })`
    ),
  );
}

/**
 * `POST|GET /rest/v1/rpc/<fn>`: the arguments as one JSON parameter read by `json_to_record` with the
 * parameters' catalog types, passed by name; then `select`, filters, order and range over the result, as
 * PostgREST applies them to a function's rows.
 */
export function callStatement(
  routine: Routine,
  args: Record<string, unknown>,
  query: QueryParams,
  range: RowRange,
  shape: BodyShape,
  withCount: boolean,
): Statement {
  const parameters = new Parameters();
  const given = routine.parameters.filter((parameter) => Object.hasOwn(args, parameter.name));
  const call = `${tableIdentifier(routine.name)}(${
    given.map((parameter) =>
      `${parameter.variadic ? "VARIADIC " : ""}${quoteIdentifier(parameter.name)} := pgrst_body.${
        quoteIdentifier(parameter.name)
      }`
    ).join(", ")
  })`;
  const record = given.length > 0
    ? `json_to_record(${parameters.add(JSON.stringify(args))}::json) AS pgrst_body(${
      given.map((parameter) => `${quoteIdentifier(parameter.name)} ${parameter.type}`).join(", ")
    })`
    : undefined;
  const qualifier = quoteIdentifier("pgrst_call");
  if (routine.returns !== "composite") {
    const source = `SELECT ${call} AS pgrst_scalar${record ? ` FROM ${record}` : ""}`;
    const scalar = routine.returnsSet ? "set" : "one";
    return {
      text: `WITH pgrst_source AS (${source}) ${
        finalSelect(
          bodySql({ single: shape.single, stripNulls: false }, scalar),
          withCount ? "(SELECT pg_catalog.count(*) FROM pgrst_source)::bigint" : "null",
          `(SELECT * FROM pgrst_source${rangeSql(range)}) _postgrest_t`,
        )
      }`,
      values: parameters.values,
    };
  }
  const source = record
    ? `SELECT ${qualifier}.* FROM ${record}, LATERAL ${call} ${qualifier}`
    : `SELECT ${qualifier}.* FROM ${call} ${qualifier}`;
  const where = whereSql(query, qualifier, parameters);
  const page = `SELECT ${selectList(query.select, qualifier)} FROM pgrst_source AS ${qualifier}${where}${
    orderSql(query.order, qualifier)
  }${rangeSql(range)}`;
  const total = withCount
    ? `(SELECT pg_catalog.count(*) FROM pgrst_source AS ${qualifier}${where})::bigint`
    : "null";
  const single = !routine.returnsSet || shape.single;
  return {
    text: `WITH pgrst_source AS (${source}) ${
      finalSelect(bodySql({ single, stripNulls: shape.stripNulls }), total, `(${page}) _postgrest_t`)
    }`,
    values: parameters.values,
  };
}
