import { assertEquals } from "../support/assert.ts";
import { retryAfterSeconds } from "../../supabase/functions/_shared/availability/retry_after.ts";
import type { Refusal } from "../../supabase/functions/_shared/availability/check_domain.ts";

const now = Date.parse("2026-12-06T10:00:00Z");

Deno.test("retry_after_seconds: the limiter's time when it gave one, else the route's wait, within 1 s – 1 h", () => {
  const cases: [Refusal, number][] = [
    [{ reason: "rdap_host_busy", until: now + 2_300 }, 3],
    [{ reason: "rdap_host_busy", until: now + 10 }, 1],
    [{ reason: "rdap_host_busy", until: null }, 10],
    [{ reason: "rdap_host_busy", until: now - 5_000 }, 10],
    [{ reason: "whois_host_busy", until: null }, 15],
    [{ reason: "rdap_rate_limited", until: now + 90_000 }, 90],
    [{ reason: "rdap_host_backoff", until: now + 9 * 3_600_000 }, 3_600],
    [{ reason: "whois_host_backoff", until: null }, 30],
  ];
  for (const [refusal, expected] of cases) {
    assertEquals(retryAfterSeconds(refusal, now), expected, JSON.stringify(refusal));
  }
});
