/**
 * GoTrue's PKCE flow states (`auth.flow_state`; supabase/auth `internal/models/flow_state.go`, `pkce.go`): a
 * mail sent with `code_challenge` records one; the mail's link (token prefixed `pkce_`) then redirects with
 * `?code=<auth_code>` instead of tokens, and `POST /token?grant_type=pkce` trades the code and the verifier
 * for a session once, within `flowStateExpirySeconds`.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { AuthError, badRequest } from "./errors.ts";
import { verifierMatches } from "./rules.ts";
import { issueSession, type TokenResponse } from "./sessions.ts";
import { userById } from "./users.ts";

/** GoTrue's default FlowStateExpiryDuration. */
const flowStateExpirySeconds = 300;

/** The authentication method a mail type stands for (models.ParseAuthenticationMethod). */
export function authenticationMethodOf(type: string): string {
  return ({
    signup: "email/signup",
    magiclink: "magiclink",
    recovery: "recovery",
    invite: "invite",
  } as Record<
    string,
    string
  >)[type] ?? type;
}

export async function createFlowState(
  tx: postgres.Queryable,
  userId: string,
  type: string,
  pkce: { method: string; challenge: string },
): Promise<void> {
  const method = authenticationMethodOf(type);
  await tx`
    insert into auth.flow_state (user_id, auth_code, code_challenge_method, code_challenge, provider_type,
                                 authentication_method)
    values (${userId}, gen_random_uuid()::text, ${pkce.method}, ${pkce.challenge}, ${
    type === "signup" ? "email" : method
  }, ${method})`;
}

/** GoTrue's issueAuthCode: the newest flow state of the user for that method, marked issued. */
export async function issueAuthCode(tx: postgres.Queryable, userId: string, type: string): Promise<string> {
  const [state] = await tx<{ auth_code: string }[]>`
    update auth.flow_state set auth_code_issued_at = now(), updated_at = now()
     where id = (select id from auth.flow_state
                  where user_id = ${userId} and authentication_method = ${authenticationMethodOf(type)}
                  order by created_at desc limit 1)
    returning auth_code`;
  if (!state) throw badRequest("flow_state_not_found", "No associated flow state found. no flow state found");
  return state.auth_code;
}

/** `grant_type=pkce`: the code and verifier for a session; the flow state is used up. */
export async function exchangeAuthCode(
  sql: postgres.Sql,
  authCode: string,
  verifier: string,
  request: Request,
): Promise<TokenResponse> {
  if (authCode === "" || verifier === "") {
    throw badRequest(
      "validation_failed",
      "invalid request: both auth code and code verifier should be non-empty",
    );
  }
  return await sql.begin(async (tx) => {
    const [state] = await tx<
      {
        id: string;
        user_id: string | null;
        code_challenge_method: string;
        code_challenge: string;
        authentication_method: string;
        expired: boolean;
      }[]
    >`
      select id, user_id, code_challenge_method, code_challenge, authentication_method,
             coalesce(auth_code_issued_at, created_at) + make_interval(secs => ${flowStateExpirySeconds}) < now()
               as expired
        from auth.flow_state where auth_code = ${authCode} for update`;
    if (!state || !state.user_id) {
      throw new AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found");
    }
    if (state.expired) {
      throw new AuthError(422, "flow_state_expired", "invalid flow state, flow state has expired");
    }
    if (!(await userById(tx, state.user_id))) {
      throw new AuthError(404, "user_not_found", "User not found");
    }
    if (!verifierMatches(state.code_challenge_method, state.code_challenge, verifier)) {
      throw badRequest("bad_code_verifier", "code challenge does not match previously saved code verifier");
    }
    await tx`delete from auth.flow_state where id = ${state.id}`;
    return await issueSession(tx, state.user_id, state.authentication_method, request);
  });
}
