/**
 * The pieces of SQL every Data API statement shares: quoted identifiers, bound parameters, column
 * expressions (with JSON paths and casts), filters (with full-text search), or/and trees, order and range.
 * Names are always quoted identifiers (`"…"`, `"` doubled); every value is a bound parameter (`$n`). Pure.
 */
import { pgrstErrors } from "./errors.ts";
import type { Filter, LogicTree, OrderTerm, Scope } from "./query_params.ts";
import type { RowRange } from "./preferences.ts";
import type { JsonStep } from "./select.ts";

/** `"name"` with `"` doubled: any text is a safe identifier. */
export function quoteIdentifier(name: string): string {
  if (name.includes("\u0000")) throw pgrstErrors.queryParam("Identifiers cannot contain NUL", name);
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"schema"."name"`. */
export function qualified(schema: string, name: string): string {
  return `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
}

/** Collects bound values; `add` answers the placeholder. */
export class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export const castPattern = /^[A-Za-z_][A-Za-z0-9_]*( [A-Za-z_][A-Za-z0-9_]*)*(\[\])?$/;

/** A column, or a JSON path into it (`"t"."data"->'a'->>'b'`; keys and indexes bound as values). */
export function columnSql(
  qualifier: string,
  column: string,
  path: readonly JsonStep[] | undefined,
  parameters: Parameters,
): string {
  let expression = `${qualifier}.${quoteIdentifier(column)}`;
  for (const step of path ?? []) {
    const key = step.index ? `${parameters.add(Number(step.key))}::int` : `${parameters.add(step.key)}::text`;
    expression = `${expression}${step.arrow}${key}`;
  }
  return path && path.length > 0 ? `(${expression})` : expression;
}

export function castSql(expression: string, cast: string | undefined): string {
  if (cast === undefined) return expression;
  if (!castPattern.test(cast)) throw pgrstErrors.queryParam("Invalid cast", cast);
  return `CAST(${expression} AS ${cast})`;
}

const ftsFunctions = {
  fts: "to_tsquery",
  plfts: "plainto_tsquery",
  phfts: "phraseto_tsquery",
  wfts: "websearch_to_tsquery",
};

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

export function filterSql(filter: Filter, qualifier: string, parameters: Parameters): string {
  const column = columnSql(qualifier, filter.column, filter.path, parameters);
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
    case "fts": {
      const query = operation.language === undefined
        ? `${ftsFunctions[operation.operator]}(${parameters.add(operation.value)})`
        : `${ftsFunctions[operation.operator]}(${parameters.add(operation.language)}::regconfig, ${
          parameters.add(operation.value)
        })`;
      sql = `${column} @@ ${query}`;
      break;
    }
  }
  return filter.negated ? `NOT (${sql})` : sql;
}

export function logicSql(tree: LogicTree, qualifier: string, parameters: Parameters): string {
  if (tree.kind === "filter") return filterSql(tree.filter, qualifier, parameters);
  const joined = tree.children.map((child) => logicSql(child, qualifier, parameters))
    .join(tree.operator === "and" ? " AND " : " OR ");
  return `${tree.negated ? "NOT " : ""}(${joined})`;
}

/** The conditions of a scope's filters and or/and trees. */
export function conditionsSql(scope: Scope, qualifier: string, parameters: Parameters): string[] {
  return [
    ...scope.filters.map((filter) => filterSql(filter, qualifier, parameters)),
    ...scope.logic.map((tree) => logicSql(tree, qualifier, parameters)),
  ];
}

/** ` WHERE …` for the filters and or/and trees (empty when there are none). */
export function whereSql(
  scope: Scope,
  qualifier: string,
  parameters: Parameters,
  more: string[] = [],
): string {
  const conditions = [...conditionsSql(scope, qualifier, parameters), ...more];
  return conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
}

export function orderSql(order: readonly OrderTerm[], qualifier: string, parameters: Parameters): string {
  if (order.length === 0) return "";
  return ` ORDER BY ${
    order.map((term) =>
      `${columnSql(qualifier, term.column, term.path, parameters)}${
        term.direction ? ` ${term.direction.toUpperCase()}` : ""
      }${term.nulls ? ` NULLS ${term.nulls.toUpperCase()}` : ""}`
    ).join(", ")
  }`;
}

export function rangeSql(range: RowRange): string {
  return `${range.limit !== undefined ? ` LIMIT ${Math.trunc(range.limit)}` : ""}${
    range.offset > 0 ? ` OFFSET ${Math.trunc(range.offset)}` : ""
  }`;
}
