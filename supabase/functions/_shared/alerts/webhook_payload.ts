/**
 * The webhook request for one delivery: the JSON body (the exact bytes that are signed and sent, the same
 * on every retry) and its headers. The secret itself is never a header.
 */
import type { AlertEvent } from "./alert_event.ts";
import type { AvailabilityEvidence } from "../contract/webhook_event.ts";
import { teamData } from "./team_line.ts";

export const WEBHOOK_USER_AGENT = "DomainWatchlist-Webhooks/1.0";

/**
 * `{"id","type","created_at","data":{"domain_name","unicode_name","previous_status","status","checked_at",…}}`
 * with each type's own fields (contract/webhook_event.ts): `domain.available` adds `evidence`;
 * `domain.pending_delete` `predicted_drop_at` and `prediction_basis`; `domain.restored` and
 * `domain.registered` `registrar` and `expires_at`; `domain.expiring` has no previous status and adds
 * `expires_at` and `days_before`.
 */
export function webhookBody(event: AlertEvent): string {
  const data = eventData(event);
  // A team alert (docs/organizations.md) adds `organization: {id, name, claimed_by}`; personal ones have none.
  const team = teamData(event);
  if (team) data.organization = team;
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data,
  });
}

function eventData(event: AlertEvent): Record<string, unknown> {
  const name = { domain_name: event.domainName, unicode_name: event.unicodeName };
  const checkedAt = event.checkedAt.toISOString();
  switch (event.type) {
    case "domain.expiring":
      return {
        ...name,
        status: event.status,
        checked_at: checkedAt,
        expires_at: event.expiresAt?.toISOString() ?? null,
        days_before: event.daysBefore ?? null,
      };
    case "domain.restored":
    case "domain.registered":
      return {
        ...name,
        previous_status: event.previousStatus,
        status: event.status,
        checked_at: checkedAt,
        registrar: event.registrar ?? null,
        expires_at: event.expiresAt?.toISOString() ?? null,
      };
    default: {
      const data: Record<string, unknown> = {
        ...name,
        previous_status: event.previousStatus,
        status: event.status,
        checked_at: checkedAt,
      };
      if (event.type === "domain.available") {
        data.evidence = event.evidence ? evidenceData(event.evidence) : null;
      }
      if (event.type === "domain.pending_delete") {
        data.predicted_drop_at = event.predictedDropAt?.toISOString() ?? null;
        data.prediction_basis = event.predictionBasis ?? "unknown";
      }
      return data;
    }
  }
}

/** The evidence in the contract's key order (the database keeps it as jsonb, whose key order is its own). */
function evidenceData(evidence: AvailabilityEvidence): AvailabilityEvidence {
  return {
    source: evidence.source,
    server: evidence.server,
    answer: evidence.answer,
    canary_name: evidence.canary_name,
    canary_proved_at: evidence.canary_proved_at,
    dns_rcode: evidence.dns_rcode,
    resolver: evidence.resolver,
    checked_at: evidence.checked_at,
  };
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
