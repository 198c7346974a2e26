/** `X-Service-Signature`: `sha256=` + the hex HMAC-SHA256 of the raw body, keyed by the webhook's secret. */

import { toHex } from "../encoding.ts";

const encoder = new TextEncoder();

export async function webhookSignature(secret: string, rawBody: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(rawBody)));
  return `sha256=${toHex(mac)}`;
}
