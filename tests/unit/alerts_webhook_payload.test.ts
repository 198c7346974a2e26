import { verify } from "@octokit/webhooks-methods";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import { webhookBody, webhookHeaders } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import { webhookSignature } from "../../supabase/functions/_shared/alerts/signature.ts";

const event: AlertEvent = {
  id: "evt_0123456789abcdef0123456789abcdef",
  type: "domain.available",
  createdAt: new Date("2026-11-22T10:00:01.250Z"),
  domainName: "xn--bcher-kva.example",
  unicodeName: "bücher.example",
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-11-22T10:00:00.000Z"),
};

Deno.test("the webhook body has exactly the documented fields, in order", () => {
  const body = webhookBody(event);
  assertEquals(
    body,
    '{"id":"evt_0123456789abcdef0123456789abcdef","type":"domain.available",' +
      '"created_at":"2026-11-22T10:00:01.250Z","data":{"domain_name":"xn--bcher-kva.example",' +
      '"unicode_name":"bücher.example","previous_status":"pending_delete","status":"available",' +
      '"checked_at":"2026-11-22T10:00:00.000Z","evidence":null}}',
  );
  assertEquals(webhookBody(event), body, "the same bytes every time (retries sign the same body)");
});

Deno.test("the signature is sha256=<hex HMAC-SHA256>, verified by an independent library", async () => {
  const body = webhookBody(event);
  const signature = await webhookSignature("a-long-enough-secret", body);
  assertMatch(signature, /^sha256=[0-9a-f]{64}$/);
  assert(await verify("a-long-enough-secret", body, signature));
  assert(!(await verify("another-secret-entirely", body, signature)));
  assert(!(await verify("a-long-enough-secret", body.replace("available", "availablE"), signature)));
  // RFC 4231 test case 2: key "Jefe".
  assertEquals(
    await webhookSignature("Jefe", "what do ya want for nothing?"),
    "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});

Deno.test("headers: event, delivery id, signature when a secret is saved; never the secret", async () => {
  const body = webhookBody(event);
  const signature = await webhookSignature("s3cret-s3cret-s3cret", body);
  const headers = webhookHeaders(event, "5f1d7a4e-0000-4000-8000-000000000001", signature);
  assertEquals(headers["Content-Type"], "application/json");
  assertEquals(headers["X-Service-Event"], "domain.available");
  assertEquals(headers["X-Service-Delivery"], "5f1d7a4e-0000-4000-8000-000000000001");
  assertEquals(headers["X-Service-Signature"], signature);
  assert(!JSON.stringify(headers).includes("s3cret"));
  assert(!("X-Webhook-Secret" in headers));
  assert(!("X-Service-Signature" in webhookHeaders(event, "d", null)));
});
