/**
 * Issue 40, point 2, end to end: answers a WHOIS server gives that cannot be read (reserved and blocked
 * names get such texts) say something of those names, not of the host. One account's 20 names answered
 * unrecognisably in a row through the poller must not back the registry's host off for everyone: another
 * account's pending-delete name at the same host is still asked at its planned time. The unreadable names are
 * asked again later, spread, and their page says the registry's answer could not be read. The real gateway
 * and database, the shipped `.it` row with `WHOIS_SERVER` at the fake, the host's shipped back-off rule (two
 * failures in a row) and a fast spacing so the test takes seconds.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";
import { fakesEnv } from "../support/fakes_env.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeWhois } from "../fakes/whois_server.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const HOST = "whois.nic.it:43";

async function runPoller(functionsBase: string): Promise<Record<string, number>> {
  const response = await fetch(`${functionsBase}/rdap-poller`, {
    method: "POST",
    headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}`, "content-type": "application/json" },
    body: "{}",
  });
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  assertEquals(body.errors, 0, JSON.stringify(body));
  return body;
}

async function hostState(sql: postgres.Sql) {
  const [row] = await sql<{ paused_until: Date | null; consecutive_failures: number }[]>`
    select paused_until, consecutive_failures from public.rate_limit_keys
     where class = 'whois_host' and key = ${HOST}`;
  return row;
}

Deno.test(
  "20 unreadable answers for one account's names do not back the host off for another's pending-delete name",
  options,
  async () => {
    const rdap = await startFakeRdap({ tlds: ["whoisunreadabletest"] });
    const dns = await startFakeDns();
    const whois = startFakeWhois();
    const stack = await startStack({ ...fakesEnv({ rdap, dns, whois }), POLLER_TIME_BUDGET_MS: "15000" });
    const { sql } = stack;
    const suffix = crypto.randomUUID().slice(0, 8);
    const odd = Array.from({ length: 20 }, (_, i) => `reserved${i}-${suffix}.it`);
    const dropping = `wdrop-${suffix}.it`;
    try {
      // Fast spacing (the fake is no registry); the class's back-off rule (2 failures in a row) is the shipped one.
      await sql`insert into public.rate_limit_keys (class, key, rate_per_second, concurrency)
                values ('whois_host', ${HOST}, 50, 1)
                on conflict (class, key) do update set rate_per_second = 50, concurrency = 1,
                  paused_until = null, pause_reason = null, consecutive_failures = 0`;
      whois.set("nic.it", "registered");
      for (const name of odd) whois.set(name, "unrecognized");
      whois.set(dropping, "pending_delete");
      const watcher = await stack.account("pro");
      const other = await stack.account("pro");
      await asAccount(sql, watcher, (tx) => tx`select * from public.add_watchlist_domains(${odd})`);
      await asAccount(sql, other, (tx) => tx`select * from public.add_watchlist_domains(${[dropping]})`);

      // The other account's name is in pending delete and planned for later; the watcher's 20 are due now.
      await sql`update public.domains set status = 'pending_delete', next_check_at = now() + interval '1 hour',
                  lease_until = null where name = ${dropping}`;
      await sql`update public.domains set next_check_at = '2000-01-01T00:00:00Z', lease_until = null
                where name = any(${odd})`;
      for (let run = 0; run < 4; run++) {
        await runPoller(stack.functionsBase);
        const asked = new Set(whois.queries.map((query) => query.name).filter((name) => odd.includes(name)));
        if (asked.size === odd.length) break;
      }
      const oddQueries = whois.queries.filter((query) => odd.includes(query.name));
      assertEquals(
        new Set(oddQueries.map((query) => query.name)).size,
        20,
        `each of the 20 names was asked, none refused for a backed-off host (${
          JSON.stringify(await hostState(sql))
        })`,
      );

      // Its planned time comes: the drop check is asked, not refused for a host backed off by those answers.
      await sql`update public.domains set next_check_at = now() - interval '1 second', lease_until = null
                where name = ${dropping}`;
      const before = whois.queries.length;
      await runPoller(stack.functionsBase);
      assert(
        whois.queries.slice(before).some((query) => query.name === dropping),
        `the pending-delete name was asked at its planned time (host: ${
          JSON.stringify(await hostState(sql))
        })`,
      );
      const [drop] = await sql<{ status: string; last_checked_at: Date | null }[]>`
        select status, last_checked_at from public.domains where name = ${dropping}`;
      assertEquals(drop.status, "pending_delete");
      assert(drop.last_checked_at !== null, "the drop check was recorded");
      const host = await hostState(sql);
      assert(
        host.paused_until === null || host.paused_until.getTime() <= Date.now(),
        "the host is not paused",
      );

      // Each unreadable name is asked again later (hours, not minutes), spread rather than all at once, and
      // its page says why it is undecided.
      const rows = await sql<
        {
          name: string;
          status: string;
          last_checked_at: Date;
          next_check_at: Date;
          registry_unreadable_at: Date;
        }[]
      >`select name, status, last_checked_at, next_check_at, registry_unreadable_at
          from public.domains where name = any(${odd})`;
      for (const row of rows) {
        assertEquals(row.status, "unknown", row.name);
        const gap = row.next_check_at.getTime() - row.last_checked_at.getTime();
        assert(gap >= 2 * 3_600_000, `${row.name} is asked again in hours (${gap} ms)`);
        assertEquals(row.registry_unreadable_at?.getTime(), row.last_checked_at.getTime(), row.name);
      }
      const times = new Set(rows.map((row) => Math.floor(row.next_check_at.getTime() / 60_000)));
      assert(times.size >= 15, `the 20 names come back spread (${times.size} distinct minutes)`);

      const detail = await asAccount(
        sql,
        watcher,
        (tx) => tx<{ d: { domain: Record<string, unknown> } }[]>`select public.domain_detail(${odd[0]}) as d`,
      );
      assert(typeof detail[0].d.domain.registry_unreadable_at === "string", JSON.stringify(detail[0].d));

      // A later readable answer clears the note.
      whois.set(odd[0], "registered");
      await sql`update public.domains set next_check_at = now() - interval '1 second', lease_until = null
                where name = ${odd[0]}`;
      // A run under load may leave the name for the next one (its host's turn): up to three runs.
      let cleared = { status: "", registry_unreadable_at: null as Date | null };
      for (let run = 0; run < 3 && cleared.status !== "registered"; run++) {
        await runPoller(stack.functionsBase);
        [cleared] = await sql<{ status: string; registry_unreadable_at: Date | null }[]>`
          select status, registry_unreadable_at from public.domains where name = ${odd[0]}`;
      }
      assertEquals([cleared.status, cleared.registry_unreadable_at], ["registered", null]);
    } finally {
      await sql`update public.watchlist_entries set deleted_at = now()
                where domain_name = any(${[...odd, dropping]}) and deleted_at is null`.catch(() => {});
      await stack.close();
      await whois.close();
      await dns.close();
      await rdap.close();
    }
  },
);
