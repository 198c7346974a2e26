/**
 * What the app says when a request fails: the server's own message (the database and the functions hold
 * every rule; the app adds none), plus what to do next. Pure, unit-tested (tests/unit/app_errors.test.ts).
 */
export interface AppError {
  message: string;
  /** What the user can do about it. */
  next?: string;
  /** HTTP status, when there was an answer. */
  status?: number;
  /** Server code (SQLSTATE / DW code / GoTrue error code). */
  code?: string;
  /** The invalid names the server listed (add_watchlist_domains puts them in `details`). */
  details?: string;
}

/** Where a person learns how to get a bigger plan (the Account screen's Upgrade, or who to ask). */
export const operatorPlanChange = "See Account → Plan and limits for how to upgrade.";

export interface FailureInput {
  status?: number;
  code?: string;
  message?: string;
  details?: string | null;
  hint?: string | null;
  /** `reset_at` of a 429 body (functions) */
  resetAt?: string;
  /** true when no answer came back at all */
  network?: boolean;
}

const prefix = /^DW[0-9A-Z]{3}:\s*/;

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** One failure, told with what to do next. */
export function describeFailure(input: FailureInput): AppError {
  if (input.network) {
    return {
      message: "The server could not be reached.",
      next: "Check your connection and try again; what you typed is still here.",
    };
  }
  const code = input.code;
  const message = (input.message || `The request failed (HTTP ${input.status ?? "?"}).`).replace(prefix, "");
  const base: AppError = { message, status: input.status, code, details: input.details ?? undefined };
  if (input.status === 429 || code === "DW429" || code === "over_email_send_rate_limit") {
    const reset = input.resetAt ?? input.hint?.match(/\d{4}-\d\d-\d\dT[^\s,;]+/)?.[0];
    return {
      ...base,
      next: reset ? `Try again after ${when(reset)}.` : "Wait a little and try again.",
    };
  }
  if (code === "DWUPG" || code === "DW402") {
    return { ...base, next: `This needs Pro or higher. ${operatorPlanChange}` };
  }
  if (code === "reauthentication_needed" || code === "reauthentication_not_valid") {
    // Supabase Auth's secure password change (docs/deploy.md): a day-old session must prove it is the owner.
    return {
      ...base,
      next:
        "Ask for a password mail on the sign-in page (Forgot password) and set the new password from its link.",
    };
  }
  if (code === "DW401" || input.status === 401 || code === "PGRST301" || code === "PGRST303") {
    return { ...base, next: "Your session has ended: sign in again." };
  }
  if (code === "oauth_authorization_not_found") {
    // Supabase Auth keeps an assistant's connection request 10 minutes (docs/deploy.md): a sign-up whose
    // confirmation mail came later lands here.
    return {
      ...base,
      message: "This connection request has expired or was already answered.",
      next: "An assistant's request lasts 10 minutes: go back to the assistant and connect again. " +
        "You are signed in now, so you go straight to Approve.",
    };
  }
  if (input.status !== undefined && input.status >= 500) {
    return { ...base, next: "The service is having trouble; try again in a minute." };
  }
  return base;
}

/** A quota answer from add_watchlist_domains, told. */
export function overQuotaNext(rejected: number): string | undefined {
  if (rejected <= 0) return undefined;
  return `${rejected} name(s) did not fit your plan's quota and are still in the box. Remove names you no longer need, or move to a bigger plan: ${
    operatorPlanChange.charAt(0).toLowerCase() + operatorPlanChange.slice(1)
  }`;
}
