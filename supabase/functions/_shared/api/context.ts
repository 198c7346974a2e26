import type { Context } from "hono";
import type { ApiAccount } from "../daily_limit/allowance.ts";
import type { Credential } from "./credential.ts";

/** What api-v1's route middleware puts on each request's context. */
export interface ApiEnv {
  Variables: {
    requestId: string;
    /** The request's credential, read once (`requireApiKey`, `requireApiKeyOrToken`). */
    credential: Credential;
    /** The admitted account (`admitRequest`, or the handlers that admit in their own round trip). */
    account: ApiAccount;
  };
}

export type ApiContext = Context<ApiEnv>;
