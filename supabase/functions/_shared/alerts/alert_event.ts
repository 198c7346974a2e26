/** An alert event as the senders see it (one row of `public.alert_events`). */
import type { PredictionBasis } from "../availability/drop_prediction.ts";
import type { AlertEventName, AvailabilityEvidence } from "../contract/webhook_event.ts";

export type AlertEventType = AlertEventName | "test";

export interface AlertEvent {
  /** `evt_…`, the webhook body's `id`. */
  id: string;
  type: AlertEventType;
  createdAt: Date;
  domainName: string;
  /** The watcher's Unicode spelling of an IDN, or null. */
  unicodeName: string | null;
  previousStatus: string | null;
  status: string;
  /** When the check saw the new status (`domain.expiring`: when a check last saw the expiration date). */
  checkedAt: Date;
  /** `domain.pending_delete`: the predicted drop time (null when it cannot be predicted). */
  predictedDropAt?: Date | null;
  /** `domain.pending_delete`: how `predictedDropAt` was predicted (null is read as `unknown`). */
  predictionBasis?: PredictionBasis | null;
  /** `domain.available`: why the check believed the name free (null when recorded without a check). */
  evidence?: AvailabilityEvidence | null;
  /** `domain.restored`, `domain.registered`: the registrar, when known. */
  registrar?: string | null;
  /** `domain.restored`, `domain.registered`, `domain.expiring`: the registry's expiration date. */
  expiresAt?: Date | null;
  /** `domain.expiring`: which reminder (days before the expiration date). */
  daysBefore?: number | null;
  /** A team alert: the organization whose list holds the name (null or absent: a personal alert). */
  organization?: { id: string; name: string } | null;
  /** A team alert of a claimed name: the claimer as the members see them. */
  claimedBy?: string | null;
}
