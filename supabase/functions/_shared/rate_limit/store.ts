/**
 * The project-wide rate limiter's SQL interface (docs/rate-limits.md): one round trip per call, each
 * atomic in the database. `sqlRateLimitStore` runs them on the isolate's limiter connections
 * (`limiterDatabase()`), apart from its other database work.
 */
import { limiterDatabase, type Sql } from "../db/client.ts";

export type RateLimitAnswer =
  | { granted: true; token: string; waitMs: number; consecutiveFailures: number }
  | {
    granted: false;
    /** `paused`: until `pausedUntil` for `pauseReason`; `busy`: no slot (retry in `retryMs`) or too late. */
    refusal: "paused" | "busy";
    pauseReason: "rate_limited" | "backoff" | null;
    pausedUntil: number | null;
    retryMs: number | null;
    consecutiveFailures: number;
  };

/** A reserved start (`rate_limit_reserve`): refusals as `RateLimitAnswer`. */
export type ReserveAnswer =
  | {
    granted: true;
    token: string;
    /** The start, on the database's clock (epoch ms). */
    startsAt: number;
    /** The database's clock when it answered (epoch ms): with the round trip, this process's clock offset. */
    dbNow: number;
    /** A start this much later than its settled time must not be sent (the slot is released instead). */
    lateStartMs: number | null;
    consecutiveFailures: number;
  }
  | Extract<RateLimitAnswer, { granted: false }>;

export interface RateLimitStore {
  /**
   * Reserves the next start for (class, key), spaced 1 / rate after the previous reservation, in one round
   * trip; `maxWaitMs` null means no bound. `urgent`: may hold one start beyond the in-flight cap (where starts
   * are spaced from the previous end). `liveAccount`: a live check of that account, held to the class's live
   * share (docs/rate-limits.md). Optional: a store without it is used through `acquire`.
   */
  reserve?(
    limitClass: string,
    key: string,
    maxWaitMs: number | null,
    urgent?: boolean,
    liveAccount?: string | null,
  ): Promise<ReserveAnswer>;
  /**
   * The final start of a reserved slot (with `reserve`): `startAt` (database clock, epoch ms), or ask again in
   * `retryMs`, or neither: the slot is void (reserve again).
   */
  settle?(token: string): Promise<{ startAt: number | null; retryMs: number | null; dbNow: number }>;
  /**
   * Frees a slot, recording its end as `finishedAt` (database clock, epoch ms) when it was sent; `sent`
   * false: the start was given up unsent, and the key's turn (and a live check's share) is handed back.
   */
  releaseAt?(token: string, finishedAt: number, sent?: boolean): Promise<void>;
  /** Decides one start for (class, key); `maxWaitMs` null means no bound. */
  acquire(limitClass: string, key: string, maxWaitMs: number | null): Promise<RateLimitAnswer>;
  /**
   * The start gate of a slot granted with a wait: 0 = start now; n > 0 = wait n ms and confirm again;
   * -1 = the slot is void (a pause since the grant): acquire again.
   */
  confirm(token: string): Promise<number>;
  release(token: string): Promise<void>;
  /** Pauses the key until `untilMs`; returns the key's pause end (epoch ms). */
  pause(
    limitClass: string,
    key: string,
    untilMs: number,
    reason: "rate_limited" | "backoff",
  ): Promise<number | null>;
  /** Reports a request's outcome; returns the key's pause end (epoch ms) or null. */
  report(limitClass: string, key: string, succeeded: boolean): Promise<number | null>;
}

interface AcquireRow {
  granted: boolean;
  token: string | null;
  wait_ms: number | null;
  reason: string | null;
  paused_until: Date | null;
  retry_ms: number | null;
  consecutive_failures: number;
}

interface ReserveRow {
  granted: boolean;
  token: string | null;
  starts_at: Date | null;
  late_start_ms: number | null;
  reason: string | null;
  paused_until: Date | null;
  retry_ms: number | null;
  consecutive_failures: number;
  db_now: Date;
}

function refusal(
  row: {
    reason: string | null;
    paused_until: Date | null;
    retry_ms: number | null;
    consecutive_failures: number;
  },
) {
  const paused = row.reason === "rate_limited" || row.reason === "backoff";
  return {
    granted: false as const,
    refusal: paused ? "paused" as const : "busy" as const,
    pauseReason: paused ? row.reason as "rate_limited" | "backoff" : null,
    pausedUntil: row.paused_until?.getTime() ?? null,
    retryMs: row.retry_ms,
    consecutiveFailures: row.consecutive_failures,
  };
}

export function sqlRateLimitStore(sql: () => Sql = limiterDatabase): RateLimitStore {
  return {
    async acquire(limitClass, key, maxWaitMs) {
      const wait = maxWaitMs === null ? null : Math.max(0, Math.min(3_600_000, Math.floor(maxWaitMs)));
      const [row] = await sql()<AcquireRow[]>`
        select * from private.rate_limit_acquire(${limitClass}, ${key}, ${wait}::integer)`;
      if (row.granted) {
        return {
          granted: true,
          token: row.token!,
          waitMs: row.wait_ms ?? 0,
          consecutiveFailures: row.consecutive_failures,
        };
      }
      return refusal(row);
    },
    async reserve(limitClass, key, maxWaitMs, urgent = false, liveAccount = null) {
      const wait = maxWaitMs === null ? null : Math.max(0, Math.min(3_600_000, Math.floor(maxWaitMs)));
      const [row] = await sql()<ReserveRow[]>`
        select * from private.rate_limit_reserve(
          ${limitClass}, ${key}, ${wait}::integer, ${urgent}, ${liveAccount}::text)`;
      if (!row.granted) return refusal(row);
      return {
        granted: true,
        token: row.token!,
        startsAt: row.starts_at!.getTime(),
        dbNow: row.db_now.getTime(),
        lateStartMs: row.late_start_ms,
        consecutiveFailures: row.consecutive_failures,
      };
    },
    async settle(token) {
      const [row] = await sql()<{ start_at: Date | null; retry_ms: number | null; db_now: Date }[]>`
        select * from private.rate_limit_settle(${token}::uuid)`;
      return { startAt: row.start_at?.getTime() ?? null, retryMs: row.retry_ms, dbNow: row.db_now.getTime() };
    },
    async releaseAt(token, finishedAt, sent = true) {
      await sql()`select private.rate_limit_release_at(${token}::uuid, ${new Date(finishedAt)}, ${sent})`;
    },
    async confirm(token) {
      const [row] = await sql()<
        { gate: number }[]
      >`select private.rate_limit_confirm(${token}::uuid) as gate`;
      return row.gate;
    },
    async release(token) {
      await sql()`select private.rate_limit_release(${token}::uuid)`;
    },
    async pause(limitClass, key, untilMs, reason) {
      const [row] = await sql()<{ until: Date | null }[]>`
        select private.rate_limit_pause(${limitClass}, ${key}, ${new Date(untilMs)}, ${reason}) as until`;
      return row.until?.getTime() ?? null;
    },
    async report(limitClass, key, succeeded) {
      const [row] = await sql()<{ until: Date | null }[]>`
        select private.rate_limit_report(${limitClass}, ${key}, ${succeeded}) as until`;
      return row.until?.getTime() ?? null;
    },
  };
}
