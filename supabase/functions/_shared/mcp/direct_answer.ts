/**
 * The answer to a request that is exactly one `tools/call` of `list_watchlist` whose page was already read
 * (api/mcp_handler.ts), made here instead of by the SDK's server: the same JSON-RPC response, byte for byte
 * (tests/unit/mcp_direct_answer.test.ts holds the two side by side), without the SDK's per-request work
 * (transport, schema parsing of the request and result, and validating 200 rows against the output schema,
 * which the page meets by construction). Only a request the SDK would answer with that response qualifies:
 * anything it would refuse or treat differently goes to the SDK. Pure.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { ListResponse } from "../contract/schemas.ts";
import { isRecord } from "../encoding.ts";
import { listWatchlistResult } from "./tools.ts";

const requestKeys = new Set(["jsonrpc", "id", "method", "params"]);
const paramKeys = new Set(["name", "arguments"]);

/**
 * Whether the SDK's stateless JSON transport would take this request as it is: it accepts both JSON and
 * SSE (406 otherwise), names a supported protocol version or none (400 otherwise), and the body is one
 * JSON-RPC request (an id that is a string or an integer) with nothing but `name` and `arguments` in its
 * params (no `_meta`: progress tokens and tasks are the SDK's business). The body's method and tool are the
 * caller's to check.
 */
export function answersDirectly(
  headers: { accept: string | null; protocolVersion: string | null },
  body: unknown,
): boolean {
  if (!headers.accept?.includes("application/json") || !headers.accept.includes("text/event-stream")) {
    return false;
  }
  if (headers.protocolVersion !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(headers.protocolVersion)) {
    return false;
  }
  if (!isRecord(body) || !Object.keys(body).every((key) => requestKeys.has(key))) return false;
  const id = body.id;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return false;
  return isRecord(body.params) && Object.keys(body.params).every((key) => paramKeys.has(key));
}

/** The JSON-RPC response text to list_watchlist call `id` answered with `page`. */
export function listWatchlistAnswer(id: string | number, page: ListResponse): string {
  return JSON.stringify({ result: listWatchlistResult(page), jsonrpc: "2.0", id });
}
