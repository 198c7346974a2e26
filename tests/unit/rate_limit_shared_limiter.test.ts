import { createSharedLimiter } from "../../supabase/functions/_shared/rate_limit/shared_limiter.ts";
import type { RateLimitAnswer, RateLimitStore } from "../../supabase/functions/_shared/rate_limit/store.ts";
import { createDatabaseHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { assertEquals } from "../support/assert.ts";

function fakeClock() {
  let time = 1_000_000;
  return {
    now: () => time,
    sleep: (ms: number) => {
      time += Math.max(0, ms);
      return Promise.resolve();
    },
  };
}

/** A store answering from scripted queues; records every call. */
function scriptedStore(acquires: RateLimitAnswer[], confirms: number[] = []) {
  const calls: string[] = [];
  const store: RateLimitStore = {
    acquire: (_c, key) => {
      calls.push(`acquire ${key}`);
      const next = acquires.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error("database went away"));
    },
    confirm: (token) => {
      calls.push(`confirm ${token}`);
      return Promise.resolve(confirms.shift() ?? 0);
    },
    release: (token) => {
      calls.push(`release ${token}`);
      return Promise.resolve();
    },
    pause: (_c, key, until) => {
      calls.push(`pause ${key}`);
      return Promise.resolve(until);
    },
    report: (_c, key, succeeded) => {
      calls.push(`report ${key} ${succeeded}`);
      return Promise.resolve(null);
    },
  };
  return { store, calls };
}

const granted = (token: string, waitMs = 0, consecutiveFailures = 0): RateLimitAnswer => ({
  granted: true,
  token,
  waitMs,
  consecutiveFailures,
});
const busy = (retryMs: number | null): RateLimitAnswer => ({
  granted: false,
  refusal: "busy",
  pauseReason: null,
  pausedUntil: null,
  retryMs,
  consecutiveFailures: 0,
});

Deno.test("a waited grant is confirmed before it starts; a voided one is asked again", async () => {
  const clock = fakeClock();
  const { store, calls } = scriptedStore([granted("t1", 500), granted("t2", 0)], [120, -1]);
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock });
  const start = clock.now();
  const turn = await limiter.acquire("h");
  assertEquals(turn.granted, true);
  assertEquals(calls, ["acquire h", "confirm t1", "confirm t1", "acquire h"]);
  assertEquals(clock.now() - start, 620);
  if (turn.granted) turn.release();
  assertEquals(calls.at(-1), "release t2");
});

Deno.test("busy is retried within the budget, then refused as busy", async () => {
  const clock = fakeClock();
  const { store, calls } = scriptedStore([busy(100), busy(100), busy(null)]);
  const turn = await createSharedLimiter({ store, limitClass: "x", ...clock }).acquire("h", {
    maxWaitMs: 1_000,
  });
  assertEquals(turn, { granted: false, refusal: "busy", pauseReason: null, until: null });
  assertEquals(calls.length, 3);
});

Deno.test("the host limiter maps refusals to the RDAP reasons and remembers pauses", async () => {
  const clock = fakeClock();
  const until = clock.now() + 30_000;
  const { store } = scriptedStore([
    {
      granted: false,
      refusal: "paused",
      pauseReason: "backoff",
      pausedUntil: until,
      retryMs: null,
      consecutiveFailures: 3,
    },
    busy(null),
  ]);
  const limiter = createDatabaseHostLimiter({ store, ...clock });
  assertEquals(await limiter.acquire("r.example:443"), {
    granted: false,
    reason: "rdap_host_backoff",
    until,
  });
  assertEquals(limiter.pausedUntil("r.example:443"), until);
  assertEquals(await limiter.acquire("r.example:443", { maxWaitMs: 10 }), {
    granted: false,
    reason: "rdap_host_busy",
    until: null,
  });
  // An unreachable database refuses the turn: nothing is sent unlimited.
  assertEquals(await limiter.acquire("r.example:443"), {
    granted: false,
    reason: "rdap_host_busy",
    until: null,
  });
});

Deno.test("a success is reported only where a failure may be counted", async () => {
  const clock = fakeClock();
  const { store, calls } = scriptedStore([granted("a", 0, 0), granted("b", 0, 2)]);
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock, onError: () => {} });
  await limiter.acquire("clean");
  await limiter.report("clean", true);
  await limiter.acquire("failing");
  await limiter.report("failing", true);
  await limiter.report("failing", true);
  assertEquals(calls.filter((call) => call.startsWith("report")), ["report failing true"]);
});
