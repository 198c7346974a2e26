/**
 * The poller and the alerts end to end: the real gateway and database, with local fakes of an RDAP
 * registry, a DNS server, the Telegram Bot API and webhook receivers. The poller is invoked through the
 * gateway with its bearer secret, and through the real SQL path (pg_cron's command
 * `private.invoke_rdap_poller()` reading Vault, then the local pg_net stand-in).
 *
 * Names live under the made-up TLD `polltest`, which only this file's fake registry serves. Steps share
 * one stack; each uses its own accounts and names and counts only what is its own.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { repoRoot } from "../../platform/paths.ts";
import { startNetWorker } from "../../platform/pg_net/worker.ts";
import {
  removePollerVaultSecrets,
  setWebhookTargetPolicy,
  storePollerVaultSecrets,
} from "../../platform/postgres/vault.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { asAccount, type CreatedAccount, type PlanId } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { databaseUrl, startStack, type TestStack } from "../support/stack.ts";
import { type FakeDns, startFakeDns } from "../fakes/dns_server.ts";
import { type FakeRdap, minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook_receiver.ts";
import { linkTelegramChat, registerBotWebhook } from "../support/telegram_link.ts";
import { leaveNothingDue, makeDue, postToPoller, sqlState, watch } from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "polltest";
/** Served by the same fake registry, but its canary `nic.liartest` answers 404 like every other name. */
const LIAR_TLD = "liartest";

interface World {
  stack: TestStack;
  rdap: FakeRdap;
  dns: FakeDns;
  telegram: FakeTelegram;
  receiver: WebhookReceiver;
  /** A new account, remembered so the test can close its pending deliveries at the end. */
  account(plan: PlanId): Promise<CreatedAccount>;
  /** A Telegram chat ID unique to this run (`label` 0–99), so no earlier run's delivery lands in it. */
  chat(label: number): string;
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

function uniqueName(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.${TLD}`;
}

/** Links the chat through the bot (the only way), then forgets the bot's confirmation so only alerts count. */
async function setTelegramChat(
  world: Pick<World, "stack" | "telegram">,
  account: CreatedAccount,
  chatId: string,
): Promise<void> {
  await linkTelegramChat(world.stack.sql, world.telegram, account.user_id, chatId);
  world.telegram.forget(chatId);
}

async function createWebhook(
  sql: postgres.Sql,
  account: CreatedAccount,
  url: string,
  secret: string | null,
): Promise<string> {
  const [row] = await asAccount(
    sql,
    account,
    (tx) => tx<{ id: string }[]>`select public.create_webhook_endpoint(${url}, 'e2e', ${secret}) as id`,
  );
  return row.id;
}

function pollerSecret(): string {
  return Deno.env.get("POLLER_SECRET")!;
}

interface PollerSummary {
  checked: number;
  registered_by_dns: number;
  deferred: number;
  became_available: number;
  errors: number;
  deliveries: { delivered: number; retried: number; failed: number; deferred: number };
}

/** One poller run, then one delivery run (what the pg_cron jobs and the wake-up do). */
async function runPoller(stack: TestStack): Promise<PollerSummary> {
  const body = await postToPoller(stack, "/rdap-poller");
  assertEquals(body.errors, 0, JSON.stringify(body));
  const deliveries = await postToPoller(stack, "/rdap-poller/deliveries");
  return { ...body, deliveries } as PollerSummary;
}

function rdapRequests(rdap: FakeRdap, name: string): number {
  return rdap.requests.filter((request) => request.path === `/domain/${name}`).length;
}

function dnsQueries(dns: FakeDns, name: string): number {
  return dns.queries.filter((query) => query.name === name).length;
}

async function domainRow(sql: postgres.Sql, name: string) {
  const [row] = await sql<
    {
      status: string;
      last_checked_at: Date | null;
      next_check_at: Date;
      lease_until: Date | null;
      consecutive_failures: number;
    }[]
  >`select status, last_checked_at, next_check_at, lease_until, consecutive_failures
    from public.domains where name = ${name}`;
  return row;
}

async function deliveriesOf(sql: postgres.Sql, account: CreatedAccount) {
  return await sql<
    {
      id: string;
      channel: string;
      status: string;
      attempt_count: number;
      failure_count: number;
      next_attempt_at: Date;
      last_attempt_at: Date | null;
      last_error: string | null;
      event_type: string;
      domain_name: string;
    }[]
  >`select d.id, d.channel, d.status, d.attempt_count, d.failure_count, d.next_attempt_at, d.last_attempt_at,
           d.last_error, e.type as event_type, e.domain_name
    from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
    where d.user_id = ${account.user_id} order by d.created_at`;
}

async function attemptsOf(sql: postgres.Sql, deliveryId: string) {
  return await sql<{ outcome: string; http_status: number | null; error: string | null }[]>`
    select outcome, http_status, error from public.alert_delivery_attempts
    where delivery_id = ${deliveryId} order by id`;
}

function pendingDeleteDomain(name: string, dropInMs: number): Record<string, unknown> {
  const enteredPendingDelete = new Date(Date.now() + dropInMs - 5 * 86_400_000).toISOString();
  return {
    ...minimalDomain(name),
    status: ["pending delete"],
    events: [
      { eventAction: "registration", eventDate: "2015-03-01T00:00:00Z" },
      { eventAction: "expiration", eventDate: "2026-08-01T00:00:00Z" },
      { eventAction: "last changed", eventDate: enteredPendingDelete },
    ],
  };
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---------------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------------

Deno.test("poller and alerts end to end", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: [TLD, LIAR_TLD] });
  // The registry proves it can say "found" for polltest: its canary is registered.
  rdap.setDomain(`nic.${TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const telegram = startFakeTelegram();
  const receiver = startWebhookReceiver();
  const stack = await startStack({
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
    TELEGRAM_API_BASE: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    POLLER_TIME_BUDGET_MS: "8000",
    DELIVERY_TIME_BUDGET_MS: "8000",
    DELIVERY_IDLE_LINGER_MS: "100",
  });
  const createdAccounts: string[] = [];
  const runTag = String(100_000 + Math.floor(Math.random() * 800_000));
  const world: World = {
    stack,
    rdap,
    dns,
    telegram,
    receiver,
    account: async (plan) => {
      const account = await stack.account(plan);
      createdAccounts.push(account.user_id);
      return account;
    },
    chat: (label) => `${runTag}${String(label).padStart(2, "0")}`,
  };
  const { sql } = stack;
  await setRdapHostLimit(sql, rdap.url, 50);
  await setWebhookTargetPolicy(sql, true);
  await registerBotWebhook(sql, telegram, stack.functionsBase);

  try {
    await t.step("the poller answers only POST with its bearer secret", async () => {
      for (
        const url of [`${stack.functionsBase}/rdap-poller`, `${stack.functionsBase}/rdap-poller/deliveries`]
      ) {
        const missing = await fetch(url, { method: "POST" });
        assertEquals(missing.status, 401);
        assertEquals((await missing.json()).error, "unauthorized");
        const wrong = await fetch(url, {
          method: "POST",
          headers: { authorization: "Bearer not-the-secret" },
        });
        assertEquals(wrong.status, 401);
        await wrong.body?.cancel();
        const get = await fetch(url, { headers: { authorization: `Bearer ${pollerSecret()}` } });
        assertEquals(get.status, 405);
        await get.body?.cancel();
      }
    });

    await t.step("the pg_cron job's command calls the poller through Vault and pg_net", async () => {
      const [job] = await sql<{ schedule: string; command: string }[]>`
        select schedule, command from cron.job where jobname = 'rdap-poller'`;
      assertEquals(job.schedule, "* * * * *");
      await removePollerVaultSecrets(sql);
      const [none] = await sql<{ id: number | null }[]>`select private.invoke_rdap_poller() as id`;
      assertEquals(none.id, null, "without the Vault secrets the job does nothing");

      const account = await world.account("pro");
      const name = uniqueName("cron");
      rdap.setDomain(name, { status: 200 });
      await watch(sql, account, [name]);
      await storePollerVaultSecrets(sql, { projectUrl: stack.gateway.url, pollerSecret: pollerSecret() });
      const worker = await startNetWorker(databaseUrl(), 60_000);
      try {
        await sql.unsafe(job.command);
        await worker.drain();
      } finally {
        await worker.close();
        await removePollerVaultSecrets(sql);
      }
      assertEquals((await domainRow(sql, name)).status, "registered");
      assertEquals(rdapRequests(rdap, name), 1);
    });

    await t.step("a drop alerts every watcher once on Telegram and by a signed webhook", async () => {
      await dropScenario(world);
    });

    await t.step("a receiver failing three times gets the delivery on the fourth, same id", async () => {
      await failingReceiverScenario(world);
    });

    await t.step("a poller killed mid-batch loses nothing", async () => {
      await killedPollerScenario(world);
    });

    await t.step("two pollers in parallel check each name once; delegated names need no RDAP", async () => {
      await parallelPollersScenario(world);
    });

    await t.step("a crash between the state write and the sends loses nothing and sends once", async () => {
      await crashBetweenStepsScenario(world);
    });

    await t.step("private webhook targets are refused when saved and when sent", async () => {
      await privateTargetsScenario(world);
    });

    await t.step("a registry that answers 404 for everything never makes a name available", async () => {
      await unprovenRegistryScenario(world);
    });

    // Last: the RDAP 429 pauses the fake registry's host in this process for two minutes.
    await t.step("429s from Telegram and RDAP are honoured", async () => {
      await rateLimitScenario(world);
    });
  } finally {
    // The deliveries this run leaves pending: the 2-minute Telegram 429, the unresolvable webhook.
    await leaveNothingDue(sql, [TLD, LIAR_TLD], createdAccounts);
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await receiver.close();
    await telegram.close();
    await dns.close();
    await rdap.close();
  }
});

// ---------------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------------

async function dropScenario(world: World): Promise<void> {
  const { stack, rdap, telegram, receiver, chat } = world;
  const { sql } = stack;
  const name = uniqueName("drop");
  // In pending delete, predicted to drop within the hour: checked every minute.
  rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, 30 * 60_000) });

  const alice = await world.account("pro"); // Telegram + signed webhook
  const bob = await world.account("business"); // Telegram + signed webhook + a disabled webhook
  const carol = await world.account("free"); // Telegram only (no webhooks on Free)
  const dave = await world.account("pro"); // watched it, then removed it
  const erin = await world.account("pro"); // watches it, no channel
  const secrets = { alice: "alice-signing-secret-0123", bob: "bob-signing-secret-456789" };
  await setTelegramChat(world, alice, chat(1));
  await setTelegramChat(world, bob, chat(2));
  await setTelegramChat(world, carol, chat(3));
  await setTelegramChat(world, dave, chat(4));
  await createWebhook(sql, alice, receiver.endpoint("alice", { secret: secrets.alice }), secrets.alice);
  await createWebhook(sql, bob, receiver.endpoint("bob", { secret: secrets.bob }), secrets.bob);
  const bobDisabled = await createWebhook(sql, bob, receiver.endpoint("bob-off"), null);
  await asAccount(
    sql,
    bob,
    (tx) => tx`select public.update_webhook_endpoint(${bobDisabled}, null, null, false)`,
  );
  for (const account of [alice, bob, carol, dave, erin]) await watch(sql, account, [name]);
  await asAccount(sql, dave, (tx) => tx`select public.remove_watchlist_domain(${name})`);

  await makeDue(sql, [name]);
  await runPoller(stack);
  const pending = await domainRow(sql, name);
  assertEquals(pending.status, "pending_delete");
  assertEquals(rdapRequests(rdap, name), 1, "one RDAP request for five watchers");
  const nextInMs = pending.next_check_at.getTime() - pending.last_checked_at!.getTime();
  assertEquals(nextInMs, 60_000, "checked every minute this close to the predicted drop");
  assertEquals((await sql`select 1 from public.alert_events where domain_name = ${name}`).length, 0);

  // The registry lets the name go.
  rdap.setDomain(name, { status: 404 });
  await makeDue(sql, [name]);
  const summary = await runPoller(stack);
  assert(summary.became_available >= 1, JSON.stringify(summary));
  assertEquals((await domainRow(sql, name)).status, "available");
  assertEquals(rdapRequests(rdap, name), 2);

  const events = await sql<{ user_id: string; previous_status: string }[]>`
    select user_id, previous_status from public.alert_events where domain_name = ${name} order by user_id`;
  assertEquals(
    events.map((event) => event.user_id).sort(),
    [alice, bob, carol, erin].map((account) => account.user_id).sort(),
    "one event per active watcher",
  );
  assert(events.every((event) => event.previous_status === "pending_delete"));

  for (const chatId of [chat(1), chat(2), chat(3)]) {
    const messages = telegram.delivered(chatId);
    assertEquals(messages.length, 1, `exactly one Telegram message to ${chatId}`);
    assert(messages[0].text.startsWith(`${name} is available.`), messages[0].text);
    assertMatch(
      messages[0].text,
      /Seen free at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(it was pending delete\)\./,
    );
  }
  assertEquals(telegram.delivered(chat(4)).length, 0, "no alert for an account that removed the name");

  for (const [hook, secret] of [["alice", secrets.alice], ["bob", secrets.bob]] as const) {
    const received = receiver.accepted(hook);
    assertEquals(received.length, 1, `exactly one webhook for ${hook}`);
    const [webhook] = received;
    assertEquals(webhook.signatureValid, true, "verified by @octokit/webhooks-methods");
    assertEquals(webhook.standardValid, true, "webhook-signature verified by standardwebhooks");
    assertEquals(webhook.headers["webhook-id"], webhook.headers["x-service-delivery"]);
    assert(!JSON.stringify(webhook.headers).includes(secret), "the secret is never sent");
    assertEquals(webhook.headers["content-type"], "application/json");
    assertEquals(webhook.headers["x-service-event"], "domain.available");
    assertMatch(webhook.headers["x-service-delivery"], /^[0-9a-f-]{36}$/);
    const body = JSON.parse(webhook.rawBody);
    assertEquals(Object.keys(body), ["id", "type", "created_at", "data"]);
    assertMatch(body.id, /^evt_[0-9a-f]{32}$/);
    assertEquals(body.type, "domain.available");
    assertEquals(body.data.domain_name, name);
    assertEquals(body.data.unicode_name, null);
    assertEquals(body.data.previous_status, "pending_delete");
    assertEquals(body.data.status, "available");
    assert(!Number.isNaN(Date.parse(body.data.checked_at)));
  }
  assertEquals(
    receiver.accepted("alice")[0].headers["x-service-delivery"] !==
      receiver.accepted("bob")[0].headers["x-service-delivery"],
    true,
    "delivery ids are unique per delivery",
  );
  assertEquals(receiver.received.filter((hook) => hook.endpoint === "bob-off").length, 0);

  // Checked again while still available: no new transition, nothing sent again.
  await makeDue(sql, [name]);
  await runPoller(stack);
  assertEquals(telegram.delivered(chat(1)).length, 1);
  assertEquals(receiver.accepted("alice").length, 1);
  assertEquals((await sql`select 1 from public.alert_events where domain_name = ${name}`).length, 4);

  // The owner sees the delivery history (no secrets in it), and can send a test event.
  const history = await asAccount(
    sql,
    alice,
    (tx) => tx<{ channel: string; status: string }[]>`select channel, status from public.alert_deliveries`,
  );
  assertEquals(history.map((row) => `${row.channel}:${row.status}`).sort(), [
    "telegram:delivered",
    "webhook:delivered",
  ]);
  const [hook] = await asAccount(
    sql,
    alice,
    (tx) => tx<{ id: string }[]>`select id from public.webhook_endpoints`,
  );
  await asAccount(sql, alice, (tx) => tx`select public.send_webhook_test(${hook.id})`);
  await runPoller(stack);
  const test = receiver.accepted("alice").at(-1)!;
  assertEquals(test.headers["x-service-event"], "test");
  assertEquals(JSON.parse(test.rawBody).type, "test");
  assertEquals(test.signatureValid, true);
}

async function failingReceiverScenario(world: World): Promise<void> {
  const { stack, rdap, receiver } = world;
  const { sql } = stack;
  const frank = await world.account("pro");
  const secret = "frank-signing-secret-42";
  await createWebhook(sql, frank, receiver.endpoint("frank", { secret, failWith: [500, 302, 503] }), secret);
  const name = uniqueName("retry");
  rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, 86_400_000) });
  await watch(sql, frank, [name]);
  await makeDue(sql, [name]);
  await runPoller(stack);
  rdap.setDomain(name, { status: 404 });
  await makeDue(sql, [name]);
  await runPoller(stack);

  const [first] = await deliveriesOf(sql, frank);
  assertEquals(first.status, "pending");
  assertEquals(first.failure_count, 1);
  const retryInMs = first.next_attempt_at.getTime() - first.last_attempt_at!.getTime();
  assert(Math.abs(retryInMs - 60_000) < 2_000, `retried a minute later (${retryInMs} ms)`);

  for (let attempt = 2; attempt <= 4; attempt++) {
    // Time passes: the retry is due.
    await sql`update public.alert_deliveries set next_attempt_at = now() where id = ${first.id}`;
    await runPoller(stack);
  }
  const hooks = receiver.received.filter((hook) => hook.endpoint === "frank");
  assertEquals(hooks.map((hook) => hook.status), [500, 302, 503, 200]);
  assertEquals(
    new Set(hooks.map((hook) => hook.headers["x-service-delivery"])).size,
    1,
    "the same delivery id",
  );
  assertEquals(hooks[0].headers["x-service-delivery"], first.id);
  assertEquals(new Set(hooks.map((hook) => hook.rawBody)).size, 1, "the same body");
  assert(hooks.every((hook) => hook.signatureValid === true));
  assertEquals(
    receiver.received.filter((hook) => hook.endpoint === "frank-moved").length,
    0,
    "no redirect followed",
  );

  const [done] = await deliveriesOf(sql, frank);
  assertEquals([done.status, done.attempt_count, done.failure_count], ["delivered", 4, 3]);
  const attempts = await attemptsOf(sql, done.id);
  assertEquals(attempts.map((a) => `${a.outcome}:${a.http_status}`), [
    "failed:500",
    "failed:302",
    "failed:503",
    "delivered:200",
  ]);
  assertEquals(attempts[1].error, "redirect_not_followed");
}

async function killedPollerScenario(world: World): Promise<void> {
  const { stack, rdap, dns } = world;
  const { sql } = stack;
  const owner = await world.account("pro");
  const names = Array.from({ length: 10 }, (_, i) => uniqueName(`kill${i}`));
  for (const name of names) rdap.setDomain(name, { status: 200 });
  rdap.setDomain(names[3], { status: "timeout" }); // the poller hangs here
  await watch(sql, owner, names);
  await makeDue(sql, names, "1999-01-01T00:00:00Z");

  const code = `
    import { runPoller } from "./supabase/functions/_shared/poller/run_poller.ts";
    import { defaultPollerDeps } from "./supabase/functions/_shared/poller/default_poller.ts";
    import { pollerSettings } from "./supabase/functions/_shared/poller/settings.ts";
    const settings = pollerSettings();
    await runPoller(defaultPollerDeps(), settings);`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: repoRoot,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      SUPABASE_DB_URL: databaseUrl(),
      RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
      DNS_NAMESERVER: dns.address,
      RDAP_TIMEOUT_MS: "120000",
      POLLER_TIME_BUDGET_MS: "120000",
      POLLER_LEASE_SECONDS: "4",
      POLLER_CONCURRENCY: "1",
      POLLER_BATCH_SIZE: "10",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitFor("the poller to hang on the fourth name", () => rdapRequests(rdap, names[3]) === 1, 30_000);
    await waitFor("the first three checks to be recorded", async () => {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from public.domains where name = any(${names}) and last_checked_at is not null`;
      return row.count === 3;
    });
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }

  for (const [index, name] of names.entries()) {
    const row = await domainRow(sql, name);
    if (index < 3) {
      assertEquals(row.status, "registered", name);
      assertEquals(row.lease_until, null);
    } else {
      assertEquals(row.last_checked_at, null, `${name} was claimed, not checked`);
      assert(row.lease_until !== null, `${name} is still leased to the dead poller`);
    }
  }
  const checkedBefore = await Promise.all(names.slice(0, 3).map((name) => domainRow(sql, name)));

  // A poller that starts while the lease holds finds nothing of these to do.
  await runPoller(stack);
  for (const name of names.slice(3)) assertEquals((await domainRow(sql, name)).last_checked_at, null);

  // After the lease, the names come back and are checked once.
  rdap.setDomain(names[3], { status: 200 });
  await new Promise((resolve) => setTimeout(resolve, 4_100));
  await runPoller(stack);
  for (const [index, name] of names.entries()) {
    const row = await domainRow(sql, name);
    assertEquals(row.status, "registered", name);
    assertEquals(row.lease_until, null);
    assertEquals(rdapRequests(rdap, name), index === 3 ? 2 : 1, `${name}: no check lost, none repeated`);
  }
  for (const [index, before] of checkedBefore.entries()) {
    const after = await domainRow(sql, names[index]);
    assertEquals(after.last_checked_at?.getTime(), before.last_checked_at?.getTime(), "not checked again");
  }
}

async function parallelPollersScenario(world: World): Promise<void> {
  const { stack, rdap, dns } = world;
  const { sql } = stack;
  const owners = [await world.account("pro"), await world.account("pro")];
  const registered = Array.from({ length: 30 }, (_, i) => uniqueName(`par${i}`));
  const delegated = Array.from({ length: 10 }, (_, i) => uniqueName(`ns${i}`));
  for (const name of registered) rdap.setDomain(name, { status: 200 });
  for (const name of delegated) {
    rdap.setDomain(name, { status: 200 });
    dns.setDelegated(name, ["ns1.registrar.example", "ns2.registrar.example"]);
  }
  const names = [...registered, ...delegated];
  // Both accounts watch every name: still one check per name.
  for (const owner of owners) await watch(sql, owner, names);
  // The delegated names after their first registry pass (expiry far off, asked a day ago): DNS decides them
  // (poller/dns_first.ts; tests/e2e/registry_questions.test.ts covers the registry's questions).
  await sql`update public.domains
            set status = 'registered', expires_at = now() + interval '200 days', registrar = 'Example',
                registry_asked_at = now() - interval '1 day'
            where name = any(${delegated})`;
  await makeDue(sql, names, "1999-06-01T00:00:00Z");

  const [first, second] = await Promise.all([runPoller(stack), runPoller(stack)]);
  assert(first.checked + second.checked >= names.length, JSON.stringify({ first, second }));
  assert(first.registered_by_dns + second.registered_by_dns >= delegated.length);

  for (const name of names) {
    const row = await domainRow(sql, name);
    assertEquals(row.status, "registered", name);
    assertEquals(dnsQueries(dns, name), 1, `${name}: one DNS look-up`);
  }
  for (const name of registered) assertEquals(rdapRequests(rdap, name), 1, `${name}: checked once`);
  for (const name of delegated) assertEquals(rdapRequests(rdap, name), 0, `${name}: delegated, no RDAP`);
}

async function crashBetweenStepsScenario(world: World): Promise<void> {
  const { stack, rdap, telegram, chat } = world;
  const { sql } = stack;
  const ivan = await world.account("pro");
  await setTelegramChat(world, ivan, chat(20));
  const name = uniqueName("crash");
  rdap.setDomain(name, { status: 404 });
  await watch(sql, ivan, [name]);
  await sql`update public.domains set status = 'pending_delete' where name = ${name}`;

  // A poller recorded the drop (state and outbox in one transaction) and died before sending anything.
  await sql`select private.record_domain_check(${name}, 'available', now(), null, null, true, 'poller')`;
  const [queued] = await deliveriesOf(sql, ivan);
  assertEquals([queued.channel, queued.status, queued.attempt_count], ["telegram", "pending", 0]);
  await runPoller(stack);
  await runPoller(stack);
  assertEquals(telegram.delivered(chat(20)).length, 1, "sent once, by the next run");

  // A dispatcher claimed a delivery and died before sending it: the lease keeps it until it ends.
  await asAccount(sql, ivan, (tx) => tx`select public.send_telegram_test()`);
  await sql`select * from private.claim_alert_deliveries(50, 2)`;
  await runPoller(stack);
  assertEquals(telegram.delivered(chat(20)).length, 1, "still leased to the dead dispatcher");
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  await runPoller(stack);
  assertEquals(telegram.delivered(chat(20)).length, 2, "sent once the lease ended");
  const deliveries = await deliveriesOf(sql, ivan);
  assertEquals(deliveries.map((d) => `${d.event_type}:${d.status}`), [
    "domain.available:delivered",
    "test:delivered",
  ]);
}

async function privateTargetsScenario(world: World): Promise<void> {
  const { stack, receiver } = world;
  const { sql } = stack;
  const gina = await world.account("pro");
  try {
    Deno.env.set("WEBHOOK_ALLOW_PRIVATE_TARGETS", "false");
    await setWebhookTargetPolicy(sql, false);

    for (
      const url of [
        "http://hooks.example.com/x",
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[fd00::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://10.0.0.1/hook",
        "https://2130706433/hook",
        "https://localhost/hook",
      ]
    ) {
      assertEquals(await sqlState(() => createWebhook(sql, gina, url, null)), "DW400", url);
    }
    const direct = await sqlState(() =>
      asAccount(
        sql,
        gina,
        (tx) => tx`insert into public.webhook_endpoints (url) values ('https://169.254.169.254/')`,
      )
    );
    assertEquals(direct, "42501", "a plain insert is refused: webhooks are written through the functions");

    // Saved while private targets were allowed, refused at send time once they are not.
    await setWebhookTargetPolicy(sql, true);
    const local = await createWebhook(sql, gina, receiver.endpoint("gina"), null);
    await setWebhookTargetPolicy(sql, false);
    // A public-looking name is checked at send time by resolving it (through DNS_NAMESERVER).
    const named = await createWebhook(
      sql,
      gina,
      `https://hooks.gina-${crypto.randomUUID().slice(0, 6)}.${TLD}/x`,
      null,
    );
    await asAccount(sql, gina, (tx) => tx`select public.send_webhook_test(${local})`);
    await asAccount(sql, gina, (tx) => tx`select public.send_webhook_test(${named})`);
    await runPoller(stack);

    assertEquals(receiver.received.filter((hook) => hook.endpoint === "gina").length, 0, "nothing sent");
    const [toLocal, toNamed] = await deliveriesOf(sql, gina);
    assertEquals(toLocal.status, "failed");
    assertMatch(toLocal.last_error ?? "", /^target_not_allowed/);
    assertEquals((await attemptsOf(sql, toLocal.id))[0].outcome, "refused");
    assertEquals([toNamed.status, toNamed.failure_count], ["pending", 1], "unresolvable now: retried later");
    assertMatch(toNamed.last_error ?? "", /^target_unresolved/);
  } finally {
    Deno.env.set("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true");
    await setWebhookTargetPolicy(sql, true);
  }
}

async function unprovenRegistryScenario(world: World): Promise<void> {
  const { stack, rdap, telegram, receiver, chat } = world;
  const { sql } = stack;
  const owner = await world.account("pro");
  await setTelegramChat(world, owner, chat(40));
  const secret = "liar-signing-secret-0123";
  await createWebhook(sql, owner, receiver.endpoint("liar", { secret }), secret);
  const names = [0, 1, 2].map((i) => `liar${i}-${crypto.randomUUID().slice(0, 8)}.${LIAR_TLD}`);
  await watch(sql, owner, names);
  // Even a name that was pending delete (a drop would alert) stays unknown.
  await sql`update public.domains set status = 'pending_delete' where name = ${names[0]}`;
  const canaryRequests = () => rdap.requests.filter((r) => r.path === `/domain/nic.${LIAR_TLD}`).length;

  for (let run = 0; run < 2; run++) {
    await makeDue(sql, names, "1997-01-01T00:00:00Z");
    const summary = await runPoller(stack);
    assertEquals(summary.became_available, 0, JSON.stringify(summary));
    for (const name of names) {
      assertEquals(rdapRequests(rdap, name), run + 1, name);
      assert((await domainRow(sql, name)).status !== "available", name);
    }
  }
  assertEquals((await domainRow(sql, names[1])).status, "unknown");
  assertEquals(canaryRequests(), 1, "the failed canary is not asked again within its retry time");
  const [proof] = await sql<{ state: string }[]>`
    select state from public.rdap_server_proofs where server_url = ${rdap.url} and suffix = ${LIAR_TLD}`;
  assertEquals(proof.state, "failed");
  assertEquals((await sql`select 1 from public.alert_events where domain_name = any(${names})`).length, 0);
  assertEquals(telegram.delivered(chat(40)).length, 0, "no Telegram alert");
  assertEquals(receiver.received.filter((hook) => hook.endpoint === "liar").length, 0, "no webhook");
}

async function rateLimitScenario(world: World): Promise<void> {
  const { stack, rdap, telegram, chat } = world;
  const { sql } = stack;

  // Telegram asks to wait 1 s: the run waits and sends it.
  const hank = await world.account("pro");
  await setTelegramChat(world, hank, chat(30));
  telegram.queueAnswers(chat(30), [{ status: 429, retryAfter: 1 }]);
  await asAccount(sql, hank, (tx) => tx`select public.send_telegram_test()`);
  await runPoller(stack);
  const calls = telegram.calls.filter((call) => call.chatId === chat(30));
  assertEquals(calls.map((call) => call.status), [429, 200]);
  assert(calls[1].at - calls[0].at >= 1_000, "retry_after respected");
  const [short] = await deliveriesOf(sql, hank);
  assertEquals([short.status, short.failure_count], ["delivered", 0]);
  assertEquals((await attemptsOf(sql, short.id)).map((a) => a.outcome), ["rate_limited", "delivered"]);

  // Telegram asks to wait 2 minutes: the delivery waits in the outbox.
  telegram.queueAnswers(chat(30), [{ status: 429, retryAfter: 120 }]);
  await asAccount(sql, hank, (tx) => tx`select public.send_telegram_test()`);
  const before = Date.now();
  await runPoller(stack);
  const [, long] = await deliveriesOf(sql, hank);
  assertEquals([long.status, long.failure_count], ["pending", 0]);
  const waitMs = long.next_attempt_at.getTime() - before;
  assert(waitMs >= 118_000 && waitMs <= 130_000, `next attempt in ${waitMs} ms`);
  assertEquals(telegram.calls.filter((call) => call.chatId === chat(30)).length, 3);

  // The registry answers 429 with Retry-After: 120 to the first name; the others are not asked.
  const owner = await world.account("pro");
  const names = [uniqueName("rl0"), uniqueName("rl1"), uniqueName("rl2")];
  rdap.setDomain(names[0], { status: 429, retryAfter: 120 });
  rdap.setDomain(names[1], { status: 200 });
  rdap.setDomain(names[2], { status: 200 });
  await watch(sql, owner, names);
  await makeDue(sql, names, "1998-01-01T00:00:00Z");
  const startedAt = Date.now();
  // One worker, so the names are checked in order: what starts after the 429 must wait for its pause.
  Deno.env.set("POLLER_CONCURRENCY", "1");
  try {
    await runPoller(stack);
  } finally {
    Deno.env.delete("POLLER_CONCURRENCY");
  }
  assertEquals(names.map((name) => rdapRequests(rdap, name)), [1, 0, 0]);
  const limited = await domainRow(sql, names[0]);
  assertEquals(limited.consecutive_failures, 1, "the 429 counts as a failed check");
  const [why] = await sql<{ unknown_reason: string | null }[]>`
    select unknown_reason from public.domains where name = ${names[0]}`;
  assertEquals(why.unknown_reason, "rdap_rate_limited", "the radar can say why the name is still unknown");
  assert(limited.next_check_at.getTime() >= startedAt + 115_000, "not before Retry-After");
  for (const name of names.slice(1)) {
    const row = await domainRow(sql, name);
    assertEquals([row.last_checked_at, row.consecutive_failures, row.lease_until], [null, 0, null], name);
    assert(row.next_check_at.getTime() >= startedAt + 115_000, `${name} waits for the registry's pause`);
  }
}
