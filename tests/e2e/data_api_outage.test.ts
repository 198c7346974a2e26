/**
 * The Data API stand-in when the database cannot be reached: PostgREST's 503 `PGRST000` in its error shape,
 * never a crash or a 500 (docs/runtime.md, "Data API stand-in").
 */
import { closeRestDatabase } from "../../platform/rest/database.ts";
import { handleRestRequest } from "../../platform/rest/handler.ts";
import { localPublishableKey } from "../../platform/secrets.ts";
import { assertEquals } from "../support/assert.ts";

Deno.test("Data API stand-in: an unreachable database is 503 PGRST000", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // a port where nothing listens: every connection is refused
  const saved = Deno.env.get("SUPABASE_DB_URL");
  await closeRestDatabase();
  Deno.env.set("SUPABASE_DB_URL", `postgresql://postgres@127.0.0.1:${port}/postgres`);
  try {
    const response = await handleRestRequest(
      new Request("http://127.0.0.1/rest/v1/plans?select=id", { headers: { apikey: localPublishableKey } }),
    );
    assertEquals(response.status, 503);
    const body = await response.json();
    assertEquals([body.code, body.message], ["PGRST000", "Database connection error."]);
    assertEquals(Object.keys(body).sort(), ["code", "details", "hint", "message"]);
  } finally {
    await closeRestDatabase();
    if (saved === undefined) Deno.env.delete("SUPABASE_DB_URL");
    else Deno.env.set("SUPABASE_DB_URL", saved);
  }
});
