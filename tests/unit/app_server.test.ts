/** The app's static server: files, the SPA fallback for every route (names with dots too), config.json. */
import { appHandler } from "../../platform/app_host/server.ts";
import { contentSecurityPolicy } from "../../platform/app_host/headers.ts";
import { assertEquals, assertMatch } from "../support/assert.ts";

Deno.test("the app server answers files, routes and its config", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>app</title>");
  await Deno.writeTextFile(`${dir}/app.js`, "console.log(1)");
  const handler = appHandler({
    port: 0,
    dir,
    config: { supabaseUrl: "http://127.0.0.1:54321", publishableKey: "sb_publishable_x" },
  });
  const get = (path: string) => handler(new Request(`http://localhost:3000${path}`));
  const js = await get("/app.js");
  assertEquals(js.headers.get("content-type"), "text/javascript; charset=utf-8");
  assertEquals(await js.text(), "console.log(1)");
  for (
    const route of [
      "/",
      "/domains/example.dev",
      "/domains/bücher.de",
      "/oauth/consent?authorization_id=x",
      "/accept-invite",
    ]
  ) {
    const page = await get(route);
    assertEquals(page.status, 200, route);
    assertMatch(await page.text(), /<title>app<\/title>/);
    assertEquals(page.headers.get("x-frame-options"), "DENY", "the consent page cannot be framed");
    assertEquals(
      page.headers.get("content-security-policy"),
      contentSecurityPolicy({ supabaseUrl: "http://127.0.0.1:54321" }),
    );
    assertMatch(
      page.headers.get("content-security-policy")!,
      /connect-src 'self' http:\/\/127\.0\.0\.1:54321;/,
    );
  }
  assertEquals((await get("/missing.js")).status, 404);
  assertEquals((await get("/../etc/passwd")).status, 200, "no way out of the folder: the route answer");
  const config = await (await get("/config.json")).json();
  assertEquals(config, {
    supabaseUrl: "http://127.0.0.1:54321",
    publishableKey: "sb_publishable_x",
    functionsUrl: "http://127.0.0.1:54321/functions/v1",
  });
  assertEquals((await handler(new Request("http://localhost:3000/", { method: "POST" }))).status, 405);
  await Deno.remove(dir, { recursive: true });
});
