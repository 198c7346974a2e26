/** Small value helpers shared by modules that read untrusted JSON or print digests. Pure. */

/** Lower-case hex of bytes (SHA-256 key hashes, HMAC signatures). */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
