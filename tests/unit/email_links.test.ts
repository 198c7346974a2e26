/**
 * email-links over HTTP with a store in memory: a GET changes nothing (303 to the app's page, or JSON
 * without APP_URL), a POST with the token in the query (RFC 8058) or a JSON body acts once, bad tokens are
 * 400, unknown ones 404, CORS only for the app's origins, and the bare path answers (preflight).
 */
import { assertEquals } from "../support/assert.ts";
import { emailLinksApp, type EmailLinkStore } from "../../supabase/functions/_shared/email_links/handler.ts";

const token = "ab".repeat(24);

function memoryStore(): EmailLinkStore & { calls: string[] } {
  const used = new Set<string>();
  const calls: string[] = [];
  return {
    calls,
    confirm(value) {
      calls.push(`confirm ${value}`);
      if (value !== token || used.has(`c${value}`)) return Promise.resolve("invalid");
      used.add(`c${value}`);
      return Promise.resolve("confirmed");
    },
    unsubscribe(value) {
      calls.push(`unsubscribe ${value}`);
      return Promise.resolve(value === token ? "unsubscribed" : "invalid");
    },
  };
}

async function withEnv<T>(values: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, Deno.env.get(name)]));
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) Deno.env.delete(name);
    else Deno.env.set(name, value);
  }
  try {
    return await work();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test("a GET of a link changes nothing: 303 to the app's page, or JSON without APP_URL", async () => {
  const store = memoryStore();
  const app = emailLinksApp(store);
  await withEnv({ APP_URL: "https://app.example", APP_ORIGINS: undefined }, async () => {
    const response = await app.request(`/email-links/unsubscribe?token=${token}`);
    assertEquals(response.status, 303);
    assertEquals(
      response.headers.get("location"),
      `https://app.example/email-link?action=unsubscribe&token=${token}`,
    );
  });
  await withEnv({ APP_URL: undefined, APP_ORIGINS: undefined }, async () => {
    const response = await app.request(`/email-links/confirm?token=${token}`);
    assertEquals(response.status, 200);
    assertEquals((await response.json()).action, "confirm");
  });
  assertEquals(store.calls, []);
});

Deno.test("POST: RFC 8058 one-click with the token in the query, or the app's JSON body", async () => {
  const store = memoryStore();
  const app = emailLinksApp(store);
  const oneClick = await app.request(`/email-links/unsubscribe?token=${token}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
  });
  assertEquals([oneClick.status, await oneClick.json()], [200, { status: "unsubscribed" }]);
  const confirm = await app.request("/email-links/confirm", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  assertEquals([confirm.status, await confirm.json()], [200, { status: "confirmed" }]);
  const again = await app.request(`/email-links/confirm?token=${token}`, { method: "POST" });
  assertEquals(again.status, 404);
  assertEquals((await again.json()).reason, "invalid_link");
});

Deno.test("malformed tokens are 400 and reach no store; bad JSON is 400; other methods 405", async () => {
  const store = memoryStore();
  const app = emailLinksApp(store);
  for (const path of ["/email-links/confirm?token=XYZ", "/email-links/unsubscribe", "/email-links/confirm"]) {
    const response = await app.request(path, { method: "POST" });
    assertEquals(response.status, 400, path);
    await response.body?.cancel();
  }
  const badJson = await app.request("/email-links/confirm", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{",
  });
  assertEquals(badJson.status, 400);
  await badJson.body?.cancel();
  const get = await app.request("/email-links/confirm?token=short");
  assertEquals(get.status, 400);
  await get.body?.cancel();
  const put = await app.request(`/email-links/confirm?token=${token}`, { method: "PUT" });
  assertEquals(put.status, 405);
  await put.body?.cancel();
  const bare = await app.request("/email-links");
  assertEquals(bare.status, 400, "the bare path answers (preflight sees the function)");
  await bare.body?.cancel();
  assertEquals(store.calls, []);
});

Deno.test("CORS only for the app's origins", async () => {
  const app = emailLinksApp(memoryStore());
  await withEnv({ APP_URL: "https://app.example", APP_ORIGINS: undefined }, async () => {
    const allowed = await app.request("/email-links/confirm", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    assertEquals(allowed.headers.get("access-control-allow-origin"), "https://app.example");
    const other = await app.request("/email-links/confirm", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    assertEquals(other.headers.get("access-control-allow-origin"), null);
  });
});
