/** Recognises a JSON-RPC body that is exactly one `tools/call` of a known tool. Pure. */
import { isRecord } from "../encoding.ts";

export function isSingleToolCall(body: unknown, knownTools: ReadonlySet<string>): boolean {
  if (!isRecord(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call" || !("id" in body)) {
    return false;
  }
  const params = body.params;
  return isRecord(params) && typeof params.name === "string" && knownTools.has(params.name);
}
