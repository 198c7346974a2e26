/**
 * When a name in pending delete is predicted to drop. Most gTLDs drop a name 35 days after it enters the
 * redemption period (30 days of redemption, then 5 of pending delete), or 5 days after it enters pending
 * delete; RDAP's "last changed" event is when the current status began.
 */
import type { RdapSummary } from "./check_domain.ts";

const DAY = 24 * 60 * 60_000;

export const REDEMPTION_PERIOD_MS = 30 * DAY;
export const PENDING_DELETE_PERIOD_MS = 5 * DAY;

/**
 * How a drop time was predicted (the `domain.pending_delete` event's `prediction_basis`):
 * `redemption_period`: RDAP's last change + 30 days of redemption + 5 of pending delete;
 * `pending_delete_period`: last change + 5 days; `unknown`: no prediction (no usable last-change date).
 */
export type PredictionBasis = "redemption_period" | "pending_delete_period" | "unknown";

export interface DropPrediction {
  /** Null when `basis` is `unknown`. */
  at: Date | null;
  basis: PredictionBasis;
}

/** The predicted drop time from the registry's answer, and how it was found. */
export function dropPrediction(rdap: RdapSummary | null): DropPrediction {
  const unknown: DropPrediction = { at: null, basis: "unknown" };
  if (rdap === null || rdap.last_changed_date === null) return unknown;
  const changedAt = Date.parse(rdap.last_changed_date);
  if (Number.isNaN(changedAt)) return unknown;
  if (rdap.status.includes("redemption period")) {
    return {
      at: new Date(changedAt + REDEMPTION_PERIOD_MS + PENDING_DELETE_PERIOD_MS),
      basis: "redemption_period",
    };
  }
  if (rdap.status.includes("pending delete")) {
    return { at: new Date(changedAt + PENDING_DELETE_PERIOD_MS), basis: "pending_delete_period" };
  }
  return unknown;
}
