import { assert, assertEquals } from "../support/assert.ts";
import type { RdapSummary } from "../../supabase/functions/_shared/availability/check_domain.ts";
import { bearerToken, secretsEqual } from "../../supabase/functions/_shared/http/bearer.ts";
import {
  DROP_CHECK_AFTER_MS,
  failedPendingDeleteRetryMs,
  MIN_PENDING_DELETE_DELAY_MS,
  pendingDeleteCheckDelayMs,
  predictedDropAt,
} from "../../supabase/functions/_shared/poller/drop_schedule.ts";
import { checkClaimedDomain } from "../../supabase/functions/_shared/poller/check_claimed_domain.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function rdap(status: string[], lastChanged: string | null): RdapSummary {
  return {
    server: "https://rdap.example/",
    http_status: 200,
    status,
    registrar: null,
    registration_date: null,
    expiration_date: null,
    last_changed_date: lastChanged,
  };
}

Deno.test("the drop is predicted from the status and when it began", () => {
  assertEquals(
    predictedDropAt(rdap(["redemption period", "pending delete"], "2026-10-01T00:00:00Z"))?.toISOString(),
    "2026-11-05T00:00:00.000Z",
    "redemption: 30 + 5 days",
  );
  assertEquals(
    predictedDropAt(rdap(["pending delete"], "2026-10-01T00:00:00Z"))?.toISOString(),
    "2026-10-06T00:00:00.000Z",
    "pending delete: 5 days",
  );
  assertEquals(predictedDropAt(rdap(["pending delete"], null)), null);
  assertEquals(predictedDropAt(rdap(["active"], "2026-10-01T00:00:00Z")), null);
  assertEquals(predictedDropAt(null), null);
});

Deno.test("pending delete is checked often, and every minute around the predicted drop", () => {
  const now = new Date("2026-11-01T00:00:00Z");
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
  assertEquals(pendingDeleteCheckDelayMs(null, now), 5 * MINUTE);
  assertEquals(pendingDeleteCheckDelayMs(at(20 * DAY), now), 30 * MINUTE);
  assertEquals(pendingDeleteCheckDelayMs(at(1 * DAY), now), 5 * MINUTE);
  assertEquals(pendingDeleteCheckDelayMs(at(90 * MINUTE), now), 1 * MINUTE);
  assertEquals(pendingDeleteCheckDelayMs(at(-3 * HOUR), now), 1 * MINUTE);
  // The check before the predicted drop is aimed just after it (never under the database's 5 s floor).
  assertEquals(pendingDeleteCheckDelayMs(at(100_000), now), 100_000 + DROP_CHECK_AFTER_MS);
  assertEquals(pendingDeleteCheckDelayMs(at(59_000), now), 59_000 + DROP_CHECK_AFTER_MS);
  assertEquals(
    pendingDeleteCheckDelayMs(at(30_000), now),
    30_000 + DROP_CHECK_AFTER_MS,
    "half a minute ahead",
  );
  assertEquals(
    pendingDeleteCheckDelayMs(at(2_000), now),
    MIN_PENDING_DELETE_DELAY_MS,
    "just ahead: the floor",
  );
  assertEquals(
    pendingDeleteCheckDelayMs(at(-DROP_CHECK_AFTER_MS), now),
    1 * MINUTE,
    "aimed check done: every minute",
  );
  assertEquals(
    pendingDeleteCheckDelayMs(at(2 * MINUTE + 8_000), now),
    2 * MINUTE + 8_000 + DROP_CHECK_AFTER_MS,
  );
  assertEquals(pendingDeleteCheckDelayMs(at(2 * MINUTE + 10_000), now), 1 * MINUTE);
  assertEquals(pendingDeleteCheckDelayMs(at(-2 * DAY), now), 5 * MINUTE, "prediction wrong: back to often");
});

Deno.test("bearer secret: parsed from the header and compared exactly", async () => {
  assertEquals(bearerToken("Bearer abc.def"), "abc.def");
  assertEquals(bearerToken("bearer  abc "), "abc");
  assertEquals(bearerToken("Basic abc"), null);
  assertEquals(bearerToken(undefined), null);
  assert(await secretsEqual("local-poller-secret", "local-poller-secret"));
  assert(!(await secretsEqual("local-poller-secreT", "local-poller-secret")));
  assert(!(await secretsEqual("", "local-poller-secret")));
  assert(!(await secretsEqual("local-poller-secret-and-more", "local-poller-secret")));
});

Deno.test("an undecided check of a name in pending delete keeps its cadence (1 to 5 minutes)", () => {
  const now = new Date("2026-11-01T00:00:00Z");
  const before = (ms: number) => new Date(now.getTime() - ms);
  assertEquals(failedPendingDeleteRetryMs(before(62_000), now), 62_000, "every minute around the drop");
  assertEquals(failedPendingDeleteRetryMs(before(20_000), now), 1 * MINUTE, "never under the minute");
  assertEquals(failedPendingDeleteRetryMs(before(30 * MINUTE), now), 5 * MINUTE, "never over 5 minutes");
  assertEquals(failedPendingDeleteRetryMs(null, now), 5 * MINUTE, "never checked");
});

Deno.test("a pending-delete name whose registry timed out is tried again at its own cadence", async () => {
  const checkedAt = new Date("2026-11-01T00:00:00Z");
  const outcome = await checkClaimedDomain(
    {
      lookupDns: () => Promise.resolve({ outcome: "not_delegated", rcode: "NXDOMAIN" }),
      checkDomain: (name) =>
        Promise.resolve({
          domain_name: name,
          unicode_name: null,
          available: null,
          status: "unknown",
          checked_at: checkedAt.toISOString(),
          rdap: { ...rdap([], null), http_status: 503 },
          whois: null,
          dns: { delegated: false, nameservers: [], rcode: "NXDOMAIN" },
          reason: "rdap_unexpected_status",
        }),
      hostPausedUntil: () => null,
      now: () => checkedAt.getTime(),
    },
    {
      name: "dropping.test",
      status: "pending_delete",
      expiresAt: null,
      registrar: null,
      lastCheckedAt: new Date(checkedAt.getTime() - 61_000),
      registryAskedAt: null,
      reminderDays: [],
    },
    { checksEndAt: checkedAt.getTime() + 20_000 },
  );
  assertEquals(outcome.kind, "checked");
  assertEquals(
    outcome.kind === "checked" ? outcome.pendingDeleteNextCheckAt?.toISOString() : null,
    new Date(checkedAt.getTime() + 61_000).toISOString(),
  );
});
