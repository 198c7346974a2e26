/**
 * The registries' drop-prediction corrections (`public.drop_prediction_corrections`): a handful of rows,
 * learnt slowly. The poller reads them once per run (each run builds its own reader); the live check shares
 * one reader per isolate that reads them at most once a minute. When they cannot be read, predictions go
 * uncorrected (and the next call tries again).
 */
import { asService, type TransactionRunner } from "../db/client.ts";
import { errorForLog } from "../log_text.ts";
import {
  correctionKey,
  type DropCorrection,
  type DropCorrections,
  NO_CORRECTIONS,
  type PredictionBasis,
} from "./drop_prediction.ts";

/** How long a reader keeps what it read. */
export const CORRECTIONS_TTL_MS = 60_000;

export function databaseDropCorrections(
  run: TransactionRunner = asService,
  now: () => number = Date.now,
): () => Promise<DropCorrections> {
  let cached: { at: number; corrections: DropCorrections } | null = null;
  return async () => {
    if (cached !== null && now() - cached.at < CORRECTIONS_TTL_MS) return cached.corrections;
    try {
      const rows = await run((tx) =>
        tx<{ registry: string; basis: PredictionBasis; offset_seconds: number; source: string }[]>`
          select registry, basis, offset_seconds, source from public.drop_prediction_corrections`
      );
      const corrections = new Map<string, DropCorrection>(
        rows.map((row) => [correctionKey(row.registry, row.basis), {
          offsetSeconds: row.offset_seconds,
          source: row.source,
        }]),
      );
      cached = { at: now(), corrections };
      return corrections;
    } catch (error) {
      console.error(`drop prediction corrections unavailable: ${errorForLog(error)}`);
      return cached?.corrections ?? NO_CORRECTIONS;
    }
  };
}

let shared: (() => Promise<DropCorrections>) | undefined;

/** The corrections the live checks of this isolate share. */
export function sharedDropCorrections(): Promise<DropCorrections> {
  shared ??= databaseDropCorrections();
  return shared();
}
