/**
 * The Data API stand-in's statements (platform/rest/statements.ts): every name from the request is a
 * quoted identifier and every value a bound parameter, whatever the request text holds; overloads are
 * chosen by argument names as PostgREST chooses them.
 */
import { PostgrestError } from "../../platform/rest/errors.ts";
import { parseQueryParams } from "../../platform/rest/query_params.ts";
import {
  deleteStatement,
  insertStatement,
  quoteIdentifier,
  readStatement,
  updateStatement,
} from "../../platform/rest/statements.ts";
import { callStatement, chooseRoutine, type Routine } from "../../platform/rest/rpc.ts";
import type { ReadCatalog } from "../../platform/rest/embedding.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";

const arrayShape = { single: false, stripNulls: false };
const catalog: ReadCatalog = { columnsOf: () => undefined, computedField: () => undefined };
const inPublic = (name: string) => ({ schema: "public", name });
const query = (text: string, rpcRead = false) => parseQueryParams(new URLSearchParams(text), rpcRead);

Deno.test("identifiers are quoted, quotes doubled", () => {
  assertEquals(quoteIdentifier("plans"), '"plans"');
  assertEquals(quoteIdentifier('a"; drop table x; --'), '"a""; drop table x; --"');
});

Deno.test("a read: filters and or-trees are parameters; names quoted; range and count", () => {
  const statement = readStatement(
    inPublic("plans"),
    query(
      "select=id,q:watchlist_quota&id=eq.free&or=(sort_order.gt.1,requests_per_day.is.null)&order=id.desc",
    ),
    { offset: 5, limit: 10 },
    arrayShape,
    true,
    catalog,
  );
  assertEquals(statement.values, ["free", "1"]);
  assertEquals(
    statement.text,
    'WITH pgrst_source AS (SELECT "plans"."id", "plans"."watchlist_quota" AS "q" FROM "public"."plans" AS "plans" ' +
      'WHERE "plans"."id" = $1 AND ("plans"."sort_order" > $2 OR "plans"."requests_per_day" IS NULL) ' +
      'ORDER BY "plans"."id" DESC LIMIT 10 OFFSET 5) SELECT coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, ' +
      'pg_catalog.count(_postgrest_t)::int AS page_total, (SELECT pg_catalog.count(*) FROM "public"."plans" AS "plans" ' +
      'WHERE "plans"."id" = $1 AND ("plans"."sort_order" > $2 OR "plans"."requests_per_day" IS NULL))::bigint AS total, null AS inserted ' +
      "FROM (SELECT * FROM pgrst_source) _postgrest_t",
  );
});

Deno.test("hostile names and values never reach the SQL text", () => {
  const hostile = "x'); delete from public.profiles; --";
  const statement = readStatement(
    inPublic(`t"; drop table y; --`),
    query(
      `select=${encodeURIComponent(`"${hostile}"`)}&${encodeURIComponent(`"${hostile}"`)}=eq.${
        encodeURIComponent(hostile)
      }&name=in.(${encodeURIComponent(`"${hostile}"`)},b)&v=like.*${encodeURIComponent("';--")}*`,
    ),
    { offset: 0 },
    { single: true, stripNulls: true },
    false,
    catalog,
  );
  assertEquals(statement.values, [hostile, [hostile, "b"], "%';--%"]);
  // The only places request text appears are inside "…" identifiers, with every quote doubled.
  const outsideIdentifiers = statement.text.replace(/"(?:[^"]|"")*"/g, '""');
  assert(!outsideIdentifiers.includes("delete"), statement.text);
  assert(!outsideIdentifiers.includes("drop"), statement.text);
  assertMatch(statement.text, /json_strip_nulls\(json_agg\(_postgrest_t\)->0\)/);
});

Deno.test("casts are plain type words", () => {
  const ok = readStatement(
    inPublic("plans"),
    query("select=id::text,q::character varying"),
    { offset: 0 },
    arrayShape,
    false,
    catalog,
  );
  assertMatch(
    ok.text,
    /CAST\("plans"\."id" AS text\) AS "id", CAST\("plans"\."q" AS character varying\) AS "q"/,
  );
  try {
    readStatement(inPublic("plans"), query("select=id::text$1"), { offset: 0 }, arrayShape, false, catalog);
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof PostgrestError);
    assertEquals(error.body.code, "PGRST100");
  }
});

Deno.test("insert, update and delete: the payload is one JSON parameter; RETURNING what select names", () => {
  const insert = insertStatement(
    inPublic("invitations"),
    [{ email: "a@example.test", organization_id: "o" }],
    query("select=id,email"),
    arrayShape,
    { columns: ["email", "organization_id"], representation: true },
    catalog,
  );
  assertEquals(insert.values, [JSON.stringify([{ email: "a@example.test", organization_id: "o" }])]);
  assertMatch(
    insert.text,
    /^WITH pgrst_source AS \(INSERT INTO "public"\."invitations"\("email", "organization_id"\) SELECT "email", "organization_id" FROM json_populate_recordset\(NULL::"public"\."invitations", \$1::json\) _ RETURNING "public"\."invitations"\."id", "public"\."invitations"\."email"\)/,
  );
  const upsert = insertStatement(inPublic("t"), [{ id: 1, v: 2 }], query(""), arrayShape, {
    columns: ["id", "v"],
    representation: false,
    onConflict: { resolution: "merge-duplicates", columns: ["id"] },
  }, catalog);
  // missing=default: each element gets the columns' defaults first, its own keys winning (PostgREST's form).
  const defaults = insertStatement(inPublic("t"), [{ id: 1, v: 2 }, { id: 2 }], query(""), arrayShape, {
    columns: ["id", "v"],
    representation: false,
    defaults: { v: "42" },
  }, catalog);
  assertEquals(defaults.values, ["v", JSON.stringify([{ id: 1, v: 2 }, { id: 2 }])]);
  assertMatch(
    defaults.text,
    /SELECT jsonb_agg\(jsonb_build_object\(\$1::text, 42\) \|\| pgrst_element\) AS val FROM jsonb_array_elements\(\$2::jsonb\)/,
  );
  assertMatch(
    upsert.text,
    /ON CONFLICT\("id"\) DO UPDATE SET "id" = EXCLUDED\."id", "v" = EXCLUDED\."v" WHERE /,
  );
  // PostgREST's count of inserted rows: +1 per proposed row, -1 per row that updated instead.
  assertMatch(
    upsert.text,
    /_ WHERE pg_catalog\.set_config\('pgrst\.inserted', .* \+ 1\)::text, true\) <> '0' ON CONFLICT/,
  );
  assertMatch(upsert.text, /RETURNING 1\) SELECT .* AS inserted FROM/);
  const update = updateStatement(
    inPublic("organizations"),
    { name: "n" },
    ["name"],
    query("id=eq.7"),
    arrayShape,
    false,
    catalog,
  );
  assertEquals(update.values, ['{"name":"n"}', "7"]);
  assertMatch(
    update.text,
    /UPDATE "public"\."organizations" AS "organizations" SET "name" = pgrst_body\."name" FROM \(SELECT \* FROM json_populate_record\(NULL::"public"\."organizations", \$1::json\)\) pgrst_body WHERE "organizations"\."id" = \$2 RETURNING 1/,
  );
  const remove = deleteStatement(
    inPublic("organizations"),
    query("id=eq.7&select=*"),
    arrayShape,
    true,
    catalog,
  );
  assertMatch(
    remove.text,
    /DELETE FROM "public"\."organizations" AS "organizations" WHERE "organizations"\."id" = \$1 RETURNING "organizations"\.\*/,
  );
});

const listWatchlist: Routine = {
  schema: "public",
  name: "list_watchlist",
  parameters: [
    { name: "p_limit", type: "integer", hasDefault: false, variadic: false },
    { name: "p_offset", type: "integer", hasDefault: true, variadic: false },
    { name: "p_cursor", type: "text", hasDefault: true, variadic: false },
  ],
  volatility: "stable",
  returnsSet: true,
  returns: "composite",
};

Deno.test("functions: overloads are chosen by argument names; none is PGRST202, several PGRST203", () => {
  assertEquals(
    chooseRoutine([listWatchlist], "public", "list_watchlist", ["p_limit"], true, "json", []),
    listWatchlist,
  );
  assertEquals(
    chooseRoutine([listWatchlist], "public", "list_watchlist", ["p_cursor", "p_limit"], true, "json", []),
    listWatchlist,
  );
  for (const names of [[], ["p_limit", "p_nope"], ["p_offset"]]) {
    try {
      chooseRoutine([listWatchlist], "public", "list_watchlist", names, true, "json", []);
      throw new Error(`accepted ${names}`);
    } catch (error) {
      assert(error instanceof PostgrestError);
      assertEquals([error.status, error.body.code], [404, "PGRST202"]);
    }
  }
  try {
    chooseRoutine([], "public", "nope", ["b", "a"], true, "json", []);
  } catch (error) {
    assert(error instanceof PostgrestError);
    assertEquals(error.body.message, "Could not find the function public.nope(a, b) in the schema cache");
    assertEquals(
      error.body.details,
      "Searched for the function public.nope with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
    );
  }
  const twin = { ...listWatchlist, parameters: [listWatchlist.parameters[0]] };
  try {
    chooseRoutine([listWatchlist, twin], "public", "list_watchlist", ["p_limit"], true, "json", []);
  } catch (error) {
    assert(error instanceof PostgrestError);
    assertEquals([error.status, error.body.code], [300, "PGRST203"]);
  }
});

Deno.test("functions: named arguments through json_to_record with catalog types; scalar and composite shapes", () => {
  const call = callStatement(
    listWatchlist,
    { p_limit: 5 },
    undefined,
    query("status=eq.active&select=domain_name"),
    {
      offset: 0,
      limit: 100,
    },
    arrayShape,
    false,
    catalog,
  );
  assertEquals(call.values, ['{"p_limit":5}', "active"]);
  assertMatch(
    call.text,
    /^WITH pgrst_source AS \(SELECT "pgrst_call"\."domain_name" FROM json_to_record\(\$1::json\) AS pgrst_body\("p_limit" integer\), LATERAL "public"\."list_watchlist"\("p_limit" := pgrst_body\."p_limit"\) AS "pgrst_call" WHERE "pgrst_call"\."status" = \$2\)/,
  );
  assertMatch(call.text, /FROM \(SELECT \* FROM pgrst_source LIMIT 100\) _postgrest_t/);
  const scalar: Routine = {
    ...listWatchlist,
    name: "create_organization",
    returnsSet: false,
    returns: "scalar",
  };
  const scalarCall = callStatement(
    scalar,
    {},
    undefined,
    query(""),
    { offset: 0 },
    arrayShape,
    false,
    catalog,
  );
  assertEquals(scalarCall.values, []);
  assertMatch(scalarCall.text, /SELECT "public"\."create_organization"\(\) AS pgrst_scalar\)/);
  assertMatch(scalarCall.text, /json_agg\(_postgrest_t\.pgrst_scalar\)->0/);
});
