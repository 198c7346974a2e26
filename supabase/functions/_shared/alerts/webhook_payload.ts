/**
 * The webhook request for one delivery: the JSON body (the exact bytes that are signed and sent, the same
 * on every retry) and its headers. The secret itself is never a header.
 */
import type { AlertEvent } from "./alert_event.ts";

export const WEBHOOK_USER_AGENT = "DomainWatchlist-Webhooks/1.0";

/** `{"id","type","created_at","data":{"domain_name","unicode_name","previous_status","status","checked_at"}}` */
export function webhookBody(event: AlertEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: {
      domain_name: event.domainName,
      unicode_name: event.unicodeName,
      previous_status: event.previousStatus,
      status: event.status,
      checked_at: event.checkedAt.toISOString(),
    },
  });
}

/** `signature` is the `X-Service-Signature` value (`sha256=<hex>`), or null when no secret is saved. */
export function webhookHeaders(
  event: AlertEvent,
  deliveryId: string,
  signature: string | null,
): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    "X-Service-Event": event.type,
    "X-Service-Delivery": deliveryId,
  };
  if (signature !== null) headers["X-Service-Signature"] = signature;
  return headers;
}
