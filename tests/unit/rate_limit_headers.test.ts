import { assertEquals } from "../support/assert.ts";
import { rateLimitHeaders } from "../../supabase/functions/_shared/http/rate_limit_headers.ts";

const now = new Date("2026-11-22T23:59:00Z");
const resetAt = new Date("2026-11-23T00:00:00Z");

Deno.test("an allowed request reports limit, remaining and seconds to reset", () => {
  assertEquals(rateLimitHeaders({ allowed: true, limit: 1000, remaining: 12, resetAt }, now), {
    "RateLimit-Limit": "1000",
    "RateLimit-Remaining": "12",
    "RateLimit-Reset": "60",
  });
});

Deno.test("a refused request adds Retry-After", () => {
  assertEquals(
    rateLimitHeaders({ allowed: false, limit: 1000, remaining: 0, resetAt }, now)["Retry-After"],
    "60",
  );
});

Deno.test("unlimited plans carry no rate-limit headers", () => {
  assertEquals(rateLimitHeaders({ allowed: true, limit: null, remaining: null, resetAt }, now), {});
});
