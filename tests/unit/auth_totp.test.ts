/** The Auth stand-in's TOTP (platform/auth/totp.ts) against RFC 6238's SHA-1 test vectors. */
import { base32, fromBase32, totpCode, totpMatches, totpUri } from "../../platform/auth/totp.ts";
import { assert, assertEquals } from "../support/assert.ts";

// RFC 6238 appendix B: the secret "12345678901234567890" (ASCII), 8-digit codes; ours are their last 6 digits.
const secret = base32(new TextEncoder().encode("12345678901234567890"));

Deno.test("totp: RFC 6238 SHA-1 vectors (last six digits)", () => {
  for (
    const [seconds, code] of [[59, "287082"], [1111111109, "081804"], [1234567890, "005924"], [
      2000000000,
      "279037",
    ]] as const
  ) {
    assertEquals(totpCode(secret, seconds * 1000), code);
  }
});

Deno.test("totp: one step of skew either side, not two", () => {
  const now = 1_700_000_000_000;
  assert(totpMatches(secret, totpCode(secret, now - 30_000), now));
  assert(totpMatches(secret, totpCode(secret, now + 30_000), now));
  assert(!totpMatches(secret, totpCode(secret, now - 90_000), now));
});

Deno.test("totp: base32 round trip and the otpauth URI", () => {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  assertEquals(fromBase32(base32(bytes)), bytes);
  const uri = new URL(totpUri("example.test", "a@example.test", "ABC"));
  assertEquals(uri.protocol, "otpauth:");
  assertEquals(uri.searchParams.get("secret"), "ABC");
  assertEquals(uri.searchParams.get("issuer"), "example.test");
});
