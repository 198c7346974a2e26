/**
 * The API's request and response shapes. The same schemas validate REST requests, are the MCP tools'
 * input and output shapes, type the services' results (`z.infer`) and generate the OpenAPI document, so
 * none of them can drift from the others.
 */
import { z } from "zod";
import { defaultPageSize, maxBatchSize, maxCursorLength, maxPageSize } from "./limits.ts";

export const domainStatus = z.enum(["unknown", "registered", "pending_delete", "available"])
  .describe(
    "unknown: not checked yet or undecidable; registered; pending_delete: in redemption or pending delete, " +
      "it may drop soon; available: not registered.",
  );

export type DomainStatus = z.infer<typeof domainStatus>;

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

const pageLimit = z.number().int().min(1).max(maxPageSize)
  .describe(`Page size, 1–${maxPageSize} (default ${defaultPageSize}).`);
const pageOffset = z.number().int().min(0)
  .describe("Rows to skip (offset paging). Cannot be combined with cursor.");
const pageCursor = z.string().min(1).max(maxCursorLength)
  .describe("The last domain_name of the previous page (cursor paging). Cannot be combined with offset.");

/** A page request as JSON (the MCP `list_watchlist` arguments). */
export const listWatchlistInput = z.object({
  limit: pageLimit.optional(),
  offset: pageOffset.optional(),
  cursor: pageCursor.optional(),
});

export type ListWatchlistInput = z.infer<typeof listWatchlistInput>;

/** A query-string number: the text as `Number()` reads it, then the JSON rule (what `z.coerce` does). */
const fromQueryText = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (typeof value === "string" ? Number(value) : value), schema);

/** The same page request as a query string (`GET /domains`). */
export const listQuery = z.object({
  limit: fromQueryText(pageLimit).optional(),
  offset: fromQueryText(pageOffset).optional(),
  cursor: pageCursor.optional(),
});

const domainBatch = z.array(z.string()).min(1).max(maxBatchSize)
  .describe(`Domain names to watch, 1–${maxBatchSize}. Unicode names are accepted.`);

/** The MCP `add_domains` arguments. */
export const addDomainsInput = z.object({ domains: domainBatch });

/** The `POST /domains` body: the same fields, and nothing else. */
export const addDomainsBody = z.strictObject(addDomainsInput.shape);

/** One domain name given by the caller (REST path segment, MCP argument); the services normalise it. */
export const domainArgument = z.string().min(1).max(1000)
  .describe("A registrable domain name such as example.com or example.co.uk; Unicode names are accepted.");

/** The MCP `check_domain` and `remove_domain` arguments (REST takes the name from the path). */
export const domainInput = z.object({ domain: domainArgument });

// ---------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------

export const watchlistDomain = z.object({
  domain_name: z.string().describe("The name in ASCII (A-label, lower case)."),
  unicode_name: z.string().optional().describe("The Unicode form, present for internationalised names."),
  status: domainStatus,
  added_at: z.string().describe("When the name was added (ISO 8601)."),
  last_checked_at: z.string().nullable(),
  status_changed_at: z.string().nullable(),
  expires_at: z.string().nullable().describe("Registry expiration date from RDAP, when known."),
  registrar: z.string().nullable().describe("Sponsoring registrar from RDAP, when known."),
  tags: z.array(z.string()).optional().describe(
    "The account's own tags for the name (up to 10, set in the app), present when there are any.",
  ),
  note: z.string().optional().describe("The account's own note for the name (set in the app), when set."),
});

export type WatchlistDomain = z.infer<typeof watchlistDomain>;

export const listResponse = z.object({
  domains: z.array(watchlistDomain),
  next_cursor: z.string().nullable().describe("Cursor for the next page; set whenever has_more is true."),
  has_more: z.boolean(),
});

export type ListResponse = z.infer<typeof listResponse>;

export const addDomainsResponse = z.object({
  added: z.number().int().describe("Names added (a name removed earlier and added again counts here)."),
  skipped_duplicates: z.number().int().describe("Names already on the watchlist or repeated in the request."),
  rejected_over_limit: z.number().int().describe(
    "Names not added because the plan's watchlist quota is full.",
  ),
  remaining_quota: z.number().int().describe("Names that can still be added on this plan."),
});

export type AddDomainsResponse = z.infer<typeof addDomainsResponse>;

export const removeDomainResponse = z.object({
  removed: z.literal(true),
  domain_name: z.string(),
});

export type RemoveDomainResponse = z.infer<typeof removeDomainResponse>;

/** Why an RDAP look-up gave no answer (the RDAP client's failure reasons). */
export const rdapFailureReason = z.enum([
  "rdap_timeout",
  "rdap_server_error",
  "rdap_rate_limited",
  "rdap_invalid_response",
  "rdap_network_error",
  "rdap_host_backoff",
  "rdap_host_busy",
  "rdap_unexpected_status",
  // A redirect or referral the URL policy refuses, or more than the allowed number of redirects.
  "rdap_target_not_allowed",
]);

/** Why a WHOIS look-up gave no answer to read (the WHOIS client's failures, parallel to RDAP's). */
export const whoisFailureReason = z.enum([
  "whois_timeout",
  // Connection refused, reset or closed before any answer.
  "whois_network_error",
  // This service's politeness towards the host refused to wait longer (nothing was sent).
  "whois_host_busy",
  // The host is backed off after failures in a row (nothing was sent; parallel to rdap_host_backoff).
  "whois_host_backoff",
]);

export const checkReason = z.enum([
  "rdap_found",
  "rdap_pending_delete",
  "rdap_not_found",
  "rdap_404_but_delegated",
  "rdap_not_found_dns_error",
  "no_rdap_server_for_tld",
  // The name is under a second-level zone with its own WHOIS server that this service cannot read
  // (docs/whois.md "Zones with their own servers"); a delegated one is registered.
  "unsupported_zone",
  "rdap_bootstrap_unavailable",
  "rdap_server_unverified",
  ...rdapFailureReason.options,
  "whois_found",
  "whois_pending_delete",
  "whois_not_found",
  "whois_not_found_but_delegated",
  "whois_not_found_dns_error",
  "whois_server_unverified",
  // A limit or "try again later" text, or the host is paused after one.
  "whois_rate_limited",
  // Empty, truncated, over 64 KiB, or a text the server's row does not recognise.
  "whois_unrecognized",
  ...whoisFailureReason.options,
  // A live check whose registry could not be read (not asked, busy, paused, timeout, error, unrecognised
  // answer) while DNS shows a delegation: registered, decided by DNS.
  "dns_delegated",
]).describe(
  "Why the answer is what it is, e.g. rdap_not_found, rdap_timeout, whois_not_found. no_rdap_server_for_tld: " +
    "the TLD has neither an RDAP nor a WHOIS route. unsupported_zone: the name is under a zone with its own " +
    "WHOIS server (e.g. edu.cn) that this service cannot read. dns_delegated: the registry could not be read, " +
    "and DNS shows a delegation, which proves the name is registered.",
);

export type CheckReason = z.infer<typeof checkReason>;

export const rdapSummary = z.object({
  server: z.string().describe("Base URL of the registry's RDAP service that was used."),
  http_status: z.number().int().nullable().describe("Null when no HTTP answer was received."),
  status: z.array(z.string()),
  registrar: z.string().nullable(),
  registration_date: z.string().nullable(),
  expiration_date: z.string().nullable(),
  last_changed_date: z.string().nullable(),
});

export type RdapSummary = z.infer<typeof rdapSummary>;

export const whoisAnswer = z.enum(["found", "not_found", "pending_delete", "rate_limited", "unrecognized"])
  .describe("What the WHOIS server said, in its own phrasing (see docs/whois.md).");

export const whoisSummary = z.object({
  server: z.string().describe("The registry's WHOIS server, host:port (port 43)."),
  answer: whoisAnswer.nullable().describe("Null when no answer was received (timeout, connection error)."),
  statuses: z.array(z.string()).describe("The server's status words, when it gives them."),
  registrar: z.string().nullable(),
  expiration_date: z.string().nullable(),
});

export type WhoisSummary = z.infer<typeof whoisSummary>;

export const checkResult = z.object({
  domain_name: z.string(),
  unicode_name: z.string().nullable(),
  available: z.boolean().nullable().describe("true: free to register; false: taken; null: undecided."),
  status: domainStatus,
  checked_at: z.string(),
  rdap: rdapSummary.nullable(),
  whois: whoisSummary.nullable().describe("The WHOIS answer, where the TLD has no RDAP route; else null."),
  dns: z.object({
    delegated: z.boolean().nullable(),
    nameservers: z.array(z.string()),
    rcode: z.string().nullable().describe(
      "The DNS answer's response code (NOERROR, NXDOMAIN, SERVFAIL, REFUSED, …); null when none was read.",
    ),
  }),
  reason: checkReason,
  retry_after_seconds: z.number().int().positive().optional().describe(
    "Present on an unknown answer when this service did not ask the registry yet (its host busy, paused or " +
      "backing off): ask again after this many seconds.",
  ),
});

export type CheckResult = z.infer<typeof checkResult>;
