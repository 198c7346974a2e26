/** The e2e tests' contract check (tests/support/contract.ts) catches drift: it is not a rubber stamp. */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { contractFrom } from "../support/contract.ts";
import { openApiDocument } from "../../supabase/functions/_shared/contract/openapi.ts";

const base = "http://127.0.0.1:1/functions/v1/api-v1";
const contract = contractFrom(openApiDocument(base), "/functions/v1/api-v1");
const headers = new Headers({
  "RateLimit-Limit": "1000",
  "RateLimit-Remaining": "3",
  "RateLimit-Reset": "60",
  "X-Request-Id": "req-1",
});
const entry = {
  domain_name: "example.com",
  status: "unknown",
  added_at: "2026-11-23T00:00:00.000Z",
  last_checked_at: null,
  status_changed_at: null,
  expires_at: null,
  registrar: null,
};
const page = { domains: [entry], next_cursor: null, has_more: false };
const errorBody = { error: "not_found", message: "There is no PUT /domains." };

async function fails(work: () => void): Promise<string> {
  const error = await assertRejects(() => Promise.resolve().then(work));
  return String(error);
}

Deno.test("a documented response passes; extra, missing or mistyped fields do not", async () => {
  contract.assertResponse("GET", `${base}/domains?limit=5`, { status: 200, headers, body: page });
  await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, {
      status: 200,
      headers,
      body: { ...page, domains: [{ ...entry, extra: 1 }] },
    })
  );
  await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, { status: 200, headers, body: { domains: [] } })
  );
  await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, {
      status: 200,
      headers,
      body: { ...page, domains: [{ ...entry, status: "gone" }] },
    })
  );
  await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, {
      status: 200,
      headers: new Headers({ "RateLimit-Remaining": "many", "X-Request-Id": "req-1" }),
      body: page,
    })
  );
  const missing = await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, { status: 200, headers: new Headers(), body: page })
  );
  assertEquals(missing.includes("X-Request-Id is missing"), true, missing);
  // An Enterprise answer carries no RateLimit-* headers: they are documented but not required.
  contract.assertResponse("GET", `${base}/domains`, {
    status: 200,
    headers: new Headers({ "X-Request-Id": "req-1" }),
    body: page,
  });
});

Deno.test("an undocumented status fails; a response no operation owns must be an error body", async () => {
  const message = await fails(() =>
    contract.assertResponse("GET", `${base}/domains`, { status: 404, headers, body: errorBody })
  );
  assertEquals(message.includes("not documented"), true, message);
  contract.assertResponse("PUT", `${base}/domains`, { status: 405, headers, body: errorBody });
  contract.assertResponse("GET", `${base}/nowhere`, { status: 404, headers, body: errorBody });
  await fails(() => contract.assertResponse("GET", `${base}/nowhere`, { status: 404, headers, body: {} }));
  contract.assertResponse("DELETE", `${base}/domains/b%C3%BCcher.de`, {
    status: 200,
    headers,
    body: { removed: true, domain_name: "xn--bcher-kva.de" },
  });
});

Deno.test("a tool result is checked against the REST operation it mirrors", async () => {
  contract.assertToolResult("list_watchlist", { structuredContent: page });
  contract.assertToolResult("remove_domain", { isError: true, structuredContent: errorBody });
  await fails(() => contract.assertToolResult("add_domains", { structuredContent: { added: 1 } }));
  await fails(() => contract.assertToolResult("remove_domain", { isError: true, structuredContent: {} }));
  await fails(() => contract.assertToolResult("no_such_tool", { structuredContent: {} }));
});
