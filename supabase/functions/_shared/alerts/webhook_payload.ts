/**
 * The webhook request for one delivery: the JSON body (the exact bytes that are signed and sent, the same
 * on every retry) and its headers. The secret itself is never a header.
 */
import type { AlertEvent } from "./alert_event.ts";

export const WEBHOOK_USER_AGENT = "DomainWatchlist-Webhooks/1.0";

/**
 * `{"id","type","created_at","data":{"domain_name","unicode_name","previous_status","status","checked_at"}}`;
 * a `domain.pending_delete` event's data adds `predicted_drop_at` (ISO time or null) and
 * `prediction_basis` (`redemption_period` | `pending_delete_period` | `unknown`).
 */
export function webhookBody(event: AlertEvent): string {
  const data: Record<string, unknown> = {
    domain_name: event.domainName,
    unicode_name: event.unicodeName,
    previous_status: event.previousStatus,
    status: event.status,
    checked_at: event.checkedAt.toISOString(),
  };
  if (event.type === "domain.pending_delete") {
    data.predicted_drop_at = event.predictedDropAt?.toISOString() ?? null;
    data.prediction_basis = event.predictionBasis ?? "unknown";
  }
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data,
  });
}

/** The Standard Webhooks headers' values for one attempt (present only when a secret is saved). */
export interface StandardSignature {
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** `v1,<base64>` entries, space-separated. */
  signature: string;
}

/**
 * `signature` is the `X-Service-Signature` value (`sha256=<hex>`) and `standard` the Standard Webhooks
 * signature of this attempt; both null when no secret is saved. `webhook-id` is the delivery id, the same
 * as `X-Service-Delivery`.
 */
export function webhookHeaders(
  event: AlertEvent,
  deliveryId: string,
  signature: string | null,
  standard: StandardSignature | null = null,
): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    "X-Service-Event": event.type,
    "X-Service-Delivery": deliveryId,
  };
  if (signature !== null) headers["X-Service-Signature"] = signature;
  if (standard !== null) {
    headers["webhook-id"] = deliveryId;
    headers["webhook-timestamp"] = String(standard.timestamp);
    headers["webhook-signature"] = standard.signature;
  }
  return headers;
}
