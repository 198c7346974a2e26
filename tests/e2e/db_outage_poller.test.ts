/**
 * Database outages: a poller run cut by a database outage loses nothing. Names claimed by the interrupted run come
 * back when their lease ends (none stays leased), every name that became available is recorded once, and
 * each of its alerts is one outbox row, delivered exactly once, once the database is back.
 *
 * Runs on a cluster of its own (tests/support/outage.ts), so the restart disturbs no other test.
 */
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { startCluster, stopCluster } from "../../platform/postgres/cluster.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { ownCluster, setEnvironment } from "../support/outage.ts";
import { startStack } from "../support/stack.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import { linkTelegramChat, registerBotWebhook } from "../support/telegram_link.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "outagetest";
const leaseSeconds = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

Deno.test("a poller run cut by a database restart loses and doubles nothing", options, async () => {
  const own = await ownCluster();
  const rdap = await startFakeRdap({ tlds: [TLD] });
  const dns = await startFakeDns();
  const telegram = startFakeTelegram();
  const receiver = startWebhookReceiver();
  const restoreEnvironment = setEnvironment({
    SUPABASE_DB_URL: own.cluster.url,
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    TELEGRAM_API_BASE: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    POLLER_TIME_BUDGET_MS: "8000",
    POLLER_LEASE_SECONDS: String(leaseSeconds),
  });
  const stack = await startStack();
  const { sql } = stack;
  try {
    await setWebhookTargetPolicy(sql, true);
    // Two RDAP requests a second: the run is still checking when the database goes away.
    await setRdapHostLimit(sql, rdap.url, 2);
    const account: CreatedAccount = await stack.account("pro");
    const chatId = String(700_000 + Math.floor(Math.random() * 99_999));
    const hookUrl = receiver.endpoint("outage", { secret: "outage-secret-0123456789" });
    const names = Array.from(
      { length: 8 },
      (_, index) => `gone-${index}-${crypto.randomUUID().slice(0, 6)}.${TLD}`,
    );
    // The registry's canary answers, so its "not found" counts (docs/availability.md).
    rdap.setDomain(`nic.${TLD}`, { status: 200 });
    for (const name of names) rdap.setDomain(name, { status: 404 });
    await asAccount(sql, account.user_id, async (tx) => {
      await tx`select * from public.add_watchlist_domains(${names})`;
      await tx`select public.create_webhook_endpoint(${hookUrl}, 'outage', ${"outage-secret-0123456789"})`;
    });
    await registerBotWebhook(sql, telegram, stack.functionsBase);
    await linkTelegramChat(sql, telegram, account.user_id, chatId);
    telegram.forget(chatId); // the bot's "Linked." reply is not an alert
    await sql`update public.domains set next_check_at = '2000-01-01T00:00:00Z', lease_until = null
              where name = any(${names}::text[])`;

    const poll = (path = "/rdap-poller") =>
      fetch(`${stack.functionsBase}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}` },
      });
    const asked = () =>
      rdap.requests.filter((request) => names.some((name) => request.path.endsWith(name))).length;

    // The run starts, asks the registry about the first names, and then the database restarts.
    const interrupted = poll();
    await waitFor("the run to reach the registry", () => asked() >= 2);
    await stopCluster(own.cluster);
    await sleep(2_000);
    await startCluster(own.cluster);
    const cut = await interrupted;
    const cutBody = await cut.json();
    console.log(`interrupted run: ${cut.status} ${JSON.stringify(cutBody)}`);
    assert(cut.status === 200 || cut.status === 503, `the interrupted run answered ${cut.status}`);
    if (cut.status === 503) assertEquals(cutBody.error, "service_unavailable");

    // No name stays leased beyond its lease.
    const leased = await sql<{ name: string; lease_until: Date | null }[]>`
      select name, lease_until from public.domains where name = any(${names}::text[])`;
    const latest = Date.now() + leaseSeconds * 1000 + 2_000;
    for (const row of leased) {
      assert(row.lease_until === null || row.lease_until.getTime() <= latest, `${row.name} leased too long`);
    }

    // Later runs (after the leases end) finish the work: every name recorded, every alert sent.
    await waitFor("every name recorded and every alert delivered", async () => {
      await sleep(1_000);
      for (const path of ["/rdap-poller", "/rdap-poller/deliveries"]) {
        const response = await poll(path);
        await response.body?.cancel();
      }
      const [state] = await sql<{ unchecked: string; undelivered: string }[]>`
        select
          (select count(*) from public.domains where name = any(${names}::text[]) and status <> 'available')
            as unchecked,
          (select count(*) from public.alert_deliveries where user_id = ${account.user_id}
             and status <> 'delivered') as undelivered`;
      return Number(state.unchecked) === 0 && Number(state.undelivered) === 0;
    }, 120_000);

    // One alert event per name, one delivery per channel, each delivered exactly once.
    const deliveries = await sql<{ domain_name: string; channel: string; id: string }[]>`
      select e.domain_name, d.channel, d.id from public.alert_deliveries d
      join public.alert_events e on e.id = d.event_id
      where d.user_id = ${account.user_id} and e.type = 'domain.available'`;
    assertEquals(deliveries.length, names.length * 2, JSON.stringify(deliveries));
    for (const name of names) {
      const mine = deliveries.filter((row) => row.domain_name === name).map((row) => row.channel).sort();
      assertEquals(mine, ["telegram", "webhook"], name);
    }
    const webhookIds = receiver.accepted("outage").map((hook) => hook.headers["x-service-delivery"]);
    assertEquals(webhookIds.length, names.length, "webhooks received");
    assertEquals(new Set(webhookIds).size, names.length, "a webhook delivery was sent twice");
    const messages = telegram.delivered(chatId);
    assertEquals(messages.length, names.length, "Telegram messages");
    for (const name of names) {
      assertEquals(
        messages.filter((message) => message.text.includes(name)).length,
        1,
        `Telegram for ${name}`,
      );
    }
  } finally {
    await stack.close();
    await Promise.all([rdap.close(), dns.close(), telegram.close(), receiver.close()]);
    restoreEnvironment();
    await own.remove();
  }
});
