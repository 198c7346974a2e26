/**
 * The pending-delete check schedule, where TypeScript and SQL both hold a piece of it (docs/database.md,
 * "The check schedule"). The poller computes the next check from the RDAP answer's dates
 * (`pendingDeleteCheckDelayMs`, `_shared/poller/drop_schedule.ts`); the database stores it through
 * `schedule_pending_delete_check`, whose clamp (5 s to 1 day) must never change a delay the poller
 * computes, and falls back to `next_check_delay('pending_delete', …)` until (or unless) the poller's follow-up
 * arrives, which must equal the poller's delay when no drop can be predicted. One table of cases runs through
 * both sides. (`next_check_delay` for the other statuses exists only in SQL: 15_rdap_engine.test.sql.)
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { pendingDeleteCheckDelayMs } from "../../supabase/functions/_shared/poller/drop_schedule.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** [case, the predicted drop relative to the check (null: no prediction), the delay until the next check] */
const CASES: [string, number | null, number][] = [
  ["no prediction", null, 5 * MINUTE],
  ["drop in 20 days", 20 * DAY, 30 * MINUTE],
  ["drop in just over 2 days", 2 * DAY + MINUTE, 30 * MINUTE],
  ["drop in exactly 2 days", 2 * DAY, 5 * MINUTE],
  ["drop in 1 day", 1 * DAY, 5 * MINUTE],
  ["drop in exactly 2 hours", 2 * HOUR, 1 * MINUTE],
  ["drop in 90 minutes", 90 * MINUTE, 1 * MINUTE],
  ["drop in 100 s (the aimed check)", 100_000, 101_000],
  ["drop in 30 s (the aimed check)", 30_000, 31_000],
  ["drop in 2 s (the floor)", 2_000, 5_000],
  ["drop now (the floor)", 0, 5_000],
  ["drop 1 s ago (the aimed check was this one)", -1_000, 1 * MINUTE],
  ["drop 3 hours ago", -3 * HOUR, 1 * MINUTE],
  ["drop exactly 6 hours ago", -6 * HOUR, 5 * MINUTE],
  ["drop 2 days ago (the prediction was wrong)", -2 * DAY, 5 * MINUTE],
];

const checkedAt = new Date("2026-11-01T00:00:00Z");

Deno.test("check schedule: the poller's delays", () => {
  for (const [name, dropIn, delay] of CASES) {
    const dropAt = dropIn === null ? null : new Date(checkedAt.getTime() + dropIn);
    assertEquals(pendingDeleteCheckDelayMs(dropAt, checkedAt), delay, name);
  }
});

class Rollback extends Error {}

Deno.test({
  name:
    "check schedule: the database stores each of the poller's delays unchanged, and falls back to its own",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      await sql.begin(async (tx) => {
        const [fallback] = await tx<{ ms: number }[]>`
          select extract(epoch from private.next_check_delay('pending_delete', null, 0)) * 1000 as ms`;
        assertEquals(Number(fallback.ms), pendingDeleteCheckDelayMs(null, checkedAt), "no prediction");

        for (const [name, dropIn] of CASES) {
          const domain = `schedule-${crypto.randomUUID().slice(0, 8)}.test`;
          const dropAt = dropIn === null ? null : new Date(checkedAt.getTime() + dropIn);
          const next = new Date(checkedAt.getTime() + pendingDeleteCheckDelayMs(dropAt, checkedAt));
          await tx`insert into public.domains (name, status, last_checked_at)
                   values (${domain}, 'pending_delete', ${checkedAt})`;
          await tx`select set_config('role', 'service_role', true)`;
          await tx`select private.schedule_pending_delete_check(${domain}, ${checkedAt}, ${next})`;
          await tx`reset role`;
          const [row] = await tx<{ next_check_at: Date }[]>`
            select next_check_at from public.domains where name = ${domain}`;
          assertEquals(new Date(row.next_check_at).toISOString(), next.toISOString(), name);
        }
        throw new Rollback();
      });
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
    } finally {
      await sql.end();
    }
  },
});
