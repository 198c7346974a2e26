import { assert, assertEquals } from "../support/assert.ts";
import { createHostLimiter, type HostTurn } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { fakeClock } from "../fakes/clock.ts";

/** Tracks a promise without awaiting it: the returned function gives its value once settled. */
function track<T>(promise: Promise<T>): () => T | undefined {
  let settled: T | undefined;
  promise.then((value) => (settled = value));
  return () => settled;
}

function granted(turn: HostTurn): () => void {
  assert(turn.granted, `expected a turn, got ${JSON.stringify(turn)}`);
  return turn.release;
}

Deno.test("request starts to one host are spaced by 1 / rate", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({ ratePerSecond: 1, concurrency: 5, now: clock.now, sleep: clock.sleep });
  const started: number[] = [];
  const turns = [1, 2, 3].map(() =>
    limiter.acquire("rdap.test").then((turn) => {
      started.push(clock.now());
      granted(turn)();
    })
  );
  await clock.advance(5_000);
  await Promise.all(turns);
  const t0 = started[0];
  assertEquals(started.map((time) => time - t0), [0, 1000, 2000]);
});

Deno.test("hosts do not wait for each other", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({ ratePerSecond: 1, concurrency: 1, now: clock.now, sleep: clock.sleep });
  granted(await limiter.acquire("a.test"));
  const other = await limiter.acquire("b.test");
  assert(other.granted);
});

Deno.test("no more than `concurrency` requests in flight per host", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({
    ratePerSecond: 1000,
    concurrency: 2,
    now: clock.now,
    sleep: clock.sleep,
  });
  const first = granted(await limiter.acquire("rdap.test"));
  await clock.advance(10);
  granted(await limiter.acquire("rdap.test"));
  const third = track(limiter.acquire("rdap.test"));
  await clock.advance(1_000);
  assertEquals(third(), undefined, "the third waits while two are in flight");
  first();
  await clock.advance(10);
  assert(third()?.granted, "the third starts once one finished");
});

Deno.test("a bounded wait gives up with rdap_host_busy", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({ ratePerSecond: 1, concurrency: 1, now: clock.now, sleep: clock.sleep });
  granted(await limiter.acquire("rdap.test"));
  const waiting = limiter.acquire("rdap.test", { maxWaitMs: 2_000 });
  await clock.advance(2_001);
  assertEquals(await waiting, { granted: false, reason: "rdap_host_busy", until: null });
  assertEquals(clock.pendingTimers(), 0);
});

Deno.test("a bounded wait also gives up when the rate slot is too far away", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({
    ratePerSecond: 0.1,
    concurrency: 5,
    now: clock.now,
    sleep: clock.sleep,
  });
  granted(await limiter.acquire("rdap.test"))();
  // The next slot is 10 s away: refused, saying when it comes.
  assertEquals(await limiter.acquire("rdap.test", { maxWaitMs: 5_000 }), {
    granted: false,
    reason: "rdap_host_busy",
    until: clock.now() + 10_000,
  });
});

Deno.test("a short pause is waited out, a long one refuses with its reason", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({
    ratePerSecond: 100,
    concurrency: 1,
    now: clock.now,
    sleep: clock.sleep,
  });
  limiter.pause("rdap.test", clock.now() + 3_000);
  const turn = track(limiter.acquire("rdap.test"));
  await clock.advance(2_900);
  assertEquals(turn(), undefined);
  await clock.advance(200);
  granted(turn()!)();

  const until = clock.now() + 60_000;
  limiter.pause("rdap.test", until);
  assertEquals(await limiter.acquire("rdap.test"), { granted: false, reason: "rdap_rate_limited", until });
  assertEquals(limiter.pausedUntil("rdap.test"), until);
  await clock.advance(60_000);
  assertEquals(limiter.pausedUntil("rdap.test"), null);
  granted(await limiter.acquire("rdap.test"));
});

Deno.test("a host that keeps failing is backed off exponentially, capped, and forgiven on success", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({
    ratePerSecond: 100,
    concurrency: 1,
    now: clock.now,
    sleep: clock.sleep,
    failureThreshold: 3,
    backoffBaseMs: 10_000,
    backoffCapMs: 60_000,
  });
  limiter.reportFailure("rdap.test");
  limiter.reportFailure("rdap.test");
  assertEquals(limiter.pausedUntil("rdap.test"), null, "two failures: no back-off yet");
  const pauses: number[] = [];
  for (let failure = 3; failure <= 7; failure++) {
    limiter.reportFailure("rdap.test");
    pauses.push(limiter.pausedUntil("rdap.test")! - clock.now());
    await clock.advance(pauses.at(-1)!);
  }
  assertEquals(pauses, [10_000, 20_000, 40_000, 60_000, 60_000]);

  limiter.reportFailure("rdap.test");
  const refused = await limiter.acquire("rdap.test");
  assertEquals(refused.granted ? null : refused.reason, "rdap_host_backoff");
  await clock.advance(60_000);
  limiter.reportSuccess("rdap.test");
  limiter.reportFailure("rdap.test");
  assertEquals(limiter.pausedUntil("rdap.test"), null, "after a success the count starts again");
});

Deno.test("a pause set while waiting for the rate slot is honoured", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({ ratePerSecond: 1, concurrency: 5, now: clock.now, sleep: clock.sleep });
  granted(await limiter.acquire("rdap.test"))();
  const turn = track(limiter.acquire("rdap.test"));
  await clock.advance(500);
  limiter.pause("rdap.test", clock.now() + 30_000);
  await clock.advance(600);
  assertEquals(turn()?.granted, false);
});

Deno.test("release is idempotent", async () => {
  const clock = fakeClock();
  const limiter = createHostLimiter({
    ratePerSecond: 1000,
    concurrency: 1,
    now: clock.now,
    sleep: clock.sleep,
  });
  const release = granted(await limiter.acquire("rdap.test"));
  release();
  release();
  await clock.advance(10);
  granted(await limiter.acquire("rdap.test"));
  const second = track(limiter.acquire("rdap.test"));
  await clock.advance(100);
  assertEquals(second(), undefined, "a double release did not free a second slot");
});
