import {
  createSharedLimiter,
  type LimiterTurn,
} from "../../supabase/functions/_shared/rate_limit/shared_limiter.ts";
import type {
  RateLimitAnswer,
  RateLimitStore,
  ReserveAnswer,
} from "../../supabase/functions/_shared/rate_limit/store.ts";
import {
  createDatabaseHostLimiter,
  createHostLimiter,
} from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { assert, assertEquals } from "../support/assert.ts";

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

/** A store that reserves starts (as the SQL one): scripted reserve and settle answers on the fake clock. */
function reservingStore(
  now: () => number,
  reserves: ReserveAnswer[],
  settles: { startIn: number | null; retryMs: number | null }[],
) {
  const calls: string[] = [];
  const { store: base } = scriptedStore([]);
  const store: RateLimitStore = {
    ...base,
    reserve: (_c, key, _wait, _urgent, liveAccount) => {
      calls.push(`reserve ${key}${liveAccount ? ` live ${liveAccount}` : ""}`);
      const next = reserves.shift();
      if (!next) return Promise.reject(new Error("database went away"));
      return Promise.resolve(
        next.granted ? { ...next, startsAt: now() + next.startsAt, dbNow: now() } : next,
      );
    },
    settle: (token) => {
      calls.push(`settle ${token}`);
      const next = settles.shift() ?? { startIn: 0, retryMs: null };
      return Promise.resolve({
        startAt: next.startIn === null ? null : now() + next.startIn,
        retryMs: next.retryMs,
        dbNow: now(),
      });
    },
    releaseAt: (token, finishedAt, sent) => {
      calls.push(`release ${token} at +${finishedAt - 1_000_000}${sent === false ? " unsent" : ""}`);
      return Promise.resolve();
    },
  };
  return { store, calls };
}

/** A reservation starting `startsIn` ms after the (fake) database's now. */
const reserved = (token: string, startsIn: number, lateStartMs: number | null = null): ReserveAnswer => ({
  granted: true,
  token,
  startsAt: startsIn,
  dbNow: 0,
  lateStartMs,
  consecutiveFailures: 0,
});

Deno.test("a reserved start is settled shortly before it, asked again while the previous one is in flight", async () => {
  const clock = fakeClock();
  const { store, calls } = reservingStore(clock.now, [reserved("t1", 1_000)], [
    { startIn: null, retryMs: 50 },
    { startIn: 300, retryMs: null },
  ]);
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock, settleLeadMs: 400 });
  const turn = await limiter.acquire("h");
  assertEquals(turn.granted, true);
  // Settled 400 ms before the reserved start (at +600), asked again 50 ms later, then sent 300 ms after that.
  assertEquals(clock.now() - 1_000_000, 950);
  await clock.sleep(80);
  if (turn.granted) turn.release();
  assertEquals(calls, ["reserve h", "settle t1", "settle t1", "release t1 at +1030"]);
});

Deno.test("a reserved start voided before it settles is reserved again; one beyond the budget is busy", async () => {
  const clock = fakeClock();
  const { store, calls } = reservingStore(clock.now, [reserved("t1", 100), reserved("t2", 100)], [
    { startIn: null, retryMs: null },
    { startIn: 0, retryMs: null },
  ]);
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock });
  assertEquals((await limiter.acquire("h")).granted, true);
  assertEquals(calls, ["reserve h", "settle t1", "release t1 at +0 unsent", "reserve h", "settle t2"]);

  const late = reservingStore(clock.now, [reserved("t3", 5_000)], []);
  const refused = await createSharedLimiter({ store: late.store, limitClass: "x", ...clock }).acquire("h", {
    maxWaitMs: 1_000,
  });
  assertEquals(refused, { granted: false, refusal: "busy", pauseReason: null, until: null });
  assertEquals(late.calls.map((call) => call.split(" at ")[0]), ["reserve h", "release t3"]);
  assert(late.calls[1].endsWith(" unsent"), "a start given up is released unsent: its turn is not spent");
});

Deno.test("a start the caller cannot use is given back unsent, and a live check's account goes with it", async () => {
  const clock = fakeClock();
  // Settled for a start 200 ms ago while the caller may send at most 100 ms late: given up, asked again.
  const { store, calls } = reservingStore(clock.now, [
    reserved("t1", 0, 100),
    reserved("t2", 0, 100),
  ], [{ startIn: -200, retryMs: null }, { startIn: 0, retryMs: null }]);
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock });
  const turn = await limiter.acquire("h", { liveAccount: "acct-1" });
  assertEquals(turn.granted, true);
  if (turn.granted) turn.release();
  assertEquals(calls, [
    "reserve h live acct-1",
    "settle t1",
    "release t1 at +0 unsent",
    "reserve h live acct-1",
    "settle t2",
    "release t2 at +0",
  ]);
});

Deno.test("a live check's failures never back a host off; its limit texts and successes still count", async () => {
  const clock = fakeClock();
  const reports: string[] = [];
  const { store: base } = scriptedStore([]);
  const store: RateLimitStore = {
    ...base,
    report: (_c, key, succeeded) => {
      reports.push(`${key} ${succeeded ? "success" : "failure"}`);
      return Promise.resolve(null);
    },
  };
  const limiter = createDatabaseHostLimiter({ store: store as never, ...clock });
  await limiter.reportFailure("h", { liveAccount: "acct-1", maxWaitMs: 1_000 });
  await limiter.reportFailure("h", { maxWaitMs: 1_000 });
  await limiter.reportFailure("h");
  assertEquals(reports, ["h failure", "h failure"]);
  const memory = createHostLimiter({ ratePerSecond: 0, concurrency: 1, failureThreshold: 1, ...clock });
  memory.reportFailure("m", { liveAccount: "acct-1" });
  assertEquals(memory.pausedUntil("m"), null, "in memory too");
  memory.reportFailure("m");
  assert(memory.pausedUntil("m") !== null);
});

Deno.test("callers of one key take turns in this process; urgent ones in a line of their own, marked urgent", async () => {
  const clock = fakeClock();
  const calls: string[] = [];
  let routineMayGo: () => void = () => {};
  const routineHeld = new Promise<void>((resolve) => routineMayGo = resolve);
  const { store: base } = reservingStore(clock.now, [], []);
  const store: RateLimitStore = {
    ...base,
    // The routine caller's database answer is held back until the urgent caller has its start: an urgent
    // caller waiting behind the routine line would never get one.
    reserve: async (_c, key, _w, urgent) => {
      calls.push(`reserve ${key}${urgent ? " urgent" : ""}`);
      if (!urgent) await routineHeld;
      return { ...reserved(`t${calls.length}`, 0), startsAt: clock.now(), dbNow: clock.now() };
    },
  };
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock });
  const order: string[] = [];
  const ask = (who: string, urgent: boolean) =>
    limiter.acquire("h", { urgent }).then((turn) => {
      order.push(who);
      if (who === "urgent") routineMayGo();
      if (turn.granted) turn.release();
    });
  await Promise.all([ask("first", false), ask("normal", false), ask("urgent", true)]);
  assertEquals(order, ["urgent", "first", "normal"]);
  assertEquals(calls, ["reserve h", "reserve h urgent", "reserve h"]);
});

Deno.test("a routine caller is refused at once when maxQueued callers wait for a congested key", async () => {
  const clock = fakeClock();
  let answer: () => void = () => {};
  let answered = Promise.resolve();
  let startsIn = 0;
  const { store: base } = reservingStore(clock.now, [], []);
  const store: RateLimitStore = {
    ...base,
    reserve: async () => {
      await answered;
      return { ...reserved("t", 0), startsAt: clock.now() + startsIn, dbNow: clock.now() };
    },
  };
  const limiter = createSharedLimiter({ store, limitClass: "x", ...clock });
  const inLine = (key: string, urgent = false) => limiter.acquire(key, { maxQueued: 2, urgent });
  const releaseAll = async (turns: Promise<LimiterTurn>[]) => {
    for (const turn of await Promise.all(turns)) {
      assertEquals(turn.granted, true);
      if (turn.granted) turn.release();
    }
  };

  // A key whose callers get their starts at once is not congested: its line takes every caller.
  answered = new Promise<void>((resolve) => answer = resolve);
  const fast = [inLine("h"), inLine("h"), inLine("h")];
  answer();
  await releaseAll(fast);

  // A caller that waited 5 s for its start: congested. Two callers wait; a third routine one is refused at once.
  startsIn = 5_000;
  await releaseAll([inLine("h")]);
  startsIn = 0;
  answered = new Promise<void>((resolve) => answer = resolve);
  const waiting = [inLine("h"), inLine("h")];
  assertEquals(await inLine("h"), { granted: false, refusal: "busy", pauseReason: null, until: null });
  const others = [inLine("other"), inLine("h", true)];
  answer();
  await releaseAll([...waiting, ...others]);
});
