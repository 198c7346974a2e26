/** The outgoing webhook's body and headers (described under the OpenAPI document's top-level `webhooks`). */
import { z } from "zod";

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
