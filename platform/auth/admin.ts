/**
 * GoTrue's admin mail endpoints (supabase/auth `invite.go`, `mail.go` adminGenerateLink), for admin
 * credentials only (./admin_users.ts requireAdmin):
 * - `POST /invite`: the address validated (GoTrue's "Unable to validate email address: invalid format"); a
 *   confirmed user is 422 `email_exists`; otherwise the user is created (or re-invited while the earlier
 *   invitation was never accepted) and the invitation mail goes into the local mailbox;
 * - `POST /admin/generate_link` with `type` `signup` (a new user with the password, or an unconfirmed one),
 *   `invite`, `magiclink` (an unknown address becomes a sign-up with a random password, as GoTrue does),
 *   `recovery`, `email_change_current` / `email_change_new` (with `new_email`; `email_change_current` needs
 *   double_confirm_changes); recovery and email changes of an unknown address are 404 `user_not_found`; any
 *   other type is 400. Nothing is sent: the answer is the user with the link, code and hash the mail would
 *   carry, the verification type and the redirect Auth honours.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { authDatabase } from "./database.ts";
import { redirectAuthWouldUse } from "./redirects.ts";
import { authSettings } from "./project_settings.ts";
import { requireAdmin } from "./admin_users.ts";
import {
  AuthError,
  badRequest,
  jsonBody,
  jsonResponse,
  objectField,
  stringField,
  unprocessable,
} from "./errors.ts";
import { sendAuthMail, verifyLink } from "./mail.ts";
import { checkPasswordStrength, generateOtp, tokenHash, validEmail } from "./rules.ts";
import {
  addEmailIdentity,
  createEmailUser,
  retryOnDuplicate,
  userByEmail,
  userById,
  userJson,
  type UserRow,
} from "./users.ts";

const emailExists = () =>
  unprocessable("email_exists", "A user with this email address has already been registered");

function redirectOf(request: Request, body: Record<string, unknown>): string {
  const { siteUrl, allowList } = authSettings();
  const asked = new URL(request.url).searchParams.get("redirect_to") || stringField(body, "redirect_to");
  return redirectAuthWouldUse(siteUrl, allowList, asked || null);
}

async function invitedUser(
  tx: postgres.TransactionSql,
  email: string,
  data: Record<string, unknown>,
): Promise<UserRow> {
  const existing = await userByEmail(tx, email, true);
  if (existing?.email_confirmed_at) throw emailExists();
  if (existing) {
    await tx`update auth.users set invited_at = now(), updated_at = now() where id = ${existing.id}`;
    return (await userById(tx, existing.id))!;
  }
  const [created] = await tx<{ id: string }[]>`
    insert into auth.users (aud, role, email, invited_at, raw_app_meta_data, raw_user_meta_data)
    values ('authenticated', 'authenticated', ${email}, now(), '{"provider":"email","providers":["email"]}',
            ${tx.json(data)})
    returning id`;
  await addEmailIdentity(tx, created.id, email, data, false);
  return (await userById(tx, created.id))!;
}

/** `POST /invite`. */
export async function invite(request: Request): Promise<Response> {
  await requireAdmin(request);
  const body = await jsonBody(request);
  const email = validEmail(stringField(body, "email"));
  const data = objectField(body, "data") ?? {};
  const redirectTo = redirectOf(request, body);
  const user = await retryOnDuplicate(() =>
    authDatabase().begin(async (tx: postgres.TransactionSql) => {
      const user = await invitedUser(tx, email, data);
      await sendAuthMail(tx, request, user, "invite", { send: true, redirectTo });
      return (await userById(tx, user.id))!;
    })
  );
  return jsonResponse(request, await userJson(authDatabase(), user));
}

interface Link {
  user: UserRow;
  otp: string;
  hash: string;
  link: string;
}

async function emailChangeLink(
  tx: postgres.TransactionSql,
  user: UserRow,
  type: "email_change_current" | "email_change_new",
  newEmailText: string,
  redirectTo: string,
): Promise<Link> {
  const settings = authSettings();
  if (type === "email_change_current" && !settings.email.doubleConfirmChanges) {
    throw badRequest("validation_failed", "Enable secure email change to generate link for current email");
  }
  const newEmail = validEmail(newEmailText);
  const other = await userByEmail(tx, newEmail);
  if (other && other.id !== user.id) throw emailExists();
  const otp = generateOtp(settings.email.otpLength);
  const current = type === "email_change_current" ? tokenHash(user.email ?? "", otp) : "";
  const next = type === "email_change_new" ? tokenHash(newEmail, otp) : "";
  await tx`update auth.users
              set email_change = ${newEmail}, email_change_token_current = ${current},
                  email_change_token_new = ${next}, email_change_confirm_status = 0,
                  email_change_sent_at = now(), updated_at = now()
            where id = ${user.id}`;
  const [tokenType, hash, relatesTo] = current
    ? ["email_change_token_current", current, user.email ?? ""]
    : ["email_change_token_new", next, newEmail];
  await tx`
    insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to)
    values (${user.id}, ${tokenType}, ${hash}, ${relatesTo})
    on conflict (user_id, token_type)
      do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()`;
  await tx`delete from auth.one_time_tokens where user_id = ${user.id}
             and token_type = ${current ? "email_change_token_new" : "email_change_token_current"}`;
  return {
    user: (await userById(tx, user.id))!,
    otp,
    hash: tokenHash(user.email ?? "", otp),
    link: verifyLink(hash, "email_change", redirectTo),
  };
}

/** `POST /admin/generate_link`. */
export async function generateLink(request: Request): Promise<Response> {
  await requireAdmin(request);
  const body = await jsonBody(request);
  const email = validEmail(stringField(body, "email"));
  let type = stringField(body, "type");
  const data = objectField(body, "data") ?? {};
  let password = stringField(body, "password");
  const redirectTo = redirectOf(request, body);
  const known = ["signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new"];
  const existing = await userByEmail(authDatabase(), email);
  if (!existing) {
    if (type === "magiclink") {
      type = "signup";
      password = crypto.randomUUID() + crypto.randomUUID();
    } else if (["recovery", "email_change_current", "email_change_new"].includes(type)) {
      throw new AuthError(404, "user_not_found", "User with this email not found");
    }
  }
  if (!known.includes(type)) {
    throw badRequest("validation_failed", `Invalid email action link type requested: ${type}`);
  }
  if (type === "signup" && !existing) {
    const settings = authSettings();
    if (password === "") throw unprocessable("validation_failed", "Signup requires a valid password");
    checkPasswordStrength(password, {
      minLength: settings.passwordMinLength,
      requiredCharacters: settings.passwordRequiredCharacters,
    });
  }
  const made = await retryOnDuplicate(() =>
    authDatabase().begin(async (tx: postgres.TransactionSql): Promise<Link> => {
      let user = await userByEmail(tx, email, true);
      if (type === "email_change_current" || type === "email_change_new") {
        if (!user) throw new AuthError(404, "user_not_found", "User with this email not found");
        return await emailChangeLink(tx, user, type, stringField(body, "new_email"), redirectTo);
      }
      if (type === "invite") user = await invitedUser(tx, email, data);
      if (type === "signup") {
        if (user?.email_confirmed_at) throw emailExists();
        if (user) {
          await tx`update auth.users
                      set raw_user_meta_data = coalesce(raw_user_meta_data, '{}') || ${tx.json(data)}
                    where id = ${user.id}`;
        } else user = await createEmailUser(tx, { email, password, data, confirmed: false });
      }
      const mail = await sendAuthMail(
        tx,
        request,
        user!,
        type as "signup" | "invite" | "magiclink" | "recovery",
        {
          send: false,
          redirectTo,
        },
      );
      return { user: (await userById(tx, user!.id))!, ...mail };
    })
  );
  return jsonResponse(request, {
    ...(await userJson(authDatabase(), made.user)),
    action_link: made.link,
    email_otp: made.otp,
    hashed_token: made.hash,
    verification_type: type,
    redirect_to: redirectTo,
  });
}
