/**
 * API-key authentication and the daily request limit, both decided by SQL functions
 * (`authorize_api_request`, `consume_api_request`) so REST and MCP share one rule.
 */
import { createHash } from "node:crypto";
import { accountClaimsSql, database } from "../db/client.ts";
import { booleanLiteral, hexTextLiteral } from "../db/literals.ts";
import { ApiError } from "../http/errors.ts";
import { type ApiAccount, type DailyAllowance, toAllowance } from "../daily_limit/allowance.ts";

/**
 * SHA-256 hex of the UTF-8 text. Synchronous (node:crypto): WebCrypto's digest is an async operation
 * handed to another thread, which cost more than the hash itself on every API request.
 */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** An authenticated request: the account and its daily allowance (counted or as it stands). */
export interface AuthorizedRequest {
  account: ApiAccount;
  allowance: DailyAllowance;
}

interface AuthorizationRow {
  outcome: string;
  user_id: string | null;
  plan_id: string | null;
  allowed: boolean;
  request_limit: number | null;
  remaining: number | null;
  reset_at: Date | null;
}

/** The key's hash, or 401 when the header is missing or cannot be a key. */
function keyHashOf(apiKey: string | null | undefined): string {
  const key = apiKey?.trim();
  if (!key || key.length > 200) {
    throw new ApiError("unauthorized", "Send a valid API key in the x-api-key header.");
  }
  return sha256Hex(key);
}

/** The statement that checks the key (and counts the request when `count`); no parameters (db/literals.ts). */
function authorizationStatement(keyHash: string, count: boolean, extraColumns = ""): string {
  return `select outcome, user_id, plan_id, allowed, request_limit, remaining, reset_at${extraColumns}
     from private.authorize_api_request(${hexTextLiteral(keyHash)}, ${booleanLiteral(count)}) as a`;
}

/** The request's account and allowance, or 401/403 (unknown or revoked key; plan without API access). */
function authorizedFrom(row: AuthorizationRow | undefined): AuthorizedRequest {
  if (row?.outcome === "ok" && row.user_id && row.plan_id && row.reset_at) {
    return {
      account: { userId: row.user_id, planId: row.plan_id },
      allowance: toAllowance({ ...row, reset_at: row.reset_at }),
    };
  }
  if (row?.outcome === "upgrade_required") {
    throw new ApiError(
      "upgrade_required",
      "The API is available on the Pro plan and higher. Upgrade to use it.",
    );
  }
  throw new ApiError("unauthorized", "The API key is unknown or has been revoked.");
}

/**
 * Resolves an `x-api-key` header to its account and, when `count`, counts the request against the daily
 * limit (per UTC day, all keys together) — one statement, one round trip, no explicit transaction
 * (`authorize_api_request`). 401 when the key is missing, unknown or revoked; 403 on plans without API
 * access (neither is counted). A refused request (limit used up) comes back with `allowed` false.
 */
export async function authorizeApiRequest(
  apiKey: string | null | undefined,
  options: { count: boolean },
): Promise<AuthorizedRequest> {
  const [row] = await database().unsafe<AuthorizationRow[]>(
    authorizationStatement(keyHashOf(apiKey), options.count),
  );
  return authorizedFrom(row);
}

/**
 * `authorizeApiRequest` (counted) and the request's data statement as the account, in ONE round trip: one
 * simple-protocol query that PostgreSQL runs as one implicit transaction (db/sql.ts `script`):
 *   1. the key check and count (a function scan, run before its row is projected), whose row then sets
 *      the account's JWT claims (db/client.ts) when, and only when, the key is valid on a plan with API
 *      access and the request is allowed, and role `authenticated`, so row-level security applies to
 *      what follows;
 *   2. `statement` (no parameters), which runs only when claims were set (a one-time filter: nothing of
 *      it runs for a refused request) and then sees only the account's rows.
 * The count commits with the data statement: a failing data statement rolls the count back too. On a
 * limited plan the counter row stays locked until the statement ends, so one account's counted requests
 * queue for that long (a few milliseconds; exactness is the row lock's as before).
 * The rows are empty when the request is refused (`allowance.allowed` false; the caller answers 429).
 */
export async function authorizeAndQuery<T>(
  apiKey: string | null | undefined,
  statement: string,
): Promise<{ authorized: AuthorizedRequest; rows: T[] }> {
  const identity = `, set_config('request.jwt.claims', case when a.outcome = 'ok' and a.allowed then ${
    accountClaimsSql("a.user_id")
  } else '' end, true) as claims, set_config('role', 'authenticated', true) as role`;
  const results = await database().script(
    `${authorizationStatement(keyHashOf(apiKey), true, identity)};
     select * from (${statement}) as data where current_setting('request.jwt.claims', true) <> ''`,
  );
  const authorized = authorizedFrom(results[0]?.[0] as AuthorizationRow | undefined);
  return { authorized, rows: (results[1] ?? []) as T[] };
}
