/**
 * PostgREST's error answers as the Data API stand-in gives them (platform/rest/errors.ts), checked
 * against PostgREST's own table (src/PostgREST/Error.hs, `mapSQLtoHTTP`) and its documented codes.
 */
import {
  errorResponse,
  fromDatabaseError,
  pgrstErrors,
  statusOfSqlState,
} from "../../platform/rest/errors.ts";
import { assertEquals } from "../support/assert.ts";

Deno.test("SQLSTATE → HTTP as PostgREST maps it", () => {
  const cases: [string, string, boolean, number][] = [
    ["08006", "", true, 503],
    ["09000", "", true, 500],
    ["0L000", "", true, 403],
    ["0P000", "", true, 403],
    ["23503", "", true, 409],
    ["23505", "", true, 409],
    ["25006", "", true, 405],
    ["21000", "UPDATE requires a WHERE clause", true, 400],
    ["21000", "more than one row returned by a subquery", true, 500],
    ["22023", 'role "x" does not exist', true, 401],
    ["22023", "invalid parameter", true, 400],
    ["22P02", "invalid input syntax for type uuid", true, 400],
    ["23514", "violates check constraint", true, 400],
    ["25001", "", true, 500],
    ["28000", "", true, 403],
    ["2D000", "", true, 500],
    ["38000", "", true, 500],
    ["39000", "", true, 500],
    ["3B000", "", true, 500],
    ["40001", "", true, 500],
    ["53400", "", true, 500],
    ["53300", "", true, 503],
    ["54000", "", true, 500],
    ["55000", "", true, 500],
    ["57P01", "", true, 503],
    ["57014", "", true, 500],
    ["58000", "", true, 500],
    ["F0000", "", true, 500],
    ["HV000", "", true, 500],
    ["P0001", "", true, 400],
    ["P0002", "", true, 500],
    ["XX000", "", true, 500],
    ["42883", "function nope() does not exist", true, 404],
    ["42883", "function xmlagg(x) does not exist", true, 406],
    ["42P01", "", true, 404],
    ["42P17", "", true, 500],
    ["42501", "permission denied", true, 403],
    ["42501", "permission denied", false, 401],
    ["42703", "column x does not exist", true, 400],
    ["PT402", "", true, 402],
    ["PTxyz", "", true, 500],
    ["DW400", "DW400: bad", true, 400],
  ];
  for (const [code, message, authenticated, status] of cases) {
    assertEquals(statusOfSqlState(code, message, authenticated), status, `${code} ${message}`);
  }
});

Deno.test("a database error keeps code, message, details and hint; a 401 says Bearer", async () => {
  const error = fromDatabaseError(
    { code: "23505", message: "duplicate key", detail: "Key (id)=(1) already exists.", hint: null },
    true,
  );
  assertEquals([error.status, error.body], [409, {
    code: "23505",
    message: "duplicate key",
    details: "Key (id)=(1) already exists.",
    hint: null,
  }]);
  const anonymous = fromDatabaseError({ code: "42501", message: "permission denied for table plans" }, false);
  assertEquals(anonymous.status, 401);
  const response = errorResponse(anonymous);
  assertEquals(response.headers.get("www-authenticate"), "Bearer");
  assertEquals(response.headers.get("content-type"), "application/json; charset=utf-8");
  assertEquals(await response.json(), {
    code: "42501",
    message: "permission denied for table plans",
    details: null,
    hint: null,
  });
});

Deno.test("RAISE SQLSTATE 'PGRST' sets the answer, as PostgREST allows", () => {
  const raised = fromDatabaseError({
    code: "PGRST",
    message: JSON.stringify({
      code: "123",
      message: "Payment Required",
      details: "Quota exceeded",
      hint: "Upgrade",
    }),
    detail: JSON.stringify({ status: 402, headers: { "X-Powered-By": "Nerd Rage" } }),
  }, true);
  assertEquals(raised.status, 402);
  assertEquals(raised.body, {
    code: "123",
    message: "Payment Required",
    details: "Quota exceeded",
    hint: "Upgrade",
  });
  assertEquals(raised.headers, { "X-Powered-By": "Nerd Rage" });
  assertEquals(fromDatabaseError({ code: "PGRST", message: "not json" }, true).body.code, "PGRST121");
});

Deno.test("PostgREST's own codes and statuses", () => {
  const cases: [ReturnType<typeof pgrstErrors.queryParam>, number, string][] = [
    [pgrstErrors.queryParam("m", "d"), 400, "PGRST100"],
    [pgrstErrors.invalidRpcMethod("PATCH"), 405, "PGRST101"],
    [pgrstErrors.invalidBody("Empty or invalid json"), 400, "PGRST102"],
    [pgrstErrors.invalidRange("x"), 416, "PGRST103"],
    [pgrstErrors.unacceptableSchema("private", ["public"]), 406, "PGRST106"],
    [pgrstErrors.mediaType(["text/csv"]), 406, "PGRST107"],
    [pgrstErrors.notEmbedded("orgs"), 400, "PGRST108"],
    [pgrstErrors.singularity(2), 406, "PGRST116"],
    [pgrstErrors.unsupportedMethod("TRACE"), 405, "PGRST117"],
    [pgrstErrors.invalidPreferences(["x=y"]), 400, "PGRST122"],
    [pgrstErrors.aggregatesNotAllowed(), 400, "PGRST123"],
    [pgrstErrors.invalidResourcePath(), 404, "PGRST125"],
    [pgrstErrors.openApiDisabled(), 404, "PGRST126"],
    [pgrstErrors.notImplemented("x"), 400, "PGRST127"],
    [pgrstErrors.noRpc("public", "f", [], true, null), 404, "PGRST202"],
    [pgrstErrors.ambiguousRpc(["a"]), 300, "PGRST203"],
    [pgrstErrors.columnNotFound("t", "c"), 400, "PGRST204"],
    [pgrstErrors.tableNotFound("t", null), 404, "PGRST205"],
    [pgrstErrors.jwtDecode("JWT cryptographic operation failed"), 401, "PGRST301"],
    [pgrstErrors.jwtClaims("JWT expired"), 401, "PGRST303"],
    [pgrstErrors.connection(null), 503, "PGRST000"],
    [pgrstErrors.poolTimeout(), 504, "PGRST003"],
  ];
  for (const [error, status, code] of cases) assertEquals([error.status, error.body.code], [status, code]);
  assertEquals(pgrstErrors.singularity(0).body, {
    code: "PGRST116",
    message: "Cannot coerce the result to a single JSON object",
    details: "The result contains 0 rows",
    hint: null,
  });
  assertEquals(pgrstErrors.unacceptableSchema("private", ["public"]).body, {
    code: "PGRST106",
    message: "Invalid schema: private",
    details: null,
    hint: "Only the following schemas are exposed: public",
  });
  assertEquals(
    pgrstErrors.noRpc("public", "f", [], false, null).body.message,
    "Could not find the function public.f without parameters in the schema cache",
  );
  assertEquals(
    pgrstErrors.jwtClaims("JWT expired").headers["WWW-Authenticate"],
    'Bearer error="invalid_token", error_description="JWT expired"',
  );
});
