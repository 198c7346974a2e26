/**
 * Live checks get their own share, and a refusal is not a check (issue 33), through the real GET /check
 * and the poller, at the shipped politeness of the registry hosts:
 *  - one account's burst of live checks at an RDAP host (every answer a 500) takes at most every other
 *    start, backs nothing off, and a watched pending-delete name's aimed check still goes out on time;
 *  - a name whose registry host is paused (a WHOIS limit text; an RDAP back-off) is not checked: the poller
 *    records nothing, counts no failure, and the name keeps its place (due again when the pause ends).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeWhois } from "../fakes/whois_server.ts";
import { makeDue, postToPoller, watch } from "../support/poller_runs.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { startStack } from "../support/stack.ts";
import { fakesEnv } from "../support/fakes_env.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** Leaves nothing of this file due for later files on the same database. */
async function unwatch(sql: postgres.Sql, names: string[]): Promise<void> {
  await sql`update public.watchlist_entries set deleted_at = now()
            where domain_name = any(${names}::text[]) and deleted_at is null`.catch(() => {});
}

Deno.test(
  "one account's burst of live checks leaves a pending-delete name's aimed check on time",
  options,
  async () => {
    const rdap = await startFakeRdap({ tlds: ["org"] });
    rdap.setDomain("example.org", { status: 200 });
    const dns = await startFakeDns();
    const stack = await startStack({
      ...fakesEnv({ rdap, dns }),
      RDAP_TIMEOUT_MS: "2000",
      POLLER_TIME_BUDGET_MS: "8000",
    });
    const { sql } = stack;
    const host = new URL(rdap.url).host;
    const suffix = crypto.randomUUID().slice(0, 8);
    const aimed = `aimed-${suffix}.org`;
    const watcher = await stack.account("pro");
    const checker = await stack.account("pro");
    try {
      // The shipped politeness of rdap_host (1 start/s, 2 in flight): no per-host override.
      await sql`delete from public.rate_limit_keys where class = 'rdap_host' and key = ${host}`;
      await watch(sql, watcher, [aimed]);
      rdap.setDomain(aimed, {
        status: 200,
        body: { objectClassName: "domain", ldhName: aimed, status: ["pending delete"] },
      });
      await sql.begin(async (tx) => {
        await tx`select set_config('role', 'service_role', true)`;
        await tx`select private.record_domain_check(${aimed}, 'pending_delete', now() - interval '5 minutes', null,
                                                  null, true, 'poller')`;
      });

      // One account's burst: 24 live checks of names whose registry answers 500, in three waves.
      const burst = Array.from({ length: 24 }, (_, i) => `burst${i}-${suffix}.org`);
      for (const name of burst) rdap.setDomain(name, { status: 500 });
      const live = async (name: string) => {
        const response = await fetch(`${stack.apiBase}/check/${name}`, {
          headers: { "x-api-key": checker.api_key! },
        });
        assertEquals(response.status, 200);
        return (await response.json()) as { status: string; reason: string; retry_after_seconds?: number };
      };
      const bursting = (async () => {
        const answers = [];
        for (let wave = 0; wave < 3; wave++) {
          answers.push(...await Promise.all(burst.slice(wave * 8, wave * 8 + 8).map(live)));
        }
        return answers;
      })();

      // The aimed check comes due in the middle of the burst; the poller runs as pg_cron would start it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await makeDue(sql, [aimed]);
      const pollerAt = Date.now();
      const run = await postToPoller(stack, "/rdap-poller");
      assertEquals(run.errors, 0, JSON.stringify(run));
      const answers = await bursting;

      const aimedRequests = rdap.requests.filter((request) => request.path.endsWith(`/${aimed}`));
      assertEquals(aimedRequests.length, 1, "the aimed check asked the registry");
      const lateness = aimedRequests[0].at - pollerAt;
      const liveStarts = rdap.requests.filter((request) =>
        burst.some((name) => request.path.endsWith(`/${name}`))
      )
        .map((request) => request.at).sort((a, b) => a - b);
      const liveGaps = liveStarts.slice(1).map((at, i) => at - liveStarts[i]);
      console.log(
        `aimed check sent ${lateness} ms after the poller started; live burst: ${liveStarts.length} of ${burst.length} ` +
          `sent (gaps ${JSON.stringify(liveGaps)} ms), ${
            answers.filter((a) => a.reason === "rdap_host_busy").length
          } ` +
          `answered rdap_host_busy`,
      );
      assert(lateness < 2_500, `the aimed check goes out on time (${lateness} ms after the run started)`);
      const [row] = await sql<{ status: string; consecutive_failures: number; last_checked_at: Date }[]>`
      select status, consecutive_failures, last_checked_at from public.domains where name = ${aimed}`;
      assertEquals([row.status, row.consecutive_failures], ["pending_delete", 0]);
      assert(row.last_checked_at.getTime() >= pollerAt - 1_000, "the aimed check was recorded");

      // The live checks' share: at most every other start (1 / (rate × 0.5) = 2 s apart), and their 500s
      // backed nothing off.
      assert(liveStarts.length >= 3, `the burst was served in part (${liveStarts.length})`);
      assert(
        liveGaps.every((gap) => gap >= 2_000 - 100),
        `live starts 2 s apart: ${JSON.stringify(liveGaps)}`,
      );
      assert(answers.every((a) => a.status === "unknown"), JSON.stringify(answers));
      assert(
        answers.filter((a) => a.reason === "rdap_host_busy")
          .every((a) => Number.isInteger(a.retry_after_seconds) && a.retry_after_seconds! >= 1),
        `a busy host's answer says when to ask again: ${JSON.stringify(answers)}`,
      );
      const [key] = await sql<{ consecutive_failures: number; paused_until: Date | null }[]>`
      select consecutive_failures, paused_until from public.rate_limit_keys where class = 'rdap_host' and key = ${host}`;
      assertEquals(
        [key.consecutive_failures, key.paused_until],
        [0, null],
        "live failures never back a host off",
      );
    } finally {
      await unwatch(sql, [aimed]);
      await stack.close();
      await dns.close();
      await rdap.close();
    }
  },
);

Deno.test(
  "a refused turn is not a check: nothing recorded, no failure counted, the name keeps its place",
  options,
  async () => {
    const rdap = await startFakeRdap({ tlds: ["net"] });
    const dns = await startFakeDns();
    const whois = startFakeWhois();
    const stack = await startStack({
      ...fakesEnv({ rdap, dns, whois }),
      POLLER_TIME_BUDGET_MS: "4000",
    });
    const { sql } = stack;
    const suffix = crypto.randomUUID().slice(0, 8);
    const underWhois = `paused-${suffix}.kz`;
    const underRdap = `backoff-${suffix}.net`;
    const rdapHost = new URL(rdap.url).host;
    const watcher = await stack.account("pro");
    try {
      // A limit text paused the WHOIS host for 10 minutes; the RDAP host is backing off after failures.
      await sql`insert into public.rate_limit_keys (class, key, paused_until, pause_reason, paused_at)
              values ('whois_host', 'whois.nic.kz:43', now() + interval '10 minutes', 'rate_limited', now()),
                     ('rdap_host', ${rdapHost}, now() + interval '10 minutes', 'backoff', now())
              on conflict (class, key) do update
                set paused_until = excluded.paused_until, pause_reason = excluded.pause_reason`;
      await watch(sql, watcher, [underWhois, underRdap]);
      await makeDue(sql, [underWhois, underRdap]);
      const run = await postToPoller(stack, "/rdap-poller");
      assertEquals(run.errors, 0, JSON.stringify(run));

      const rows = await sql<
        {
          name: string;
          status: string;
          consecutive_failures: number;
          last_checked_at: Date | null;
          next_check_at: Date;
        }[]
      >`select name, status, consecutive_failures, last_checked_at, next_check_at from public.domains
       where name in (${underWhois}, ${underRdap}) order by name`;
      for (const row of rows) {
        assertEquals(
          [row.status, row.consecutive_failures, row.last_checked_at],
          ["unknown", 0, null],
          `${row.name}: nothing recorded, no failure (was: a recorded whois_rate_limited check, 1 failure)`,
        );
        assert(
          row.next_check_at.getTime() >= Date.now() + 9 * 60_000,
          `${row.name} is due when the pause ends`,
        );
      }
      assertEquals(whois.queries.filter((query) => query.name === underWhois).length, 0, "nothing was asked");
      assertEquals(rdap.requests.filter((request) => request.path.endsWith(`/${underRdap}`)).length, 0);
    } finally {
      await sql`delete from public.rate_limit_keys where class = 'whois_host' and key = 'whois.nic.kz:43'`
        .catch(() => {});
      await unwatch(sql, [underWhois, underRdap]);
      await stack.close();
      await whois.close();
      await dns.close();
      await rdap.close();
    }
  },
);
