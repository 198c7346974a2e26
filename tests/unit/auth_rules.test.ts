/**
 * The local Auth stand-in's pure rules (platform/auth/rules.ts), as GoTrue applies them: email
 * validation, password strength and its reasons, the mail token hash, PKCE, the mail frequency and the hourly
 * cap; and the settings read from config.toml's forms (durations).
 */
import { AuthError } from "../../platform/auth/errors.ts";
import {
  checkPasswordStrength,
  checkSendFrequency,
  generateOtp,
  HourlyMailLimit,
  otpExpired,
  pkceParams,
  tokenHash,
  validEmail,
  verifierMatches,
} from "../../platform/auth/rules.ts";
import { durationSeconds } from "../../platform/auth/project_settings.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";

function thrown(work: () => unknown): AuthError | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof AuthError) return error;
    throw error;
  }
  return undefined;
}

Deno.test("email: required, at most 255 characters, a valid format, lower-cased", () => {
  assertEquals(validEmail("Someone@Example.COM"), "someone@example.com");
  for (const bad of ["", "plain", "a@", "@b.c", "a b@c.d", "a@-b.c", `${"a".repeat(250)}@b.com`]) {
    const error = thrown(() => validEmail(bad));
    assertEquals([error?.status, error?.code], [400, "validation_failed"], bad);
  }
});

Deno.test("password strength: length and character sets as reasons; over 72 is validation_failed", () => {
  const rules = { minLength: 8, requiredCharacters: ["abcdefghijklmnopqrstuvwxyz", "0123456789"] };
  assertEquals(thrown(() => checkPasswordStrength("abcdefg1", rules)), undefined);
  const short = thrown(() => checkPasswordStrength("abc1", rules))!;
  assertEquals([short.status, short.code, short.extra], [422, "weak_password", {
    weak_password: { reasons: ["length"] },
  }]);
  assertEquals(short.message, "Password should be at least 8 characters.");
  const both = thrown(() => checkPasswordStrength("ABC", rules))!;
  assertEquals(both.extra, { weak_password: { reasons: ["length", "characters"] } });
  assertMatch(both.message, /Password should contain at least one character of each: abc.*, 0123456789\.$/);
  const long = thrown(() => checkPasswordStrength("a1".repeat(37), rules))!;
  assertEquals([long.status, long.code], [400, "validation_failed"]);
});

Deno.test("mail codes: 6 digits; the hash is hex SHA-224 of address + code (GoTrue's GenerateTokenHash)", () => {
  assertMatch(generateOtp(6), /^\d{6}$/);
  assertEquals(tokenHash("a@b.c", "123456"), "19fc8045654795b943ae7db4b637d9ee44d1dc98644c90a3fb01fa3f");
  assert(tokenHash("a@b.c", "123456") !== tokenHash("a@b.c", "123457"));
});

Deno.test("PKCE: both parameters or neither, s256 or plain, 43 to 128 characters; S256 verification", () => {
  assertEquals(pkceParams("", ""), undefined);
  assertEquals(thrown(() => pkceParams("S256", ""))?.code, "validation_failed");
  assertEquals(thrown(() => pkceParams("md5", "x".repeat(43)))?.code, "validation_failed");
  assertEquals(thrown(() => pkceParams("s256", "short"))?.code, "validation_failed");
  assertEquals(pkceParams("S256", "x".repeat(43)), { method: "s256", challenge: "x".repeat(43) });
  // RFC 7636 appendix B.
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  assert(verifierMatches("s256", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", verifier));
  assert(!verifierMatches("s256", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", verifier + "x"));
  assert(verifierMatches("plain", verifier, verifier));
});

Deno.test("mail frequency: one mail of a kind per address per max_frequency, with the seconds left", () => {
  const now = Date.parse("2026-01-01T00:01:00Z");
  assertEquals(thrown(() => checkSendFrequency(null, 60, now)), undefined);
  assertEquals(thrown(() => checkSendFrequency(new Date(now - 60_000), 60, now)), undefined);
  const limited = thrown(() => checkSendFrequency(new Date(now - 15_000), 60, now))!;
  assertEquals([limited.status, limited.code], [429, "over_email_send_rate_limit"]);
  assertEquals(limited.message, "For security purposes, you can only request this after 45 seconds.");
});

Deno.test("codes expire after otp_expiry; the hourly cap counts the last hour; 0 refuses at once", () => {
  const now = Date.parse("2026-01-01T02:00:00Z");
  assert(otpExpired(null, 3600, now));
  assert(!otpExpired(new Date(now - 3_599_000), 3600, now));
  assert(otpExpired(new Date(now - 3_601_000), 3600, now));
  const limit = new HourlyMailLimit();
  assert(limit.allow(2, now - 3_700_000));
  assert(limit.allow(2, now - 10));
  assert(limit.allow(2, now), "the first mail is over an hour old");
  assert(!limit.allow(2, now));
  assert(!new HourlyMailLimit().allow(0, now));
});

Deno.test("config.toml durations (max_frequency) in seconds", () => {
  assertEquals(durationSeconds("60s"), 60);
  assertEquals(durationSeconds("1m30s"), 90);
  assertEquals(durationSeconds("1h"), 3600);
  assertEquals(durationSeconds("500ms"), 0.5);
  assertEquals(durationSeconds("45"), 45);
});
