/**
 * The four MCP tools. Each is a thin adapter over the same service the REST API uses; each call counts
 * as one request of the account's daily limit, and errors come back as `isError` results carrying the
 * REST error code.
 */
// Deno 2.1 (hosted Edge Functions) takes the SDK's wildcard `types` export literally (`*.js.d.ts`, which
// does not exist); @ts-types names the .d.ts without `.js`. See docs/runtime.md.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { defaultPageSize, maxBatchSize, maxPageSize } from "../contract/limits.ts";
import { mcpToolContracts, type McpToolName } from "../contract/mcp_tools.ts";
import type {
  AddDomainsResponse,
  CheckResult,
  ListResponse,
  RemoveDomainResponse,
} from "../contract/schemas.ts";
import {
  type ApiAccount,
  consumeDailyRequest,
  type DailyAllowance,
  rateLimitedError,
} from "../daily_limit/allowance.ts";
import { checkDomainName } from "../check/service.ts";
import { isUnreachable } from "../db/failures.ts";
import { ApiError } from "../http/errors.ts";
import {
  addDomains,
  type ListOptions,
  listWatchlist,
  removeDomain,
  type WatchlistDomain,
} from "../watchlist/service.ts";
import type { Page } from "../watchlist/paging.ts";

type Summary<T> = (result: T) => string;

function success<T extends object>(result: T, summary: Summary<T>): CallToolResult {
  return {
    content: [{ type: "text", text: summary(result) }],
    structuredContent: result as Record<string, unknown>,
  };
}

function failure(error: ApiError): CallToolResult {
  const body = error.toJSON();
  return {
    isError: true,
    content: [{ type: "text", text: `${body.error}: ${error.message}` }],
    structuredContent: body,
  };
}

function listSummary(page: ListResponse): string {
  const domains = page.domains;
  if (domains.length === 0) return "The watchlist page is empty.";
  // "N domains: a.com (status), b.com (status)", built in one pass: this runs for every page of 200.
  let text = `${domains.length} domains: `;
  for (let i = 0; i < domains.length; i++) {
    text += `${i === 0 ? "" : ", "}${domains[i].domain_name} (${domains[i].status})`;
  }
  return page.has_more ? `${text}. More follow; next cursor: ${page.next_cursor}` : text;
}

/** What list_watchlist answers with a page: the one place its result is made (mcp/direct_answer.ts too). */
export function listWatchlistResult(page: ListResponse): CallToolResult {
  return success(page, listSummary);
}

/** The account a request's tools act for, and where each call reports the allowance it left. */
export interface ToolCaller {
  account: ApiAccount;
  /**
   * Set when the request (a single `tools/call`) was already counted while its key was checked: the first
   * tool call uses this allowance instead of counting again.
   */
  counted?: DailyAllowance;
  onAllowance(allowance: DailyAllowance): void;
  /** Told when a call failed because the database cannot be reached (the HTTP answer is then a 503). */
  onUnavailable?(error: unknown): void;
  /**
   * The page of a request that is one `list_watchlist` call, already read as the account in the round trip
   * of the key check (api/mcp_handler.ts); that call answers with it instead of reading again.
   */
  listedPage?: Page<WatchlistDomain>;
}

function listFor(caller: ToolCaller, args: ListOptions): Promise<Page<WatchlistDomain>> {
  const page = caller.listedPage;
  if (page) {
    caller.listedPage = undefined;
    return Promise.resolve(page);
  }
  return listWatchlist(caller.account, args);
}

function allowanceFor(caller: ToolCaller): Promise<DailyAllowance> {
  const counted = caller.counted;
  if (counted) {
    caller.counted = undefined;
    return Promise.resolve(counted);
  }
  return consumeDailyRequest(caller.account);
}

/** Runs one tool call: counts it against the daily limit, then the service; known errors become results. */
async function toolCall<T extends object>(
  caller: ToolCaller,
  work: () => Promise<T>,
  summary: Summary<T>,
): Promise<CallToolResult> {
  try {
    const allowance = await allowanceFor(caller);
    caller.onAllowance(allowance);
    if (!allowance.allowed) throw rateLimitedError(allowance);
    return success(await work(), summary);
  } catch (error) {
    if (error instanceof ApiError) return failure(error);
    if (isUnreachable(error)) caller.onUnavailable?.(error);
    throw error;
  }
}

/** What a tool is registered with (the SDK's own parameter type is generic over the schemas). */
interface ToolConfig {
  title: string;
  description: string;
  inputSchema: z.ZodObject<z.ZodRawShape>;
  outputSchema: z.ZodObject<z.ZodRawShape>;
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

interface ToolDefinition {
  name: McpToolName;
  config: ToolConfig;
  call(caller: ToolCaller, args: never): Promise<CallToolResult>;
}

/** A tool: its text, and its input and output schemas from the contract (contract/mcp_tools.ts). */
function tool<N extends McpToolName>(
  name: N,
  text: Omit<ToolConfig, "inputSchema" | "outputSchema">,
  call: (
    caller: ToolCaller,
    args: z.output<(typeof mcpToolContracts)[N]["input"]>,
  ) => Promise<CallToolResult>,
): ToolDefinition {
  const contract = mcpToolContracts[name];
  return {
    name,
    config: { ...text, inputSchema: contract.input, outputSchema: contract.output },
    call: call as ToolDefinition["call"],
  };
}

// The definitions (descriptions and zod schemas, which are costly to build) are made once per isolate;
// each request only registers them on its own short-lived server with its caller.
const toolDefinitions: ToolDefinition[] = [
  tool(
    "check_domain",
    {
      title: "Check domain availability",
      description:
        "Checks right now, through the registry's RDAP service and DNS, whether one domain name is " +
        "registered, about to drop (pending_delete), or available. `available` is true only when the registry " +
        "says the name does not exist and DNS has no delegation; null means the answer could not be decided " +
        "(see `reason`). Only registrable names are accepted (example.com, not www.example.com). Results may be " +
        "up to 30 seconds old. Counts as one API request.",
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (caller, { domain }) =>
      toolCall(
        caller,
        () => checkDomainName(domain, caller.account.userId),
        (result: CheckResult) =>
          `${result.domain_name}: ${result.status}` +
          (result.available === null ? " (undecided)" : result.available ? " (available)" : "") +
          ` — ${result.reason}`,
      ),
  ),
  tool(
    "list_watchlist",
    {
      title: "List watchlist",
      description:
        "Lists the domains on the account's watchlist in alphabetical order with their last known " +
        `status (unknown, registered, pending_delete, available). Pages hold ${defaultPageSize} names by default ` +
        `and at most ${maxPageSize}. To get the next page pass next_cursor as cursor (or use offset; not both). ` +
        "Counts as one API request.",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (caller, args) =>
      toolCall(
        caller,
        () => listFor(caller, args),
        listSummary,
      ),
  ),
  tool(
    "add_domains",
    {
      title: "Add domains to watchlist",
      description:
        `Adds 1–${maxBatchSize} domain names to the watchlist so the owner is alerted when one becomes ` +
        "available. Every name is validated first: if any is not a registrable name nothing is added. Names " +
        "already watched (or repeated) are skipped, and names beyond the plan's watchlist quota are rejected in " +
        "request order; the result counts each case and the quota left. Adding the same names again changes " +
        "nothing. Counts as one API request.",
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (caller, { domains }) =>
      toolCall(
        caller,
        () => addDomains(caller.account, domains),
        (result: AddDomainsResponse) =>
          `Added ${result.added}, skipped ${result.skipped_duplicates} already watched, rejected ` +
          `${result.rejected_over_limit} over the plan quota; ${result.remaining_quota} more can be added.`,
      ),
  ),
  tool(
    "remove_domain",
    {
      title: "Remove domain from watchlist",
      description:
        "Stops watching one domain name (no more alerts for it). Fails with not_found when the name " +
        "is not on the watchlist. Counts as one API request.",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (caller, { domain }) =>
      toolCall(
        caller,
        () => removeDomain(caller.account, domain),
        (result: RemoveDomainResponse) => `Removed ${result.domain_name} from the watchlist.`,
      ),
  ),
];

/**
 * A tool's arguments as its input schema reads them, or undefined when they are not valid (the MCP server
 * then answers the call itself). For callers that look at a request before the MCP server reads it.
 */
export function validToolArguments(name: string, args: unknown): Record<string, unknown> | undefined {
  const definition = toolDefinitions.find((each) => each.name === name);
  const parsed = definition?.config.inputSchema.safeParse(args ?? {});
  return parsed?.success ? parsed.data : undefined;
}

/** Names of the tools, for callers that look at a request before the MCP server reads it. */
export const toolNames: ReadonlySet<string> = new Set(toolDefinitions.map((definition) => definition.name));

/** What the SDK hands a tool handler besides its arguments (the part used here). */
export interface ToolCallExtra {
  authInfo?: { extra?: Record<string, unknown> };
}

/** Registers the four tools on a server; each call acts for the caller `callerOf` finds for its request. */
export function registerTools(server: McpServer, callerOf: (extra: ToolCallExtra) => ToolCaller): void {
  for (const definition of toolDefinitions) {
    server.registerTool(
      definition.name,
      definition.config as Parameters<McpServer["registerTool"]>[1],
      ((args: never, extra: ToolCallExtra) => definition.call(callerOf(extra), args)) as Parameters<
        McpServer["registerTool"]
      >[2],
    );
  }
}
