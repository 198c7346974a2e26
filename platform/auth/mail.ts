/**
 * The mails the local Auth sends, as GoTrue sends them (supabase/auth `internal/api/mail.go`,
 * `internal/mailer/templatemailer`), delivered into the local mailbox (../mailbox/store.ts) instead of SMTP:
 * - per address, one mail of a kind per `[auth.email] max_frequency` (sign-up confirmations by
 *   `confirmation_sent_at`; magic links and recoveries share `recovery_sent_at`, as in GoTrue), else 429
 *   `over_email_send_rate_limit` "For security purposes, you can only request this after N seconds.";
 * - the whole Auth at most `[auth.rate_limit] email_sent` mails an hour while confirmations are on (GoTrue
 *   skips that limiter under autoconfirm), else 429 `over_email_send_rate_limit` "email rate limit exceeded";
 * - each mail carries a 6-digit code and a link `<Auth>/verify?token=<hash>&type=<type>&redirect_to=<r>`,
 *   where the hash is SHA-224(address + code) (prefixed `pkce_` for the PKCE flow) and `r` the redirect
 *   GoTrue would honour (../auth_redirects.ts). The code and hash are kept on the user
 *   (`confirmation_token` / `recovery_token`) and in `auth.one_time_tokens`, as GoTrue keeps them.
 * The local templates show both the link and the code (hosted's defaults show only the link; projects add
 * `{{ .Token }}` to their templates for codes).
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { sessionIssuer } from "../../supabase/functions/_shared/session/jwt.ts";
import { redirectAuthWouldUse } from "./redirects.ts";
import { authSettings } from "./project_settings.ts";
import { deliver } from "../mailbox/store.ts";
import {
  checkSendFrequency,
  emailRateLimitExceeded,
  generateOtp,
  HourlyMailLimit,
  pkcePrefix,
  tokenHash,
} from "./rules.ts";
import type { UserRow } from "./users.ts";

export type MailKind = "signup" | "invite" | "magiclink" | "recovery";

const hourlyLimit = new HourlyMailLimit();

const templates: Record<MailKind, { subject: string; heading: string; text: string; action: string }> = {
  signup: {
    subject: "Confirm your email address",
    heading: "Confirm your email address",
    text: "Follow the link below to confirm this email address and finish signing up.",
    action: "Confirm email address",
  },
  invite: {
    subject: "You've been invited",
    heading: "You've been invited",
    text: "You've been invited to create an account. Follow the link below to accept.",
    action: "Accept invitation",
  },
  magiclink: {
    subject: "Your sign-in link",
    heading: "Your sign-in link",
    text: "Follow the link below to sign in. This link expires shortly and can only be used once.",
    action: "Sign in",
  },
  recovery: {
    subject: "Reset your password",
    heading: "Reset your password",
    text: "We received a request to reset your password. Follow the link below to choose a new one.",
    action: "Reset password",
  },
};

/** The redirect a mail's link will carry: `redirect_to` (query), else the Referer, when allowed; else the Site URL. */
export function mailRedirect(request: Request): string {
  const { siteUrl, allowList } = authSettings();
  const asked = new URL(request.url).searchParams.get("redirect_to");
  const chosen = redirectAuthWouldUse(siteUrl, allowList, asked);
  if (chosen !== siteUrl || !request.headers.get("referer")) return chosen;
  return redirectAuthWouldUse(siteUrl, allowList, request.headers.get("referer"));
}

/** GoTrue's getPath + encodeRedirectURL: the link of a mail. */
export function verifyLink(hash: string, type: string, redirectTo: string): string {
  const redirect = /[&=#]/.test(redirectTo) ? encodeURIComponent(redirectTo) : redirectTo;
  return `${sessionIssuer()}/verify?token=${encodeURIComponent(hash)}&type=${
    encodeURIComponent(type)
  }&redirect_to=${redirect}`;
}

function deliverMail(
  to: string,
  tag: string,
  template: { subject: string; heading: string; text: string; action: string },
  link: string,
  otp: string,
): void {
  deliver({
    to,
    subject: template.subject,
    tag,
    text:
      `${template.heading}\n\n${template.text}\n\n${template.action}: ${link}\n\nOr enter this code: ${otp}\n`,
    html: `<h2>${escape(template.heading)}</h2>\n\n<p>${escape(template.text)}</p>\n<p><a href="${
      escape(link)
    }">${escape(template.action)}</a></p>\n<p>Or enter this code: <strong>${otp}</strong></p>`,
  });
}

/**
 * GoTrue's sendEmailChange: a mail to the new address and, with `double_confirm_changes`, one to the current
 * address, each with its own code and link (type `email_change`); one change mail per address per
 * max_frequency.
 */
export async function sendEmailChangeMails(
  tx: postgres.TransactionSql,
  request: Request,
  user: UserRow,
  newEmail: string,
  options: { pkce?: boolean } = {},
): Promise<void> {
  const settings = authSettings();
  checkSendFrequency(user.email_change_sent_at, settings.email.maxFrequencySeconds);
  if (settings.emailSentPerHour <= 0 || settings.email.enableConfirmations) {
    if (!hourlyLimit.allow(settings.emailSentPerHour)) throw emailRateLimitExceeded();
  }
  const prefix = options.pkce ? pkcePrefix : "";
  const redirectTo = mailRedirect(request);
  const otpNew = generateOtp(settings.email.otpLength);
  const hashNew = prefix + tokenHash(newEmail, otpNew);
  const current = settings.email.doubleConfirmChanges && user.email ? user.email : "";
  const otpCurrent = current ? generateOtp(settings.email.otpLength) : "";
  const hashCurrent = current ? prefix + tokenHash(current, otpCurrent) : "";
  await tx`update auth.users
              set email_change = ${newEmail}, email_change_token_new = ${hashNew},
                  email_change_token_current = ${hashCurrent}, email_change_confirm_status = 0,
                  email_change_sent_at = now(), updated_at = now()
            where id = ${user.id}`;
  for (
    const [type, hash, relatesTo] of [["email_change_token_new", hashNew, newEmail], [
      "email_change_token_current",
      hashCurrent,
      current,
    ]]
  ) {
    if (!hash) continue;
    await tx`
      insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to)
      values (${user.id}, ${type}, ${hash}, ${relatesTo})
      on conflict (user_id, token_type)
        do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()`;
  }
  const template = {
    subject: "Confirm your new email address",
    heading: "Confirm your new email address",
    text: `Follow the link below to confirm ${newEmail} as your new email address.`,
    action: "Confirm new email address",
  };
  deliverMail(newEmail, "email_change", template, verifyLink(hashNew, "email_change", redirectTo), otpNew);
  if (current) {
    deliverMail(
      current,
      "email_change",
      template,
      verifyLink(hashCurrent, "email_change", redirectTo),
      otpCurrent,
    );
  }
}

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * Makes the code and link of one mail, stores them on the user and delivers the mail; `send: false` makes
 * them without delivering (the admin API's generate_link). Applies the per-address frequency unless `send`
 * is false or the kind is an invitation. Returns the code, hash and link.
 */
export async function sendAuthMail(
  tx: postgres.TransactionSql,
  request: Request,
  user: UserRow,
  kind: MailKind,
  options: { pkce?: boolean; send?: boolean; redirectTo?: string } = {},
): Promise<{ otp: string; hash: string; link: string; redirectTo: string }> {
  const settings = authSettings();
  const send = options.send ?? true;
  const usesConfirmation = kind === "signup" || kind === "invite";
  if (send && kind !== "invite") {
    checkSendFrequency(
      usesConfirmation ? user.confirmation_sent_at : user.recovery_sent_at,
      settings.email.maxFrequencySeconds,
    );
  }
  if (send && (settings.emailSentPerHour <= 0 || settings.email.enableConfirmations)) {
    if (!hourlyLimit.allow(settings.emailSentPerHour)) throw emailRateLimitExceeded();
  }
  const email = user.email ?? "";
  const otp = generateOtp(settings.email.otpLength);
  const hash = (options.pkce ? pkcePrefix : "") + tokenHash(email, otp);
  const redirectTo = options.redirectTo ?? mailRedirect(request);
  const link = verifyLink(hash, kind, redirectTo);
  if (usesConfirmation) {
    await tx`update auth.users set confirmation_token = ${hash}, confirmation_sent_at = now(), updated_at = now()
              where id = ${user.id}`;
  } else {
    await tx`update auth.users set recovery_token = ${hash}, recovery_sent_at = now(), updated_at = now()
              where id = ${user.id}`;
  }
  const tokenType = usesConfirmation ? "confirmation_token" : "recovery_token";
  await tx`
    insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to)
    values (${user.id}, ${tokenType}, ${hash}, ${email})
    on conflict (user_id, token_type)
      do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()`;
  if (send) deliverMail(email, kind, templates[kind], link, otp);
  return { otp, hash, link, redirectTo };
}
