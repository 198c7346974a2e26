/**
 * The two webhook signatures.
 *
 * - `X-Service-Signature`: `sha256=` + the hex HMAC-SHA256 of the raw body, keyed by the secret as saved
 *   (its UTF-8 bytes).
 * - Standard Webhooks (`webhook-signature`): `v1,` + the base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>`,
 *   one space-separated entry per key (the current secret, and for 24 h after a rotation the previous one).
 *   The key of a `whsec_<base64>` secret is the decoded bytes, as the standard says; any other secret's key
 *   is its UTF-8 bytes.
 */

import { toHex } from "../encoding.ts";
import { STANDARD_SECRET_BASE64, STANDARD_SECRET_PREFIX } from "./webhook_secret.ts";

const encoder = new TextEncoder();

async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    new Uint8Array(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(message)));
}

export async function webhookSignature(secret: string, rawBody: string): Promise<string> {
  return `sha256=${toHex(await hmacSha256(encoder.encode(secret), rawBody))}`;
}

/** The Standard Webhooks key of a secret: the decoded bytes of `whsec_<base64>`, else the UTF-8 bytes. */
export function standardWebhookKey(secret: string): Uint8Array {
  const rest = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : null;
  if (rest !== null && rest.length > 0 && STANDARD_SECRET_BASE64.test(rest)) {
    return Uint8Array.from(atob(rest), (char) => char.charCodeAt(0));
  }
  return encoder.encode(secret);
}

/** The `webhook-signature` value: `v1,<base64>` per secret, space-separated, in the order given. */
export async function standardWebhookSignature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  rawBody: string,
): Promise<string> {
  const signed = `${id}.${timestampSeconds}.${rawBody}`;
  const entries = await Promise.all(
    secrets.map(async (secret) => `v1,${toBase64(await hmacSha256(standardWebhookKey(secret), signed))}`),
  );
  return entries.join(" ");
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
