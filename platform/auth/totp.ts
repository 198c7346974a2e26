/**
 * RFC 6238 TOTP as GoTrue uses it (pquerna/otp defaults: SHA-1, 6 digits, 30 s, a 20-byte secret in
 * unpadded base32; a code of the step before or after is accepted too). Pure: tests/unit/auth_totp.test.ts.
 */
import { createHmac } from "node:crypto";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export function fromBase32(text: string): Uint8Array {
  const clean = text.toUpperCase().replace(/=+$/, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error("invalid base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

export function newTotpSecret(): string {
  return base32(crypto.getRandomValues(new Uint8Array(20)));
}

/** The code of `secret` at time `at` (ms). */
export function totpCode(secret: string, at = Date.now()): string {
  const counter = Math.floor(at / 1000 / 30);
  const message = new Uint8Array(8);
  new DataView(message.buffer).setBigUint64(0, BigInt(counter));
  const hmac = createHmac("sha1", fromBase32(secret)).update(message).digest();
  const offset = hmac[hmac.length - 1] & 15;
  const binary = ((hmac[offset] & 127) << 24) | (hmac[offset + 1] << 16) | (hmac[offset + 2] << 8) |
    hmac[offset + 3];
  return String(binary % 1_000_000).padStart(6, "0");
}

/** Whether `code` is the code of the current step or of one step either side (GoTrue's skew of 1). */
export function totpMatches(secret: string, code: string, at = Date.now()): boolean {
  return [-30_000, 0, 30_000].some((shift) => totpCode(secret, at + shift) === code);
}

/** The otpauth URI an authenticator app reads (pquerna/otp's key.String()). */
export function totpUri(issuer: string, account: string, secret: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const query = new URLSearchParams({ algorithm: "SHA1", digits: "6", issuer, period: "30", secret });
  return `otpauth://totp/${label}?${query}`;
}
