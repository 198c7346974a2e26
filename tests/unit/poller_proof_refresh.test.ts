import { assertEquals } from "../support/assert.ts";
import {
  type DueProof,
  refreshDueProofs,
  SPARE_TURN_WAIT_MS,
} from "../../supabase/functions/_shared/poller/proof_refresh.ts";
import type { AcquireOptions } from "../../supabase/functions/_shared/rdap/host_limiter.ts";

const due: DueProof[] = [
  { kind: "whois", server: "whois.nic.it:43", suffix: "it", canaryName: "nic.it" },
  { kind: "whois", server: "whois.jprs.jp:43", suffix: "jp", canaryName: "jprs.jp" },
  { kind: "rdap", server: "https://rdap.registry.test/", suffix: "test", canaryName: "nic.test" },
];

Deno.test("every due proof is asked once, in a spare turn: a short wait, never queued behind a busy host", async () => {
  const asked: [string, AcquireOptions][] = [];
  const refreshed = await refreshDueProofs({
    dueProofs: () => Promise.resolve(due),
    refresh: (proof, wait) => {
      asked.push([proof.suffix, wait]);
      return Promise.resolve();
    },
    now: () => 1_000,
  }, 1_000 + 60_000);
  assertEquals(refreshed, 3);
  assertEquals(asked.map(([suffix]) => suffix), ["it", "jp", "test"]);
  for (const [, wait] of asked) assertEquals(wait, { maxWaitMs: SPARE_TURN_WAIT_MS, maxQueued: 1 });
});

Deno.test("no canary waits past the run's end, and a failing refresh or listing never throws", async () => {
  const waits: (number | undefined)[] = [];
  await refreshDueProofs({
    dueProofs: () => Promise.resolve(due),
    refresh: (proof, wait) => {
      waits.push(wait.maxWaitMs);
      return proof.kind === "rdap" ? Promise.reject(new Error("database went away")) : Promise.resolve();
    },
    now: () => 1_000,
  }, 3_000);
  assertEquals(waits, [2_000, 2_000, 2_000]);

  const none: string[] = [];
  assertEquals(
    await refreshDueProofs({
      dueProofs: () => Promise.resolve(due),
      refresh: (proof) => {
        none.push(proof.suffix);
        return Promise.resolve();
      },
      now: () => 5_000,
    }, 5_000),
    3,
  );
  assertEquals(none, [], "the run is over: nothing is asked");
  assertEquals(
    await refreshDueProofs({
      dueProofs: () => Promise.reject(new Error("no database")),
      refresh: () => Promise.resolve(),
      now: () => 0,
    }, 1_000),
    0,
  );
});
