/**
 * `Prefer`, `Range`/`limit`/`offset` and `Content-Range` as PostgREST reads and writes them
 * (platform/rest/preferences.ts), and the Data API stand-in's CORS answers (platform/rest/cors.ts).
 */
import { preflightResponse } from "../../platform/rest/cors.ts";
import { PostgrestError } from "../../platform/rest/errors.ts";
import {
  contentRange,
  parsePreferences,
  preferenceApplied,
  readStatus,
  requestedRange,
} from "../../platform/rest/preferences.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("Prefer: the values supabase-js sends; the first of a kind wins; strict handling refuses unknowns", () => {
  const preferences = parsePreferences(
    "return=representation, count=exact,missing=default, return=minimal, foo=bar",
  );
  assertEquals(preferences.return, "representation");
  assertEquals(preferences.count, "exact");
  assertEquals(preferences.missing, "default");
  assertEquals(preferences.invalid, ["foo=bar"]);
  assertEquals(preferenceApplied(preferences, ["return", "count"]), "return=representation, count=exact");
  assertEquals(preferenceApplied(parsePreferences(null), ["count"]), undefined);
  assertEquals(parsePreferences("resolution=merge-duplicates").resolution, "merge-duplicates");
  try {
    parsePreferences("handling=strict, foo=bar");
    throw new Error("accepted");
  } catch (error) {
    assert(error instanceof PostgrestError);
    assertEquals(error.body.code, "PGRST122");
    assertEquals(error.body.details, "Invalid preferences: foo=bar");
  }
});

Deno.test("Range header, limit and offset intersect; max_rows caps; bad ranges are PGRST103", () => {
  assertEquals(requestedRange("GET", null, undefined, undefined, 1000), { offset: 0, limit: 1000 });
  assertEquals(requestedRange("GET", null, 10, 20, 1000), { offset: 20, limit: 10 });
  assertEquals(requestedRange("GET", "0-9", undefined, undefined, undefined), { offset: 0, limit: 10 });
  assertEquals(requestedRange("GET", "5-", undefined, undefined, undefined), { offset: 5, limit: undefined });
  assertEquals(requestedRange("GET", "0-99", 10, undefined, undefined), { offset: 0, limit: 10 });
  // The Range header counts for GET only, as RFC 9110 says and PostgREST does.
  assertEquals(requestedRange("POST", "0-9", undefined, undefined, undefined), {
    offset: 0,
    limit: undefined,
  });
  assertEquals(requestedRange("GET", null, 0, undefined, 1000), { offset: 0, limit: 0 });
  for (const [header, limit] of [["9-0", undefined], [null, -1]] as const) {
    try {
      requestedRange("GET", header, limit, undefined, undefined);
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof PostgrestError);
      assertEquals([error.status, error.body.code], [416, "PGRST103"]);
    }
  }
});

Deno.test("Content-Range and the status of a read", () => {
  assertEquals(contentRange(0, 9, undefined), "0-9/*");
  assertEquals(contentRange(0, 9, 100), "0-9/100");
  assertEquals(contentRange(0, -1, 0), "*/0");
  assertEquals(contentRange(1, 0, 3), "*/3");
  assertEquals(contentRange(1, 0, undefined), "*/*");
  assertEquals(readStatus(0, 10, undefined), 200);
  assertEquals(readStatus(0, 10, 100), 206);
  assertEquals(readStatus(0, 4, 4), 200);
  assertEquals(readStatus(10, 0, 4), 416);
  assertEquals(readStatus(0, 0, 0), 200);
});

Deno.test("CORS: a browser's preflight is answered for any origin, with the headers it asks for", () => {
  const preflight = preflightResponse(
    new Request("http://127.0.0.1/rest/v1/plans", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey, x-client-info, content-profile",
      },
    }),
  );
  assertEquals(preflight.status, 200);
  assertEquals(preflight.headers.get("access-control-allow-origin"), "*");
  assertEquals(
    preflight.headers.get("access-control-allow-headers"),
    "Authorization, apikey, x-client-info, content-profile",
  );
  assertEquals(preflight.headers.get("access-control-max-age"), "86400");
  const plain = preflightResponse(new Request("http://127.0.0.1/rest/v1/plans", { method: "OPTIONS" }));
  assertEquals(plain.headers.get("access-control-allow-origin"), null);
});
