/**
 * `{base_url}/mcp`: HTTP-level checks (method, Origin) and the admission of the request's credential (an
 * API key or an OAuth access token, read by the route's middleware) before the MCP server reads the
 * JSON-RPC.
 */
import type { MiddlewareHandler } from "hono";
import { config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { inDatabase } from "../http/in_database.ts";
import { isAllowedOrigin } from "../mcp/origin.ts";
import { answersDirectly, listWatchlistAnswer } from "../mcp/direct_answer.ts";
import { handleMcpRequest } from "../mcp/server.ts";
import { isSingleToolCall } from "../mcp/tool_call.ts";
import { toolNames, validToolArguments } from "../mcp/tools.ts";
import type { Page } from "../watchlist/paging.ts";
import {
  type ListStatement,
  listWatchlistStatement,
  type WatchlistDomain,
  watchlistPageFrom,
} from "../watchlist/service.ts";
import type { DailyAllowance } from "../daily_limit/allowance.ts";
import { rateLimitHeaders } from "../http/rate_limit_headers.ts";
import { authorizeAndReadPage, type AuthorizedRequest, authorizeRequest } from "./api_access.ts";
import type { ApiContext, ApiEnv } from "./context.ts";
import { errorResponse } from "../http/pipeline.ts";

/** Bodies up to this size are read here first, to tell a tool call from protocol chatter. */
const peekLimitBytes = 1024 * 1024;

/**
 * The request's JSON body when it is small and declared as JSON (undefined otherwise: the MCP server
 * decides), read once, and the request the MCP server is to read: the same one, or, when its body was read
 * here but is not JSON, a copy carrying the same text (the server answers that with its parse error).
 */
async function peekJson(request: Request): Promise<{ body: unknown; request: Request }> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  const type = request.headers.get("content-type") ?? "";
  if (!(length > 0 && length <= peekLimitBytes) || !/^application\/json\s*(;|$)/i.test(type)) {
    return { body: undefined, request };
  }
  const text = await request.text();
  try {
    return { body: JSON.parse(text), request };
  } catch {
    return { body: undefined, request: new Request(request, { body: text }) };
  }
}

/** The page statement of a body that is one `list_watchlist` call with valid arguments; else undefined. */
function listStatementOf(body: unknown, organizationKey: boolean): ListStatement | undefined {
  const params = (body as { params: { name: string; arguments?: unknown } }).params;
  if (params.name !== "list_watchlist") return undefined;
  const args = validToolArguments(params.name, params.arguments);
  if (!args) return undefined;
  try {
    return listWatchlistStatement(args, organizationKey);
  } catch {
    return undefined; // cursor with offset: the tool answers with the error
  }
}

/**
 * What is decided before any credential is looked at: the server is stateless and answers POST only (405
 * otherwise), and a browser request must come from an allowed Origin (403; DNS-rebinding protection).
 */
export const mcpTransportRules: MiddlewareHandler<ApiEnv> = async (c, next) => {
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
  // Assistants and CLIs send no Origin: the allowed origins are read only for a request that has one.
  const origin = c.req.header("origin");
  if (origin !== undefined && !isAllowedOrigin(origin, c.req.header("host") ?? null, config.appOrigins())) {
    return errorResponse(c, new ApiError("forbidden", "Requests from this Origin are not allowed."));
  }
  await next();
};

export async function mcpHandler(c: ApiContext): Promise<Response> {
  const credential = c.get("credential");
  const { body, request } = await peekJson(c.req.raw);
  // A request that is one call of one of our tools is counted together with the admission (one round
  // trip); anything else (protocol chatter, batches) is not counted here, and each tool call in it counts.
  const toolCall = isSingleToolCall(body, toolNames);
  const listing = toolCall ? listStatementOf(body, credential.organizationKey) : undefined;
  let authorized: AuthorizedRequest;
  let listedPage: Page<WatchlistDomain> | undefined;
  if (listing) {
    // One list_watchlist call with valid arguments: its page is read as the account in the same round
    // trip as the admission and count (as GET /domains), and the tool answers with it.
    const result = await inDatabase(() => authorizeAndReadPage(credential, listing));
    authorized = result.authorized;
    if (authorized.allowance.allowed) listedPage = watchlistPageFrom(result.rows, listing.limit);
  } else {
    authorized = await authorizeRequest(credential, { count: toolCall });
  }
  if (listedPage && answersDirectly(mcpHeadersOf(c), body)) {
    // Its answer is made here, as the SDK's server would make it (mcp/direct_answer.ts).
    const id = (body as { id: string | number }).id;
    return answer(
      c,
      listWatchlistAnswer(id, listedPage),
      200,
      { "Content-Type": "application/json" },
      authorized.allowance,
    );
  }
  const { account } = authorized;
  let allowance: DailyAllowance = authorized.allowance;
  let unavailable: unknown;
  const response = await handleMcpRequest(request, {
    account,
    counted: toolCall ? authorized.allowance : undefined,
    onAllowance: (left) => (allowance = left),
    onUnavailable: (error) => (unavailable ??= error),
    listedPage,
  }, body);
  // A tool call that could not reach the database is the whole request's 503, not a tool error.
  if (unavailable !== undefined) throw unavailable;
  // The SDK's JSON answer is read whole and sent with its length: passing its body stream on would send
  // it chunked, pumped through a JavaScript stream.
  const text = response.body === null ? null : await response.text();
  return answer(c, text, response.status, response.headers, allowance);
}

function mcpHeadersOf(c: ApiContext): { accept: string | null; protocolVersion: string | null } {
  return {
    accept: c.req.header("accept") ?? null,
    protocolVersion: c.req.header("mcp-protocol-version") ?? null,
  };
}

/** The HTTP answer: the request id and the daily allowance's `RateLimit-*` headers beside the MCP answer's. */
function answer(
  c: ApiContext,
  text: string | null,
  status: number,
  mcpHeaders: HeadersInit,
  allowance: DailyAllowance,
): Response {
  const headers = new Headers(mcpHeaders);
  headers.set("X-Request-Id", c.get("requestId"));
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) {
    if (name !== "Retry-After") headers.set(name, value);
  }
  return new Response(text, { status, headers });
}
