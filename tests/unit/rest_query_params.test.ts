/**
 * The Data API stand-in's reading of PostgREST's query string (platform/rest/query_params.ts): what
 * supabase-js sends parses to names and values, and what PostgREST refuses is PGRST100 (or the code it
 * uses for features the stand-in leaves out).
 */
import { PostgrestError } from "../../platform/rest/errors.ts";
import { parseQueryParams } from "../../platform/rest/query_params.ts";
import { assert, assertEquals } from "../support/assert.ts";

const parse = (query: string, rpcRead = false) => parseQueryParams(new URLSearchParams(query), rpcRead);

function refused(query: string, code: string, rpcRead = false): PostgrestError {
  try {
    parse(query, rpcRead);
  } catch (error) {
    assert(error instanceof PostgrestError, String(error));
    assertEquals(error.body.code, code, `${query}: ${JSON.stringify(error.body)}`);
    return error;
  }
  throw new Error(`${query} was accepted`);
}

Deno.test("select: columns, aliases, casts, star, quoted names; default *", () => {
  assertEquals(parse("").select, [{ kind: "star" }]);
  assertEquals(parse("select=id,quota:watchlist_quota,watchlist_quota::text,*").select, [
    { kind: "column", name: "id", path: [], alias: undefined, cast: undefined },
    { kind: "column", name: "watchlist_quota", path: [], alias: "quota", cast: undefined },
    { kind: "column", name: "watchlist_quota", path: [], alias: undefined, cast: "text" },
    { kind: "star" },
  ]);
  // supabase-js strips whitespace outside quotes; a quoted name keeps anything, escapes included.
  const names = (text: string) => parse(text).select.map((item) => item.kind === "star" ? "*" : item.name);
  assertEquals(names('select="a,b","x\\"y"'), ["a,b", 'x"y']);
  assertEquals(names("select=first-name"), ["first-name"]);
  assertEquals(parse("select=").select, []);
});

Deno.test("select: embedding, spreads and JSON paths parse; aggregates are refused as on hosted", () => {
  assertEquals(
    parse("select=id,org:organizations!members_org_fkey!inner(name),...plans(id)").select.slice(1),
    [
      {
        kind: "embed",
        name: "organizations",
        alias: "org",
        hint: "members_org_fkey",
        join: "inner",
        spread: false,
        children: [{ kind: "column", name: "name", path: [], alias: undefined, cast: undefined }],
      },
      {
        kind: "embed",
        name: "plans",
        alias: undefined,
        hint: undefined,
        join: undefined,
        spread: true,
        children: [{ kind: "column", name: "id", path: [], alias: undefined, cast: undefined }],
      },
    ],
  );
  assertEquals(parse("select=data->a->>0").select, [{
    kind: "column",
    name: "data",
    path: [{ arrow: "->", key: "a", index: false }, { arrow: "->>", key: "0", index: true }],
    alias: undefined,
    cast: undefined,
  }]);
  refused("select=count()", "PGRST123");
  refused("select=quota.sum()", "PGRST123");
  const bad = refused("select=id,", "PGRST100");
  assertEquals(bad.status, 400);
  assert(bad.body.message.startsWith('"failed to parse select parameter (id,)"'));
  refused("select=id;drop", "PGRST100");
});

Deno.test("filters: every operator, not., quantifiers, lists with quotes", () => {
  const { filters } = parse(
    "a=eq.1&b=neq.x&c=gt.1&d=gte.1&e=lt.1&f=lte.1&g=like.*x*&h=ilike.X*&i=in.(1,2,%22c,d%22)&j=is.null" +
      "&k=not.is.not_null&l=isdistinct.5&m=cs.{1,2}&n=eq(any).{a,b}&o=match.^a&p=not.in.()&q=is.TRUE",
  );
  assertEquals(filters.map((filter) => [filter.column, filter.negated, filter.operation]), [
    ["a", false, { kind: "quant", operator: "eq", quantifier: undefined, value: "1" }],
    ["b", false, { kind: "simple", operator: "neq", value: "x" }],
    ["c", false, { kind: "quant", operator: "gt", quantifier: undefined, value: "1" }],
    ["d", false, { kind: "quant", operator: "gte", quantifier: undefined, value: "1" }],
    ["e", false, { kind: "quant", operator: "lt", quantifier: undefined, value: "1" }],
    ["f", false, { kind: "quant", operator: "lte", quantifier: undefined, value: "1" }],
    ["g", false, { kind: "quant", operator: "like", quantifier: undefined, value: "*x*" }],
    ["h", false, { kind: "quant", operator: "ilike", quantifier: undefined, value: "X*" }],
    ["i", false, { kind: "in", values: ["1", "2", "c,d"] }],
    ["j", false, { kind: "is", value: "null" }],
    ["k", true, { kind: "is", value: "not_null" }],
    ["l", false, { kind: "isdistinct", value: "5" }],
    ["m", false, { kind: "simple", operator: "cs", value: "{1,2}" }],
    ["n", false, { kind: "quant", operator: "eq", quantifier: "any", value: "{a,b}" }],
    ["o", false, { kind: "quant", operator: "match", quantifier: undefined, value: "^a" }],
    ["p", true, { kind: "in", values: [""] }],
    ["q", false, { kind: "is", value: "true" }],
  ]);
  // A value is everything after the operator, dots, semicolons and quotes included: it is only ever bound.
  assertEquals(parse("id=eq.1;drop table x;--.").filters[0].operation, {
    kind: "quant",
    operator: "eq",
    quantifier: undefined,
    value: "1;drop table x;--.",
  });
});

Deno.test("filters: unknown operators, bad is values and embedded paths are refused", () => {
  refused("id=zz.1", "PGRST100");
  refused("id=1", "PGRST100");
  refused("id=", "PGRST100");
  refused("id=is.maybe", "PGRST100");
  refused("id=in.(1,2", "PGRST100");
  const embedded = refused("organizations.id=eq.1", "PGRST108");
  assertEquals(embedded.body.message, "'organizations' is not an embedded resource in this request");
  refused("organizations.order=id", "PGRST108");
});

Deno.test("or/and trees: nesting, not., quoted values and arrays", () => {
  const { logic } = parse(
    `or=(id.eq.free,and(id.eq.pro,api_access.is.true),name.eq."a,b",tags.cs.{x,y})&not.and=(a.gt.1,b.lt.2)`,
  );
  assertEquals(logic, [
    {
      kind: "logic",
      operator: "or",
      negated: false,
      children: [
        {
          kind: "filter",
          filter: {
            column: "id",
            negated: false,
            operation: { kind: "quant", operator: "eq", quantifier: undefined, value: "free" },
          },
        },
        {
          kind: "logic",
          operator: "and",
          negated: false,
          children: [
            {
              kind: "filter",
              filter: {
                column: "id",
                negated: false,
                operation: { kind: "quant", operator: "eq", quantifier: undefined, value: "pro" },
              },
            },
            {
              kind: "filter",
              filter: { column: "api_access", negated: false, operation: { kind: "is", value: "true" } },
            },
          ],
        },
        {
          kind: "filter",
          filter: {
            column: "name",
            negated: false,
            operation: { kind: "quant", operator: "eq", quantifier: undefined, value: "a,b" },
          },
        },
        {
          kind: "filter",
          filter: {
            column: "tags",
            negated: false,
            operation: { kind: "simple", operator: "cs", value: "{x,y}" },
          },
        },
      ],
    },
    {
      kind: "logic",
      operator: "and",
      negated: true,
      children: [
        {
          kind: "filter",
          filter: {
            column: "a",
            negated: false,
            operation: { kind: "quant", operator: "gt", quantifier: undefined, value: "1" },
          },
        },
        {
          kind: "filter",
          filter: {
            column: "b",
            negated: false,
            operation: { kind: "quant", operator: "lt", quantifier: undefined, value: "2" },
          },
        },
      ],
    },
  ]);
  refused("or=(id.eq.1,id.neq.1);delete from x", "PGRST100");
  refused("or=id.eq.1", "PGRST100");
  refused("or=(id.eq.1", "PGRST100");
  refused("or=()", "PGRST100");
});

Deno.test("order, limit, offset, columns, on_conflict", () => {
  const query = parse(
    "order=a.desc.nullslast,b,c.asc&limit=10&offset=5&columns=%22x%22,%22y%22&on_conflict=id",
  );
  assertEquals(query.order, [{ column: "a", direction: "desc", nulls: "last" }, { column: "b" }, {
    column: "c",
    direction: "asc",
  }]);
  assertEquals([query.limit, query.offset], [10, 5]);
  assertEquals(query.columns, ["x", "y"]);
  assertEquals(query.onConflict, ["id"]);
  // PostgREST ignores a limit it cannot read as a number.
  assertEquals(parse("limit=ten").limit, undefined);
  refused("order=a.sideways", "PGRST100");
  refused("order=a;drop table x", "PGRST100");
  refused("order=organizations(name)", "PGRST127");
});

Deno.test("GET /rpc: parameters that are not filters are the function's arguments", () => {
  const query = parse("p_limit=2&p_name=example.com&status=eq.active&p_tags={a,b}", true);
  assertEquals(query.rpcArgs, { p_limit: "2", p_name: "example.com", p_tags: "{a,b}" });
  assertEquals(query.filters.map((filter) => filter.column), ["status"]);
  // On a table the same parameter is a bad filter.
  refused("p_limit=2", "PGRST100");
});
