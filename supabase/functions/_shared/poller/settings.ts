/** The poller's settings from the environment, read at call time (README documents them). */
import { intEnv } from "../config.ts";

export interface PollerSettings {
  /** Wall time one invocation may use before it stops starting work (`POLLER_TIME_BUDGET_MS`). */
  timeBudgetMs: number;
  /** How long a claimed name stays reserved for this run (`POLLER_LEASE_SECONDS`). */
  leaseSeconds: number;
  /** Names one worker claims at a time (`POLLER_BATCH_SIZE`). */
  batchSize: number;
  /** Workers checking names at once (`POLLER_CONCURRENCY`); RDAP hosts are still rate-limited per host. */
  concurrency: number;
  /**
   * Names one run checks at most (`POLLER_MAX_CHECKS_PER_RUN`). About 2.5 ms of CPU each in a fresh isolate
   * with real TLS (`deno task bench:tls`, Deno 2.1), so the default 400 keeps a run near 1 s of CPU, half of
   * edge-runtime's 2 s limit, which counts every request the isolate serves.
   */
  maxChecksPerRun: number;
  /**
   * Names of one run that may wait for one RDAP host at once (`POLLER_HOST_QUEUE`); names in pending delete
   * are never turned away. A name beyond it is handed back to the next run.
   */
  hostQueue: number;
}

/**
 * The longest POLLER_TIME_BUDGET_MS honoured: below hosted edge-runtime's wall-clock limit of 150 s per
 * invocation (Free plan; 400 s on paid plans), with 10 s left for the run's last checks and its answer.
 * A larger value is cut to this.
 */
export const pollerTimeBudgetCapMs = 140_000;

export function pollerSettings(): PollerSettings {
  return {
    timeBudgetMs: Math.min(intEnv("POLLER_TIME_BUDGET_MS", 25_000, 1_000, 86_400_000), pollerTimeBudgetCapMs),
    leaseSeconds: intEnv("POLLER_LEASE_SECONDS", 120, 1, 3_600),
    batchSize: intEnv("POLLER_BATCH_SIZE", 5, 1, 100),
    concurrency: intEnv("POLLER_CONCURRENCY", 4, 1, 32),
    maxChecksPerRun: intEnv("POLLER_MAX_CHECKS_PER_RUN", 400, 1, 100_000),
    hostQueue: intEnv("POLLER_HOST_QUEUE", 3, 1, 100),
  };
}
