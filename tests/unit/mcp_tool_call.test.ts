import { assert, assertFalse } from "../support/assert.ts";
import { isSingleToolCall } from "../../supabase/functions/_shared/mcp/tool_call.ts";

const tools = new Set(["list_watchlist"]);
const call = (extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_watchlist", arguments: {} },
  ...extra,
});

Deno.test("only one tools/call of a known tool is counted with the key check", () => {
  assert(isSingleToolCall(call(), tools));
  assertFalse(isSingleToolCall([call()], tools), "a batch counts per tool call, later");
  assertFalse(isSingleToolCall(call({ method: "tools/list" }), tools));
  assertFalse(isSingleToolCall(call({ params: { name: "unknown_tool" } }), tools));
  assertFalse(isSingleToolCall(call({ params: "list_watchlist" }), tools));
  assertFalse(
    isSingleToolCall({ jsonrpc: "2.0", method: "tools/call", params: { name: "list_watchlist" } }, tools),
  );
  assertFalse(isSingleToolCall(call({ jsonrpc: "1.0" }), tools));
  assertFalse(isSingleToolCall(undefined, tools));
  assertFalse(isSingleToolCall("tools/call", tools));
});
