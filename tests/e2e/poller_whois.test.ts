/**
 * A drop under a WHOIS TLD, end to end, as poller.test.ts does it for RDAP: the real gateway and
 * database, the shipped `whois_servers` row for `.it` (no RDAP route: the fake bootstrap does not list
 * it), `WHOIS_SERVER` pointing at the fake WHOIS server (which answers in nic.it's phrasing), a fake DNS.
 * The name goes from pending delete to not found; the poller records it as available and raises
 * `domain.available` for its watcher. Routine WHOIS names are checked less often than RDAP names, and a
 * name in pending delete keeps its drop cadence.
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

async function makeDue(sql: postgres.Sql, name: string): Promise<void> {
  await sql`update public.domains set next_check_at = '2000-01-01T00:00:00Z', lease_until = null
            where name = ${name}`;
}

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

async function domainRow(sql: postgres.Sql, name: string) {
  const [row] = await sql<{ status: string; last_checked_at: Date; next_check_at: Date }[]>`
    select status, last_checked_at, next_check_at from public.domains where name = ${name}`;
  return row;
}

Deno.test("a drop under a WHOIS TLD raises domain.available through the poller", options, async () => {
  const rdap = await startFakeRdap({ tlds: ["whoispolltest"] });
  const dns = await startFakeDns();
  const whois = startFakeWhois();
  const stack = await startStack({
    ...fakesEnv({ rdap, dns, whois }),
    POLLER_TIME_BUDGET_MS: "8000",
  });
  const { sql } = stack;
  const suffix = crypto.randomUUID().slice(0, 8);
  const dropping = `wdrop-${suffix}.it`;
  const taken = `wtaken-${suffix}.it`;
  try {
    // The fake may be asked faster than a real registry; the shipped row's host is the politeness key.
    await sql`insert into public.rate_limit_keys (class, key, rate_per_second, concurrency)
              values ('whois_host', 'whois.nic.it:43', 50, 4)
              on conflict (class, key) do update set rate_per_second = 50, concurrency = 4,
                paused_until = null, pause_reason = null, consecutive_failures = 0`;
    whois.set("nic.it", "registered"); // the canary: the server proves it can say "found"
    whois.set(dropping, "pending_delete");
    whois.set(taken, "registered");
    const account = await stack.account("pro");
    await asAccount(
      sql,
      account,
      (tx) => tx`select * from public.add_watchlist_domains(${[dropping, taken]})`,
    );

    await makeDue(sql, dropping);
    await makeDue(sql, taken);
    await runPoller(stack.functionsBase);
    const pending = await domainRow(sql, dropping);
    assertEquals(pending.status, "pending_delete");
    const pendingGap = pending.next_check_at.getTime() - pending.last_checked_at.getTime();
    assertEquals(pendingGap, 5 * 60_000, "pending delete keeps its drop cadence (no prediction: 5 minutes)");
    const registered = await domainRow(sql, taken);
    assertEquals(registered.status, "registered");
    const routineGap = registered.next_check_at.getTime() - registered.last_checked_at.getTime();
    assert(routineGap >= 6 * 3_600_000, `a routine WHOIS name waits at least 6 hours (${routineGap} ms)`);
    assertEquals((await sql`select 1 from public.alert_events where domain_name = ${dropping}`).length, 0);

    // The registry lets the name go: its own "not found", and DNS has no delegation.
    whois.set(dropping, "available");
    await makeDue(sql, dropping);
    const summary = await runPoller(stack.functionsBase);
    assert(summary.became_available >= 1, JSON.stringify(summary));
    assertEquals((await domainRow(sql, dropping)).status, "available");
    const events = await sql<
      { type: string; user_id: string; previous_status: string; evidence: Record<string, unknown> | null }[]
    >`
      select type, user_id, previous_status, evidence from public.alert_events where domain_name = ${dropping}`;
    assertEquals(events.map((event) => event.type), ["domain.available"]);
    assertEquals(events[0].user_id, account.user_id);
    assertEquals(events[0].previous_status, "pending_delete");
    // The alert says why: the registry's own WHOIS "not found" text, its proven canary, and DNS.
    const evidence = events[0].evidence!;
    assertEquals([evidence.source, evidence.server, evidence.canary_name], [
      "whois",
      "whois.nic.it:43",
      "nic.it",
    ]);
    assert(typeof evidence.answer === "string" && evidence.answer.length > 0, JSON.stringify(evidence));
    assert(evidence.canary_proved_at !== null, JSON.stringify(evidence));
    assert(evidence.dns_rcode === "NXDOMAIN" || evidence.dns_rcode === "NOERROR", JSON.stringify(evidence));
    const asked = whois.queries.filter((query) => query.name === dropping).length;
    assertEquals(asked, 2, "one WHOIS query per check");
    assert(whois.queries.some((query) => query.name === "nic.it"), "the canary was asked");
  } finally {
    await sql`update public.watchlist_entries set deleted_at = now()
              where domain_name in (${dropping}, ${taken}) and deleted_at is null`.catch(() => {});
    await stack.close();
    await whois.close();
    await dns.close();
    await rdap.close();
  }
});
