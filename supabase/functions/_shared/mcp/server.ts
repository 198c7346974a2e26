/**
 * The MCP server (stateless Streamable HTTP, JSON responses) holding the four tools.
 *
 * Each request gets a fresh transport (the SDK refuses to reuse a stateless one: JSON-RPC ids of
 * different clients would collide), but not a fresh server: building an `McpServer` and registering the
 * tools cost about 0.3 ms of CPU per request, more than the SDK's whole handling of a call. Idle servers
 * wait in a small pool; a request takes one (or builds one when all are busy), connects it to its own
 * transport, and gives it back after `close()`, which ends that connection and everything pending on it
 * (the SDK's documented way to connect a server to a new transport). A server serves one request at a
 * time. The request's caller (account, allowance) reaches the tools through the SDK's per-request
 * `authInfo`, never through the server, so nothing of one request is left for the next.
 */
// Deno 2.1 (hosted Edge Functions) takes the SDK's wildcard `types` export literally (`*.js.d.ts`, which
// does not exist); @ts-types names the .d.ts without `.js`. See docs/runtime.md.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { maxBatchSize } from "../contract/limits.ts";
import { registerTools, type ToolCaller } from "./tools.ts";

export const serverInfo = { name: "domain-watchlist", version: "1.0.0" };

const instructions = "Domain Watchlist watches domain names and alerts the account owner when one becomes " +
  "available. Use check_domain for a live answer about one name, list_watchlist to see what is watched and " +
  `its last known status, add_domains to start watching names (up to ${maxBatchSize} at once, within the ` +
  "plan quota) and remove_domain to stop. The service never registers names. Each tool call counts against the account's " +
  "daily request limit; when it is used up the tool says when it resets.";

/** Idle servers kept for the next requests (more are built when this many are busy at once). */
const maxIdleServers = 16;
const idleServers: McpServer[] = [];

/** Where a request's caller travels: the SDK hands `authInfo` to every tool handler of that request. */
const callerKey = "caller";

function callerOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): ToolCaller {
  const caller = extra.authInfo?.extra?.[callerKey] as ToolCaller | undefined;
  // Unreachable: every request below passes its caller.
  if (!caller) throw new Error("MCP tool called without a caller");
  return caller;
}

function newServer(): McpServer {
  const server = new McpServer(serverInfo, { instructions, capabilities: { tools: {} } });
  registerTools(server, callerOf);
  return server;
}

/** `parsedBody`: the JSON body when the caller already read it (from a clone), so it is not parsed twice. */
export async function handleMcpRequest(
  request: Request,
  caller: ToolCaller,
  parsedBody?: unknown,
): Promise<Response> {
  const server = idleServers.pop() ?? newServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  let reusable = false;
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      ...(parsedBody === undefined ? {} : { parsedBody }),
      authInfo: { token: "", clientId: caller.account.userId, scopes: [], extra: { [callerKey]: caller } },
    });
    reusable = true;
    return response;
  } finally {
    try {
      await server.close();
    } catch {
      reusable = false;
    }
    if (reusable && idleServers.length < maxIdleServers) idleServers.push(server);
  }
}
