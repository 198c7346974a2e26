/**
 * GoTrue's reauthentication (supabase/auth `internal/api/reauthenticate.go`):
 * - `GET /reauthenticate` for a signed-in caller: a user without an address is 400; an unconfirmed one 422
 *   `email_not_confirmed`; else a nonce (a code of `otp_length` digits) is mailed (one per `max_frequency`),
 *   its hash SHA-224(address + code) kept in `reauthentication_token` and `auth.one_time_tokens`; answers `{}`;
 * - `verifyNonce`: what a password change asks for when `secure_password_change` is on and the session is
 *   older than 24 h (./user.ts): a wrong or expired nonce is 422 `reauthentication_not_valid`; a right one
 *   is used up.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { deliver } from "../mailbox/store.ts";
import { authenticatedCaller } from "./caller.ts";
import { authDatabase } from "./database.ts";
import { badRequest, jsonResponse, unprocessable } from "./errors.ts";
import { authSettings } from "./project_settings.ts";
import { checkSendFrequency, generateOtp, otpExpired, tokenHash } from "./rules.ts";

export const invalidNonce = () =>
  unprocessable("reauthentication_not_valid", "Nonce has expired or is invalid");

export async function reauthenticate(request: Request): Promise<Response> {
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  const email = caller.user.email ?? "";
  if (email === "") {
    throw badRequest(
      "validation_failed",
      "Reauthentication requires the user to have an email or a phone number",
    );
  }
  if (!caller.user.email_confirmed_at) {
    throw unprocessable("email_not_confirmed", "Please verify your email first.");
  }
  const settings = authSettings();
  await sql.begin(async (tx) => {
    const [row] = await tx<{ reauthentication_sent_at: Date | null }[]>`
      select reauthentication_sent_at from auth.users where id = ${caller.user.id} for update`;
    checkSendFrequency(row?.reauthentication_sent_at ?? null, settings.email.maxFrequencySeconds);
    const nonce = generateOtp(settings.email.otpLength);
    const hash = tokenHash(email, nonce);
    await tx`update auth.users set reauthentication_token = ${hash}, reauthentication_sent_at = now()
              where id = ${caller.user.id}`;
    await tx`
      insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to)
      values (${caller.user.id}, 'reauthentication_token', ${hash}, ${email})
      on conflict (user_id, token_type)
        do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()`;
    deliver({
      to: email,
      subject: "Confirm reauthentication",
      tag: "reauthentication",
      text: `Confirm reauthentication\n\nEnter the code: ${nonce}\n`,
      html: `<h2>Confirm reauthentication</h2>\n\n<p>Enter the code: ${nonce}</p>`,
    });
  });
  return jsonResponse(request, {});
}

/** GoTrue's verifyReauthentication: the nonce of the user's last reauthentication mail, used up. */
export async function verifyNonce(tx: postgres.Queryable, userId: string, email: string, nonce: string) {
  const [row] = await tx<{ reauthentication_token: string | null; reauthentication_sent_at: Date | null }[]>`
    select reauthentication_token, reauthentication_sent_at from auth.users where id = ${userId}`;
  if (!row?.reauthentication_token || !row.reauthentication_sent_at) throw invalidNonce();
  if (
    tokenHash(email, nonce) !== row.reauthentication_token ||
    otpExpired(row.reauthentication_sent_at, authSettings().email.otpExpirySeconds)
  ) {
    throw invalidNonce();
  }
  await tx`update auth.users set reauthentication_token = '', reauthentication_sent_at = null
            where id = ${userId}`;
  await tx`delete from auth.one_time_tokens where user_id = ${userId} and token_type = 'reauthentication_token'`;
}
