/** A bearer secret: read from `Authorization: Bearer <secret>`, compared in constant time. */

const encoder = new TextEncoder();

/**
 * The token of `Authorization: Bearer <token>` (RFC 6750: the scheme, one or more spaces, the token), or
 * null. The one reader of bearer credentials: the poller's secret, session tokens, OAuth access tokens.
 */
export function bearerToken(header: string | undefined | null): string | null {
  const match = header?.match(/^Bearer[ ]+(\S+)\s*$/i);
  return match ? match[1] : null;
}

/**
 * True when both are equal. Both are hashed first (SHA-256), so the comparison takes the same time
 * whatever the lengths and wherever the first difference is.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  const left = new Uint8Array(a);
  const right = new Uint8Array(b);
  let difference = 0;
  for (let i = 0; i < left.length; i++) difference |= left[i] ^ right[i];
  return difference === 0;
}
