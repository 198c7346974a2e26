import { Hono } from "hono";
import { assert, assertEquals } from "../support/assert.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import {
  errorHandler,
  methodNotAllowed,
  notFound,
  requestId,
  type RequestIdEnv,
} from "../../supabase/functions/_shared/http/pipeline.ts";

function app(): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  app.use("*", requestId());
  app.onError(errorHandler("test"));
  app.notFound(notFound());
  app.get("/boom", () => {
    throw new Error("database password is hunter2");
  });
  app.get("/known", () => {
    throw new ApiError("not_found", "No such thing.");
  });
  app.all("/only-get", methodNotAllowed(["GET"]));
  return app;
}

Deno.test("an unexpected error is a 500 `internal` with the request id, logged, and no details leak", async () => {
  const logged: string[] = [];
  const realError = console.error;
  console.error = (...args: unknown[]) => logged.push(args.join(" "));
  try {
    const response = await app().request("/boom");
    const text = await response.text();
    const body = JSON.parse(text);
    assertEquals(response.status, 500);
    assertEquals(body.error, "internal");
    assertEquals(body.request_id, response.headers.get("x-request-id"));
    assert(!text.includes("hunter2") && !text.includes("at "), "no message or stack trace in the body");
    assert(logged.some((line) => line.includes(body.request_id)), "the log line carries the request id");
  } finally {
    console.error = realError;
  }
});

Deno.test("known errors, unknown paths and wrong methods are JSON with their codes", async () => {
  const known = await app().request("/known");
  assertEquals(known.status, 404);
  assertEquals(await known.json(), { error: "not_found", message: "No such thing." });
  const missing = await app().request("/nowhere");
  assertEquals((await missing.json()).error, "not_found");
  const wrong = await app().request("/only-get", { method: "POST" });
  assertEquals(wrong.status, 405);
  assertEquals(wrong.headers.get("allow"), "GET");
});
