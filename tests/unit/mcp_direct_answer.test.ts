/**
 * The list_watchlist answer made without the SDK (mcp/direct_answer.ts) is the SDK server's answer, byte for
 * byte, and only requests the SDK would answer that way are answered directly. The SDK side runs the real
 * server (mcp/server.ts) with the same page, as api/mcp_handler.ts would hand it over; no database.
 */
import { assert, assertEquals, assertFalse } from "../support/assert.ts";
import { answersDirectly, listWatchlistAnswer } from "../../supabase/functions/_shared/mcp/direct_answer.ts";
import { handleMcpRequest } from "../../supabase/functions/_shared/mcp/server.ts";
import type { ListResponse } from "../../supabase/functions/_shared/contract/schemas.ts";

const sanitize = { sanitizeOps: false, sanitizeResources: false };

const pages: Record<string, ListResponse> = {
  "an empty page": { domains: [], next_cursor: null, has_more: false },
  "a page with more to follow": {
    domains: [
      {
        domain_name: "xn--bcher-kva.de",
        unicode_name: "bücher.de",
        status: "registered",
        added_at: "2026-11-20T10:00:00.000Z",
        last_checked_at: "2026-11-25T08:00:00.000Z",
        status_changed_at: null,
        expires_at: "2027-01-01T00:00:00.000Z",
        registrar: 'Example "Registrar" GmbH',
      },
      {
        domain_name: "zz-top.com",
        status: "available",
        added_at: "2026-11-21T10:00:00.000Z",
        last_checked_at: null,
        status_changed_at: "2026-11-24T23:59:59.999Z",
        expires_at: null,
        registrar: null,
      },
    ],
    next_cursor: "zz-top.com",
    has_more: true,
  },
};

function call(id: string | number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "list_watchlist", arguments: { limit: 2 } },
  };
}

async function sdkAnswer(id: string | number, page: ListResponse): Promise<string> {
  const body = call(id);
  const request = new Request("http://127.0.0.1/api-v1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  const response = await handleMcpRequest(request, {
    account: { userId: crypto.randomUUID(), planId: "pro" },
    counted: { allowed: true, limit: 1000, remaining: 999, resetAt: new Date() },
    onAllowance: () => {},
    listedPage: { ...page, domains: [...page.domains] },
  }, body);
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), "application/json");
  return await response.text();
}

Deno.test("the direct list_watchlist answer is the SDK server's, byte for byte", sanitize, async () => {
  for (const [label, page] of Object.entries(pages)) {
    for (const id of [7, "req-7"]) {
      assertEquals(
        listWatchlistAnswer(id, page),
        await sdkAnswer(id, page),
        `${label}, id ${JSON.stringify(id)}`,
      );
    }
  }
});

Deno.test("only requests the SDK would answer the same way are answered directly", () => {
  const both = "application/json, text/event-stream";
  const headers = (accept: string | null, protocolVersion: string | null = null) => ({
    accept,
    protocolVersion,
  });
  assert(answersDirectly(headers(both), call(1)));
  assert(answersDirectly(headers(both, "2025-11-25"), call("a")));
  assert(answersDirectly(headers(both, "2025-06-18"), call(1)));
  assertFalse(answersDirectly(headers("application/json"), call(1)), "406 from the SDK");
  assertFalse(answersDirectly(headers(null), call(1)), "406 from the SDK");
  assertFalse(answersDirectly(headers(both, "1999-01-01"), call(1)), "400 from the SDK");
  assertFalse(answersDirectly(headers(both), call(1.5)), "not a JSON-RPC id");
  assertFalse(answersDirectly(headers(both), { ...call(1), id: null }), "not a JSON-RPC id");
  assertFalse(answersDirectly(headers(both), { ...call(1), extra: true }), "not a strict JSON-RPC request");
  assertFalse(
    answersDirectly(headers(both), {
      ...call(1),
      params: { name: "list_watchlist", _meta: { progressToken: 1 } },
    }),
    "progress is the SDK's",
  );
  assertFalse(answersDirectly(headers(both), [call(1)]), "a batch");
});

Deno.test("list_watchlist's text names every domain of the page and its status, and the next cursor", () => {
  const text = (page: ListResponse) => JSON.parse(listWatchlistAnswer(1, page)).result.content[0].text;
  assertEquals(text(pages["an empty page"]), "The watchlist page is empty.");
  assertEquals(
    text(pages["a page with more to follow"]),
    "2 domains: xn--bcher-kva.de (registered), zz-top.com (available). More follow; next cursor: zz-top.com",
  );
});
