/**
 * A new MCP server per request (stateless Streamable HTTP, JSON responses), holding the four tools. The
 * tool definitions themselves are built once per isolate (tools.ts); a request only registers them.
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

/** `parsedBody`: the JSON body when the caller already read it (from a clone), so it is not parsed twice. */
export async function handleMcpRequest(
  request: Request,
  caller: ToolCaller,
  parsedBody?: unknown,
): Promise<Response> {
  const server = new McpServer(serverInfo, { instructions, capabilities: { tools: {} } });
  registerTools(server, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await server.close();
  }
}
