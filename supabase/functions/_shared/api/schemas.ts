/**
 * The API's request and response shapes. The same schemas validate requests, describe the MCP tools and
 * generate the OpenAPI document, so the three cannot drift apart.
 */
import { z } from "zod";
import { defaultPageSize, maxPageSize } from "../watchlist/paging.ts";

export const maxBatchSize = 500;

export const domainStatus = z.enum(["unknown", "registered", "pending_delete", "available"])
  .describe(
    "unknown: not checked yet or undecidable; registered; pending_delete: in redemption or pending delete, " +
      "it may drop soon; available: not registered.",
  );

export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).optional()
    .describe(`Page size, 1–${maxPageSize} (default ${defaultPageSize}).`),
  offset: z.coerce.number().int().min(0).optional()
    .describe("Rows to skip (offset paging). Cannot be combined with cursor."),
  cursor: z.string().min(1).max(253).optional()
    .describe("The last domain_name of the previous page (cursor paging). Cannot be combined with offset."),
});

export const watchlistDomain = z.object({
  domain_name: z.string().describe("The name in ASCII (A-label, lower case)."),
  unicode_name: z.string().optional().describe("The Unicode form, present for internationalised names."),
  status: domainStatus,
  added_at: z.string().describe("When the name was added (ISO 8601)."),
  last_checked_at: z.string().nullable(),
  status_changed_at: z.string().nullable(),
  expires_at: z.string().nullable().describe("Registry expiration date from RDAP, when known."),
  registrar: z.string().nullable().describe("Sponsoring registrar from RDAP, when known."),
});

export const listResponse = z.object({
  domains: z.array(watchlistDomain),
  next_cursor: z.string().nullable().describe("Cursor for the next page; set whenever has_more is true."),
  has_more: z.boolean(),
});

export const addDomainsBody = z.strictObject({
  domains: z.array(z.string()).min(1).max(maxBatchSize)
    .describe(`Domain names to watch, 1–${maxBatchSize}. Unicode names are accepted.`),
});

export const addDomainsResponse = z.object({
  added: z.number().int().describe("Names added (a name removed earlier and added again counts here)."),
  skipped_duplicates: z.number().int().describe("Names already on the watchlist or repeated in the request."),
  rejected_over_limit: z.number().int().describe(
    "Names not added because the plan's watchlist quota is full.",
  ),
  remaining_quota: z.number().int().describe("Names that can still be added on this plan."),
});

export const removeDomainResponse = z.object({
  removed: z.literal(true),
  domain_name: z.string(),
});

export const checkResult = z.object({
  domain_name: z.string(),
  unicode_name: z.string().nullable(),
  available: z.boolean().nullable().describe("true: free to register; false: taken; null: undecided."),
  status: domainStatus,
  checked_at: z.string(),
  rdap: z.object({
    server: z.string(),
    http_status: z.number().int().nullable(),
    status: z.array(z.string()),
    registrar: z.string().nullable(),
    registration_date: z.string().nullable(),
    expiration_date: z.string().nullable(),
    last_changed_date: z.string().nullable(),
  }).nullable(),
  dns: z.object({
    delegated: z.boolean().nullable(),
    nameservers: z.array(z.string()),
    rcode: z.string().nullable().describe(
      "The DNS answer's response code (NOERROR, NXDOMAIN, SERVFAIL, REFUSED, …); null when none was read.",
    ),
  }),
  reason: z.string().describe("Why the answer is what it is, e.g. rdap_not_found, rdap_timeout."),
});

export const errorBody = z.object({
  error: z.enum([
    "invalid_request",
    "unauthorized",
    "upgrade_required",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "payload_too_large",
    "unsupported_media_type",
    "rate_limited",
    "internal",
    "service_unavailable",
  ]),
  message: z.string(),
  details: z.array(z.record(z.string(), z.unknown())).optional(),
  reset_at: z.string().optional().describe("With rate_limited: when the limit resets (ISO 8601 UTC)."),
  request_id: z.string().optional(),
});
