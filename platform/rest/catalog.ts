/**
 * What PostgREST keeps in its schema cache, read from the catalog for each request (inside the request's
 * transaction, so it is always current): the tables and views of the exposed schemas with their columns
 * and primary key, computed fields (functions of a row), the relationships embedding follows
 * (relationships.ts, read only when the request embeds), and the functions with their parameters,
 * volatility and return shape (only those PostgREST can call: no unnamed parameter, or a single one of type
 * json, jsonb, text, xml or bytea).
 */
import type { TransactionSql } from "../../supabase/functions/_shared/db/sql.ts";
import type { ReadCatalog } from "./embedding.ts";
import { loadRelationships, type Relation } from "./relationships.ts";
import type { Routine } from "./rpc.ts";

export interface TableInfo {
  schema: string;
  name: string;
  columns: string[];
  primaryKey: string[];
  /** Each column's default expression, as PostgREST's schema cache reads it (catalog text). */
  defaults: Record<string, string>;
}

/** The table or view `name` of `schema`, or undefined. */
export async function findTable(
  tx: TransactionSql,
  schema: string,
  name: string,
): Promise<TableInfo | undefined> {
  const [row] = await tx<{ columns: string[]; primary_key: string[]; defaults: Record<string, string> }[]>`
    select coalesce(array(select a.attname::text from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                           order by a.attnum), '{}') as columns,
           coalesce((select json_object_agg(a.attname, case
                        when t.typbasetype <> 0 and ad.adbin is null then pg_catalog.pg_get_expr(t.typdefaultbin, 0)
                        when a.attidentity = 'd' then format('nextval(%L)', seq.objid::regclass)
                        else pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) end)
                       from pg_catalog.pg_attribute a
                       join pg_catalog.pg_type t on t.oid = a.atttypid
                       left join pg_catalog.pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
                       left join pg_catalog.pg_depend seq
                         on seq.refobjid = a.attrelid and seq.refobjsubid = a.attnum and seq.deptype = 'i'
                      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                        and (ad.adbin is not null or a.attidentity = 'd'
                             or (t.typbasetype <> 0 and t.typdefaultbin is not null))), '{}') as defaults,
           coalesce(array(select a.attname::text
                            from pg_catalog.pg_index i
                            join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                           where i.indrelid = c.oid and i.indisprimary
                           order by a.attnum), '{}') as primary_key
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${schema} and c.relname = ${name} and c.relkind in ('r', 'v', 'm', 'f', 'p')`;
  return row
    ? { schema, name, columns: row.columns, primaryKey: row.primary_key, defaults: row.defaults }
    : undefined;
}

interface ColumnsRow {
  schema: string;
  name: string;
  columns: string[];
}

interface ComputedFieldRow {
  schema: string;
  function: string;
  table_schema: string;
  table: string;
}

const keyOf = (relation: Relation) => `${relation.schema}.${relation.name}`;

/** The catalog a read needs: every relation's columns, computed fields and (when embedding) relationships. */
export async function readCatalog(
  tx: TransactionSql,
  schemas: string[],
  withRelationships: boolean,
): Promise<ReadCatalog> {
  const columns = await tx<ColumnsRow[]>`
    select n.nspname::text as schema, c.relname::text as name,
           coalesce(array(select a.attname::text from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                           order by a.attnum), '{}') as columns
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any(${schemas}) and c.relkind in ('r', 'v', 'm', 'f', 'p')`;
  const fields = await tx<ComputedFieldRow[]>`
    select n.nspname::text as schema, p.proname::text as function,
           tn.nspname::text as table_schema, t.relname::text as table
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      join pg_catalog.pg_type at on at.oid = p.proargtypes[0]
      join pg_catalog.pg_class t on t.oid = at.typrelid
      join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
     where n.nspname = any(${schemas}) and p.pronargs = 1 and p.prokind = 'f'`;
  const columnMap = new Map(columns.map((row) => [`${row.schema}.${row.name}`, row.columns]));
  const relationships = withRelationships ? await loadRelationships(tx, schemas) : undefined;
  return {
    relationships,
    columnsOf: (relation) => columnMap.get(keyOf(relation)),
    computedField: (relation, name) => {
      const found = fields.find((row) =>
        row.function === name && row.table_schema === relation.schema && row.table === relation.name
      );
      return found ? { schema: found.schema, name: found.function } : undefined;
    },
  };
}

interface RoutineRow {
  volatility: string;
  returns_set: boolean;
  returns: "void" | "scalar" | "composite";
  return_schema: string | null;
  return_relation: string | null;
  parameters: { name: string | null; type: string; mode: string }[];
  defaults: number;
}

/** Every callable function `name` of `schema` (its overloads), with its input parameters. */
export async function findRoutines(tx: TransactionSql, schema: string, name: string): Promise<Routine[]> {
  const rows = await tx<RoutineRow[]>`
    select p.provolatile::text as volatility,
           p.proretset as returns_set,
           case when p.prorettype = 'pg_catalog.void'::pg_catalog.regtype then 'void'
                when t.typtype = 'c' or (p.prorettype = 'pg_catalog.record'::pg_catalog.regtype
                                          and 'o' = any(coalesce(p.proargmodes, '{}'))
                                           or 't' = any(coalesce(p.proargmodes, '{}'))) then 'composite'
                else 'scalar' end as returns,
           rn.nspname::text as return_schema, r.relname::text as return_relation,
           p.pronargdefaults::int as defaults,
           coalesce((select json_agg(json_build_object('name', a.name, 'type', pg_catalog.format_type(a.type, null),
                                                       'mode', coalesce(a.mode::text, 'i')) order by a.ordinal)
                       from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargnames, p.proargmodes)
                            with ordinality as a(type, name, mode, ordinal)
                      where a.type is not null), '[]') as parameters
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      join pg_catalog.pg_type t on t.oid = p.prorettype
      left join pg_catalog.pg_class r on r.oid = t.typrelid and r.relkind in ('r', 'v', 'm', 'f', 'p')
      left join pg_catalog.pg_namespace rn on rn.oid = r.relnamespace
     where n.nspname = ${schema} and p.proname = ${name} and p.prokind = 'f'`;
  const routines = rows.map((row): Routine => {
    const inputs = row.parameters.filter((parameter) => ["i", "b", "v"].includes(parameter.mode));
    return {
      schema,
      name,
      parameters: inputs.map((parameter, index) => ({
        name: parameter.name ?? "",
        type: parameter.type,
        hasDefault: index >= inputs.length - row.defaults,
        variadic: parameter.mode === "v",
      })),
      volatility: row.volatility === "i" ? "immutable" : row.volatility === "s" ? "stable" : "volatile",
      returnsSet: row.returns_set,
      returns: row.returns,
      returnRelation: row.return_relation && row.return_schema
        ? { schema: row.return_schema, name: row.return_relation }
        : undefined,
    };
  });
  return routines.filter(callable);
}

/** PostgREST's schema cache keeps a function with no unnamed parameter or one of these types. */
function callable(routine: Routine): boolean {
  const unnamed = routine.parameters.filter((parameter) => parameter.name === "");
  if (unnamed.length === 0) return true;
  return unnamed.length === 1 && ["bytea", "json", "jsonb", "text", "xml"].includes(unnamed[0].type);
}

/** The names of the callable functions of `schema` (for PGRST202's hint). */
export async function routineNames(tx: TransactionSql, schema: string): Promise<string[]> {
  const rows = await tx<{ name: string }[]>`
    select distinct p.proname::text as name from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where n.nspname = ${schema} and p.prokind = 'f'`;
  return rows.map((row) => row.name);
}
