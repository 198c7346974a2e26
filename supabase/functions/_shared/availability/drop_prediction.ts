/**
 * When a name in pending delete is predicted to drop. Most gTLDs drop a name 35 days after it enters the
 * redemption period (30 days of redemption, then 5 of pending delete), or 5 days after it enters pending
 * delete; RDAP's "last changed" event is when the current status began. A registry whose drops were measured
 * to come consistently earlier or later has a correction (per registry and basis, learnt in the database
 * from at least 20 observed drops: `drop_prediction_corrections`), which `predictDrop` adds.
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

/** Seconds to add to a registry's predictions of one basis, and where that figure comes from. */
export interface DropCorrection {
  offsetSeconds: number;
  source: string;
}

/** Corrections by `correctionKey(registry, basis)`. */
export type DropCorrections = ReadonlyMap<string, DropCorrection>;

export const NO_CORRECTIONS: DropCorrections = new Map();

export function correctionKey(registry: string, basis: PredictionBasis): string {
  return `${registry} ${basis}`;
}

/** The registry a name belongs to, for drop statistics: its top-level domain (SQL twin: `registry_of`). */
export function registryOf(domainName: string): string {
  return domainName.slice(domainName.lastIndexOf(".") + 1);
}

/** A prediction and the correction it includes (0 for none). */
export interface CorrectedPrediction extends DropPrediction {
  correctionSeconds: number;
}

/** The prediction for `domainName` from the registry's answer, with its registry's correction, if any. */
export function predictDrop(
  domainName: string,
  rdap: RdapSummary | null,
  corrections: DropCorrections,
): CorrectedPrediction {
  const prediction = dropPrediction(rdap);
  if (prediction.at === null) return { ...prediction, correctionSeconds: 0 };
  const correction = corrections.get(correctionKey(registryOf(domainName), prediction.basis));
  if (correction === undefined) return { ...prediction, correctionSeconds: 0 };
  return {
    at: new Date(prediction.at.getTime() + correction.offsetSeconds * 1000),
    basis: prediction.basis,
    correctionSeconds: correction.offsetSeconds,
  };
}
