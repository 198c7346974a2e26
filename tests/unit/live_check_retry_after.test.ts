import { assertEquals } from "../support/assert.ts";
import { retryAfterSeconds } from "../../supabase/functions/_shared/availability/live_check.ts";

Deno.test("retry_after_seconds: until the host's pause ends, rounded up, at least 1 s", () => {
  const now = 1_000_000;
  assertEquals(retryAfterSeconds({ reason: "rdap_host_backoff", until: now + 89_001 }, now), 90);
  assertEquals(retryAfterSeconds({ reason: "whois_rate_limited", until: now + 1_000 }, now), 1);
  assertEquals(retryAfterSeconds({ reason: "rdap_host_backoff", until: now - 5_000 }, now), 1);
});

Deno.test("retry_after_seconds: a busy host without a known end waits one more live-check wait", () => {
  assertEquals(retryAfterSeconds({ reason: "rdap_host_busy", until: null }, 0), 8);
  assertEquals(retryAfterSeconds({ reason: "whois_host_busy", until: null }, 0), 15);
});
