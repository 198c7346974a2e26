/**
 * A name's history as the app reads it, written by the real checks: the poller and a live check (fake RDAP
 * registry and DNS) take a name watched by two accounts through registered → pending delete → available →
 * registered. `domain_detail` gives the account whose live check found it available four rows (first seen
 * included), the live check's row carrying the evidence of the available, whatever channels the accounts have
 * (none here); the other watcher reads the poller's three rows, not another account's live check (issue 40).
 */
import { asAccount } from "../../scripts/lib/accounts.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { checkNow, domainStatus, leaveNothingDue, watch } from "../support/poller_runs.ts";
import { startStack } from "../support/stack.ts";
import { fakesEnv, runBudgetsEnv } from "../support/fakes_env.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
// An ICANN TLD (the API checks names against the public-suffix list) that no other test file uses.
const TLD = "cab";

interface HistoryRow {
  previous_status: string | null;
  status: string;
  changed_at: string;
  source: string;
  evidence: Record<string, unknown> | null;
}

Deno.test("app reads: the history of a name through the poller and a live check", options, async () => {
  const rdap = await startFakeRdap({ tlds: [TLD] });
  rdap.setDomain(`nic.${TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const stack = await startStack({
    ...fakesEnv({ rdap, dns }),
    ...runBudgetsEnv,
    LIVE_CHECK_CACHE_SECONDS: "0",
  });
  const { sql } = stack;
  const accounts: string[] = [];
  try {
    await setRdapHostLimit(sql, rdap.url, 50);
    const pro = await stack.account("pro");
    const free = await stack.account("free");
    accounts.push(pro.user_id, free.user_id);
    const name = `history-${crypto.randomUUID().slice(0, 8)}.${TLD}`;
    await watch(sql, pro, [name]);
    await watch(sql, free, [name]);

    rdap.setDomain(name, { status: 200 });
    await checkNow(stack, name);
    assertEquals(await domainStatus(sql, name), "registered");
    rdap.setDomain(name, { status: 200, body: { ...minimalDomain(name), status: ["pending delete"] } });
    await checkNow(stack, name);
    assertEquals(await domainStatus(sql, name), "pending_delete");
    rdap.setDomain(name, { status: 404 });
    const live = await fetch(`${stack.apiBase}/check/${name}`, { headers: { "x-api-key": pro.api_key! } });
    const liveBody = await live.json();
    assertEquals(liveBody.status, "available", JSON.stringify(liveBody));
    rdap.setDomain(name, { status: 200 });
    await checkNow(stack, name);
    assertEquals(await domainStatus(sql, name), "registered");

    const detailOf = (account: typeof pro) =>
      asAccount(sql, account, async (tx) => {
        const [row] = await tx<{ detail: { history: HistoryRow[]; domain: Record<string, unknown> } }[]>`
          select public.domain_detail(${name}) as detail`;
        return row.detail;
      });
    const forFree = await detailOf(free);
    const forPro = await detailOf(pro);
    assertEquals(
      forPro.history.map((row) => [row.previous_status, row.status, row.source]),
      [
        [null, "registered", "poller"],
        ["registered", "pending_delete", "poller"],
        ["pending_delete", "available", "live"],
        ["available", "registered", "poller"],
      ],
    );
    assertEquals(
      forFree.history,
      forPro.history.filter((row) => row.source === "poller"),
      "the other watcher reads the poller's changes, not another account's live check",
    );
    const available = forPro.history[2];
    assertEquals(available.evidence?.source, "rdap");
    assertEquals(available.evidence?.canary_name, `nic.${TLD}`);
    assertEquals(available.evidence?.answer, 404);
    assertEquals(available.evidence?.dns_rcode, "NXDOMAIN");
    assert(forPro.history.every((row, i) => i === 2 || row.evidence === null), "evidence only on available");
    assertEquals(forFree.domain.status, "registered");
    assertEquals(forFree.domain.status_changed_at, forPro.history[3].changed_at);
  } finally {
    await leaveNothingDue(sql, [TLD], accounts);
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
