/**
 * Standard Webhooks end to end: real deliveries through the gateway's delivery run to a local
 * receiver that verifies every one twice — `X-Service-Signature` with `@octokit/webhooks-methods`, the
 * standard headers with the `standardwebhooks` package — for user-chosen and generated secrets; retries,
 * replays, the 24 hours after a rotation, and the bodies against the schemas in `/openapi.json`.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { Ajv2020 } from "ajv/dist/2020.js";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack, type TestStack } from "../support/stack.ts";
import { type ReceivedWebhook, startWebhookReceiver, verifyStandard } from "../fakes/webhook_receiver.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** One due `domain.available` alert on the webhook, as the poller's transition trigger writes it. */
async function queueAlert(sql: postgres.Sql, account: CreatedAccount, webhookId: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    with event as (
      insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
      values (${account.user_id}, 'domain.available', ${`std-${crypto.randomUUID().slice(0, 8)}.com`},
              'pending_delete', 'available', now())
      returning id
    )
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
    select id, ${account.user_id}, 'webhook', ${webhookId}::uuid from event
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

function checkHeaders(hook: ReceivedWebhook) {
  assertEquals(hook.signatureValid, true, "X-Service-Signature verified by @octokit/webhooks-methods");
  assertEquals(hook.standardValid, true, "webhook-signature verified by standardwebhooks");
  assertEquals(hook.headers["webhook-id"], hook.headers["x-service-delivery"]);
  assertMatch(hook.headers["webhook-timestamp"], /^\d{10}$/);
  assert(Math.abs(Number(hook.headers["webhook-timestamp"]) * 1000 - hook.at) < 5_000, "this attempt's time");
}

Deno.test("Standard Webhooks signatures end to end", options, async (t) => {
  const receiver = startWebhookReceiver();
  const stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", DELIVERY_IDLE_LINGER_MS: "100" });
  const { sql } = stack;
  await setWebhookTargetPolicy(sql, true);
  const owner = await stack.account("pro");
  const received: ReceivedWebhook[] = [];
  const createWebhook = async (name: string, secret: string | null) =>
    (await asAccount(
      sql,
      owner,
      (tx) =>
        tx<{ id: string }[]>`select public.create_webhook_endpoint(${
          receiver.endpoint(name)
        }, 'std', ${secret}) as id`,
    ))[0].id;
  const rotate = async (id: string) =>
    (await asAccount(
      sql,
      owner,
      (tx) => tx<{ secret: string }[]>`select public.rotate_webhook_secret(${id}) as secret`,
    ))[0]
      .secret;

  try {
    await t.step("user-chosen and generated secrets: both headers verify", async () => {
      const chosen = "chosen-secret-value-123";
      const chosenId = await createWebhook("chosen", chosen);
      receiver.endpoint("chosen", { secret: chosen });
      const generatedId = await createWebhook("generated", null);
      const generated = await rotate(generatedId);
      assertMatch(generated, /^whsec_[A-Za-z0-9+/]{43}=$/, "whsec_ + base64 of 32 random bytes");
      receiver.endpoint("generated", { secret: generated });

      const ids = [await queueAlert(sql, owner, chosenId), await queueAlert(sql, owner, generatedId)];
      await runDeliveries(stack);
      for (const [name, id] of [["chosen", ids[0]], ["generated", ids[1]]]) {
        const [hook] = receiver.accepted(name);
        checkHeaders(hook);
        assertEquals(hook.headers["webhook-id"], id);
        assertEquals(hook.headers["webhook-signature"].split(" ").length, 1);
        received.push(hook);
      }
    });

    await t.step("a retry: same webhook-id, fresh timestamp, valid signature", async () => {
      const secret = "retry-secret-value-456";
      const id = await createWebhook("retry", secret);
      receiver.endpoint("retry", { secret, failWith: [503] });
      const deliveryId = await queueAlert(sql, owner, id);
      await runDeliveries(stack);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await sql`update public.alert_deliveries set next_attempt_at = now() where id = ${deliveryId}`;
      await runDeliveries(stack);
      const [first, retry] = receiver.received.filter((hook) => hook.endpoint === "retry");
      assertEquals([first.status, retry.status], [503, 200]);
      checkHeaders(first);
      checkHeaders(retry);
      assertEquals([first.headers["webhook-id"], retry.headers["webhook-id"]], [deliveryId, deliveryId]);
      assert(Number(retry.headers["webhook-timestamp"]) > Number(first.headers["webhook-timestamp"]));
      assertEquals(first.rawBody, retry.rawBody);
      received.push(retry);
    });

    await t.step("a delivery replayed more than 5 minutes later is refused by standardwebhooks", () => {
      const [hook] = receiver.accepted("generated");
      const secret = "chosen-secret-value-123";
      const [chosen] = receiver.accepted("chosen");
      const realNow = Date.now;
      try {
        Date.now = () => realNow() + 6 * 60_000;
        assertEquals(verifyStandard(secret, chosen.rawBody, chosen.headers), false);
      } finally {
        Date.now = realNow;
      }
      assertEquals(verifyStandard(secret, chosen.rawBody, chosen.headers), true, "and accepted when fresh");
      assert(hook.standardValid);
    });

    await t.step("for 24 hours after a rotation the old and the new secret each verify", async () => {
      const old = "before-rotation-secret-789";
      const id = await createWebhook("rotating", old);
      const fresh = await rotate(id);
      receiver.endpoint("rotating", { secret: fresh });
      await queueAlert(sql, owner, id);
      await runDeliveries(stack);
      const [during] = receiver.accepted("rotating");
      checkHeaders(during);
      assertEquals(during.headers["webhook-signature"].split(" ").length, 2);
      assert(verifyStandard(old, during.rawBody, during.headers), "the old secret verifies");
      assert(verifyStandard(fresh, during.rawBody, during.headers), "the new secret verifies");
      received.push(during);

      const hidden = await asAccount(
        sql,
        owner,
        (tx) => tx`select previous_secret from public.webhook_endpoints`,
      )
        .then(() => "readable", (error) => (error as { code?: string }).code);
      assertEquals(hidden, "42501", "the previous secret is never readable by the account");

      // 24 hours later only the new secret signs.
      await sql`update public.webhook_endpoints set previous_secret_expires_at = now() - interval '1 second'
                where id = ${id}`;
      await queueAlert(sql, owner, id);
      await runDeliveries(stack);
      const after = receiver.accepted("rotating")[1];
      checkHeaders(after);
      assertEquals(after.headers["webhook-signature"].split(" ").length, 1);
      assert(!verifyStandard(old, after.rawBody, after.headers));
      received.push(after);

      // Setting a secret by hand drops the previous one at once.
      await rotate(id);
      await asAccount(
        sql,
        owner,
        (tx) => tx`select public.set_webhook_secret(${id}, 'hand-set-secret-000111')`,
      );
      const [row] = await sql<{ previous_secret: string | null }[]>`
        select previous_secret from public.webhook_endpoints where id = ${id}`;
      assertEquals(row.previous_secret, null);
    });

    await t.step("the webhook schemas in /openapi.json validate every body received", async () => {
      const response = await fetch(`${stack.apiBase}/openapi.json`);
      const doc = await response.json();
      assertEquals(doc.openapi, "3.1.0");
      const operation = doc.webhooks["domain.available"].post;
      const headerNames = operation.parameters.map((p: { name: string }) => p.name.toLowerCase());
      for (const name of ["x-service-delivery", "x-service-signature", "webhook-id", "webhook-timestamp"]) {
        assert(headerNames.includes(name), name);
      }
      const validate = new Ajv2020({ strict: false }).compile(
        operation.requestBody.content["application/json"].schema,
      );
      assert(received.length >= 5);
      for (const hook of received) {
        assert(validate(JSON.parse(hook.rawBody)), JSON.stringify(validate.errors));
      }
      assert(!validate({ ...JSON.parse(received[0].rawBody), type: "domain.gone" }), "the schema is strict");
    });
  } finally {
    await sql`update public.alert_deliveries set status = 'failed', failed_at = now(), last_error = 'e2e cleanup'
              where status = 'pending' and user_id = ${owner.user_id}`.catch(() => {});
    await setWebhookTargetPolicy(sql, false).catch(() => {});
    await stack.close();
    await receiver.close();
  }
});
