/** Signing a webhook body (Web Crypto HMAC-SHA256) against node:crypto's createHmac on the same body. */
import { createHmac } from "node:crypto";
import { webhookSignature } from "../supabase/functions/_shared/alerts/signature.ts";

const secret = "whsec_" + "ab".repeat(32);
const body = JSON.stringify({
  id: "evt_0123456789abcdef0123456789abcdef",
  type: "domain.available",
  created_at: "2026-11-22T04:23:28.444Z",
  data: {
    domain_name: "drop-demo.com",
    unicode_name: null,
    previous_status: "pending_delete",
    status: "available",
    checked_at: "2026-11-22T04:23:28.444Z",
  },
});

Deno.bench("node:crypto createHmac", { group: "webhook-signature", baseline: true }, () => {
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
});

Deno.bench("webhookSignature (Web Crypto)", { group: "webhook-signature" }, async () => {
  await webhookSignature(secret, body);
});
