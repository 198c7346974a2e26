/**
 * The API's daily request limit per account (all keys together, per UTC day), decided in SQL
 * (`consume_api_request`, `authorize_api_request`) so REST and MCP share one rule. Outside `api/` so that
 * the MCP tools can count their calls without importing the REST layer.
 */
import { database } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";

export interface ApiAccount {
  userId: string;
  planId: string;
  /**
   * An organization's API key (docs/organizations.md): the organization whose list the request reads and
   * changes (userId is then the member who made the key, planId the owner's plan). Null or absent: personal.
   */
  organizationId?: string | null;
}

export interface DailyAllowance {
  allowed: boolean;
  /** null when the plan is unlimited. */
  limit: number | null;
  remaining: number | null;
  resetAt: Date;
}

export interface AllowanceRow {
  allowed: boolean;
  request_limit: number | null;
  remaining: number | null;
  reset_at: Date;
}

export function toAllowance(row: AllowanceRow): DailyAllowance {
  return {
    allowed: row.allowed,
    limit: row.request_limit,
    remaining: row.remaining,
    resetAt: new Date(row.reset_at),
  };
}

/** Counts one request of an already authenticated account against its daily limit (one statement). */
export async function consumeDailyRequest(account: ApiAccount): Promise<DailyAllowance> {
  const [row] = account.organizationId
    ? await database()<AllowanceRow[]>`
      select allowed, request_limit, remaining, reset_at
        from private.consume_org_api_request(${account.organizationId})`
    : await database()<AllowanceRow[]>`
      select allowed, request_limit, remaining, reset_at from private.consume_api_request(${account.userId})`;
  return toAllowance(row);
}

export function rateLimitedError(allowance: DailyAllowance): ApiError {
  return new ApiError(
    "rate_limited",
    `The daily request limit of ${allowance.limit} is used up; it resets at ${allowance.resetAt.toISOString()}.`,
    { reset_at: allowance.resetAt.toISOString() },
  );
}
