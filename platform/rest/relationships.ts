/**
 * The relationships PostgREST finds in its schema cache (`SchemaCache.hs`) and how it picks one for an
 * embedded resource (`Plan.hs`, `findRel`): foreign keys as many-to-one and their inverse one-to-many
 * (one-to-one when the key's columns are unique), the same through views that expose the key's columns,
 * many-to-many through a junction whose primary key holds both keys' columns, and computed relationships
 * (a function taking a row of the origin and returning rows of a table), only among the exposed schemas
 * (a key to a table of another schema is no relationship). Not found is PGRST200 (400),
 * several PGRST201 (300), in PostgREST's words. `loadRelationships` reads the catalog; the rest is pure.
 */
import type { TransactionSql } from "../../supabase/functions/_shared/db/sql.ts";
import { PostgrestError } from "./errors.ts";

export interface Relation {
  schema: string;
  name: string;
}

export type Cardinality = "many-to-one" | "one-to-many" | "one-to-one" | "many-to-many";

export interface ForeignKeyRelationship {
  kind: "fk";
  table: Relation;
  foreignTable: Relation;
  constraint: string;
  cardinality: Cardinality;
  /** (origin column, foreign column) pairs; for many-to-many, see `junction`. */
  columns: [string, string][];
  isSelf: boolean;
  foreignIsView: boolean;
  junction?: {
    table: Relation;
    constraint1: string;
    constraint2: string;
    /** (junction column, origin column) */
    sourceColumns: [string, string][];
    /** (junction column, foreign column) */
    targetColumns: [string, string][];
  };
}

export interface ComputedRelationship {
  kind: "computed";
  table: Relation;
  foreignTable: Relation;
  function: Relation;
  toOne: boolean;
}

export type Relationship = ForeignKeyRelationship | ComputedRelationship;

export function isToOne(relationship: Relationship): boolean {
  if (relationship.kind === "computed") return relationship.toOne;
  return relationship.cardinality === "many-to-one" || relationship.cardinality === "one-to-one";
}

interface KeyRow {
  constraint: string;
  schema: string;
  table: string;
  fschema: string;
  ftable: string;
  columns: string[];
  fcolumns: string[];
  unique: boolean;
}

interface ViewColumnRow {
  schema: string;
  view: string;
  column: string;
  source_schema: string;
  source_table: string;
  source_column: string;
}

interface TableRow {
  schema: string;
  name: string;
  is_view: boolean;
  primary_key: string[];
}

interface ComputedRow {
  schema: string;
  function: string;
  table_schema: string;
  table: string;
  fschema: string;
  ftable: string;
  returns_set: boolean;
  rows_one: boolean;
}

export interface RelationshipCatalog {
  relationships: Relationship[];
  tables: Map<string, TableRow>;
}

const keyOf = (schema: string, name: string) => `${schema}.${name}`;

/** Reads foreign keys, views' column sources, primary keys and computed relationships of `schemas`. */
export async function loadRelationships(tx: TransactionSql, schemas: string[]): Promise<RelationshipCatalog> {
  const keys = await tx<KeyRow[]>`
    select c.conname::text as constraint, ns.nspname::text as schema, t.relname::text as table,
           fs.nspname::text as fschema, f.relname::text as ftable,
           array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                   join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
           array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                   join pg_catalog.pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as fcolumns,
           exists(select 1 from pg_catalog.pg_index i
                   where i.indrelid = c.conrelid and (i.indisprimary or i.indisunique)
                     and (select array_agg(x order by x) from unnest(i.indkey::int2[]) x)
                       = (select array_agg(x order by x) from unnest(c.conkey) x)) as unique
      from pg_catalog.pg_constraint c
      join pg_catalog.pg_class t on t.oid = c.conrelid
      join pg_catalog.pg_namespace ns on ns.oid = t.relnamespace
      join pg_catalog.pg_class f on f.oid = c.confrelid
      join pg_catalog.pg_namespace fs on fs.oid = f.relnamespace
     where c.contype = 'f' and ns.nspname = any(${schemas}) and fs.nspname = any(${schemas})
     order by c.conname`;
  const tables = await tx<TableRow[]>`
    select n.nspname::text as schema, c.relname::text as name, c.relkind in ('v', 'm') as is_view,
           coalesce(array(select a.attname::text from pg_catalog.pg_index i
                            join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                           where i.indrelid = c.oid and i.indisprimary order by a.attnum), '{}') as primary_key
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any(${schemas}) and c.relkind in ('r', 'v', 'm', 'f', 'p')`;
  // A view's columns that are plain columns of a table, from the rewrite rule's target list
  // (PostgREST reads the same `resorigtbl`/`resorigcol` out of pg_rewrite).
  const viewColumns = await tx<ViewColumnRow[]>`
    with views as (
      select c.oid, n.nspname::text as schema, c.relname::text as view, r.ev_action::text as action
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        join pg_catalog.pg_rewrite r on r.ev_class = c.oid
       where c.relkind in ('v', 'm') and n.nspname = any(${schemas})),
    entries as (
      select v.schema, v.view, m[1]::text as column, m[2]::oid as tbl, m[3]::int2 as col
        from views v,
             regexp_matches(v.action,
               ':resname ([^ ]+) :ressortgroupref [0-9]+ :resorigtbl ([0-9]+) :resorigcol ([0-9]+)', 'g') m
       where m[2] <> '0')
    select e.schema, e.view, e.column, sn.nspname::text as source_schema, s.relname::text as source_table,
           a.attname::text as source_column
      from entries e
      join pg_catalog.pg_class s on s.oid = e.tbl
      join pg_catalog.pg_namespace sn on sn.oid = s.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = e.tbl and a.attnum = e.col`;
  const computed = await tx<ComputedRow[]>`
    select n.nspname::text as schema, p.proname::text as function,
           tn.nspname::text as table_schema, t.relname::text as table,
           fn.nspname::text as fschema, f.relname::text as ftable,
           p.proretset as returns_set, p.prorows = 1 as rows_one
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      join pg_catalog.pg_type at on at.oid = p.proargtypes[0]
      join pg_catalog.pg_class t on t.oid = at.typrelid
      join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
      join pg_catalog.pg_type rt on rt.oid = p.prorettype
      join pg_catalog.pg_class f on f.oid = rt.typrelid
      join pg_catalog.pg_namespace fn on fn.oid = f.relnamespace
     where n.nspname = any(${schemas}) and fn.nspname = any(${schemas}) and p.pronargs = 1 and p.prokind = 'f'`;
  const tableMap = new Map(tables.map((row) => [keyOf(row.schema, row.name), row]));
  return { relationships: buildRelationships(keys, viewColumns, tableMap, computed), tables: tableMap };
}

/** Maps a base table's columns to each view exposing all of them (`[view, mapped columns]`). */
function viewsExposing(
  viewColumns: ViewColumnRow[],
  table: Relation,
  columns: string[],
): [Relation, string[]][] {
  const byView = new Map<string, ViewColumnRow[]>();
  for (const row of viewColumns) {
    if (row.source_schema !== table.schema || row.source_table !== table.name) continue;
    const key = keyOf(row.schema, row.view);
    byView.set(key, [...(byView.get(key) ?? []), row]);
  }
  const found: [Relation, string[]][] = [];
  for (const rows of byView.values()) {
    const mapped = columns.map((column) => rows.find((row) => row.source_column === column)?.column);
    if (mapped.every((each) => each !== undefined)) {
      found.push([{ schema: rows[0].schema, name: rows[0].view }, mapped as string[]]);
    }
  }
  return found;
}

function buildRelationships(
  keys: KeyRow[],
  viewColumns: ViewColumnRow[],
  tables: Map<string, TableRow>,
  computed: ComputedRow[],
): Relationship[] {
  const isView = (relation: Relation) => tables.get(keyOf(relation.schema, relation.name))?.is_view ?? false;
  const manyToOne: ForeignKeyRelationship[] = [];
  for (const key of keys) {
    const table = { schema: key.schema, name: key.table };
    const foreign = { schema: key.fschema, name: key.ftable };
    const origins: [Relation, string[]][] = [
      [table, key.columns],
      ...viewsExposing(viewColumns, table, key.columns),
    ];
    const targets: [Relation, string[]][] = [
      [foreign, key.fcolumns],
      ...viewsExposing(viewColumns, foreign, key.fcolumns),
    ];
    for (const [origin, columns] of origins) {
      for (const [target, fcolumns] of targets) {
        manyToOne.push({
          kind: "fk",
          table: origin,
          foreignTable: target,
          constraint: key.constraint,
          cardinality: key.unique ? "one-to-one" : "many-to-one",
          columns: columns.map((column, index) => [column, fcolumns[index]]),
          isSelf: origin.schema === target.schema && origin.name === target.name,
          foreignIsView: isView(target),
        });
      }
    }
  }
  const inverse: ForeignKeyRelationship[] = manyToOne.map((rel) => ({
    ...rel,
    table: rel.foreignTable,
    foreignTable: rel.table,
    cardinality: rel.cardinality === "one-to-one" ? "one-to-one" : "one-to-many",
    columns: rel.columns.map(([column, fcolumn]) => [fcolumn, column]),
    foreignIsView: isView(rel.table),
  }));
  const manyToMany: ForeignKeyRelationship[] = [];
  for (const first of manyToOne) {
    const junctionKey = keyOf(first.table.schema, first.table.name);
    const primaryKey = new Set(tables.get(junctionKey)?.primary_key ?? []);
    for (const second of manyToOne) {
      if (second.constraint === first.constraint) continue;
      if (keyOf(second.table.schema, second.table.name) !== junctionKey) continue;
      const used = [...first.columns.map(([column]) => column), ...second.columns.map(([column]) => column)];
      if (!used.every((column) => primaryKey.has(column))) continue;
      manyToMany.push({
        kind: "fk",
        table: first.foreignTable,
        foreignTable: second.foreignTable,
        constraint: first.constraint,
        cardinality: "many-to-many",
        columns: [],
        isSelf: keyOf(first.foreignTable.schema, first.foreignTable.name) ===
          keyOf(second.foreignTable.schema, second.foreignTable.name),
        foreignIsView: isView(second.foreignTable),
        junction: {
          table: first.table,
          constraint1: first.constraint,
          constraint2: second.constraint,
          sourceColumns: first.columns,
          targetColumns: second.columns,
        },
      });
    }
  }
  const computedRelationships: ComputedRelationship[] = computed.map((row) => ({
    kind: "computed",
    table: { schema: row.table_schema, name: row.table },
    foreignTable: { schema: row.fschema, name: row.ftable },
    function: { schema: row.schema, name: row.function },
    toOne: !row.returns_set || row.rows_one,
  }));
  return [...manyToOne, ...inverse, ...manyToMany, ...computedRelationships];
}

function singleColumn(rel: ForeignKeyRelationship, side: 0 | 1): string | undefined {
  if (rel.cardinality === "many-to-many" || rel.columns.length !== 1) return undefined;
  return rel.columns[0][side];
}

function fmt(columns: string[]): string {
  return `(${columns.join(", ")})`;
}

function describe(rel: ForeignKeyRelationship): Record<string, string> {
  const embedding = `${rel.table.name} with ${rel.foreignTable.name}`;
  if (rel.junction) {
    const j = rel.junction;
    return {
      cardinality: "many-to-many",
      embedding,
      relationship: `${j.table.name} using ${j.constraint1}${
        fmt(j.sourceColumns.map(([c]) => c))
      } and ${j.constraint2}${fmt(j.targetColumns.map(([c]) => c))}`,
    };
  }
  return {
    cardinality: rel.cardinality,
    embedding,
    relationship: `${rel.constraint} using ${rel.table.name}${
      fmt(rel.columns.map(([c]) => c))
    } and ${rel.foreignTable.name}${fmt(rel.columns.map(([, c]) => c))}`,
  };
}

function hintOf(rel: ForeignKeyRelationship): string {
  return `'${rel.foreignTable.name}!${rel.junction ? rel.junction.table.name : rel.constraint}'`;
}

/** PostgREST's `findRel`: the one relationship from `origin` that `target` (with `hint`) names. */
export function findRelationship(
  catalog: RelationshipCatalog,
  origin: Relation,
  target: string,
  hint: string | undefined,
): Relationship {
  const candidates = catalog.relationships.filter((rel) =>
    rel.table.schema === origin.schema && rel.table.name === origin.name
  );
  const found = candidates.filter((rel) => {
    if (rel.kind === "computed") return rel.function.name === target;
    const card = rel.cardinality;
    if (rel.isSelf) {
      if (hint === undefined) {
        return (target === rel.foreignTable.name && card === "one-to-many") ||
          (singleColumn(rel, 0) === target && card === "many-to-one");
      }
      return target === rel.foreignTable.name && card === "one-to-many" && singleColumn(rel, 1) === hint;
    }
    const isConstraint = (name: string) => card !== "many-to-many" && rel.constraint === name;
    if (hint === undefined) {
      return target === rel.foreignTable.name ||
        (isConstraint(target) && !rel.foreignIsView) ||
        (singleColumn(rel, 0) === target && !rel.foreignIsView);
    }
    return target === rel.foreignTable.name && (
      isConstraint(hint) || singleColumn(rel, 0) === hint || singleColumn(rel, 1) === hint ||
      rel.junction?.table.name === hint
    );
  });
  // A computed relationship of the same name overrides the foreign keys (PostgREST keeps the function).
  const computed = found.filter((rel) => rel.kind === "computed");
  if (computed.length === 1) return computed[0];
  if (found.length === 1) return found[0];
  if (found.length === 0) {
    throw new PostgrestError(400, {
      code: "PGRST200",
      message: `Could not find a relationship between '${origin.name}' and '${target}' in the schema cache`,
      details: `Searched for a foreign key relationship between '${origin.name}' and '${target}'${
        hint !== undefined ? ` using the hint '${hint}'` : ""
      } in the schema '${origin.schema}', but no matches were found.`,
      hint: null,
    });
  }
  const fks = found.filter((rel): rel is ForeignKeyRelationship => rel.kind === "fk");
  throw new PostgrestError(300, {
    code: "PGRST201",
    message:
      `Could not embed because more than one relationship was found for '${origin.name}' and '${target}'`,
    details: fks.map(describe),
    hint: `Try changing '${target}' to one of the following: ${
      fks.map(hintOf).join(", ")
    }. Find the desired relationship in the 'details' key.`,
  });
}
