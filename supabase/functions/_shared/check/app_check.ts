/**
 * check-now: "Check now" in the app, a session endpoint (docs/session-endpoints.md). The same live check as
 * `GET /check/{domain}` and `check_domain` (check/service.ts: the same normalisation, the same live share of
 * each registry host per account), counted in the plan's daily allowance for the app
 * (`plans.app_checks_per_day`, decided in SQL by `private.consume_app_check`: Free 20 a day of its own; Pro
 * and higher count each check as one request of their API daily limit).
 */
import { z } from "zod";
import { domainArgument } from "../contract/schemas.ts";
import { asService } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { inDatabase } from "../http/in_database.ts";
import { readJsonBody } from "../http/json_body.ts";
import { rateLimitHeaders } from "../http/rate_limit_headers.ts";
import { parseWith } from "../http/validation.ts";
import type { SessionContext } from "../session/middleware.ts";
import { checkDomainName } from "./service.ts";

/** The body: `{"domain": "<name>"}` and nothing else. */
export const appCheckBody = z.strictObject({ domain: domainArgument });

export interface AppCheckAllowance {
  allowed: boolean;
  /** null: unlimited. */
  limit: number | null;
  remaining: number | null;
  resetAt: Date;
  /** true: counted in the API's daily counter (Pro and higher). */
  sharedWithApi: boolean;
}

interface AllowanceRow {
  allowed: boolean;
  check_limit: number | null;
  remaining: number | null;
  reset_at: Date;
  shared_with_api: boolean;
}

/** Counts one check from the app for the verified user (service_role; the allowance is the server's). */
export async function consumeAppCheck(userId: string): Promise<AppCheckAllowance> {
  const [row] = await inDatabase(() =>
    asService((tx) =>
      tx<AllowanceRow[]>`
        select allowed, check_limit, remaining, reset_at, shared_with_api
          from private.consume_app_check(${userId})`
    )
  ).catch((error) => {
    if ((error as { code?: string })?.code === "DW401") {
      throw new ApiError("unauthorized", "The account no longer exists.");
    }
    throw error;
  });
  return {
    allowed: row.allowed,
    limit: row.check_limit,
    remaining: row.remaining,
    resetAt: new Date(row.reset_at),
    sharedWithApi: row.shared_with_api,
  };
}

/** The 429 beyond the allowance: `rate_limited` with `reset_at`, saying which allowance is used up. */
export function appCheckLimitError(allowance: AppCheckAllowance): ApiError {
  const resetAt = allowance.resetAt.toISOString();
  const what = allowance.sharedWithApi
    ? `Your plan's ${allowance.limit} requests for today (API and checks from the app together) are used up`
    : `Your ${allowance.limit} checks from the app for today are used up`;
  return new ApiError("rate_limited", `${what}; they reset at ${resetAt}.`, {
    reset_at: resetAt,
    allowance: allowance.sharedWithApi ? "api_daily_limit" : "app_checks_per_day",
  });
}

/** POST /check-now: count, then validate, then check (the session endpoints' order: 401, 403, 429, 400). */
export async function appCheckHandler(c: SessionContext): Promise<Response> {
  const allowance = await consumeAppCheck(c.get("userId"));
  for (const [name, value] of Object.entries(rateLimitHeaders(allowance))) c.header(name, value);
  if (!allowance.allowed) throw appCheckLimitError(allowance);
  const body = parseWith(appCheckBody, await readJsonBody(c.req.raw), "body");
  c.header("Cache-Control", "no-store");
  return c.json(await checkDomainName(body.domain, c.get("userId")));
}
