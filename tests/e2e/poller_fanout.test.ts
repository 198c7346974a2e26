/**
 * Poller fan-out end to end: with a due backlog of three runs' worth, one pg_cron tick (the job's own
 * command) queues three rdap-poller invocations; sent at once, as pg_net does, they check every name once.
 *
 * Names live under the made-up TLD `fanouttest`, served only by this file's fake registry.
 */
import { removePollerVaultSecrets, storePollerVaultSecrets } from "../../platform/postgres/vault.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const PER_RUN = 5;

Deno.test(
  "fan-out: a backlog of 3 runs' worth → one cron tick starts 3 invocations, no name checked twice",
  options,
  async () => {
    const rdap = await startFakeRdap({ tlds: ["fanouttest"] });
    const dns = await startFakeDns();
    const stack = await startStack({
      RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
      DNS_NAMESERVER: dns.address,
      POLLER_TIME_BUDGET_MS: "20000",
      POLLER_MAX_CHECKS_PER_RUN: String(PER_RUN),
    });
    const { sql } = stack;
    try {
      await setRdapHostLimit(sql, rdap.url, 100, 10);
      const account = await stack.account("pro");
      const names = Array.from(
        { length: 3 * PER_RUN },
        (_, i) => `fan${i}-${crypto.randomUUID().slice(0, 6)}.fanouttest`,
      );
      for (const name of names) rdap.setDomain(name, { status: 200 });
      await asAccount(sql, account, (tx) => tx`select * from public.add_watchlist_domains(${names})`);
      // Only this test's names are due: a backlog of exactly three runs.
      await sql`update public.domains set next_check_at = now() + interval '1 day' where name not like '%.fanouttest'`;
      await sql`update public.domains set next_check_at = now() - interval '1 minute', lease_until = null
              where name = any(${names})`;
      await sql`update public.poller_settings set checks_per_invocation = ${PER_RUN}, max_invocations = 8`;
      await storePollerVaultSecrets(sql, {
        projectUrl: stack.gateway.url,
        pollerSecret: Deno.env.get("POLLER_SECRET")!,
      });

      const [{ needed }] = await sql<
        { needed: number }[]
      >`select private.poller_invocations_needed() as needed`;
      assertEquals(needed, 3);
      const [{ before }] = await sql<{ before: number }[]>`
      select coalesce(max(id), 0)::int as before from net.http_request_queue`;
      const [job] = await sql<
        { command: string }[]
      >`select command from cron.job where jobname = 'rdap-poller'`;
      await sql.unsafe(job.command);
      const queued = await sql<{ id: number; url: string; headers: Record<string, string> }[]>`
      delete from net.http_request_queue where id > ${before} returning id, url, headers`;
      assertEquals(queued.length, 3, "one tick queues three invocations");

      // Sent at once, as pg_net does: the three runs claim in parallel.
      const summaries = await Promise.all(queued.map(async (request) => {
        const response = await fetch(request.url, { method: "POST", headers: request.headers, body: "{}" });
        assertEquals(response.status, 200);
        return await response.json() as { checked: number; errors: number };
      }));
      for (const summary of summaries) {
        assertEquals(summary.errors, 0);
        assert(summary.checked <= PER_RUN, JSON.stringify(summaries));
      }
      assertEquals(summaries.reduce((sum, summary) => sum + summary.checked, 0), names.length);
      for (const name of names) {
        assertEquals(rdap.requests.filter((request) => request.path === `/domain/${name}`).length, 1, name);
      }
      const rows = await sql<
        { status: string }[]
      >`select status from public.domains where name = any(${names})`;
      assertEquals(rows.map((row) => row.status), names.map(() => "registered"));
    } finally {
      await sql`update public.poller_settings set checks_per_invocation = 400, max_invocations = 8`;
      await removePollerVaultSecrets(sql);
      await stack.close();
      await rdap.close();
      await dns.close();
    }
  },
);
