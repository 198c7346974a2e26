/**
 * Preloaded into MCP test clients that cannot send custom headers (the conformance runner): adds
 * `x-api-key: $MCP_TEST_API_KEY` to every outgoing request, through both `fetch` and undici's global
 * dispatcher (the runner's raw requests use undici).
 */
import { Agent, type Dispatcher, setGlobalDispatcher } from "undici";

const apiKey = Deno.env.get("MCP_TEST_API_KEY");
if (!apiKey) throw new Error("MCP_TEST_API_KEY is not set");

const realFetch = globalThis.fetch;
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  if (!request.headers.has("x-api-key")) request.headers.set("x-api-key", apiKey);
  return realFetch(request);
};

function withApiKey(headers: Dispatcher.DispatchOptions["headers"]): Dispatcher.DispatchOptions["headers"] {
  if (Array.isArray(headers)) return [...headers, "x-api-key", apiKey!];
  if (headers && typeof headers === "object" && !(Symbol.iterator in headers)) {
    return { ...(headers as Record<string, string>), "x-api-key": apiKey! };
  }
  const list: string[] = [];
  for (const [name, value] of (headers ?? []) as Iterable<[string, string]>) list.push(name, value);
  return [...list, "x-api-key", apiKey!];
}

setGlobalDispatcher(
  new Agent().compose((dispatch) => (options, handler) =>
    dispatch({ ...options, headers: withApiKey(options.headers) }, handler)
  ),
);
