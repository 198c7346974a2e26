/** `{base_url}/mcp`: HTTP-level checks (method, Origin, API key) before any JSON-RPC is read. */
import { config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { isAllowedOrigin } from "../mcp/origin.ts";
import { handleMcpRequest } from "../mcp/server.ts";
import {
  authenticateApiKey,
  currentDailyAllowance,
  type DailyAllowance,
  rateLimitHeaders,
} from "./api_access.ts";
import type { ApiContext } from "./context.ts";
import { errorResponse } from "../http/pipeline.ts";

export async function mcpHandler(c: ApiContext): Promise<Response> {
  if (c.req.method !== "POST") {
    c.header("Allow", "POST");
    return errorResponse(
      c,
      new ApiError(
        "method_not_allowed",
        "This tool server is stateless: send JSON-RPC with POST; there is no SSE stream.",
      ),
    );
  }
  if (!isAllowedOrigin(c.req.header("origin") ?? null, c.req.header("host") ?? null, config.appOrigins())) {
    return errorResponse(c, new ApiError("forbidden", "Requests from this Origin are not allowed."));
  }
  const account = await authenticateApiKey(c.req.header("x-api-key"));
  let allowance: DailyAllowance | undefined;
  let unavailable: unknown;
  const response = await handleMcpRequest(c.req.raw, {
    account,
    onAllowance: (left) => (allowance = left),
    onUnavailable: (error) => (unavailable ??= error),
  });
  // A tool call that could not reach the database is the whole request's 503, not a tool error.
  if (unavailable !== undefined) throw unavailable;
  // Protocol chatter does not count, but every response still reports the day's limit.
  allowance ??= await currentDailyAllowance(account);
  const headers = new Headers(response.headers);
  headers.set("X-Request-Id", c.get("requestId"));
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) {
    if (name !== "Retry-After") headers.set(name, value);
  }
  return new Response(response.body, { status: response.status, headers });
}
