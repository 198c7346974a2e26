/**
 * API-key authentication and the daily request limit, both decided by SQL functions
 * (`authorize_api_request`, `consume_api_request`) so REST and MCP share one rule.
 */
import { createHash } from "node:crypto";
import { database } from "../db/client.ts";
import { booleanLiteral, hexTextLiteral } from "../db/literals.ts";
import { ApiError } from "../http/errors.ts";
import { type ApiAccount, type DailyAllowance, toAllowance } from "../daily_limit/allowance.ts";

// The daily limit and the header builder live outside api/ (the MCP tools use them too).
export {
  type ApiAccount,
  consumeDailyRequest,
  type DailyAllowance,
  rateLimitedError,
} from "../daily_limit/allowance.ts";
export { rateLimitHeaders } from "../http/rate_limit_headers.ts";

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
  const key = apiKey?.trim();
  if (!key || key.length > 200) {
    throw new ApiError("unauthorized", "Send a valid API key in the x-api-key header.");
  }
  const keyHash = sha256Hex(key);
  // Without parameters: one round trip (see db/literals.ts).
  const [row] = await database().unsafe<AuthorizationRow[]>(
    `select outcome, user_id, plan_id, allowed, request_limit, remaining, reset_at
     from public.authorize_api_request(${hexTextLiteral(keyHash)}, ${booleanLiteral(options.count)})`,
  );
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
