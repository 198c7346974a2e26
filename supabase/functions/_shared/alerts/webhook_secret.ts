/**
 * The rule for a webhook's signing secret (docs/webhooks.md "Secrets"): a `whsec_` secret is `whsec_` and the
 * base64 of 24-64 bytes, the Standard Webhooks key size; any other secret is 16-256 characters. The database
 * holds the same rule (`private.webhook_secret_problem`, for every write, direct table writes included);
 * tests/integration/webhook_secret_parity.test.ts runs one table of cases through both.
 */

export const STANDARD_SECRET_PREFIX = "whsec_";
/** Standard base64 with its padding: what `whsec_` secrets carry. */
export const STANDARD_SECRET_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const STANDARD_KEY_BYTES = { min: 24, max: 64 } as const;
export const SECRET_CHARACTERS = { min: 16, max: 256 } as const;

/** Null when the secret may be saved (null: no secret), else why not, in the database's words. */
export function webhookSecretProblem(secret: string | null): string | null {
  if (secret === null) return null;
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    const bytes = STANDARD_SECRET_BASE64.test(encoded) ? atob(encoded).length : -1;
    return bytes >= STANDARD_KEY_BYTES.min && bytes <= STANDARD_KEY_BYTES.max
      ? null
      : "A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.";
  }
  // Characters as the database counts them: code points.
  const characters = [...secret].length;
  return characters >= SECRET_CHARACTERS.min && characters <= SECRET_CHARACTERS.max
    ? null
    : "A webhook secret must be 16-256 characters.";
}
