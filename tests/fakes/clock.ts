/** A manual clock for code that takes `now` and `sleep`: time only moves when the test calls `advance`. */

interface Timer {
  at: number;
  resolve: () => void;
}

export interface FakeClock {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Moves time forward by `ms`, waking sleepers in order and letting their continuations run. */
  advance(ms: number): Promise<void>;
  /** Lets pending promise continuations run without moving time. */
  settle(): Promise<void>;
  pendingTimers(): number;
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let time = start;
  let timers: Timer[] = [];

  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

  return {
    now: () => time,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const timer: Timer = { at: time + Math.max(0, ms), resolve };
        timers.push(timer);
        signal?.addEventListener("abort", () => {
          timers = timers.filter((candidate) => candidate !== timer);
          resolve();
        });
      }),
    async advance(ms) {
      const end = time + ms;
      await settle();
      for (;;) {
        const due = timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        time = Math.max(time, due.at);
        timers = timers.filter((timer) => timer !== due);
        due.resolve();
        await settle();
      }
      time = end;
      await settle();
    },
    settle,
    pendingTimers: () => timers.length,
  };
}
