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

// ---------------------------------------------------------------------------------------------------
// Outgoing webhooks (described under the OpenAPI document's top-level `webhooks`).
// ---------------------------------------------------------------------------------------------------

const isoTimestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
  .describe("ISO 8601 timestamp in UTC.");

/** The body of a `domain.available` webhook; its raw bytes are what both signatures sign. */
export const domainAvailableEvent = z.strictObject({
  id: z.string().regex(/^evt_[0-9a-f]{32}$/).describe("The event id (the same in every channel's delivery)."),
  type: z.literal("domain.available"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: z.string().describe("The name in ASCII (A-labels)."),
    unicode_name: z.string().nullable().describe("The watcher's Unicode spelling of an IDN, or null."),
    previous_status: z.enum(["unknown", "registered", "pending_delete"]).nullable()
      .describe("The status before the transition."),
    status: z.literal("available"),
    checked_at: isoTimestamp.describe("When the check saw the name free."),
  }),
}).describe("A watched domain became available.");

/** The body of a `domain.pending_delete` webhook (sent only to endpoints that list the event). */
export const domainPendingDeleteEvent = z.strictObject({
  id: z.string().regex(/^evt_[0-9a-f]{32}$/).describe("The event id (the same in every channel's delivery)."),
  type: z.literal("domain.pending_delete"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: z.string().describe("The name in ASCII (A-labels)."),
    unicode_name: z.string().nullable().describe("The watcher's Unicode spelling of an IDN, or null."),
    previous_status: z.enum(["unknown", "registered", "available"]).nullable()
      .describe("The status before the transition."),
    status: z.literal("pending_delete"),
    checked_at: isoTimestamp.describe("When the check saw the name enter pending delete or redemption."),
    predicted_drop_at: isoTimestamp.nullable().describe("When the name is predicted to drop, or null."),
    prediction_basis: z.enum(["redemption_period", "pending_delete_period", "unknown"])
      .describe(
        "How predicted_drop_at was found: RDAP's last change + 35 days (30 of redemption, 5 of pending " +
          "delete), last change + 5 days, or not at all.",
      ),
  }),
}).describe("A watched domain entered pending delete or redemption: it may drop soon.");

/** Every header of a webhook delivery, with when it is present. */
export const webhookRequestHeaders: Record<
  string,
  { description: string; required: boolean; pattern?: string }
> = {
  "X-Service-Event": { description: "The event type, e.g. domain.available.", required: true },
  "X-Service-Delivery": {
    description: "The delivery id: unique per delivery (event × endpoint), the same on every retry. " +
      "Deduplicate on it.",
    required: true,
  },
  "X-Service-Signature": {
    description: "With a secret: sha256=<hex HMAC-SHA256 of the raw body>, keyed by the secret as saved.",
    required: false,
    pattern: "^sha256=[0-9a-f]{64}$",
  },
  "webhook-id": {
    description: "Standard Webhooks: the same value as X-Service-Delivery (with a secret).",
    required: false,
  },
  "webhook-timestamp": {
    description: "Standard Webhooks: Unix seconds of this attempt (with a secret). Refuse old ones.",
    required: false,
    pattern: "^[0-9]+$",
  },
  "webhook-signature": {
    description:
      'Standard Webhooks: "v1,<base64 HMAC-SHA256 of <webhook-id>.<webhook-timestamp>.<raw body>>", ' +
      "keyed by the decoded bytes of a whsec_<base64> secret, else by the secret's UTF-8 bytes; for 24 h " +
      "after a rotation one space-separated entry per key (with a secret).",
    required: false,
  },
};
