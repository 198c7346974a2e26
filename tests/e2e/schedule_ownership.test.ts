/**
 * The poller owns the schedule, through the real `GET /check/{domain}`: one account watches a name whose
 * pending-delete period ends within minutes, and the poller aimed its next check just after the drop.
 * Another account's live checks of that name (a decided one, registry errors, then "available") never move
 * that check, never count failures, and the available result still alerts the watcher exactly once.
 */
import { assertEquals } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("live checks by another account never move the poller's aimed drop check", options, async () => {
  const rdap = await startFakeRdap({ tlds: ["com"] });
  rdap.setDomain("example.com", { status: 200 });
  const dns = await startFakeDns({ delegated: {} });
  const stack = await startStack({
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    RDAP_TIMEOUT_MS: "1000",
  });
  await setRdapHostLimit(stack.sql, rdap.url, 5, 4);
  const name = `aimed-${crypto.randomUUID().slice(0, 8)}.com`;
  try {
    const watcher = await stack.account("pro");
    const checker = await stack.account("pro");
    await asAccount(
      stack.sql,
      watcher,
      (tx) => tx`select * from public.add_watchlist_domains(array[${name}])`,
    );

    // The poller's last check found the name in pending delete and aimed the next one 57 s ahead.
    const [{ checked_at, aimed }] = await stack.sql<{ checked_at: Date; aimed: Date }[]>`
      select now() - interval '1 minute' as checked_at, now() + interval '57 seconds' as aimed`;
    await stack.sql.begin(async (tx) => {
      await tx`select set_config('role', 'service_role', true)`;
      await tx`select private.record_domain_check(${name}, 'pending_delete', ${checked_at}, null, null, true, 'poller')`;
      await tx`select private.schedule_pending_delete_check(${name}, ${checked_at}, ${aimed})`;
    });
    const state = async () => {
      const [row] = await stack.sql<{ status: string; next_check_at: Date; consecutive_failures: number }[]>`
        select status, next_check_at, consecutive_failures from public.domains where name = ${name}`;
      return { ...row, next_check_at: row.next_check_at.toISOString() };
    };
    const aimedState = {
      status: "pending_delete",
      next_check_at: aimed.toISOString(),
      consecutive_failures: 0,
    };
    assertEquals(await state(), aimedState);

    const liveCheck = async () => {
      // Each call past the live-check cache, as a caller waiting out its 30 s window would be.
      await stack.sql`delete from public.live_check_cache where domain_name = ${name}`;
      const response = await fetch(`${stack.apiBase}/check/${name}`, {
        headers: { "x-api-key": checker.api_key! },
      });
      assertEquals(response.status, 200);
      return (await response.json()) as { status: string; reason: string };
    };

    rdap.setDomain(name, {
      status: 200,
      body: { objectClassName: "domain", ldhName: name, status: ["pending delete"] },
    });
    assertEquals((await liveCheck()).status, "pending_delete");
    assertEquals(
      await state(),
      aimedState,
      "a decided live check keeps the aimed check (was: moved to 300 s)",
    );

    rdap.setDomain(name, { status: 500 });
    for (let i = 0; i < 2; i++) {
      const answer = await liveCheck();
      assertEquals([answer.status, answer.reason], ["unknown", "rdap_server_error"]);
    }
    assertEquals(
      await state(),
      aimedState,
      "two registry errors in live checks: no failures, no backoff (was: 600 s and 2 failures)",
    );

    rdap.setDomain(name, { status: 404 });
    assertEquals((await liveCheck()).status, "available");
    assertEquals((await liveCheck()).status, "available");
    assertEquals(
      await state(),
      { ...aimedState, status: "available" },
      "available is recorded, the aim kept",
    );
    const [{ alerts }] = await stack.sql<{ alerts: number }[]>`
      select count(*)::int as alerts from public.alert_events
       where domain_name = ${name} and type = 'domain.available' and user_id = ${watcher.user_id}`;
    assertEquals(alerts, 1, "the watcher is alerted exactly once");
  } finally {
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
