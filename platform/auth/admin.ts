/**
 * The part of GoTrue's admin API the functions use (`send-org-invite`): `POST /auth/v1/invite` and
 * `POST /auth/v1/admin/generate_link` (type invite), for the secret key (or the legacy service-role key)
 * only, as GoTrue's admin API (supabase/auth `invite.go`, `mail.go` adminGenerateLink):
 * - a registered (confirmed) address is 422 `email_exists`; otherwise the user is created in auth.users with
 *   `invited_at` (or re-invited while the earlier invitation was never accepted);
 * - invite delivers the invitation mail into the local mailbox; generate_link sends nothing and answers the
 *   link, code and hash the mail would carry, and the redirect Auth honours.
 */
import { bearerToken } from "../../supabase/functions/_shared/http/bearer.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authDatabase } from "./database.ts";
import { redirectAuthWouldUse } from "./redirects.ts";
import { authSettings } from "./project_settings.ts";
import { roleOfApiKey } from "../secrets.ts";
import {
  AuthError,
  badRequest,
  jsonBody,
  jsonResponse,
  objectField,
  stringField,
  unprocessable,
} from "./errors.ts";
import { sendAuthMail } from "./mail.ts";
import {
  addEmailIdentity,
  retryOnDuplicate,
  userByEmail,
  userById,
  userJson,
  type UserRow,
} from "./users.ts";

/** A secret key (or the legacy service-role JWT) in `apikey` or as the bearer token. */
export function isServiceRole(request: Request): boolean {
  const bearer = bearerToken(request.headers.get("authorization"));
  return roleOfApiKey(bearer) === "service_role" ||
    roleOfApiKey(request.headers.get("apikey")) === "service_role";
}

export async function invite(request: Request, send: boolean): Promise<Response> {
  if (!isServiceRole(request)) {
    throw new AuthError(401, "no_authorization", "This endpoint requires a service-role key");
  }
  const body = await jsonBody(request);
  const email = stringField(body, "email").trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw badRequest("validation_failed", "Unable to validate email address");
  }
  const data = objectField(body, "data") ?? {};
  const { siteUrl, allowList } = authSettings();
  const asked = new URL(request.url).searchParams.get("redirect_to") ?? stringField(body, "redirect_to");
  const redirectTo = redirectAuthWouldUse(siteUrl, allowList, asked || null);

  const outcome = await retryOnDuplicate(() =>
    authDatabase().begin(async (tx: postgres.TransactionSql) => {
      let user: UserRow | undefined = await userByEmail(tx, email, true);
      if (user?.email_confirmed_at) return undefined;
      if (user) {
        await tx`
        update auth.users
           set invited_at = now(), updated_at = now(),
               raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || ${tx.json(data)}
         where id = ${user.id}`;
      } else {
        const [created] = await tx<{ id: string }[]>`
        insert into auth.users (aud, role, email, invited_at, raw_app_meta_data, raw_user_meta_data)
        values ('authenticated', 'authenticated', ${email}, now(), '{"provider":"email","providers":["email"]}',
                ${tx.json(data)})
        returning id`;
        await addEmailIdentity(tx, created.id, email, data, false);
        user = await userById(tx, created.id);
      }
      const mail = await sendAuthMail(tx, request, (await userById(tx, user!.id))!, "invite", {
        send,
        redirectTo,
      });
      return { user: await userJson(tx, (await userById(tx, user!.id))!), mail };
    })
  );
  if (!outcome) {
    throw unprocessable("email_exists", "A user with this email address has already been registered");
  }
  if (!send) {
    return jsonResponse(request, {
      ...outcome.user,
      action_link: outcome.mail.link,
      email_otp: outcome.mail.otp,
      hashed_token: outcome.mail.hash,
      verification_type: "invite",
      redirect_to: outcome.mail.redirectTo,
    });
  }
  return jsonResponse(request, outcome.user);
}
