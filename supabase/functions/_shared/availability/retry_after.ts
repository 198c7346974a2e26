/**
 * When a client should ask again after a live check whose registry was not asked (this service's politeness
 * refused the turn: host busy, paused, backing off): `retry_after_seconds` on an `unknown` answer (REST,
 * MCP and the app alike). Pure.
 */
import type { CheckReason } from "../contract/schemas.ts";
import type { Refusal } from "./check_domain.ts";

/**
 * Without a time from the limiter: a busy host's turn comes within about the wait a live check already
 * spent on it (RDAP ~8 s, WHOIS one query per 5 s with a canary before), so ask again after that long.
 */
const fallbackSeconds: Partial<Record<CheckReason, number>> = {
  rdap_host_busy: 10,
  whois_host_busy: 15,
};
const defaultFallbackSeconds = 30;
/** Never tell a client to wait longer than an hour (the longest back-off). */
const maxSeconds = 3_600;

export function retryAfterSeconds(refusal: Refusal, nowMs: number): number {
  const seconds = refusal.until !== null && refusal.until > nowMs
    ? Math.ceil((refusal.until - nowMs) / 1_000)
    : fallbackSeconds[refusal.reason] ?? defaultFallbackSeconds;
  return Math.min(Math.max(seconds, 1), maxSeconds);
}
