/**
 * The Data API stand-in's relationship choice (platform/rest/relationships.ts, PostgREST's `findRel`) and
 * function choice (platform/rest/rpc.ts, PostgREST's `findProc`), on small catalogs of this test's own.
 */
import { PostgrestError } from "../../platform/rest/errors.ts";
import {
  findRelationship,
  type ForeignKeyRelationship,
  type RelationshipCatalog,
} from "../../platform/rest/relationships.ts";
import { chooseRoutine, type Routine } from "../../platform/rest/rpc.ts";
import { assert, assertEquals } from "../support/assert.ts";

const t = (name: string) => ({ schema: "public", name });

function fk(
  table: string,
  foreign: string,
  constraint: string,
  cardinality: ForeignKeyRelationship["cardinality"],
  columns: [string, string][],
): ForeignKeyRelationship {
  return {
    kind: "fk",
    table: t(table),
    foreignTable: t(foreign),
    constraint,
    cardinality,
    columns,
    isSelf: table === foreign,
    foreignIsView: false,
  };
}

// books.author_id and books.editor_id → authors; reviews.book_id → books.
const catalog: RelationshipCatalog = {
  tables: new Map(),
  relationships: [
    fk("books", "authors", "books_author_id_fkey", "many-to-one", [["author_id", "id"]]),
    fk("books", "authors", "books_editor_id_fkey", "many-to-one", [["editor_id", "id"]]),
    fk("authors", "books", "books_author_id_fkey", "one-to-many", [["id", "author_id"]]),
    fk("authors", "books", "books_editor_id_fkey", "one-to-many", [["id", "editor_id"]]),
    fk("reviews", "books", "reviews_book_id_fkey", "many-to-one", [["book_id", "id"]]),
  ],
};

function refused(run: () => unknown): PostgrestError {
  try {
    run();
  } catch (error) {
    assert(error instanceof PostgrestError);
    return error;
  }
  throw new Error("accepted");
}

Deno.test("relationships: a table, a constraint or a column names one; hints disambiguate", () => {
  const byConstraint = findRelationship(catalog, t("books"), "books_editor_id_fkey", undefined);
  assertEquals(byConstraint.kind === "fk" && byConstraint.columns, [["editor_id", "id"]]);
  const byColumn = findRelationship(catalog, t("books"), "author_id", undefined);
  assertEquals(byColumn.kind === "fk" && byColumn.constraint, "books_author_id_fkey");
  const hinted = findRelationship(catalog, t("authors"), "books", "editor_id");
  assertEquals(hinted.kind === "fk" && [hinted.cardinality, hinted.constraint], [
    "one-to-many",
    "books_editor_id_fkey",
  ]);
  assertEquals(findRelationship(catalog, t("reviews"), "books", undefined).foreignTable, t("books"));
});

Deno.test("relationships: several is PGRST201 (300) with PostgREST's details and hint; none PGRST200", () => {
  const ambiguous = refused(() => findRelationship(catalog, t("books"), "authors", undefined));
  assertEquals([ambiguous.status, ambiguous.body.code], [300, "PGRST201"]);
  assertEquals(ambiguous.body.details, [
    {
      cardinality: "many-to-one",
      embedding: "books with authors",
      relationship: "books_author_id_fkey using books(author_id) and authors(id)",
    },
    {
      cardinality: "many-to-one",
      embedding: "books with authors",
      relationship: "books_editor_id_fkey using books(editor_id) and authors(id)",
    },
  ]);
  assertEquals(
    ambiguous.body.hint,
    "Try changing 'authors' to one of the following: 'authors!books_author_id_fkey', " +
      "'authors!books_editor_id_fkey'. Find the desired relationship in the 'details' key.",
  );
  const none = refused(() => findRelationship(catalog, t("reviews"), "authors", "x"));
  assertEquals([none.status, none.body.code], [400, "PGRST200"]);
  assertEquals(
    none.body.details,
    "Searched for a foreign key relationship between 'reviews' and 'authors' using the hint 'x' in the schema " +
      "'public', but no matches were found.",
  );
});

const routine = (parameters: Routine["parameters"], returns: Routine["returns"] = "scalar"): Routine => ({
  schema: "public",
  name: "f",
  parameters,
  volatility: "immutable",
  returnsSet: false,
  returns,
});
const p = (name: string, type: string, hasDefault = false) => ({ name, type, hasDefault, variadic: false });

Deno.test("functions: named overloads first, then a single unnamed json parameter for a POST", () => {
  const none = routine([]);
  const unnamedJson = routine([p("", "json")]);
  const named = routine([p("a", "integer")]);
  assertEquals(chooseRoutine([none, unnamedJson, named], "public", "f", [], true, "json", []), none);
  assertEquals(chooseRoutine([none, unnamedJson, named], "public", "f", ["a"], true, "json", []), named);
  assertEquals(chooseRoutine([none, unnamedJson], "public", "f", ["x", "y"], true, "json", []), unnamedJson);
  // GET never takes the body as an unnamed argument.
  const viaGet = refused(() => chooseRoutine([unnamedJson], "public", "f", ["x"], false, "json", []));
  assertEquals([viaGet.status, viaGet.body.code], [404, "PGRST202"]);
  // Two overloads with optional parameters both match no argument: PGRST203 naming both.
  const ambiguous = refused(() =>
    chooseRoutine([none, routine([p("", "text", true)])], "public", "f", [], true, "json", [])
  );
  assertEquals(
    ambiguous.body.message,
    "Could not choose the best candidate function between: public.f(), public.f( => text)",
  );
});

Deno.test("functions: PGRST202 hints at the closest function or parameter list, as PostgREST's fuzzy search", () => {
  const unknown = refused(() =>
    chooseRoutine([], "public", "get_statuss", [], true, "json", ["get_status", "x"])
  );
  assertEquals(unknown.body.hint, "Perhaps you meant to call the function public.get_status");
  const far = refused(() => chooseRoutine([], "public", "zzz", [], true, "json", ["get_status"]));
  assertEquals(far.body.hint, null);
  const params = refused(() =>
    chooseRoutine([routine([p("name_param", "text")])], "public", "f", ["name_parm"], true, "json", [])
  );
  assertEquals(params.body.hint, "Perhaps you meant to call the function public.f(name_param)");
});
