/**
 * GoTrue's pure rules, as the local Auth stand-in applies them (no I/O; tests/unit/auth_rules.test.ts):
 * email validation, password strength, the mail OTP and its token hash, PKCE, the per-address mail frequency.
 */
import { createHash } from "node:crypto";
import { AuthError, badRequest, tooManyRequests, weakPassword } from "./errors.ts";

/** GoTrue's MaxPasswordLength (bcrypt reads 72 bytes). */
export const maxPasswordLength = 72;

/** GoTrue's validateEmail: required, at most 255 characters, a valid format; answers it lower-cased. */
export function validEmail(email: string): string {
  if (email === "") throw badRequest("validation_failed", "An email address is required");
  if (email.length > 255) throw badRequest("validation_failed", "An email address is too long");
  // checkmail.ValidateFormat: a local part and a domain of dot-separated labels.
  if (
    !/^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/
      .test(email)
  ) {
    throw badRequest("validation_failed", "Unable to validate email address: invalid format");
  }
  return email.toLowerCase();
}

/** GoTrue's checkPasswordStrength (without the HaveIBeenPwned check, which needs the internet). */
export function checkPasswordStrength(
  password: string,
  rules: { minLength: number; requiredCharacters: string[] },
): void {
  if (password.length > maxPasswordLength) {
    throw badRequest("validation_failed", `Password cannot be longer than ${maxPasswordLength} characters`);
  }
  const messages: string[] = [];
  const reasons: string[] = [];
  if (password.length < rules.minLength) {
    reasons.push("length");
    messages.push(`Password should be at least ${rules.minLength} characters.`);
  }
  for (const set of rules.requiredCharacters) {
    if (set !== "" && ![...set].some((char) => password.includes(char))) {
      reasons.push("characters");
      messages.push(
        `Password should contain at least one character of each: ${rules.requiredCharacters.join(", ")}.`,
      );
      break;
    }
  }
  if (reasons.length > 0) throw weakPassword(messages.join(" "), reasons);
}

/** A numeric one-time code of `digits` digits (GoTrue's GenerateOtp). */
export function generateOtp(digits: number): string {
  const values = crypto.getRandomValues(new Uint32Array(digits));
  return Array.from(values, (value) => String(value % 10)).join("");
}

/** GoTrue's GenerateTokenHash: hex SHA-224 of the address followed by the code. */
export function tokenHash(email: string, otp: string): string {
  return createHash("sha224").update(email + otp, "utf8").digest("hex");
}

/** The prefix GoTrue puts on a mail token of the PKCE flow. */
export const pkcePrefix = "pkce_";

/** GoTrue's validatePKCEParams: both or neither of challenge and method; a known method. */
export function pkceParams(
  method: string,
  challenge: string,
): { method: "s256" | "plain"; challenge: string } | undefined {
  if (method === "" && challenge === "") return undefined;
  if (method === "" || challenge === "") {
    throw badRequest("validation_failed", "PKCE flow requires code_challenge_method and code_challenge");
  }
  const lower = method.toLowerCase();
  if (lower !== "s256" && lower !== "plain") {
    throw badRequest("validation_failed", `Code challenge method not supported: ${method}`);
  }
  if (challenge.length < 43 || challenge.length > 128) {
    throw badRequest("validation_failed", "code challenge has to be between 43 and 128 characters");
  }
  return { method: lower, challenge };
}

/** Whether a code verifier answers a challenge (RFC 7636). */
export function verifierMatches(method: string, challenge: string, verifier: string): boolean {
  if (method === "plain") return verifier === challenge;
  return createHash("sha256").update(verifier, "utf8").digest("base64url") === challenge;
}

/** GoTrue's validateSentWithinFrequencyLimit: one mail of a kind per address per `frequencySeconds`. */
export function checkSendFrequency(sentAt: Date | null, frequencySeconds: number, now = Date.now()): void {
  if (!sentAt) return;
  const readyAt = sentAt.getTime() + frequencySeconds * 1000;
  if (readyAt > now) {
    const left = Math.floor((readyAt - now) / 1000);
    throw tooManyRequests(
      "over_email_send_rate_limit",
      `For security purposes, you can only request this after ${left} seconds.`,
    );
  }
}

/** GoTrue's isOtpExpired. */
export function otpExpired(sentAt: Date | null, expirySeconds: number, now = Date.now()): boolean {
  return !sentAt || now > sentAt.getTime() + expirySeconds * 1000;
}

/** Sliding-window cap on mails per hour across the whole Auth (GoTrue's email limiter). */
export class HourlyMailLimit {
  #sent: number[] = [];
  allow(perHour: number, now = Date.now()): boolean {
    this.#sent = this.#sent.filter((at) => at > now - 3_600_000);
    if (this.#sent.length >= perHour) return false;
    this.#sent.push(now);
    return true;
  }
}

export const emailRateLimitExceeded = () =>
  new AuthError(429, "over_email_send_rate_limit", "email rate limit exceeded");
