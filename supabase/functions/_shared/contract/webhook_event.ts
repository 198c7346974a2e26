/** The outgoing webhook's body and headers (described under the OpenAPI document's top-level `webhooks`). */
import { z } from "zod";

const isoTimestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
  .describe("ISO 8601 timestamp in UTC.");

const eventId = z.string().regex(/^evt_[0-9a-f]{32}$/)
  .describe("The event id (the same in every channel's delivery).");
const domainName = z.string().describe("The name in ASCII (A-labels).");
const unicodeName = z.string().nullable().describe("The watcher's Unicode spelling of an IDN, or null.");

/**
 * Why the service believes a name is free: what the registry's server answered, when that server last
 * proved on its canary that it can say "found", and the DNS answer. Captured by the check that saw the name
 * free and carried unchanged to every channel.
 */
export const availabilityEvidence = z.strictObject({
  source: z.enum(["rdap", "whois"]).describe("How the registry was asked: RDAP, or WHOIS (port 43)."),
  server: z.string().describe("The registry server asked: the RDAP base URL, or the WHOIS host."),
  answer: z.union([z.number().int(), z.string()]).describe(
    "That server's answer: the HTTP status for RDAP (404), the not-found phrasing matched for WHOIS.",
  ),
  canary_name: z.string().describe("The name the server must answer as registered to be trusted."),
  canary_proved_at: isoTimestamp.nullable().describe(
    "When the server last answered its canary as registered (its proof is renewed daily).",
  ),
  dns_rcode: z.enum(["NXDOMAIN", "NOERROR"]).describe(
    "The DNS answer code for the name's NS records: NXDOMAIN, or NOERROR without NS records.",
  ),
  resolver: z.string().describe("The resolver that gave the DNS answer (host:port, or the DoH host)."),
  checked_at: isoTimestamp.describe("When the check was made."),
}).describe("The evidence behind an available alert.");

export type AvailabilityEvidence = z.infer<typeof availabilityEvidence>;

/** A team alert (an organization's list; docs/organizations.md): which organization, and who claimed the name. */
const teamOrganization = z.strictObject({
  id: z.string().uuid().describe("The organization's id."),
  name: z.string().describe("The organization's name."),
  claimed_by: z.string().nullable().describe(
    "The member who claimed the name (their display name), or null.",
  ),
}).optional().describe("Only in a team alert: the organization whose list holds the name, and its claimer.");

/** The body of a `domain.available` webhook; its raw bytes are what both signatures sign. */
export const domainAvailableEvent = z.strictObject({
  id: eventId,
  type: z.literal("domain.available"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: domainName,
    unicode_name: unicodeName,
    previous_status: z.enum(["unknown", "registered", "pending_delete"]).nullable()
      .describe("The status before the transition."),
    status: z.literal("available"),
    checked_at: isoTimestamp.describe("When the check saw the name free."),
    evidence: availabilityEvidence.nullable().describe(
      "Why the service believes the name is free; null only for a status an operator set by hand.",
    ),
    organization: teamOrganization,
  }),
}).describe("A watched domain became available.");

/** The body of a `domain.pending_delete` webhook (sent only to endpoints that list the event). */
export const domainPendingDeleteEvent = z.strictObject({
  id: eventId,
  type: z.literal("domain.pending_delete"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: domainName,
    unicode_name: unicodeName,
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
    organization: teamOrganization,
  }),
}).describe("A watched domain entered pending delete or redemption: it may drop soon.");

const registrar = z.string().nullable().describe("The sponsoring registrar from the registry, when known.");
const expiresAt = isoTimestamp.nullable().describe("The registry's expiration date, when known.");

/** The body of a `domain.restored` webhook (sent only to endpoints that list the event). */
export const domainRestoredEvent = z.strictObject({
  id: eventId,
  type: z.literal("domain.restored"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: domainName,
    unicode_name: unicodeName,
    previous_status: z.literal("pending_delete"),
    status: z.literal("registered"),
    checked_at: isoTimestamp.describe("When the check saw the name registered again."),
    registrar,
    expires_at: expiresAt,
    organization: teamOrganization,
  }),
}).describe("A watched domain left pending delete back to registered: the drop is off.");

/** The body of a `domain.registered` webhook (sent only to endpoints that list the event). */
export const domainRegisteredEvent = z.strictObject({
  id: eventId,
  type: z.literal("domain.registered"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: domainName,
    unicode_name: unicodeName,
    previous_status: z.enum(["available", "unknown"]).describe(
      "available: it was free; unknown: it was watched without ever being found registered.",
    ),
    status: z.literal("registered"),
    checked_at: isoTimestamp.describe("When the check saw the name registered."),
    registrar,
    expires_at: expiresAt,
    organization: teamOrganization,
  }),
}).describe("A watched domain that was free (or never found registered) is now registered.");

/** The body of a `domain.expiring` webhook (sent only to endpoints that list the event). */
export const domainExpiringEvent = z.strictObject({
  id: eventId,
  type: z.literal("domain.expiring"),
  created_at: isoTimestamp,
  data: z.strictObject({
    domain_name: domainName,
    unicode_name: unicodeName,
    status: z.literal("registered"),
    checked_at: isoTimestamp.describe("When a check last saw this expiration date."),
    expires_at: isoTimestamp.describe("The registry's expiration date."),
    days_before: z.number().int().min(1).max(365).describe(
      "The reminder this is: one of the channel's expiring_days (default 30, 7 and 1), the nearest one " +
        "passed. Sent once per expiration date; a renewal that moves the date re-arms them.",
    ),
  }),
}).describe("A watched domain's expiration date is near.");

/** Every event a channel can receive, with its body's schema (the OpenAPI `webhooks`). */
export const alertEventSchemas = {
  "domain.available": domainAvailableEvent,
  "domain.pending_delete": domainPendingDeleteEvent,
  "domain.restored": domainRestoredEvent,
  "domain.registered": domainRegisteredEvent,
  "domain.expiring": domainExpiringEvent,
} as const;

export type AlertEventName = keyof typeof alertEventSchemas;

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
