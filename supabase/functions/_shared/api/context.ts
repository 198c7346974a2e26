import type { Context } from "hono";
import type { ApiAccount } from "../daily_limit/allowance.ts";

/** What api-v1's middleware puts on each request's context. */
export interface ApiEnv {
  Variables: {
    requestId: string;
    account: ApiAccount;
  };
}

export type ApiContext = Context<ApiEnv>;
