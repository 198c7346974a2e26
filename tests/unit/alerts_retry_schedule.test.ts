import { assertEquals } from "../support/assert.ts";
import {
  MAX_DELIVERY_AGE_MS,
  nextAttemptAfterFailure,
  nextAttemptAfterRateLimit,
  RETRY_DELAYS_MS,
  retryDelayMs,
} from "../../supabase/functions/_shared/alerts/retry_schedule.ts";

const MINUTE = 60_000;

Deno.test("delays grow from a minute to twelve hours, then the delivery fails", () => {
  assertEquals(RETRY_DELAYS_MS.map((ms) => ms / MINUTE), [1, 5, 15, 60, 180, 360, 720]);
  assertEquals(retryDelayMs(1), MINUTE);
  assertEquals(retryDelayMs(7), 720 * MINUTE);
  assertEquals(retryDelayMs(8), null);
  const total = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
  assertEquals(total / MINUTE, 1341, "about a day (22 h 21 min) between the first and the last attempt");
});

Deno.test("the next attempt after a failure follows the schedule and the age limit", () => {
  const created = new Date("2026-11-22T00:00:00Z");
  assertEquals(
    nextAttemptAfterFailure(1, created, new Date("2026-11-22T00:00:10Z"))?.toISOString(),
    "2026-11-22T00:01:10.000Z",
  );
  assertEquals(nextAttemptAfterFailure(8, created, created), null);
  const old = new Date(created.getTime() + MAX_DELIVERY_AGE_MS - MINUTE);
  assertEquals(nextAttemptAfterFailure(2, created, old), null, "never retried past the age limit");
});

Deno.test("a rate limit waits retry_after, within the age limit", () => {
  const created = new Date("2026-11-22T00:00:00Z");
  assertEquals(
    nextAttemptAfterRateLimit(30_000, created, created)?.toISOString(),
    "2026-11-22T00:00:30.000Z",
  );
  assertEquals(nextAttemptAfterRateLimit(MAX_DELIVERY_AGE_MS + 1, created, created), null);
});
