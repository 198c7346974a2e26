/**
 * API-key authentication and the daily request limit, both decided by SQL functions
 * (`authenticate_api_key`, `consume_api_request`) so REST and MCP share one rule.
 */
import { asService } from "../db/client.ts";
import { toHex } from "../encoding.ts";
import { ApiError } from "../http/errors.ts";
import { secondsUntil } from "../http/pipeline.ts";

export interface ApiAccount {
  userId: string;
  planId: string;
}

export interface DailyAllowance {
  allowed: boolean;
  /** null when the plan is unlimited. */
  limit: number | null;
  remaining: number | null;
  resetAt: Date;
}

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return toHex(digest);
}

/** Resolves an `x-api-key` header to its account: 401 when missing, unknown or revoked; 403 on Free. */
export async function authenticateApiKey(apiKey: string | null | undefined): Promise<ApiAccount> {
  const key = apiKey?.trim();
  if (!key || key.length > 200) {
    throw new ApiError("unauthorized", "Send a valid API key in the x-api-key header.");
  }
  const keyHash = await sha256Hex(key);
  const [row] = await asService((tx) =>
    tx<{ outcome: string; user_id: string | null; plan_id: string | null }[]>`
      select outcome, user_id, plan_id from public.authenticate_api_key(${keyHash})`
  );
  if (row?.outcome === "ok" && row.user_id && row.plan_id) {
    return { userId: row.user_id, planId: row.plan_id };
  }
  if (row?.outcome === "upgrade_required") {
    throw new ApiError(
      "upgrade_required",
      "The API is available on the Pro plan and higher. Upgrade to use it.",
    );
  }
  throw new ApiError("unauthorized", "The API key is unknown or has been revoked.");
}

interface AllowanceRow {
  allowed: boolean;
  request_limit: number | null;
  remaining: number | null;
  reset_at: Date;
}

function toAllowance(row: AllowanceRow): DailyAllowance {
  return {
    allowed: row.allowed,
    limit: row.request_limit,
    remaining: row.remaining,
    resetAt: new Date(row.reset_at),
  };
}

/** Counts one request against the account's daily limit (per UTC day, all keys together). */
export async function consumeDailyRequest(account: ApiAccount): Promise<DailyAllowance> {
  const [row] = await asService((tx) =>
    tx<AllowanceRow[]>`
      select allowed, request_limit, remaining, reset_at from public.consume_api_request(${account.userId})`
  );
  return toAllowance(row);
}

/** Today's allowance without counting a request (for responses that do not count, such as MCP chatter). */
export async function currentDailyAllowance(account: ApiAccount): Promise<DailyAllowance> {
  const [row] = await asService((tx) =>
    tx<AllowanceRow[]>`
      select allowed, request_limit, remaining, reset_at from public.api_request_allowance(${account.userId})`
  );
  return toAllowance(row);
}

/** `RateLimit-*` headers for an allowance (none for unlimited plans); `Retry-After` when refused. */
export function rateLimitHeaders(allowance: DailyAllowance, now = new Date()): Record<string, string> {
  if (allowance.limit === null) return {};
  const resetSeconds = secondsUntil(allowance.resetAt, now);
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(allowance.limit),
    "RateLimit-Remaining": String(allowance.remaining ?? 0),
    "RateLimit-Reset": String(resetSeconds),
  };
  if (!allowance.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}

export function rateLimitedError(allowance: DailyAllowance): ApiError {
  return new ApiError(
    "rate_limited",
    `The daily request limit of ${allowance.limit} is used up; it resets at ${allowance.resetAt.toISOString()}.`,
    { reset_at: allowance.resetAt.toISOString() },
  );
}
