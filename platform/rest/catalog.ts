/**
 * What PostgREST keeps in its schema cache, read from the catalog for each request (inside the request's
 * transaction, so it is always current): the tables and views of the exposed schema with their columns and
 * primary key, and its functions with their named parameters, volatility and return shape. Only schema
 * `public` is ever looked at.
 */
import type { TransactionSql } from "../../supabase/functions/_shared/db/sql.ts";
import type { Routine } from "./statements.ts";
import { exposedSchema } from "./statements.ts";

export interface TableInfo {
  name: string;
  columns: string[];
  primaryKey: string[];
}

/** The table or view `name` of the exposed schema, or undefined. */
export async function findTable(tx: TransactionSql, name: string): Promise<TableInfo | undefined> {
  const [row] = await tx<{ columns: string[]; primary_key: string[] }[]>`
    select coalesce(array(select a.attname::text from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                           order by a.attnum), '{}') as columns,
           coalesce(array(select a.attname::text
                            from pg_catalog.pg_index i
                            join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                           where i.indrelid = c.oid and i.indisprimary
                           order by a.attnum), '{}') as primary_key
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${exposedSchema} and c.relname = ${name} and c.relkind in ('r', 'v', 'm', 'f', 'p')`;
  return row ? { name, columns: row.columns, primaryKey: row.primary_key } : undefined;
}

interface RoutineRow {
  volatility: string;
  returns_set: boolean;
  returns: "void" | "scalar" | "composite";
  parameters: { name: string | null; type: string; mode: string }[];
  defaults: number;
}

/** Every function `name` of the exposed schema (its overloads), with its input parameters. */
export async function findRoutines(tx: TransactionSql, name: string): Promise<Routine[]> {
  const rows = await tx<RoutineRow[]>`
    select p.provolatile::text as volatility,
           p.proretset as returns_set,
           case when p.prorettype = 'pg_catalog.void'::pg_catalog.regtype then 'void'
                when t.typtype = 'c' or (p.prorettype = 'pg_catalog.record'::pg_catalog.regtype
                                          and 'o' = any(coalesce(p.proargmodes, '{}'))
                                           or 't' = any(coalesce(p.proargmodes, '{}'))) then 'composite'
                else 'scalar' end as returns,
           p.pronargdefaults::int as defaults,
           coalesce((select json_agg(json_build_object('name', a.name, 'type', pg_catalog.format_type(a.type, null),
                                                       'mode', coalesce(a.mode::text, 'i')) order by a.ordinal)
                       from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargnames, p.proargmodes)
                            with ordinality as a(type, name, mode, ordinal)
                      where a.type is not null), '[]') as parameters
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      join pg_catalog.pg_type t on t.oid = p.prorettype
     where n.nspname = ${exposedSchema} and p.proname = ${name} and p.prokind = 'f'`;
  return rows.map((row) => {
    const inputs = row.parameters.filter((parameter) => ["i", "b", "v"].includes(parameter.mode));
    return {
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
    };
  });
}
