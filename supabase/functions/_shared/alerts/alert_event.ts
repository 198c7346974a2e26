/** An alert event as the senders see it (one row of `public.alert_events`). */
import type { PredictionBasis } from "../availability/drop_prediction.ts";

export type AlertEventType = "domain.available" | "domain.pending_delete" | "test";

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
  /** When the check saw the new status. */
  checkedAt: Date;
  /** `domain.pending_delete`: the predicted drop time (null when it cannot be predicted). */
  predictedDropAt?: Date | null;
  /** `domain.pending_delete`: how `predictedDropAt` was predicted (null is read as `unknown`). */
  predictionBasis?: PredictionBasis | null;
}
