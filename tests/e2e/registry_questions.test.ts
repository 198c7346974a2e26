/**
 * What only the registry knows, for names DNS decides (poller/dns_first.ts), end to end through the real
 * gateway, poller, reminder job, delivery run and database, with local fakes of an RDAP registry (at its
 * shipped politeness: 1 request a second), a WHOIS registry, DNS and a signed-webhook receiver:
 *
 * - a watched, delegated name whose expiry was never learnt: the poller asks its registry once, which says it
 *   expires in 6 days; the reminder job (`domain-expiring-alerts`, called directly) sends `domain.expiring`
 *   (the 7-day reminder); later checks are DNS only;
 * - a free name that someone registers is delegated: the poller asks the registry at that transition, and
 *   `domain.registered` carries the registrar and the expiration date, once;
 * - the same first question over WHOIS for a TLD without RDAP (`.it`).
 *
 * Names live under the made-up TLD `regqtest`, served only by this file's fake registry.
 */
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, uniqueDomain } from "../support/stack.ts";
import { fakesEnv, runBudgetsEnv } from "../support/fakes_env.ts";
import { registeredDomain, wholeSeconds } from "../support/rdap_domains.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeWhois } from "../fakes/whois_server.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import {
  checkNow,
  domainStatus,
  leaveNothingDue,
  makeDue,
  postToPoller,
  watch,
} from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "regqtest";
const DAY = 86_400_000;
const SECRET = "registry-questions-secret-0123";
const EVENTS = ["domain.available", "domain.registered", "domain.expiring"];

const uniqueName = (label: string, tld = TLD): string => uniqueDomain(label, tld);

Deno.test("the poller asks the registry what DNS cannot tell", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: [TLD] });
  rdap.setDomain(`nic.${TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const whois = startFakeWhois();
  const receiver = startWebhookReceiver();
  const stack = await startStack({
    ...fakesEnv({ rdap, dns, whois }),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    ...runBudgetsEnv,
    LIVE_CHECK_CACHE_SECONDS: "0",
  });
  const { sql } = stack;
  const accounts: string[] = [];
  await setWebhookTargetPolicy(sql, true);
  const owner = await stack.account("pro");
  accounts.push(owner.user_id);
  const endpointName = `regq-${crypto.randomUUID().slice(0, 8)}`;
  await asAccount(
    sql,
    owner,
    (tx) =>
      tx`select public.create_webhook_endpoint(${
        receiver.endpoint(endpointName, { secret: SECRET })
      }, 'e2e', ${SECRET}, 'generic', ${EVENTS})`,
  );
  const events = (type: string, name: string) =>
    receiver.accepted(endpointName).map((hook) => JSON.parse(hook.rawBody)).filter((body) =>
      body.type === type && body.data.domain_name === name
    );
  const requestsFor = (name: string) => rdap.requests.filter((r) => r.path === `/domain/${name}`).length;
  const row = async (name: string) => {
    const [found] = await sql<
      { status: string; expires_at: Date | null; registrar: string | null; registry_asked_at: Date | null }[]
    >`select status, expires_at, registrar, registry_asked_at from public.domains where name = ${name}`;
    return found;
  };

  try {
    await t.step("a delegated name expiring in 6 days gets domain.expiring through the poller", async () => {
      const mine = uniqueName("mine");
      const far = uniqueName("far");
      const expiresAt = wholeSeconds(new Date(Date.now() + 6 * DAY));
      const farExpiry = wholeSeconds(new Date(Date.now() + 200 * DAY));
      rdap.setDomain(mine, { status: 200, body: registeredDomain(mine, expiresAt, "Reminder Registrar") });
      rdap.setDomain(far, { status: 200, body: registeredDomain(far, farExpiry, "Far Registrar") });
      for (const name of [mine, far]) {
        dns.setDelegated(name, ["ns1.registrar.example", "ns2.registrar.example"]);
      }
      // As the poller left such names before: registered from DNS alone, expiry and registrar never learnt.
      // One at a time: a run asks one such question per TLD and asks the others an hour later.
      for (const name of [mine, far]) {
        await watch(sql, owner, [name]);
        await sql`update public.domains set status = 'registered', last_checked_at = now() - interval '1 day'
                  where name = ${name}`;
        await checkNow(stack, name);
      }
      const learnt = await row(mine);
      assertEquals(learnt.status, "registered");
      assertEquals(learnt.expires_at?.toISOString(), expiresAt.toISOString(), "the registry's expiry");
      assertEquals(learnt.registrar, "Reminder Registrar");
      assert(learnt.registry_asked_at !== null, "the registry's answer is remembered");
      assertEquals((await row(far)).registrar, "Far Registrar");
      assertEquals([requestsFor(mine), requestsFor(far)], [1, 1], "one registry question each");

      // The reminder job (pg_cron `domain-expiring-alerts`), then a delivery run.
      await sql`select private.queue_domain_expiring_alerts()`;
      await postToPoller(stack, "/rdap-poller/deliveries");
      const reminders = events("domain.expiring", mine);
      assertEquals(reminders.length, 1, "the 7-day reminder");
      assertEquals(reminders[0].data.days_before, 7);
      assertEquals(reminders[0].data.expires_at, expiresAt.toISOString());
      assertEquals(events("domain.expiring", far).length, 0, "200 days out: no reminder");

      // Bounded: checked again, both are decided by DNS alone (asked after the 7-day reminder's ask point,
      // and far from any reminder day).
      await makeDue(sql, [mine, far]);
      const again = await postToPoller(stack, "/rdap-poller");
      assertEquals(again.errors, 0, JSON.stringify(again));
      assertEquals([requestsFor(mine), requestsFor(far)], [1, 1], "no second registry question");
      assert(again.registered_by_dns >= 2, JSON.stringify(again));
    });

    await t.step("domain.registered after a DNS-decided transition carries the registrar", async () => {
      const name = uniqueName("taken");
      await watch(sql, owner, [name]);
      rdap.setDomain(name, { status: 404 });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "available");

      // Someone registers it: delegated within minutes; the registry knows the registrar and the expiry.
      const expiresAt = wholeSeconds(new Date(Date.now() + 365 * DAY));
      rdap.setDomain(name, { status: 200, body: registeredDomain(name, expiresAt, "Quick Registrar") });
      dns.setDelegated(name, ["ns1.quick.example", "ns2.quick.example"]);
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "registered");
      const registered = events("domain.registered", name);
      assertEquals(registered.length, 1);
      assertEquals(
        [registered[0].data.previous_status, registered[0].data.registrar, registered[0].data.expires_at],
        ["available", "Quick Registrar", expiresAt.toISOString()],
      );

      // Once per transition: later checks (DNS alone) raise nothing more.
      await checkNow(stack, name);
      assertEquals(events("domain.registered", name).length, 1, "once");
    });

    await t.step("the first question goes over WHOIS where the TLD has no RDAP (.it)", async () => {
      await sql`insert into public.rate_limit_keys (class, key, rate_per_second, concurrency)
                values ('whois_host', 'whois.nic.it:43', 50, 4)
                on conflict (class, key) do update set rate_per_second = 50, concurrency = 4,
                  paused_until = null, pause_reason = null, consecutive_failures = 0`;
      const name = uniqueName("wmine", "it");
      whois.set(name, "registered");
      dns.setDelegated(name, ["ns1.registrar.example", "ns2.registrar.example"]);
      await watch(sql, owner, [name]);
      await sql`update public.domains set status = 'registered', last_checked_at = now() - interval '1 day'
                where name = ${name}`;
      await checkNow(stack, name);
      const learnt = await row(name);
      assertEquals(learnt.status, "registered");
      assertEquals(learnt.expires_at?.toISOString(), "2027-04-21T00:00:00.000Z");
      assertEquals(learnt.registrar, "MarkMonitor International Limited");
      assert(learnt.registry_asked_at !== null);
      const asked = whois.queries.filter((q) => q.name === name).length;
      assertEquals(asked, 1, "one WHOIS question");
    });
  } finally {
    await sql`update public.watchlist_entries set deleted_at = now()
              where user_id = any(${accounts}::uuid[]) and deleted_at is null`.catch(() => {});
    await leaveNothingDue(sql, [TLD], accounts);
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await receiver.close();
    await whois.close();
    await dns.close();
    await rdap.close();
  }
});
