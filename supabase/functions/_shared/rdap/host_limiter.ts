/**
 * Politeness towards RDAP servers, per host (`host:port`): at most `concurrency` requests in flight,
 * request starts spaced by 1 / `ratePerSecond`, pauses after a 429 (`pause`), and an exponential, capped
 * back-off for a host that keeps failing.
 *
 * `sharedHostLimiter()` is the one the functions use: it is kept in the database (class `rdap_host` of the
 * project-wide limiter, docs/rate-limits.md), so every isolate of every function shares one allowance per
 * host, and its parameters are the class's row, not this process's settings. `createHostLimiter` is the
 * same behaviour in this process's memory, for unit tests and single-process tools.
 */
import { sqlRateLimitStore } from "../rate_limit/store.ts";
import {
  type AcquireOptions,
  createSharedLimiter,
  failureCounts,
  realSleep,
  type Sleep,
} from "../rate_limit/shared_limiter.ts";

export type HostRefusalReason = "rdap_rate_limited" | "rdap_host_backoff" | "rdap_host_busy";

export type HostTurn =
  | { granted: true; release: () => void }
  | { granted: false; reason: HostRefusalReason; until: number | null };

/**
 * How long to wait, whether urgent, how many may queue (`_shared/rate_limit/shared_limiter.ts`); the in-memory
 * limiter honours `maxWaitMs` only.
 */
export type { AcquireOptions };

export interface HostLimiter {
  /** Waits for the host's turn. The caller must call `release()` when its request has finished. */
  acquire(host: string, options?: AcquireOptions): Promise<HostTurn>;
  /** Keeps the host paused until `untilMs` (epoch ms), e.g. from a 429's `Retry-After`. */
  pause(
    host: string,
    untilMs: number,
    reason?: "rdap_rate_limited" | "rdap_host_backoff",
  ): void | Promise<void>;
  reportSuccess(host: string): void | Promise<void>;
  /**
   * Counts a failure; from `failureThreshold` consecutive failures on, the host is backed off. A live check's
   * failure (`options.liveAccount`, the options its turn was asked with) counts nothing: it never backs the
   * shared host off (docs/rate-limits.md, "Live checks' share").
   */
  reportFailure(host: string, options?: AcquireOptions): void | Promise<void>;
  /** The epoch ms until which the host is paused (as far as this process knows), or null. */
  pausedUntil(host: string): number | null;
}

export { realSleep, type Sleep };

export interface HostLimiterOptions {
  /** Request starts per second per host; 0 turns the spacing off (tests only). */
  ratePerSecond: number;
  /** Requests in flight per host (at least 1). */
  concurrency: number;
  now?: () => number;
  sleep?: Sleep;
  /** Pauses up to this long are waited out; longer ones refuse at once. */
  shortPauseMs?: number;
  failureThreshold?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
}

export const SHORT_PAUSE_MS = 5_000;
const FAILURE_THRESHOLD = 3;
const BACKOFF_BASE_MS = 15_000;
const BACKOFF_CAP_MS = 15 * 60_000;

interface Waiter {
  settled: boolean;
  resolve: (gotSlot: boolean) => void;
}

interface HostState {
  active: number;
  waiters: Waiter[];
  nextStartAt: number;
  pausedUntil: number;
  pauseReason: "rdap_rate_limited" | "rdap_host_backoff";
  consecutiveFailures: number;
}

export function createHostLimiter(options: HostLimiterOptions): HostLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const intervalMs = options.ratePerSecond > 0 ? 1000 / options.ratePerSecond : 0;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const shortPauseMs = options.shortPauseMs ?? SHORT_PAUSE_MS;
  const failureThreshold = options.failureThreshold ?? FAILURE_THRESHOLD;
  const backoffBaseMs = options.backoffBaseMs ?? BACKOFF_BASE_MS;
  const backoffCapMs = options.backoffCapMs ?? BACKOFF_CAP_MS;
  const hosts = new Map<string, HostState>();

  function stateOf(host: string): HostState {
    let state = hosts.get(host);
    if (!state) {
      state = {
        active: 0,
        waiters: [],
        nextStartAt: 0,
        pausedUntil: 0,
        pauseReason: "rdap_rate_limited",
        consecutiveFailures: 0,
      };
      hosts.set(host, state);
    }
    return state;
  }

  /** Resolves true once a concurrency slot is held, false when `deadline` passes first. */
  function takeSlot(state: HostState, deadline: number): Promise<boolean> {
    if (state.active < concurrency) {
      state.active++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timeout = new AbortController();
      const waiter: Waiter = {
        settled: false,
        resolve: (gotSlot) => {
          timeout.abort();
          resolve(gotSlot);
        },
      };
      state.waiters.push(waiter);
      if (Number.isFinite(deadline)) {
        sleep(deadline - now(), timeout.signal).then(() => {
          if (waiter.settled) return;
          waiter.settled = true;
          state.waiters.splice(state.waiters.indexOf(waiter), 1);
          waiter.resolve(false);
        });
      }
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  function releaseSlot(state: HostState): void {
    while (state.waiters.length > 0) {
      const waiter = state.waiters.shift()!;
      if (waiter.settled) continue;
      waiter.settled = true;
      waiter.resolve(true);
      return;
    }
    state.active--;
  }

  function pause(host: string, untilMs: number, reason: HostState["pauseReason"] = "rdap_rate_limited") {
    const state = stateOf(host);
    if (untilMs > state.pausedUntil) {
      state.pausedUntil = untilMs;
      state.pauseReason = reason;
    }
  }

  return {
    async acquire(host, acquireOptions = {}) {
      const state = stateOf(host);
      const deadline = acquireOptions.maxWaitMs === undefined ? Infinity : now() + acquireOptions.maxWaitMs;
      for (;;) {
        const pausedFor = state.pausedUntil - now();
        if (pausedFor > 0) {
          if (pausedFor > shortPauseMs || now() + pausedFor > deadline) {
            return { granted: false, reason: state.pauseReason, until: state.pausedUntil };
          }
          await sleep(pausedFor);
          continue;
        }
        if (!(await takeSlot(state, deadline))) {
          return { granted: false, reason: "rdap_host_busy", until: null };
        }
        const startAt = Math.max(now(), state.nextStartAt);
        if (startAt > deadline) {
          releaseSlot(state);
          return { granted: false, reason: "rdap_host_busy", until: startAt };
        }
        state.nextStartAt = startAt + intervalMs;
        if (startAt > now()) await sleep(startAt - now());
        if (state.pausedUntil > now()) {
          // Another request met a 429 or the back-off while this one waited: start over.
          releaseSlot(state);
          continue;
        }
        let released = false;
        return {
          granted: true,
          release: () => {
            if (released) return;
            released = true;
            releaseSlot(state);
          },
        };
      }
    },
    pause,
    reportSuccess(host) {
      stateOf(host).consecutiveFailures = 0;
    },
    reportFailure(host, options) {
      if (!failureCounts(options)) return;
      const state = stateOf(host);
      state.consecutiveFailures++;
      const beyond = state.consecutiveFailures - failureThreshold;
      if (beyond < 0) return;
      const delay = Math.min(backoffBaseMs * 2 ** Math.min(beyond, 30), backoffCapMs);
      pause(host, now() + delay, "rdap_host_backoff");
    },
    pausedUntil(host) {
      const until = hosts.get(host)?.pausedUntil ?? 0;
      return until > now() ? until : null;
    },
  };
}

/** The limiter class of RDAP hosts in `public.rate_limit_classes`. */
export const RDAP_HOST_LIMIT_CLASS = "rdap_host";

/** The project-wide host limiter over a rate-limit store (the database's, by default). */
export function createDatabaseHostLimiter(
  options: {
    store?: ReturnType<typeof sqlRateLimitStore>;
    now?: () => number;
    sleep?: Sleep;
    /** The limiter class (default `rdap_host`; WHOIS hosts use `whois_host`). */
    limitClass?: string;
  } = {},
): HostLimiter {
  const shared = createSharedLimiter({
    store: options.store ?? sqlRateLimitStore(),
    limitClass: options.limitClass ?? RDAP_HOST_LIMIT_CLASS,
    now: options.now,
    sleep: options.sleep,
  });
  return {
    async acquire(host, acquireOptions = {}) {
      const turn = await shared.acquire(host, acquireOptions);
      if (turn.granted) return turn;
      if (turn.refusal === "busy") return { granted: false, reason: "rdap_host_busy", until: turn.until };
      return {
        granted: false,
        reason: turn.pauseReason === "backoff" ? "rdap_host_backoff" : "rdap_rate_limited",
        until: turn.until,
      };
    },
    pause: (host, untilMs, reason = "rdap_rate_limited") =>
      shared.pause(host, untilMs, reason === "rdap_host_backoff" ? "backoff" : "rate_limited"),
    reportSuccess: (host) => shared.report(host, true),
    reportFailure: (host, options) => failureCounts(options) ? shared.report(host, false) : undefined,
    pausedUntil: (host) => shared.pausedUntil(host),
  };
}

let shared: HostLimiter | undefined;

/** The one host limiter of this process: the project-wide one in the database. */
export function sharedHostLimiter(): HostLimiter {
  shared ??= createDatabaseHostLimiter();
  return shared;
}

/** The limiter class of WHOIS hosts (`host:port` of the table's row), with conservative rates. */
export const WHOIS_HOST_LIMIT_CLASS = "whois_host";

let sharedWhois: HostLimiter | undefined;

/** The project-wide limiter of WHOIS hosts in the database. */
export function sharedWhoisLimiter(): HostLimiter {
  sharedWhois ??= createDatabaseHostLimiter({ limitClass: WHOIS_HOST_LIMIT_CLASS });
  return sharedWhois;
}
