/**
 * Live WHOIS checks at the SHIPPED politeness (class whois_host: one query per 5 s per host, one at a time;
 * never a raised rate), through the real GET /check and the poller (issue 34, point 0):
 *  - the poller's spare turns renew every WHOIS server's canary proof ahead of need (before it lapses);
 *  - one user checks, per WHOIS TLD (each its own host, all in parallel), a free name and 6 s later a
 *    registered one: every check is decided, one query each;
 *  - a burst of 10 checks at one host is served one at a time, spaced, and the checks that cannot be served
 *    within the live check's 15 s say so (`whois_host_busy`);
 *  - a delegated name whose registry cannot be read is `registered` (`dns_delegated`), for WHOIS and RDAP
 *    alike (issue 34, point 5).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeWhois } from "../fakes/whois_server.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { postToPoller } from "../support/poller_runs.ts";
import { startStack } from "../support/stack.ts";
import { fakesEnv } from "../support/fakes_env.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** Ten WHOIS TLDs of the shipped table, each a host of its own. */
const TLDS = ["at", "au", "be", "cn", "dk", "eu", "ir", "jp", "kr", "ru"];
/** The host of the burst (not among the ten). */
const BURST_TLD = "ro";
const WHOIS_INTERVAL_MS = 5_000;

interface CheckBody {
  domain_name: string;
  status: string;
  available: boolean | null;
  reason: string;
  whois: { server: string; answer: string | null } | null;
}

Deno.test("live WHOIS checks at the shipped politeness reach the registry", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: ["com"] });
  rdap.setDomain("example.com", { status: 200 });
  const dns = await startFakeDns();
  const whois = startFakeWhois();
  const stack = await startStack({
    ...fakesEnv({ rdap, dns, whois }),
    RDAP_TIMEOUT_MS: "2000",
    POLLER_TIME_BUDGET_MS: "10000",
  });
  const { sql } = stack;
  const rows = await sql<{ suffix: string; host: string; port: number; canary_name: string }[]>`
    select suffix, host, port, canary_name from public.whois_servers
     where suffix = any(${[...TLDS, BURST_TLD]}::text[]) and enabled and host is not null order by suffix`;
  assertEquals(rows.map((row) => row.suffix), [...TLDS, BURST_TLD].sort(), "every TLD has a shipped row");
  const servers = rows.map((row) => `${row.host}:${row.port}`);
  // The shipped politeness, fresh: no per-host override, no pause, no proof yet (other files may have used
  // these hosts on the same database).
  await sql`delete from public.rate_limit_keys where class = 'whois_host' and key = any(${servers}::text[])`;
  await sql`delete from public.rdap_server_proofs
             where server_url = any(${servers.map((server) => `whois://${server}`)}::text[])`;
  for (const row of rows) whois.set(row.canary_name, "registered");
  // The ten servers were proven 24.5 h ago (valid for 26 h, renewal due after 24 h); the burst's host never.
  await sql`insert into public.rdap_server_proofs
              (server_url, suffix, canary_name, state, checked_at, verified_at, valid_until, renew_after)
            select 'whois://' || host || ':' || port, suffix, canary_name, 'verified',
                   now() - interval '24 hours 30 minutes', now() - interval '24 hours 30 minutes',
                   now() + interval '90 minutes', now() - interval '30 minutes'
              from public.whois_servers where suffix = any(${TLDS}::text[])`;

  const user = await stack.account("pro");
  const check = async (name: string, apiKey = user.api_key!) => {
    const startedAt = Date.now();
    const response = await fetch(`${stack.apiBase}/check/${name}`, { headers: { "x-api-key": apiKey } });
    assertEquals(response.status, 200);
    return { body: (await response.json()) as CheckBody, startedAt, ms: Date.now() - startedAt };
  };
  const suffix = crypto.randomUUID().slice(0, 8);
  const queriesOf = (names: string[]) => whois.queries.filter((query) => names.includes(query.name));

  try {
    await t.step("the poller's spare turns renew the WHOIS servers' proofs ahead of need", async () => {
      await postToPoller(stack, "/rdap-poller");
      const proofs = await sql<{ server_url: string; state: string; renewed: boolean }[]>`
        select server_url, state, verified_at > now() - interval '5 minutes' as renewed
          from public.rdap_server_proofs
         where server_url = any(${servers.map((server) => `whois://${server}`)}::text[])`;
      assertEquals(
        proofs.filter((proof) => proof.state === "verified" && proof.renewed).length,
        TLDS.length,
        JSON.stringify(proofs),
      );
      const canaries = rows.filter((row) => TLDS.includes(row.suffix)).map((row) => row.canary_name);
      assertEquals(queriesOf(canaries).length, TLDS.length, "one canary query each");
    });

    await t.step("per TLD, a free name then 6 s later a registered one: all decided", async () => {
      const results = await Promise.all(TLDS.map(async (tld) => {
        const free = `free-${suffix}.${tld}`;
        const taken = `taken-${suffix}.${tld}`;
        whois.set(taken, "registered");
        const first = await check(free);
        const wait = first.startedAt + 6_000 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const second = await check(taken);
        return { tld, free, taken, first, second };
      }));
      const decided = results.flatMap((r) => [r.first, r.second]).filter((r) => r.body.status !== "unknown");
      const asked = queriesOf(results.flatMap((r) => [r.free, r.taken]));
      console.log(
        `live WHOIS checks: ${decided.length} of ${
          results.length * 2
        } decided; ${asked.length} queries reached ` +
          `the fake for them (+${TLDS.length} canaries renewed by the poller); slowest ${
            Math.max(...results.flatMap((r) => [r.first.ms, r.second.ms]))
          } ms`,
      );
      for (const r of results) {
        assertEquals([r.first.body.status, r.first.body.reason], ["available", "whois_not_found"], r.free);
        assertEquals([r.second.body.status, r.second.body.reason], ["registered", "whois_found"], r.taken);
      }
      assertEquals(asked.length, results.length * 2, "one query per check: the canaries were already proven");
    });

    await t.step("a burst of 10 checks at one host: one at a time, spaced; the rest say so", async () => {
      // The host was never proven: the first free name's check also asks the canary (the service's request,
      // spaced as any other but not counted in the live checks' share).
      const burster = await stack.account("pro");
      const names = Array.from({ length: 10 }, (_, i) => `burst${i}-${suffix}.${BURST_TLD}`);
      const startedAt = Date.now();
      const answers = await Promise.all(names.map((name) => check(name, burster.api_key!)));
      const served = answers.filter((answer) => answer.body.status !== "unknown");
      const refused = answers.filter((answer) => answer.body.status === "unknown");
      const starts = queriesOf(names).map((query) => query.at).sort((a, b) => a - b);
      const gaps = starts.slice(1).map((at, i) => at - starts[i]);
      console.log(
        `burst of 10 at one WHOIS host: ${served.length} served (${starts.length} queries, gaps ${
          JSON.stringify(gaps)
        } ms, first after ${starts[0] - startedAt} ms); ${refused.length} answered ${
          [...new Set(refused.map((answer) => answer.body.reason))].join(", ")
        } after at most ${Math.max(...refused.map((answer) => answer.ms))} ms`,
      );
      assert(served.length >= 2, `at least two served within 15 s (${served.length})`);
      assertEquals(starts.length, served.length, "each served check sent one query; the others none");
      assert(gaps.every((gap) => gap >= WHOIS_INTERVAL_MS - 100), `spaced: ${JSON.stringify(gaps)}`);
      assert(starts[0] - startedAt < 1_500, "the first query to an idle host goes out at once");
      assert(refused.length > 0, "10 queries cannot be served in 15 s at one per 5 s");
      for (const answer of refused) {
        assertEquals(answer.body.reason, "whois_host_busy");
        assertEquals(answer.body.whois?.answer ?? null, null, "nothing was asked");
        assert(answer.ms < 20_000, `a refused check answers within its wait (${answer.ms} ms)`);
      }
    });

    await t.step("a delegated name whose registry cannot be read is registered, decided by DNS", async () => {
      const murky = `murky-${suffix}.${TLDS[0]}`;
      whois.set(murky, "unrecognized");
      dns.setDelegated(murky, ["ns1.host.example"]);
      const viaWhois = await check(murky);
      assertEquals([viaWhois.body.status, viaWhois.body.available, viaWhois.body.reason], [
        "registered",
        false,
        "dns_delegated",
      ]);
      assertEquals(viaWhois.body.whois?.answer, "unrecognized");

      await setRdapHostLimit(sql, rdap.url, 5, 2);
      const broken = `broken-${suffix}.com`;
      rdap.setDomain(broken, { status: 500 });
      dns.setDelegated(broken, ["ns1.host.example"]);
      const viaRdap = await check(broken);
      assertEquals([viaRdap.body.status, viaRdap.body.reason], ["registered", "dns_delegated"]);

      // Never the other way: not delegated, the same registry failure stays unknown.
      const lost = `lost-${suffix}.com`;
      rdap.setDomain(lost, { status: 500 });
      const undecided = await check(lost);
      assertEquals([undecided.body.status, undecided.body.available, undecided.body.reason], [
        "unknown",
        null,
        "rdap_server_error",
      ]);
    });
  } finally {
    await stack.close();
    await whois.close();
    await dns.close();
    await rdap.close();
  }
});
