/**
 * The select list of one level of a read and its embedded resources, as PostgREST's `QueryBuilder.hs`
 * builds them: each embedded resource is a `LEFT JOIN LATERAL` subquery over its relationship
 * (relationships.ts) with its own filters, order and range (`messages.order=id.desc`); a to-one resource is
 * one JSON object (`row_to_json`) or null, a to-many one a JSON array (`[]` when empty); `!inner` keeps only
 * the rows that have one; a spread (`...channels(slug)`) puts its columns into the parent (to-many: each
 * column as an array). Plain columns come first, then embedded resources, as in PostgREST. Computed fields
 * (a function of the row) are read as columns. Pure: names quoted, values bound (fragments.ts).
 */
import { pgrstErrors } from "./errors.ts";
import {
  castSql,
  columnSql,
  conditionsSql,
  orderSql,
  Parameters,
  qualified,
  quoteIdentifier,
  rangeSql,
} from "./fragments.ts";
import type { QueryParams, Scope } from "./query_params.ts";
import { findRelationship, isToOne, type Relation, type RelationshipCatalog } from "./relationships.ts";
import type { ColumnItem, EmbedItem, SelectItem } from "./select.ts";

/** What the builder knows of the relations it reads: columns (for `*` in spreads) and computed fields. */
export interface ReadCatalog {
  relationships?: RelationshipCatalog;
  columnsOf(relation: Relation): string[] | undefined;
  /** The function `name` taking a row of `relation` (a computed field), or undefined. */
  computedField(relation: Relation, name: string): Relation | undefined;
}

export interface NodeSql {
  /** The select list (never empty: `NULL` stands for no column, as nothing is selected). */
  selectList: string[];
  /** Output names of the select list, when known (for spreads). */
  names: string[];
  joins: string[];
  /** Conditions the embedded resources add to this level (`!inner`, `embedded=not.is.null`). */
  conditions: string[];
}

class Aliases {
  private next = 0;
  fresh(): string {
    this.next += 1;
    return `pgrst_${this.next}`;
  }
}

export interface BuildState {
  parameters: Parameters;
  aliases: Aliases;
  catalog: ReadCatalog;
  query: QueryParams;
}

export function newBuildState(parameters: Parameters, catalog: ReadCatalog, query: QueryParams): BuildState {
  return { parameters, aliases: new Aliases(), catalog, query };
}

function outputName(item: ColumnItem): string | undefined {
  if (item.alias !== undefined) return item.alias;
  if (item.path.length > 0) return item.path.at(-1)!.key;
  if (item.cast !== undefined) return item.name;
  return undefined;
}

function columnItemSql(
  state: BuildState,
  item: ColumnItem,
  qualifier: string,
  relation: Relation | undefined,
): { sql: string; name: string } {
  const computed = relation && item.path.length === 0 &&
      !(state.catalog.columnsOf(relation)?.includes(item.name))
    ? state.catalog.computedField(relation, item.name)
    : undefined;
  const base = computed
    ? `${qualified(computed.schema, computed.name)}(${qualifier})`
    : columnSql(qualifier, item.name, item.path, state.parameters);
  const expression = castSql(base, item.cast);
  const alias = outputName(item) ?? (computed ? item.name : undefined);
  return {
    sql: alias === undefined ? expression : `${expression} AS ${quoteIdentifier(alias)}`,
    name: alias ?? item.name,
  };
}

function scopeFor(query: QueryParams, path: string[], item: EmbedItem): Scope {
  const byAlias = item.alias !== undefined ? query.embedded[[...path, item.alias].join(".")] : undefined;
  return byAlias ?? query.embedded[[...path, item.name].join(".")] ?? { filters: [], logic: [], order: [] };
}

/** Null filters on an embedded resource (`channels=not.is.null`) become conditions on its join. */
function embedNullConditions(scope: Scope, items: SelectItem[], aliasOf: Map<string, string>): {
  scope: Scope;
  conditions: string[];
} {
  const conditions: string[] = [];
  const filters = scope.filters.filter((filter) => {
    const alias = aliasOf.get(filter.column);
    if (alias === undefined || filter.operation.kind !== "is") return true;
    if (!["null", "not_null"].includes(filter.operation.value)) return true;
    const isNull = (filter.operation.value === "null") !== filter.negated;
    conditions.push(`${quoteIdentifier(alias)}.pgrst_found IS ${isNull ? "" : "NOT "}NULL`);
    return false;
  });
  void items;
  return { scope: { ...scope, filters }, conditions };
}

/**
 * Builds the select list, lateral joins and extra conditions of one level whose rows are `qualifier`
 * (a relation, or undefined for a source without known relationships) at `path` of embedded names.
 */
export function buildLevel(
  state: BuildState,
  items: readonly SelectItem[],
  qualifier: string,
  relation: Relation | undefined,
  path: string[],
): NodeSql & { scopeConditions: (scope: Scope) => { scope: Scope; conditions: string[] } } {
  const columns: string[] = [];
  const names: string[] = [];
  const embeds: string[] = [];
  const embedNames: string[] = [];
  const joins: string[] = [];
  const conditions: string[] = [];
  const aliasOf = new Map<string, string>();
  for (const item of items) {
    if (item.kind === "star") {
      columns.push(`${qualifier}.*`);
      names.push(...(relation ? state.catalog.columnsOf(relation) ?? [] : []));
      continue;
    }
    if (item.kind === "column") {
      const column = columnItemSql(state, item, qualifier, relation);
      columns.push(column.sql);
      names.push(column.name);
      continue;
    }
    const embedded = buildEmbed(state, item, qualifier, relation, path);
    joins.push(embedded.join);
    if (embedded.inner) conditions.push(`${quoteIdentifier(embedded.alias)}.pgrst_found IS NOT NULL`);
    aliasOf.set(item.alias ?? item.name, embedded.alias);
    embeds.push(...embedded.select);
    embedNames.push(...embedded.names);
  }
  const selectList = [...columns, ...embeds];
  return {
    selectList,
    names: [...names, ...embedNames],
    joins,
    conditions,
    scopeConditions: (scope) => embedNullConditions(scope, [...items], aliasOf),
  };
}

function buildEmbed(
  state: BuildState,
  item: EmbedItem,
  parentQualifier: string,
  parentRelation: Relation | undefined,
  path: string[],
): { join: string; select: string[]; names: string[]; alias: string; inner: boolean } {
  const catalog = state.catalog.relationships;
  if (!parentRelation || !catalog) {
    throw pgrstErrors.queryParam("Embedding is not possible here", `'${item.name}' cannot be embedded`);
  }
  const relationship = findRelationship(catalog, parentRelation, item.name, item.hint);
  const child = relationship.foreignTable;
  // PostgREST's aliases (`Plan.hs` addRels), so that database errors name what PostgREST's would: the
  // embedded table is `<table>_<depth>`, its lateral join `<parent>_<name or alias>_<depth>`.
  const depth = path.length + 1;
  const alias = `${relationship.table.name}_${item.alias ?? item.name}_${depth}`;
  const childQualifier = quoteIdentifier(`${child.name}_${depth}`);
  const internal = state.aliases.fresh();
  const childPath = [...path, item.alias ?? item.name];
  const level = buildLevel(state, item.children, childQualifier, child, childPath);
  const scope = scopeFor(state.query, path, item);
  const { scope: ownScope, conditions: nullConditions } = level.scopeConditions(scope);
  const parameters = state.parameters;
  let from: string;
  const joinConditions: string[] = [];
  if (relationship.kind === "computed") {
    from = `${
      qualified(relationship.function.schema, relationship.function.name)
    }(${parentQualifier}) AS ${childQualifier}`;
  } else if (relationship.junction) {
    const junction = quoteIdentifier(`${internal}_junction`);
    const j = relationship.junction;
    from = `${qualified(child.schema, child.name)} AS ${childQualifier} INNER JOIN ${
      qualified(j.table.schema, j.table.name)
    } AS ${junction} ON ${
      j.targetColumns.map(([jc, fc]) =>
        `${junction}.${quoteIdentifier(jc)} = ${childQualifier}.${quoteIdentifier(fc)}`
      )
        .join(" AND ")
    }`;
    for (const [jc, oc] of j.sourceColumns) {
      joinConditions.push(`${junction}.${quoteIdentifier(jc)} = ${parentQualifier}.${quoteIdentifier(oc)}`);
    }
  } else {
    from = `${qualified(child.schema, child.name)} AS ${childQualifier}`;
    for (const [pc, cc] of relationship.columns) {
      joinConditions.push(
        `${childQualifier}.${quoteIdentifier(cc)} = ${parentQualifier}.${quoteIdentifier(pc)}`,
      );
    }
  }
  const where = [
    ...joinConditions,
    ...conditionsSql(ownScope, childQualifier, parameters),
    ...level.conditions,
    ...nullConditions,
  ];
  const range = { offset: ownScope.offset ?? 0, limit: ownScope.limit };
  const selectList = level.selectList.length > 0 ? level.selectList : ["NULL AS pgrst_none"];
  const sub = `SELECT ${selectList.join(", ")} FROM ${from}${level.joins.map((join) => ` ${join}`).join("")}${
    where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""
  }${orderSql(ownScope.order, childQualifier, parameters)}${rangeSql(range)}`;
  const row = quoteIdentifier(`${internal}_row`);
  const aliasSql = quoteIdentifier(alias);
  const name = item.alias ?? item.name;
  const toOne = isToOne(relationship);
  const inner = item.join === "inner";
  if (item.spread) {
    const names = level.names;
    if (toOne) {
      return {
        join:
          `LEFT JOIN LATERAL (SELECT ${row}.*, true AS pgrst_found FROM (${sub}) AS ${row}) AS ${aliasSql} ON TRUE`,
        select: names.map((each) => `${aliasSql}.${quoteIdentifier(each)}`),
        names,
        alias,
        inner,
      };
    }
    const aggregated = names.map((each) =>
      `json_agg(${row}.${quoteIdentifier(each)}) AS ${quoteIdentifier(each)}`
    );
    return {
      join: `LEFT JOIN LATERAL (SELECT ${
        [...aggregated, "true AS pgrst_found"].join(", ")
      } FROM (${sub}) AS ${row} HAVING pg_catalog.count(*) > 0) AS ${aliasSql} ON TRUE`,
      select: names.map((each) =>
        `coalesce(${aliasSql}.${quoteIdentifier(each)}, '[]') AS ${quoteIdentifier(each)}`
      ),
      names,
      alias,
      inner,
    };
  }
  const hidden = item.children.length === 0;
  if (toOne) {
    return {
      join:
        `LEFT JOIN LATERAL (SELECT row_to_json(${row}.*) AS body, true AS pgrst_found FROM (${sub}) AS ${row}) AS ${aliasSql} ON TRUE`,
      select: hidden ? [] : [`${aliasSql}.body AS ${quoteIdentifier(name)}`],
      names: hidden ? [] : [name],
      alias,
      inner,
    };
  }
  return {
    join:
      `LEFT JOIN LATERAL (SELECT json_agg(${row}.*) AS body, true AS pgrst_found FROM (${sub}) AS ${row} ` +
      `HAVING pg_catalog.count(*) > 0) AS ${aliasSql} ON TRUE`,
    select: hidden ? [] : [`coalesce(${aliasSql}.body, '[]') AS ${quoteIdentifier(name)}`],
    names: hidden ? [] : [name],
    alias,
    inner,
  };
}

/** True when the select embeds anything (so the relationships must be read). */
export function embeds(items: readonly SelectItem[]): boolean {
  return items.some((item) => item.kind === "embed");
}
