/**
 * Delivery log and redelivery end to end: a webhook delivery fails at a local receiver, the
 * owner's log shows the attempt (status code, duration, time), the owner rotates the secret and redelivers
 * it — four parallel calls queue it once — and the woken delivery run (pg_net stand-in → gateway) sends the
 * same body under the same delivery id, signed with the current secret and a fresh timestamp, to the
 * receiver, which now answers 2xx. Another account can neither see nor redeliver it.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { startNetWorker } from "../../platform/pg_net/worker.ts";
import {
  removePollerVaultSecrets,
  setWebhookTargetPolicy,
  storePollerVaultSecrets,
} from "../../platform/postgres/vault.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl, startStack, type TestStack } from "../support/stack.ts";
import { startWebhookReceiver, verifyStandard } from "../fakes/webhook_receiver.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface LoggedAttempt {
  attempted_at: string;
  outcome: string;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
}

interface LoggedDelivery {
  id: string;
  event_id: string;
  status: string;
  redelivery_count: number;
  attempts: LoggedAttempt[];
}

interface DeliveryLog {
  deliveries: LoggedDelivery[];
  has_more: boolean;
  next_cursor: string | null;
}

async function deliveryLog(
  sql: postgres.Sql,
  account: CreatedAccount,
  webhookId: string,
): Promise<DeliveryLog> {
  const [row] = await asAccount(
    sql,
    account,
    (tx) => tx<{ log: DeliveryLog }[]>`select public.list_webhook_deliveries(${webhookId}) as log`,
  );
  return row.log;
}

function redeliver(sql: postgres.Sql, account: CreatedAccount, deliveryId: string) {
  return asAccount(
    sql,
    account,
    (tx) =>
      tx<{ result: { id: string; status: string } }[]>`
      select public.redeliver_webhook_delivery(${deliveryId}) as result`,
  ).then(([row]) => row.result);
}

function errorCode(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => "succeeded", (error) => String((error as { code?: string }).code));
}

/**
 * One due alert, created 26 hours ago: past the retry schedule's age limit, so the first failed attempt
 * is final (a delivery that has used up its retries, without waiting a day).
 */
async function queueOldAlert(sql: postgres.Sql, account: CreatedAccount, webhookId: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    with event as (
      insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at, created_at)
      values (${account.user_id}, 'domain.available', ${`redeliver-${crypto.randomUUID().slice(0, 8)}.com`},
              'pending_delete', 'available', now() - interval '26 hours', now() - interval '26 hours')
      returning id, created_at
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, created_at, next_attempt_at)
    select id, ${account.user_id}, 'webhook', ${webhookId}::uuid, created_at, now() from event
    returning id`;
  return row.id;
}

async function runDeliveries(stack: TestStack): Promise<void> {
  const response = await fetch(`${stack.functionsBase}/rdap-poller/deliveries`, {
    method: "POST",
    headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}` },
  });
  assertEquals(response.status, 200, await response.text());
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("delivery log and redelivery end to end", options, async (t) => {
  const receiver = startWebhookReceiver();
  const stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", DELIVERY_IDLE_LINGER_MS: "100" });
  const { sql } = stack;
  await setWebhookTargetPolicy(sql, true);
  const owner = await stack.account("pro");
  const other = await stack.account("pro");
  const firstSecret = "first-secret-for-redelivery-01";
  const [{ id: webhookId }] = await asAccount(
    sql,
    owner,
    (tx) =>
      tx<{ id: string }[]>`select public.create_webhook_endpoint(${
        receiver.endpoint("flaky", { secret: firstSecret, failWith: [503], delayMs: 120 })
      }, 'redelivery', ${firstSecret}) as id`,
  );
  let deliveryId = "";

  try {
    await t.step("a delivery fails at the receiver; the log shows the attempt", async () => {
      deliveryId = await queueOldAlert(sql, owner, webhookId);
      await runDeliveries(stack);
      const [failed] = receiver.received.filter((hook) => hook.endpoint === "flaky");
      assertEquals(failed.status, 503);
      assertEquals(failed.headers["x-service-delivery"], deliveryId);

      const log = await deliveryLog(sql, owner, webhookId);
      assertEquals(log.deliveries.map((d) => [d.id, d.status]), [[deliveryId, "failed"]]);
      const [attempt] = log.deliveries[0].attempts;
      assertEquals([attempt.outcome, attempt.http_status, attempt.error], ["failed", 503, "http_503"]);
      assert(
        attempt.duration_ms !== null && attempt.duration_ms >= 100,
        `duration ${attempt.duration_ms} ms`,
      );
      assert(Math.abs(Date.parse(attempt.attempted_at) - failed.at) < 5_000, "the attempt's time");
      const text = JSON.stringify(log);
      assert(!text.includes(receiver.url) && !text.includes("127.0.0.1"), "no URL in the log");
      assert(!text.includes(firstSecret), "no secret in the log");
    });

    await t.step("another account can neither see nor redeliver it (not found)", async () => {
      assertEquals(await errorCode(deliveryLog(sql, other, webhookId)), "DW404");
      assertEquals(await errorCode(redeliver(sql, other, deliveryId)), "DW404");
      assertEquals(
        await errorCode(redeliver(sql, other, crypto.randomUUID())),
        "DW404",
        "same as no delivery",
      );
      const visible = await asAccount(
        sql,
        other,
        (tx) => tx`select id from public.alert_deliveries where id = ${deliveryId}`,
      );
      assertEquals(visible.length, 0);
    });

    await t.step(
      "parallel redeliveries queue it once; the woken run sends the same body and id",
      async () => {
        // The secret is rotated first: the redelivery is signed with the current secret.
        const [{ secret: fresh }] = await asAccount(
          sql,
          owner,
          (tx) => tx<{ secret: string }[]>`select public.rotate_webhook_secret(${webhookId}) as secret`,
        );
        receiver.endpoint("flaky", { secret: fresh, delayMs: 120 });
        await storePollerVaultSecrets(sql, {
          projectUrl: stack.gateway.url,
          pollerSecret: Deno.env.get("POLLER_SECRET")!,
        });
        await sql`update public.alert_delivery_wake set last_wake_at = '-infinity'`;
        const outcomes = await Promise.all(
          [0, 1, 2, 3].map(() =>
            redeliver(sql, owner, deliveryId).then((r) => r.status, (e) => (e as { code: string }).code)
          ),
        );
        assertEquals(
          outcomes.sort(),
          ["DW409", "DW409", "DW409", "pending"],
          "one queued, the others refused: pending",
        );

        // The redelivery woke a run (a pg_net request is queued); the worker sends it to the gateway.
        const worker = await startNetWorker(databaseUrl(), 100);
        try {
          await waitFor("the redelivery", () => receiver.accepted("flaky").length === 1, 15_000);
        } finally {
          await worker.close();
          await removePollerVaultSecrets(sql);
        }
        const [failed, redelivered] = receiver.received.filter((hook) => hook.endpoint === "flaky");
        assertEquals(redelivered.status, 200);
        assertEquals(redelivered.rawBody, failed.rawBody, "the same body, byte for byte");
        assertEquals(redelivered.headers["x-service-delivery"], deliveryId);
        assertEquals(redelivered.headers["webhook-id"], deliveryId);
        assertEquals(redelivered.signatureValid, true, "X-Service-Signature with the current secret");
        assertEquals(redelivered.standardValid, true, "webhook-signature with the current secret");
        assert(verifyStandard(firstSecret, redelivered.rawBody, redelivered.headers), "the old one for 24 h");
        assert(
          Number(redelivered.headers["webhook-timestamp"]) >= Number(failed.headers["webhook-timestamp"]),
          "a fresh timestamp",
        );
        assert(Math.abs(Number(redelivered.headers["webhook-timestamp"]) * 1000 - redelivered.at) < 5_000);

        await waitFor("the outcome to be recorded", async () => {
          const log = await deliveryLog(sql, owner, webhookId);
          return log.deliveries[0].status === "delivered";
        }, 10_000);
        const log = await deliveryLog(sql, owner, webhookId);
        const [delivery] = log.deliveries;
        assertEquals([delivery.id, delivery.redelivery_count], [deliveryId, 1]);
        assertEquals(delivery.attempts.map((a) => [a.outcome, a.http_status]), [["delivered", 200], [
          "failed",
          503,
        ]]);
        assertEquals(
          receiver.received.filter((hook) => hook.endpoint === "flaky").length,
          2,
          "sent once more",
        );
      },
    );
  } finally {
    await sql`update public.alert_deliveries set status = 'failed', failed_at = now(), last_error = 'e2e cleanup'
              where status = 'pending' and user_id in (${owner.user_id}, ${other.user_id})`.catch(() => {});
    await removePollerVaultSecrets(sql).catch(() => {});
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await receiver.close();
  }
});
