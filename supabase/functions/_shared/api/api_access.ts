/**
 * Admission of an API request and the daily request limit, both decided by SQL functions
 * (`authorize_api_request` for a key, `authorize_account_request` for an OAuth access token's account, one
 * rule in `admit_api_request`) so REST and MCP, and both credentials, share one rule.
 */
import { accountClaimsSql, database } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { type ApiAccount, type DailyAllowance, toAllowance } from "../daily_limit/allowance.ts";
import type { Credential } from "./credential.ts";
import type { ListStatement } from "../watchlist/service.ts";

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
  organization_id: string | null;
}

/** The statement that admits the credential (and counts the request when `count`); no parameters. */
function authorizationStatement(credential: Credential, count: boolean, extraColumns = ""): string {
  return `select outcome, user_id, plan_id, allowed, request_limit, remaining, reset_at, organization_id${extraColumns}
     from ${credential.admissionCall(count)} as a`;
}

/** The request's account and allowance, or 401/403 (no such key or account; plan without API access). */
function authorizedFrom(row: AuthorizationRow | undefined, credential: Credential): AuthorizedRequest {
  // An organization's key and a personal one are told apart twice (the key's start, the stored row): both
  // must agree, so a request never acts on the other list.
  const organizationKey = row?.organization_id != null;
  if (
    row?.outcome === "ok" && row.user_id && row.plan_id && row.reset_at &&
    organizationKey === credential.organizationKey
  ) {
    return {
      account: { userId: row.user_id, planId: row.plan_id, organizationId: row.organization_id },
      allowance: toAllowance({ ...row, reset_at: row.reset_at }),
    };
  }
  if (row?.outcome === "upgrade_required") {
    throw new ApiError(
      "upgrade_required",
      "The API is available on the Pro plan and higher. Upgrade to use it.",
    );
  }
  throw new ApiError("unauthorized", credential.unknownMessage);
}

/**
 * Resolves a credential to its account and, when `count`, counts the request against the daily limit (per
 * UTC day, all keys and tokens together) — one statement, one round trip, no explicit transaction. 401 when
 * the key is unknown or revoked, or the token's account is gone; 403 on plans without API access (neither
 * is counted). A refused request (limit used up) comes back with `allowed` false.
 */
export async function authorizeRequest(
  credential: Credential,
  options: { count: boolean },
): Promise<AuthorizedRequest> {
  const [row] = await database().unsafe<AuthorizationRow[]>(
    authorizationStatement(credential, options.count),
  );
  return authorizedFrom(row, credential);
}

/**
 * `authorizeRequest` (counted) and the request's data statement as the account, in ONE round trip: one
 * simple-protocol query that PostgreSQL runs as one implicit transaction (db/sql.ts `script`):
 *   1. the credential's admission and count (a function scan, run before its row is projected), whose row then sets
 *      the account's JWT claims (db/client.ts) when, and only when, the account is known, on a plan with API
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
  credential: Credential,
  statement: string,
): Promise<{ authorized: AuthorizedRequest; rows: T[] }> {
  const identity = `, set_config('request.jwt.claims', case when a.outcome = 'ok' and a.allowed then ${
    accountClaimsSql("a.user_id", "a.organization_id")
  } else '' end, true) as claims, set_config('role', 'authenticated', true) as role`;
  const results = await database().script(
    `${authorizationStatement(credential, true, identity)};
     select * from (${statement}) as data where current_setting('request.jwt.claims', true) <> ''`,
  );
  const authorized = authorizedFrom(results[0]?.[0] as AuthorizationRow | undefined, credential);
  return { authorized, rows: (results[1] ?? []) as T[] };
}

/**
 * `authorizeAndQuery` for a watchlist page, in ONE call where the page can be read for the admitted
 * account directly (a personal list: a personal API key or an OAuth token):
 *
 *   select * from private.api_watchlist_page(p_key_hash => '<hash>' | p_account => '<uuid>',
 *                                            p_limit => …, p_offset => …, p_cursor => …)
 *
 * Its first row is the admission and count (one JSON column; the page's columns null); then, only when the
 * request was admitted on the account's personal list, the page's rows (`list_watchlist`'s own queries, for
 * the account the admission found for the verified credential). No claims, no role change, no second
 * statement: one implicit transaction, the count committed with the page. The function keeps its
 * statements' plans for the connection's life, so a request plans only the call
 * (20261206000950_api_page_in_one_statement.sql).
 * An organization's list still goes through `authorizeAndQuery` (its page checks the member's role in the
 * organization as the account).
 */
export async function authorizeAndReadPage<T>(
  credential: Credential,
  page: ListStatement,
): Promise<{ authorized: AuthorizedRequest; rows: T[] }> {
  if (credential.organizationKey || !page.pageArguments) {
    return authorizeAndQuery<T>(credential, page.statement);
  }
  const rows = await database().unsafe<{ admission: AdmissionJson | null }[]>(
    `select * from private.api_watchlist_page(${credential.pageAdmission}, ${page.pageArguments})`,
  );
  const admission = rows[0]?.admission;
  if (!admission) throw new Error("the admission row did not come first");
  const authorized = authorizedFrom(
    { ...admission, reset_at: admission.reset_at === null ? null : new Date(admission.reset_at) },
    credential,
  );
  return { authorized, rows: rows.slice(1) as T[] };
}

/** The admission as `api_watchlist_page` gives it, in its first row's JSON column. */
type AdmissionJson = Omit<AuthorizationRow, "reset_at"> & { reset_at: string | null };
