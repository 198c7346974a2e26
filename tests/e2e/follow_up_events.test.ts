/**
 * Alerts that carry their evidence and follow the whole drop, end to end through the real gateway, poller,
 * delivery run and database, with local fakes of an RDAP registry, DNS, Telegram, Slack and a signed-webhook
 * receiver: `data.evidence` on domain.available, and domain.restored, domain.registered and domain.expiring,
 * each body checked against the schema `/openapi.json` publishes under `webhooks`; once per transition with
 * concurrent poller runs and live checks; the reminders at 30, 7 and 1 days on a controllable clock and
 * re-armed by a renewal; the delivery log and redelivery; a registry whose drops run 2 h late teaching the
 * predictions its offset.
 *
 * Names live under the made-up TLDs `followtest` and `latetest`, served only by this file's fake registry.
 * `FOLLOW_UP_SAMPLES=<file>` writes one delivered body of each event there (for the docs).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, uniqueDomain } from "../support/stack.ts";
import { fakesEnv, runBudgetsEnv } from "../support/fakes_env.ts";
import { registeredDomain, wholeSeconds } from "../support/rdap_domains.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { type ReceivedWebhook, startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import { startFakeSlack } from "../fakes/chat_webhooks.ts";
import { linkTelegramChat, registerBotWebhook } from "../support/telegram_link.ts";
import {
  checkNow,
  domainStatus,
  leaveNothingDue,
  makeDue,
  postToPoller,
  watch,
} from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "followtest";
const LATE_TLD = "latetest";
const DAY = 86_400_000;
const HOUR = 3_600_000;
const ALL_EVENTS = [
  "domain.available",
  "domain.pending_delete",
  "domain.restored",
  "domain.registered",
  "domain.expiring",
];
const SECRET = "follow-up-events-secret-0123";

const uniqueName = (label: string, tld = TLD): string => uniqueDomain(label, tld);

/** In pending delete since `enteredAt` (RDAP's last change): predicted to drop 5 days later. */
function pendingDeleteDomain(name: string, enteredAt: Date): Record<string, unknown> {
  return {
    ...minimalDomain(name),
    status: ["pending delete"],
    events: [
      { eventAction: "registration", eventDate: "2015-03-01T00:00:00Z" },
      { eventAction: "expiration", eventDate: "2026-08-01T00:00:00Z" },
      { eventAction: "last changed", eventDate: enteredAt.toISOString() },
    ],
  };
}

Deno.test("evidence and follow-up events end to end", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: [TLD, LATE_TLD] });
  rdap.setDomain(`nic.${TLD}`, { status: 200 });
  rdap.setDomain(`nic.${LATE_TLD}`, { status: 200 });
  const dns = await startFakeDns();
  const telegram = startFakeTelegram();
  const receiver = startWebhookReceiver();
  const slack = startFakeSlack();
  const stack = await startStack({
    ...fakesEnv({ rdap, dns, telegram }),
    SLACK_WEBHOOK_BASE_URL: slack.url,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    ...runBudgetsEnv,
    LIVE_CHECK_CACHE_SECONDS: "0",
  });
  const { sql } = stack;
  const accounts: string[] = [];
  await setRdapHostLimit(sql, rdap.url, 50);
  await setWebhookTargetPolicy(sql, true);
  await registerBotWebhook(sql, telegram, stack.functionsBase);
  await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;

  // The owner's channels: a signed webhook, a Slack endpoint and a Telegram chat, each asking for every event.
  const owner = await stack.account("pro");
  accounts.push(owner.user_id);
  const endpointName = `all-${crypto.randomUUID().slice(0, 8)}`;
  const slackPath = `/services/T27/B0027/${crypto.randomUUID().slice(0, 12)}`;
  const chatId = String(600_000_000 + Math.floor(Math.random() * 100_000_000));
  const [{ id: endpointId }] = await asAccount(
    sql,
    owner,
    (tx) =>
      tx<{ id: string }[]>`select public.create_webhook_endpoint(
      ${
        receiver.endpoint(endpointName, { secret: SECRET })
      }, 'e2e', ${SECRET}, 'generic', ${ALL_EVENTS}) as id`,
  );
  await asAccount(
    sql,
    owner,
    (tx) =>
      tx`select public.create_webhook_endpoint(${
        slack.hook(slackPath)
      }, 'e2e', null, 'slack', ${ALL_EVENTS})`,
  );
  await linkTelegramChat(sql, telegram, owner.user_id, chatId);
  telegram.forget(chatId);
  await asAccount(sql, owner, (tx) => tx`select public.set_telegram_event_types(${ALL_EVENTS})`);

  const document = await (await fetch(`${stack.apiBase}/openapi.json`)).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validators = new Map<string, (body: unknown) => boolean>();
  const assertPublished = (hook: ReceivedWebhook) => {
    const type = hook.headers["x-service-event"];
    let validate = validators.get(type) as ((body: unknown) => boolean) & { errors?: unknown };
    if (!validate) {
      validate = ajv.compile(document.webhooks[type].post.requestBody.content["application/json"].schema);
      validators.set(type, validate);
    }
    assert(validate(JSON.parse(hook.rawBody)), `${type}: ${JSON.stringify(validate.errors)} ${hook.rawBody}`);
  };
  /** The signed webhooks of one type about one name, each checked against the published schema. */
  const webhooks = (type: string, name: string) => {
    const hooks = receiver.accepted(endpointName).filter((hook) =>
      hook.headers["x-service-event"] === type && JSON.parse(hook.rawBody).data.domain_name === name
    );
    for (const hook of hooks) {
      assertEquals(hook.signatureValid, true, "X-Service-Signature verifies");
      assertEquals(hook.standardValid, true, "the Standard Webhooks signature verifies");
      assertPublished(hook);
    }
    return hooks;
  };
  const slackTexts = (name: string) =>
    slack.accepted(slackPath).map((hook) => (hook.body as { text: string }).text).filter((text) =>
      text.includes(name)
    );
  const chatTexts = (name: string) =>
    telegram.delivered(chatId).map((m) => m.text).filter((text) => text.includes(name));
  const samples: Record<string, unknown> = {};

  try {
    await t.step("domain.available carries the check's evidence in every channel", async () => {
      const name = uniqueName("free");
      await watch(sql, owner, [name]);
      rdap.setDomain(name, { status: 200 });
      await checkNow(stack, name);
      const enteredAt = wholeSeconds(new Date(Date.now() - 5 * DAY + HOUR));
      rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, enteredAt) });
      await checkNow(stack, name);
      rdap.setDomain(name, { status: 404 });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "available");

      const [hook] = webhooks("domain.available", name);
      assert(hook, "the signed webhook got domain.available");
      const body = JSON.parse(hook.rawBody);
      const evidence = body.data.evidence;
      assertEquals(Object.keys(evidence), [
        "source",
        "server",
        "answer",
        "canary_name",
        "canary_proved_at",
        "dns_rcode",
        "resolver",
        "checked_at",
      ]);
      assertEquals(evidence.source, "rdap");
      assertEquals(evidence.server, rdap.url);
      assertEquals(evidence.answer, 404);
      assertEquals(evidence.canary_name, `nic.${TLD}`);
      const [proof] = await sql<{ verified_at: Date }[]>`
        select verified_at from public.rdap_server_proofs where server_url = ${rdap.url} and suffix = ${TLD}`;
      const provedAt = Date.parse(evidence.canary_proved_at);
      assert(Math.abs(provedAt - proof.verified_at.getTime()) < 5_000, "when the canary last proved it");
      assert(provedAt <= Date.parse(evidence.checked_at) + 5_000, "before the check's answer was judged");
      assertEquals(evidence.dns_rcode, "NXDOMAIN");
      assertEquals(evidence.resolver, dns.address);
      assertEquals(evidence.checked_at, body.data.checked_at);
      samples["domain.available"] = body;
      samples["domain.pending_delete"] = JSON.parse(webhooks("domain.pending_delete", name)[0].rawBody);

      const line = new RegExp(
        `Registry RDAP: not found · proven on nic\\.${TLD} (<1|\\d+) min ago · DNS NXDOMAIN`,
      );
      const [slackText] = slackTexts(`${name} is available`);
      assert(line.test(slackText), slackText);
      const [chatText] = chatTexts(`${name} is available`);
      assert(line.test(chatText), chatText);
      samples["telegram domain.available"] = chatText;
      samples["slack domain.available"] = slackText;

      const [observation] = await sql<{ predicted_drop_at: Date; basis: string; registry: string }[]>`
        select predicted_drop_at, basis, registry from public.drop_observations where domain_name = ${name}`;
      assertEquals(
        observation.predicted_drop_at.toISOString(),
        new Date(enteredAt.getTime() + 5 * DAY).toISOString(),
      );
      assertEquals([observation.basis, observation.registry], ["pending_delete_period", TLD]);
    });

    await t.step("domain.restored: the drop is off", async () => {
      const name = uniqueName("kept");
      await watch(sql, owner, [name]);
      rdap.setDomain(name, {
        status: 200,
        body: pendingDeleteDomain(name, wholeSeconds(new Date(Date.now() - DAY))),
      });
      await checkNow(stack, name);
      const renewedTo = wholeSeconds(new Date(Date.now() + 365 * DAY));
      rdap.setDomain(name, { status: 200, body: registeredDomain(name, renewedTo, "Keeper Registrar") });
      await checkNow(stack, name);
      await checkNow(stack, name);
      const hooks = webhooks("domain.restored", name);
      assertEquals(hooks.length, 1, "once");
      const body = JSON.parse(hooks[0].rawBody);
      assertEquals(body.data.previous_status, "pending_delete");
      assertEquals(body.data.registrar, "Keeper Registrar");
      assertEquals(body.data.expires_at, renewedTo.toISOString());
      samples["domain.restored"] = body;
      assertEquals(slackTexts(`${name} was restored`).length, 1);
      assertEquals(chatTexts(`${name} was restored: the drop is off.`).length, 1);
      assertEquals(webhooks("domain.registered", name).length, 0, "a restore is not a registration");
    });

    await t.step("domain.registered: someone registered a free name, with the registrar", async () => {
      const name = uniqueName("taken");
      await watch(sql, owner, [name]);
      rdap.setDomain(name, { status: 404 });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "available");
      rdap.setDomain(name, {
        status: 200,
        body: registeredDomain(name, wholeSeconds(new Date(Date.now() + 365 * DAY))),
      });
      await checkNow(stack, name);
      assertEquals(await domainStatus(sql, name), "registered");
      const hooks = webhooks("domain.registered", name);
      assertEquals(hooks.length, 1);
      const body = JSON.parse(hooks[0].rawBody);
      assertEquals([body.data.previous_status, body.data.registrar], [
        "available",
        "Example Registrar, Inc.",
      ]);
      samples["domain.registered"] = body;
      assertEquals(slackTexts(`${name} was registered (registrar: Example Registrar, Inc.)`).length, 1);
      assertEquals(chatTexts(`${name} was registered`).length, 1);
    });

    await t.step(
      "domain.expiring at 30, 7 and 1 days on a controllable clock, re-armed by a renewal",
      async () => {
        const name = uniqueName("mine");
        await watch(sql, owner, [name]);
        const expiresAt = wholeSeconds(new Date(Date.now() + 40 * DAY));
        rdap.setDomain(name, { status: 200, body: registeredDomain(name, expiresAt) });
        await checkNow(stack, name);
        const remind = async (daysOut: number, expiry = expiresAt) => {
          const at = new Date(expiry.getTime() - daysOut * DAY);
          await sql`select private.queue_domain_expiring_alerts(${at})`;
          await postToPoller(stack, "/rdap-poller/deliveries");
        };
        const reminders = () =>
          webhooks("domain.expiring", name).map((hook) => JSON.parse(hook.rawBody).data.days_before);
        await remind(35);
        assertEquals(reminders(), []);
        await remind(29.5);
        await remind(29);
        assertEquals(reminders(), [30], "the 30-day reminder, once");
        await remind(6.5);
        await remind(0.5);
        await remind(0.25);
        assertEquals(reminders(), [30, 7, 1]);
        const [last] = webhooks("domain.expiring", name).slice(-1);
        assertEquals(JSON.parse(last.rawBody).data.expires_at, expiresAt.toISOString());
        samples["domain.expiring"] = JSON.parse(webhooks("domain.expiring", name)[1].rawBody);
        assertEquals(slackTexts(`${name} expires on`).length, 3);
        assertEquals(chatTexts(`${name} expires on`).length, 3);
        assert(chatTexts(`${name} expires on`)[1].includes("This is the 7-day reminder"));

        // Renewed for a year: the registry's new date re-arms the reminders; first seen 6 days out: 7 only.
        const renewed = wholeSeconds(new Date(expiresAt.getTime() + 365 * DAY));
        rdap.setDomain(name, { status: 200, body: registeredDomain(name, renewed) });
        await checkNow(stack, name);
        await remind(6, renewed);
        assertEquals(reminders(), [30, 7, 1, 7]);
        assertEquals(
          JSON.parse(webhooks("domain.expiring", name)[3].rawBody).data.expires_at,
          renewed.toISOString(),
        );
      },
    );

    await t.step("once per transition with concurrent poller runs and live checks", async () => {
      const watcher = await stack.account("pro");
      accounts.push(watcher.user_id);
      const hookName = `conc-${crypto.randomUUID().slice(0, 8)}`;
      await asAccount(
        sql,
        watcher,
        (tx) =>
          tx`select public.create_webhook_endpoint(${
            receiver.endpoint(hookName)
          }, 'e2e', null, 'generic', ${ALL_EVENTS})`,
      );
      const dropping = uniqueName("cdrop");
      const restoring = uniqueName("crest");
      const taking = uniqueName("ctake");
      await watch(sql, watcher, [dropping, restoring, taking]);
      rdap.setDomain(dropping, { status: 200 });
      rdap.setDomain(restoring, {
        status: 200,
        body: pendingDeleteDomain(restoring, wholeSeconds(new Date(Date.now() - DAY))),
      });
      rdap.setDomain(taking, { status: 404 });
      await checkNow(stack, dropping, restoring, taking);
      rdap.setDomain(dropping, { status: 404 });
      rdap.setDomain(restoring, {
        status: 200,
        body: registeredDomain(restoring, new Date(Date.now() + 300 * DAY)),
      });
      rdap.setDomain(taking, {
        status: 200,
        body: registeredDomain(taking, new Date(Date.now() + 300 * DAY)),
      });
      const names = [dropping, restoring, taking];
      const deliveredBefore = receiver.accepted(hookName).length;
      const [{ now: startedAt }] = await sql<{ now: Date }[]>`select now()`;
      await makeDue(sql, names);
      const live = (name: string) =>
        fetch(`${stack.apiBase}/check/${name}`, { headers: { "x-api-key": watcher.api_key! } }).then((r) =>
          r.json()
        );
      await Promise.all([
        postToPoller(stack, "/rdap-poller"),
        postToPoller(stack, "/rdap-poller"),
        postToPoller(stack, "/rdap-poller"),
        ...names.flatMap((name) => [live(name), live(name)]),
      ]);
      await postToPoller(stack, "/rdap-poller/deliveries");
      const counts = await sql<{ domain_name: string; type: string; n: number }[]>`
        select domain_name, type, count(*)::int as n from public.alert_events
         where user_id = ${watcher.user_id} and domain_name = any(${names}::text[])
           and created_at > ${startedAt}
         group by domain_name, type order by domain_name`;
      assertEquals(
        counts.map((row) => `${row.domain_name} ${row.type} ${row.n}`).sort(),
        [`${dropping} domain.available 1`, `${restoring} domain.restored 1`, `${taking} domain.registered 1`]
          .sort(),
      );
      const delivered = receiver.accepted(hookName).slice(deliveredBefore).map((hook) =>
        hook.headers["x-service-event"]
      )
        .sort();
      assertEquals(delivered, ["domain.available", "domain.registered", "domain.restored"]);
      const available = receiver.accepted(hookName).slice(deliveredBefore)
        .find((hook) => hook.headers["x-service-event"] === "domain.available")!;
      assert(JSON.parse(available.rawBody).data.evidence !== null, "evidence whichever check recorded it");

      // Concurrent reminder runs queue each reminder once.
      const expiring = uniqueName("cexp");
      await watch(sql, watcher, [expiring]);
      rdap.setDomain(expiring, {
        status: 200,
        body: registeredDomain(expiring, new Date(Date.now() + 3 * DAY)),
      });
      await checkNow(stack, expiring);
      await Promise.all([1, 2, 3, 4].map(() => sql`select private.queue_domain_expiring_alerts()`));
      const [reminded] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.alert_events where user_id = ${watcher.user_id}
           and domain_name = ${expiring} and type = 'domain.expiring'`;
      assertEquals(reminded.n, 1, "first seen 3 days out: one 7-day reminder");
    });

    await t.step("the delivery log lists the new events and redelivery sends the same body", async () => {
      const log = await asAccount(
        sql,
        owner,
        (tx) =>
          tx<{ log: { deliveries: { id: string; event_type: string; status: string }[] } }[]>`
          select public.list_webhook_deliveries(${endpointId}, 100) as log`,
      );
      const deliveries = log[0].log.deliveries;
      const types = new Set(deliveries.map((delivery) => delivery.event_type));
      for (const type of ALL_EVENTS) assert(types.has(type), `${type} in the log`);
      const restored = deliveries.find((delivery) => delivery.event_type === "domain.restored")!;
      assertEquals(restored.status, "delivered");
      const before = receiver.accepted(endpointName).filter((hook) =>
        hook.headers["x-service-delivery"] === restored.id
      );
      await asAccount(sql, owner, (tx) => tx`select public.redeliver_webhook_delivery(${restored.id})`);
      await postToPoller(stack, "/rdap-poller/deliveries");
      const after = receiver.accepted(endpointName).filter((hook) =>
        hook.headers["x-service-delivery"] === restored.id
      );
      assertEquals(after.length, before.length + 1);
      assertEquals(after.at(-1)!.rawBody, before[0].rawBody, "byte for byte the same body");
      assertEquals(after.at(-1)!.standardValid, true);
    });

    await t.step(
      "a registry whose drops run 2 h late: after 20 drops, new predictions move 2 h later",
      async () => {
        const watcher = await stack.account("pro");
        accounts.push(watcher.user_id);
        const names = Array.from({ length: 20 }, (_, i) => uniqueName(`late${i}`, LATE_TLD));
        await watch(sql, watcher, names);
        // Each entered pending delete 5 days and 2 hours ago: predicted to drop 2 hours ago; it drops now.
        const enteredAt = wholeSeconds(new Date(Date.now() - 5 * DAY - 2 * HOUR));
        for (const name of names) {
          rdap.setDomain(name, { status: 200, body: pendingDeleteDomain(name, enteredAt) });
        }
        await checkNow(stack, ...names);
        for (const name of names) {
          rdap.setDomain(name, { status: 404 });
        }
        await checkNow(stack, ...names);
        const [correction] = await sql<{ offset_seconds: number; observations: number; source: string }[]>`
        select offset_seconds, observations, source from public.drop_prediction_corrections
         where registry = ${LATE_TLD} and basis = 'pending_delete_period'`;
        assert(correction, "a correction was learnt");
        assertEquals(correction.observations, 20);
        assert(
          Math.abs(correction.offset_seconds - 2 * 3600) < 120,
          `about 2 h late: ${correction.offset_seconds} s`,
        );
        assert(correction.source.startsWith("measured: "), correction.source);

        const next = uniqueName("next", LATE_TLD);
        await watch(sql, watcher, [next]);
        const nextEntered = wholeSeconds(new Date(Date.now() - DAY));
        rdap.setDomain(next, { status: 200, body: pendingDeleteDomain(next, nextEntered) });
        await checkNow(stack, next);
        const [row] = await sql<{ predicted_drop_at: Date; prediction_correction_seconds: number }[]>`
        select predicted_drop_at, prediction_correction_seconds from public.domains where name = ${next}`;
        assertEquals(row.prediction_correction_seconds, correction.offset_seconds);
        assertEquals(
          row.predicted_drop_at.getTime(),
          nextEntered.getTime() + 5 * DAY + correction.offset_seconds * 1000,
          "the new prediction includes the registry's offset",
        );
      },
    );

    const sampleFile = Deno.env.get("FOLLOW_UP_SAMPLES");
    if (sampleFile) await Deno.writeTextFile(sampleFile, JSON.stringify(samples, null, 2));
  } finally {
    await leaveNothingDue(sql, [TLD, LATE_TLD], accounts);
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await slack.close();
    await receiver.close();
    await telegram.close();
    await dns.close();
    await rdap.close();
  }
});
