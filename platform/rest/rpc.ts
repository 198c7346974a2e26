/**
 * `/rpc/<fn>` as PostgREST resolves and calls it (`Plan.hs` `findProc`, `QueryBuilder.hs` `callPlanToQuery`):
 * the overload whose named parameters the arguments match (required ones all given, the rest optional),
 * else, for a POST, the one function with a single unnamed json/jsonb parameter (the whole body as its
 * argument; text/xml/bytea for those media types). None is PGRST202 with PostgREST's fuzzy hint, several
 * PGRST203. The call passes the arguments by name from one JSON parameter read with the parameters' catalog
 * types; `select`, filters, order, range and embedded resources then apply to its rows. Pure.
 */
import { pgrstErrors } from "./errors.ts";
import { buildLevel, newBuildState, type ReadCatalog } from "./embedding.ts";
import { orderSql, Parameters, qualified, quoteIdentifier, rangeSql, whereSql } from "./fragments.ts";
import type { QueryParams } from "./query_params.ts";
import type { RowRange } from "./preferences.ts";
import type { Relation } from "./relationships.ts";
import type { BodyShape, Statement } from "./statements.ts";

export interface RoutineParameter {
  /** Empty for an unnamed parameter. */
  name: string;
  /** The type as `format_type` gives it (catalog text, never request text). */
  type: string;
  hasDefault: boolean;
  variadic: boolean;
}

export interface Routine {
  schema: string;
  name: string;
  parameters: RoutineParameter[];
  volatility: "immutable" | "stable" | "volatile";
  returnsSet: boolean;
  returns: "void" | "scalar" | "composite";
  /** The table or view whose rows it returns (for embedding), if any. */
  returnRelation?: Relation;
}

/** The body's media type, as far as function resolution cares. */
export type BodyMedia = "json" | "text" | "xml" | "bytea" | "other";

const unnamedTypes: Record<BodyMedia, string[]> = {
  json: ["json", "jsonb"],
  text: ["text"],
  xml: ["xml"],
  bytea: ["bytea"],
  other: [],
};

function matchesParameters(routine: Routine, keys: Set<string>, viaPost: boolean, media: BodyMedia): boolean {
  const parameters = routine.parameters;
  if (parameters.length === 0) {
    return keys.size === 0 && !(viaPost && ["text", "xml", "bytea"].includes(media));
  }
  const required = parameters.filter((parameter) => !parameter.hasDefault).map((parameter) => parameter.name);
  const optional = new Set(
    parameters.filter((parameter) => parameter.hasDefault).map((parameter) => parameter.name),
  );
  const rest = [...keys].filter((key) => !optional.has(key));
  return rest.length === required.length && required.every((name) => keys.has(name)) &&
    new Set(rest).size === rest.length;
}

export function hasSingleUnnamed(routine: Routine, viaPost: boolean, media: BodyMedia): boolean {
  const [only, ...more] = routine.parameters;
  return viaPost && only !== undefined && more.length === 0 && only.name === "" &&
    unnamedTypes[media].includes(only.type);
}

/** Levenshtein similarity (1 − distance / longer length), the score PostgREST's fuzzy hints rank by. */
function similarity(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      rows[i][j] = Math.min(
        rows[i - 1][j] + 1,
        rows[i][j - 1] + 1,
        rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - rows[a.length][b.length] / longer;
}

function closest(candidates: string[], wanted: string, minimum: number): string | undefined {
  let best: string | undefined;
  let score = minimum;
  for (const candidate of candidates) {
    const each = similarity(candidate, wanted);
    if (each >= score && (best === undefined || each > score)) {
      best = candidate;
      score = each;
    }
  }
  return best;
}

const listed = (names: string[]) => `(${[...names].sort().join(", ")})`;

/** PostgREST's `findProc`. `allNames` are the callable functions of the schema (for the hint). */
export function chooseRoutine(
  overloads: readonly Routine[],
  schema: string,
  name: string,
  argumentNames: readonly string[],
  viaPost: boolean,
  media: BodyMedia,
  allNames: readonly string[],
): Routine {
  const keys = new Set(argumentNames);
  const matching = overloads.filter((routine) => matchesParameters(routine, keys, viaPost, media));
  const fallback = overloads.filter((routine) =>
    !matchesParameters(routine, keys, viaPost, media) && hasSingleUnnamed(routine, viaPost, media)
  );
  const chosen = matching.length > 0 ? matching : fallback;
  if (chosen.length === 1) return chosen[0];
  if (chosen.length > 1) {
    throw pgrstErrors.ambiguousRpc(
      chosen.map((routine) =>
        `${routine.schema}.${routine.name}(${
          routine.parameters.map((parameter) => `${parameter.name} => ${parameter.type}`).join(", ")
        })`
      ),
    );
  }
  let hint: string | null = null;
  if (overloads.length === 0) {
    const other = closest(allNames.filter((each) => each !== name), name, 0.75);
    if (other) hint = `Perhaps you meant to call the function ${schema}.${other}`;
  } else {
    const signatures = overloads.map((routine) =>
      listed(routine.parameters.map((parameter) => parameter.name))
    );
    const best = closest(signatures, listed([...argumentNames]), 0.33);
    if (best) hint = `Perhaps you meant to call the function ${schema}.${name}${best}`;
  }
  throw pgrstErrors.noRpc(schema, name, argumentNames, viaPost, hint);
}

/**
 * The call: named arguments from one JSON parameter (`json_to_record` with the catalog types), or the whole
 * body for a single unnamed parameter; then the page over the rows (or the scalar).
 */
export function callStatement(
  routine: Routine,
  args: Record<string, unknown>,
  rawBody: string | undefined,
  query: QueryParams,
  range: RowRange,
  shape: BodyShape,
  withCount: boolean,
  catalog: ReadCatalog,
): Statement {
  const parameters = new Parameters();
  const fn = qualified(routine.schema, routine.name);
  let call: string;
  let record: string | undefined;
  const unnamed = routine.parameters.length === 1 && routine.parameters[0].name === "";
  if (unnamed && rawBody !== undefined) {
    call = `${fn}(${parameters.add(rawBody)}::${routine.parameters[0].type})`;
  } else {
    const given = routine.parameters.filter((parameter) =>
      parameter.name !== "" && Object.hasOwn(args, parameter.name)
    );
    call = `${fn}(${
      given.map((parameter) =>
        `${parameter.variadic ? "VARIADIC " : ""}${quoteIdentifier(parameter.name)} := pgrst_body.${
          quoteIdentifier(parameter.name)
        }`
      ).join(", ")
    })`;
    if (given.length > 0) {
      record = `json_to_record(${parameters.add(JSON.stringify(args))}::json) AS pgrst_body(${
        given.map((parameter) => `${quoteIdentifier(parameter.name)} ${parameter.type}`).join(", ")
      })`;
    }
  }
  const qualifier = quoteIdentifier("pgrst_call");
  if (routine.returns !== "composite") {
    const source = `SELECT ${call} AS pgrst_scalar${record ? ` FROM ${record}` : ""}`;
    const scalar = routine.returnsSet ? "set" : "one";
    const rows = scalar === "one" ? "_postgrest_t.pgrst_scalar" : "_postgrest_t.pgrst_scalar";
    const body = shape.single || scalar === "one"
      ? `coalesce(json_agg(${rows})->0, 'null')::text`
      : `coalesce(json_agg(${rows}), '[]')::text`;
    return {
      text:
        `WITH pgrst_source AS (${source}) SELECT ${body} AS body, pg_catalog.count(_postgrest_t)::int AS page_total, ${
          withCount ? "(SELECT pg_catalog.count(*) FROM pgrst_source)::bigint" : "null"
        } AS total, null AS inserted FROM (SELECT * FROM pgrst_source${rangeSql(range)}) _postgrest_t`,
      values: parameters.values,
    };
  }
  const from = record ? `${record}, LATERAL ${call} AS ${qualifier}` : `${call} AS ${qualifier}`;
  const state = newBuildState(parameters, catalog, query);
  const level = buildLevel(state, query.select, qualifier, routine.returnRelation, []);
  const { scope, conditions } = level.scopeConditions(query);
  const where = whereSql(scope, qualifier, parameters, [...level.conditions, ...conditions]);
  const source = `SELECT ${level.selectList.join(", ")} FROM ${from}${
    level.joins.map((join) => ` ${join}`).join("")
  }${where}${orderSql(scope.order, qualifier, parameters)}`;
  const single = !routine.returnsSet || shape.single;
  const strip = (expression: string) => shape.stripNulls ? `json_strip_nulls(${expression})` : expression;
  const body = single
    ? `coalesce(${strip("json_agg(_postgrest_t)->0")}, 'null')::text`
    : `coalesce(${strip("json_agg(_postgrest_t)")}, '[]')::text`;
  return {
    text:
      `WITH pgrst_source AS (${source}) SELECT ${body} AS body, pg_catalog.count(_postgrest_t)::int AS page_total, ${
        withCount ? "(SELECT pg_catalog.count(*) FROM pgrst_source)::bigint" : "null"
      } AS total, null AS inserted FROM (SELECT * FROM pgrst_source${rangeSql(range)}) _postgrest_t`,
    values: parameters.values,
  };
}
