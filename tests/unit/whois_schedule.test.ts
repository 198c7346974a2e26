/**
 * When a routine WHOIS name is asked again (poller/whois_schedule.ts): an answer that could not be read sends
 * the name 2 to 8 hours later, spread by name and check time (issue 40), other undecided answers 30 minutes,
 * decided ones 6 hours; names in pending delete keep their drop cadence.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  UNREADABLE_RETRY_MAX_MS,
  UNREADABLE_RETRY_MIN_MS,
  unreadableRetryDelayMs,
  whoisRoutineNotBefore,
} from "../../supabase/functions/_shared/poller/whois_schedule.ts";

const checkedAt = "2026-12-06T08:00:00.000Z";
const at = Date.parse(checkedAt);

Deno.test("an unreadable answer: 2 to 8 hours later, spread over the names", () => {
  const delays = Array.from({ length: 200 }, (_, i) => unreadableRetryDelayMs(`reserved${i}.be`, checkedAt));
  for (const delay of delays) assert(delay >= UNREADABLE_RETRY_MIN_MS && delay <= UNREADABLE_RETRY_MAX_MS);
  const minutes = new Set(delays.map((delay) => Math.floor(delay / 60_000)));
  assert(minutes.size > 150, `spread: ${minutes.size} distinct minutes of 200`);
  assert(
    unreadableRetryDelayMs("reserved0.be", checkedAt) !==
      unreadableRetryDelayMs("reserved0.be", "2026-12-06T14:00:00.000Z"),
    "the same name comes back at another offset next time",
  );
  const result = { domain_name: "reserved0.be", status: "unknown" as const, checked_at: checkedAt };
  assertEquals(
    whoisRoutineNotBefore("unknown", { ...result, reason: "whois_unrecognized" })?.getTime(),
    at + unreadableRetryDelayMs("reserved0.be", checkedAt),
  );
  assertEquals(
    whoisRoutineNotBefore("unknown", { ...result, reason: "whois_timeout" })?.getTime(),
    at + 30 * 60_000,
  );
  assertEquals(
    whoisRoutineNotBefore("registered", { ...result, status: "registered", reason: "whois_found" })
      ?.getTime(),
    at + 6 * 3_600_000,
  );
  assertEquals(whoisRoutineNotBefore("pending_delete", { ...result, reason: "whois_unrecognized" }), null);
});
