/**
 * A caller's side of one project-wide limiter class (docs/rate-limits.md): asks the database for each
 * start, sleeps the wait it is told, confirms a waited slot just before starting (a pause meanwhile voids
 * it), and retries a busy key within the caller's budget. The database decides; this process only keeps
 * what it last learned of each key's pause (for `pausedUntil`) and whether a success must be reported.
 *
 * A database that cannot be reached refuses the turn (`busy`): no request is sent unlimited.
 */
import type { RateLimitAnswer, RateLimitStore } from "./store.ts";
import { errorForLog } from "../log_text.ts";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export type LimiterTurn =
  | { granted: true; release: () => void }
  | {
    granted: false;
    refusal: "paused" | "busy";
    pauseReason: "rate_limited" | "backoff" | null;
    /** `paused`: when the pause ends; `busy`: when a turn may come, where the database said (epoch ms). */
    until: number | null;
  };

export interface AcquireOptions {
  /** Refuse (`busy`) rather than wait longer than this. Unbounded when absent. */
  maxWaitMs?: number;
  /**
   * With a reserving store: not behind this process's routine callers of the key (urgent callers take turns
   * in a line of their own), and allowed one start beyond the key's in-flight cap (`rate_limit_reserve`).
   */
  urgent?: boolean;
  /**
   * A routine caller is refused (`busy`) at once when this many of this process's routine callers of the key
   * are already waiting and the key is congested (see `acquireRoutine`): a caller that has other work (the
   * poller's next names) does not queue behind a slow host that already has enough waiting for it, while a
   * fast host's line drains and takes them all.
   */
  maxQueued?: number;
  /**
   * A live check (an account's `GET /check`, `check_domain`) for this account: with a reserving store it is
   * held to the class's live share (`rate_limit_reserve`), and its failures never back the key off.
   */
  liveAccount?: string;
}

/** Whether a request's failure may count towards the key's back-off: never a live check's. */
export function failureCounts(options: AcquireOptions | undefined): boolean {
  return options?.liveAccount === undefined;
}

export interface SharedLimiter {
  acquire(key: string, options?: AcquireOptions): Promise<LimiterTurn>;
  pause(key: string, untilMs: number, reason: "rate_limited" | "backoff"): Promise<void>;
  report(key: string, succeeded: boolean): Promise<void>;
  /** The pause end this process last learned for the key (epoch ms), or null. */
  pausedUntil(key: string): number | null;
}

export interface SharedLimiterOptions {
  store: RateLimitStore;
  limitClass: string;
  now?: () => number;
  sleep?: Sleep;
  /** With a reserving store: how long before its reserved start a slot is settled (default 450 ms). */
  settleLeadMs?: number;
  /** Where database failures are told (never thrown to the caller). */
  onError?: (what: string, error: unknown) => void;
}

export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** A key whose starts come further apart than this for this process's waiting callers is congested (`maxQueued`). */
export const CONGESTED_AFTER_MS = 1_000;

/** The longest round trip whose answer may set this process's estimate of the database's clock. */
const MAX_CLOCK_SAMPLE_MS = 20;

export function createSharedLimiter(options: SharedLimiterOptions): SharedLimiter {
  const { store, limitClass } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const onError = options.onError ??
    ((what, error) => console.error(`[rate-limit] ${limitClass} ${what}: ${errorForLog(error)}`));
  const knownPause = new Map<string, number>();
  /** Keys whose failure count may be above 0: a success there is reported (elsewhere it would change nothing). */
  const failing = new Set<string>();

  function learnPause(key: string, until: number | null): void {
    if (until !== null && until > now()) knownPause.set(key, Math.max(until, knownPause.get(key) ?? 0));
  }

  const reserving = store.reserve && store.settle && store.releaseAt
    ? {
      reserve: store.reserve.bind(store),
      settle: store.settle.bind(store),
      releaseAt: store.releaseAt.bind(store),
    }
    : null;
  const busy: LimiterTurn = { granted: false, refusal: "busy", pauseReason: null, until: null };
  /** Busy, with when a turn may come (epoch ms), where the database said. */
  const busyUntil = (until: number): LimiterTurn => ({
    granted: false,
    refusal: "busy",
    pauseReason: null,
    until,
  });

  /** The database refused because `key` is paused: this process remembers it, and the caller is told. */
  function pausedTurn(
    key: string,
    answer: Pick<Extract<RateLimitAnswer, { granted: false }>, "pauseReason" | "pausedUntil">,
  ): LimiterTurn {
    learnPause(key, answer.pausedUntil);
    return { granted: false, refusal: "paused", pauseReason: answer.pauseReason, until: answer.pausedUntil };
  }

  /**
   * This process's callers of one key take turns to ask the database (FIFO): one asks, the others wait here
   * instead of polling the database too. The turn passes on as soon as a start is reserved, so the next
   * caller reserves the following start while the first sleeps until its own. Urgent callers have a line of
   * their own (`line` is the key, marked when urgent). Resolves with the function that passes the turn on,
   * or null when `deadline` comes first.
   */
  const turns = new Map<string, { held: boolean; waiters: ((entered: boolean) => void)[] }>();
  function queued(line: string): number {
    const queue = turns.get(line);
    return queue ? queue.waiters.length + (queue.held ? 1 : 0) : 0;
  }
  function takeTurn(line: string, deadline: number): Promise<(() => void) | null> {
    let queue = turns.get(line);
    if (!queue) turns.set(line, queue = { held: false, waiters: [] });
    const waiting = queue;
    let passed = false;
    const passOn = () => {
      if (passed) return;
      passed = true;
      const next = waiting.waiters.shift();
      if (next) next(true);
      else {
        waiting.held = false;
        turns.delete(line);
      }
    };
    if (!waiting.held) {
      waiting.held = true;
      return Promise.resolve(passOn);
    }
    return new Promise((resolve) => {
      const timeout = new AbortController();
      const waiter = (entered: boolean) => {
        timeout.abort();
        resolve(entered ? passOn : null);
      };
      waiting.waiters.push(waiter);
      if (Number.isFinite(deadline)) {
        sleep(Math.max(0, deadline - now()), timeout.signal).then(() => {
          const at = waiting.waiters.indexOf(waiter);
          if (at < 0) return;
          waiting.waiters.splice(at, 1);
          waiter(false);
        });
      }
    });
  }

  /**
   * The database's clock minus this process's (ms), from the answer with the shortest round trip so far
   * (its error is at most half that round trip): reserved starts are on the database's clock. Until an
   * answer comes back within `MAX_CLOCK_SAMPLE_MS` the clocks are taken as synchronised (NTP): a slow first
   * answer (a new connection, a loaded database) could otherwise set it wrong by half a second.
   */
  let clockOffset = 0;
  let bestRoundTrip = MAX_CLOCK_SAMPLE_MS;
  function learnClock(dbNow: number, sentAt: number, receivedAt: number): void {
    const roundTrip = receivedAt - sentAt;
    if (roundTrip > bestRoundTrip * 1.5 + 2) return;
    bestRoundTrip = Math.min(bestRoundTrip, roundTrip);
    clockOffset = dbNow - (sentAt + receivedAt) / 2;
  }

  /** How long before its reserved start a slot is settled (the answer must be back by then). */
  const settleLeadMs = options.settleLeadMs ?? 450;

  /**
   * `acquire` over a reserving store: reserve the next start (one round trip), settle it shortly before
   * (one more: the final start, after the previous request's end), sleep locally until then and go. The
   * release records the end as this process saw it.
   */
  async function acquireReserved(
    reserving: Required<Pick<RateLimitStore, "reserve" | "settle" | "releaseAt">>,
    key: string,
    deadline: number,
    urgent: boolean,
    liveAccount: string | null,
  ): Promise<LimiterTurn> {
    const line = urgent ? `${key}\u0000urgent` : key;
    let passOn = await takeTurn(line, deadline);
    if (passOn === null) return busy;
    const lineUpAgain = async () => {
      passOn = await takeTurn(line, deadline);
      return passOn !== null;
    };
    try {
      for (;;) {
        const remaining = deadline - now();
        if (remaining < 0) return busy;
        const sentAt = now();
        let answer;
        try {
          answer = await reserving.reserve(
            limitClass,
            key,
            Number.isFinite(remaining) ? remaining : null,
            urgent,
            liveAccount,
          );
        } catch (error) {
          onError("reserve", error);
          return busy;
        }
        if (answer.consecutiveFailures > 0) failing.add(key);
        if (!answer.granted) {
          if (answer.refusal === "paused") return pausedTurn(key, answer);
          if (answer.retryMs !== null && now() + answer.retryMs < deadline) {
            // A live check waiting for its share's turn leaves this process's line meanwhile: the callers
            // behind it (a canary, another account's check) may have a turn before then.
            if (liveAccount !== null) passOn();
            // Other processes ask too: a little spread (at most 250 ms) keeps them from asking at the same
            // instant; an urgent caller asks first.
            await sleep(
              urgent
                ? answer.retryMs
                : answer.retryMs + Math.min(250, answer.retryMs * (0.05 + Math.random() * 0.2)),
            );
            if (liveAccount !== null && !await lineUpAgain()) return busy;
            continue;
          }
          // The database said when a turn may come: past this caller's wait, but the caller can tell its own.
          return answer.retryMs === null ? busy : busyUntil(now() + answer.retryMs);
        }
        learnClock(answer.dbNow, sentAt, now());
        // The next caller of this process may reserve the following start while this one waits for its own.
        passOn();
        const { token } = answer;
        let released = false;
        /** `sent` false: the start is given up unsent, and the database hands the key's turn back. */
        const releaseSlot = (sent: boolean) => {
          if (released) return;
          released = true;
          reserving.releaseAt(token, now() + clockOffset, sent).catch((error) => onError("release", error));
        };
        const release = () => releaseSlot(true);
        const giveBack = () => releaseSlot(false);

        let startAt: number | null = null;
        let settleAt = answer.startsAt - clockOffset - settleLeadMs;
        for (;;) {
          if (settleAt > deadline) break;
          if (settleAt > now()) await sleep(settleAt - now());
          let settled;
          const askedAt = now();
          try {
            settled = await reserving.settle(token);
          } catch (error) {
            onError("settle", error);
            giveBack();
            return busy;
          }
          learnClock(settled.dbNow, askedAt, now());
          if (settled.startAt !== null) startAt = settled.startAt - clockOffset;
          if (settled.retryMs === null) break;
          settleAt = now() + settled.retryMs;
        }
        if (startAt === null || startAt > deadline) {
          giveBack();
          // Void (a pause voided it): ask again, the answer says how long. Out of budget: busy.
          if (startAt === null && settleAt <= deadline && await lineUpAgain()) continue;
          return startAt === null ? busy : busyUntil(startAt);
        }
        if (startAt > now()) await sleep(startAt - now());
        // A start sent much later than its time could be overtaken by the next one (the database stops
        // waiting for an unreleased request after a while; without spacing from the end, at once): give it
        // up and reserve again. Likewise when this process learned of a pause meanwhile.
        const late = answer.lateStartMs !== null && now() - startAt > answer.lateStartMs;
        if (late || (knownPause.get(key) ?? 0) > now()) {
          giveBack();
          if (await lineUpAgain()) continue;
          return busy;
        }
        return { granted: true, release };
      }
    } finally {
      passOn?.();
    }
  }

  /**
   * Keys whose last routine caller in this process waited more than `CONGESTED_AFTER_MS` after the start of
   * the one before it (or after it came, if later), or got no start; `lastStart`: each key's last routine
   * start. Measured from the previous start, not from the caller's arrival: a fast host's line of twenty is
   * not congested.
   */
  const congested = new Set<string>();
  const lastStart = new Map<string, number>();

  /** A routine caller over a reserving store: refused at once beyond `maxQueued` on a congested key. */
  async function acquireRoutine(
    reserving: Required<Pick<RateLimitStore, "reserve" | "settle" | "releaseAt">>,
    key: string,
    deadline: number,
    maxQueued: number | undefined,
    liveAccount: string | null,
  ): Promise<LimiterTurn> {
    if (maxQueued !== undefined && congested.has(key) && queued(key) >= maxQueued) return busy;
    const enteredAt = now();
    const turn = await acquireReserved(reserving, key, deadline, false, liveAccount);
    const previous = lastStart.get(key) ?? -Infinity;
    const startedAt = now();
    if (turn.granted) lastStart.set(key, startedAt);
    if (!turn.granted || startedAt - Math.max(enteredAt, previous) > CONGESTED_AFTER_MS) congested.add(key);
    else congested.delete(key);
    return turn;
  }

  return {
    async acquire(key, acquireOptions = {}) {
      const deadline = acquireOptions.maxWaitMs === undefined ? Infinity : now() + acquireOptions.maxWaitMs;
      if (reserving) {
        const live = acquireOptions.liveAccount ?? null;
        if (acquireOptions.urgent === true) return acquireReserved(reserving, key, deadline, true, live);
        return acquireRoutine(reserving, key, deadline, acquireOptions.maxQueued, live);
      }
      for (;;) {
        const remaining = deadline - now();
        if (remaining < 0) return busy;
        let answer;
        try {
          answer = await store.acquire(limitClass, key, Number.isFinite(remaining) ? remaining : null);
        } catch (error) {
          onError("acquire", error);
          return busy;
        }
        if (answer.consecutiveFailures > 0) failing.add(key);
        if (!answer.granted) {
          if (answer.refusal === "paused") return pausedTurn(key, answer);
          if (answer.retryMs !== null && now() + answer.retryMs < deadline) {
            // Spread the callers waiting on one key (±25 %), so they do not all ask again at once.
            await sleep(answer.retryMs * (0.75 + Math.random() * 0.5));
            continue;
          }
          return busy;
        }
        const { token } = answer;
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          store.release(token).catch((error) => onError("release", error));
        };
        let gate = answer.waitMs;
        while (gate > 0) {
          if (now() + gate > deadline) {
            release();
            return busy;
          }
          await sleep(gate);
          try {
            gate = await store.confirm(token);
          } catch (error) {
            onError("confirm", error);
            release();
            return busy;
          }
        }
        // A pause voided the slot while this caller waited: ask again (the answer says how long).
        if (gate < 0) continue;
        return { granted: true, release };
      }
    },
    async pause(key, untilMs, reason) {
      learnPause(key, untilMs);
      try {
        learnPause(key, await store.pause(limitClass, key, untilMs, reason));
      } catch (error) {
        onError("pause", error);
      }
    },
    async report(key, succeeded) {
      if (succeeded && !failing.has(key)) return;
      try {
        const until = await store.report(limitClass, key, succeeded);
        learnPause(key, until);
        if (succeeded) failing.delete(key);
        else failing.add(key);
      } catch (error) {
        onError("report", error);
      }
    },
    pausedUntil(key) {
      const until = knownPause.get(key);
      if (until === undefined) return null;
      if (until > now()) return until;
      knownPause.delete(key);
      return null;
    },
  };
}
