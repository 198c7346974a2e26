/**
 * Standard Webhooks signatures, checked against the standard's own library `standardwebhooks`:
 * the key rule, several keys during a rotation, replay refusal, the headers and the body's contract schema.
 */
import { Webhook } from "standardwebhooks";
import { assert, assertEquals } from "../support/assert.ts";
import {
  standardWebhookKey,
  standardWebhookSignature,
  webhookSignature,
} from "../../supabase/functions/_shared/alerts/signature.ts";
import { webhookBody, webhookHeaders } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import { domainAvailableEvent } from "../../supabase/functions/_shared/contract/webhook_event.ts";
import { verifyStandard } from "../fakes/webhook_receiver.ts";

const event: AlertEvent = {
  id: "evt_0123456789abcdef0123456789abcdef",
  type: "domain.available",
  createdAt: new Date("2026-11-23T10:00:00.123Z"),
  domainName: "xn--bcher-kva.de",
  unicodeName: "bücher.de",
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-11-23T10:00:00Z"),
};
const deliveryId = "5f0e2a55-3c1b-4d57-9a55-0b2f7f8d2a10";
const body = webhookBody(event);
const generated = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

async function headersFor(secrets: string[], timestamp = Math.floor(Date.now() / 1000)) {
  const signature = await standardWebhookSignature(secrets, deliveryId, timestamp, body);
  return webhookHeaders(event, deliveryId, await webhookSignature(secrets[0], body), {
    timestamp,
    signature,
  });
}

Deno.test("a generated whsec_ secret is keyed by its decoded bytes: the library verifies it as given", async () => {
  const headers = await headersFor([generated]);
  const payload = new Webhook(generated).verify(body, headers);
  assertEquals(payload, JSON.parse(body));
  assertEquals(standardWebhookKey(generated).length, 32);
});

Deno.test("any other secret is keyed by its UTF-8 bytes", async () => {
  for (
    const secret of ["frank-signing-secret-42", "geheimes-schlüssel-wort-ü", "whsec_not*base64*at-all__"]
  ) {
    const headers = await headersFor([secret]);
    new Webhook(new TextEncoder().encode(secret), { format: "raw" }).verify(body, headers);
    assert(verifyStandard(secret, body, headers), secret);
    assertEquals(standardWebhookKey(secret), new TextEncoder().encode(secret));
  }
});

Deno.test("during a rotation both keys sign: space-separated v1 entries, each verifies alone", async () => {
  const old = "user-chosen-secret-0123";
  const headers = await headersFor([generated, old]);
  const entries = headers["webhook-signature"].split(" ");
  assertEquals(entries.length, 2);
  assert(entries.every((entry) => /^v1,[A-Za-z0-9+/]{43}=$/.test(entry)));
  assert(verifyStandard(generated, body, headers), "the new secret verifies");
  assert(verifyStandard(old, body, headers), "the old secret verifies");
  assert(!verifyStandard("some-other-secret-42", body, headers));
});

Deno.test("a delivery replayed more than 5 minutes later is refused by the library", async () => {
  const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
  const replayed = await headersFor([generated], sixMinutesAgo);
  assert(!verifyStandard(generated, body, replayed));
  const fresh = await headersFor([generated]);
  assert(verifyStandard(generated, body, fresh));
  const tampered = { ...fresh, "webhook-timestamp": String(sixMinutesAgo + 6 * 60 - 1) };
  assert(!verifyStandard(generated, body, tampered), "the timestamp is signed");
});

Deno.test("headers: webhook-id is X-Service-Delivery; no standard headers without a secret", async () => {
  const headers = await headersFor([generated], 1_763_900_000);
  assertEquals(headers["webhook-id"], headers["X-Service-Delivery"]);
  assertEquals(headers["webhook-timestamp"], "1763900000");
  assert(headers["X-Service-Signature"].startsWith("sha256="));
  const unsigned = webhookHeaders(event, deliveryId, null);
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "X-Service-Signature"]) {
    assertEquals(unsigned[name], undefined, name);
  }
});

Deno.test("the body matches the contract schema that /openapi.json publishes", () => {
  const parsed = domainAvailableEvent.safeParse(JSON.parse(body));
  assert(parsed.success, JSON.stringify(parsed.error?.issues));
  const extra = domainAvailableEvent.safeParse({ ...JSON.parse(body), secret: "x" });
  assert(!extra.success, "no field beyond the contract");
});
