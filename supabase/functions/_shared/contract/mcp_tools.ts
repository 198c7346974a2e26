/**
 * The MCP tools' contract: each tool's arguments and result are the REST operation's (same zod schemas),
 * so a tool result validates against the response OpenAPI publishes for `operationId`.
 */
import { z } from "zod";
import { errorBody } from "./errors.ts";
import {
  addDomainsInput,
  addDomainsResponse,
  checkResult,
  domainInput,
  listResponse,
  listWatchlistInput,
  removeDomainResponse,
} from "./schemas.ts";

/**
 * What a tool's `structuredContent` may hold: the REST body on success, or the REST error body
 * (`error`, `message`, `reset_at`, `details`) on an `isError` result. Clients such as the SDK validate
 * both against the advertised schema, so the success fields cannot be required.
 */
function toolOutput<T extends z.ZodRawShape>(success: z.ZodObject<T>) {
  return success.partial().extend(errorBody.partial().shape)
    .describe(
      "On success the fields of the REST response; on an isError result error, message and, " +
        "when rate limited, reset_at.",
    );
}

function toolContract<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  operationId: string,
  input: z.ZodObject<I>,
  result: z.ZodObject<O>,
) {
  return { operationId, input, result, output: toolOutput(result) };
}

/** Tool name → the REST operation it mirrors, its arguments, its success result and its output schema. */
export const mcpToolContracts = {
  check_domain: toolContract("checkDomain", domainInput, checkResult),
  list_watchlist: toolContract("listWatchlist", listWatchlistInput, listResponse),
  add_domains: toolContract("addDomains", addDomainsInput, addDomainsResponse),
  remove_domain: toolContract("removeDomain", domainInput, removeDomainResponse),
};

export type McpToolName = keyof typeof mcpToolContracts;
