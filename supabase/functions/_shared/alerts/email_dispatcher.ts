/**
 * The email part of a delivery run: confirmation mails due, then alert mails due (each an address's
 * digest, claimed whole), sent with a few connections in flight, each outcome recorded at once. A 5yz
 * reply fails the mail for good and counts towards stopping the address (3 in a row, in SQL); anything
 * else that fails is retried on the usual schedule. Nothing about an address or the SMTP password is
 * logged.
 */
import { alertEmail, confirmationEmail } from "./email_message.ts";
import type { ClaimedMail, EmailQueue } from "./email_queue.ts";
import type { SendMail } from "./email_sender.ts";
import { nextAttemptAfterFailure } from "./retry_schedule.ts";
import { errorForLog } from "../log_text.ts";

export interface EmailDeps {
  queue: EmailQueue;
  /** Null while SMTP_URL or ALERT_MAIL_FROM is unset or unusable (`problem` says which, without secrets). */
  send: SendMail | null;
  problem?: string | null;
  /** `<project>/functions/v1/email-links` */
  linksBase: string;
  /** The app's alerts page, or null. */
  settingsUrl: string | null;
  /** The domain of Message-IDs (the From address's). */
  messageIdDomain: string;
  now?: () => number;
}

export interface EmailRunOptions {
  deadline: number;
  leaseSeconds: number;
  /** The digest window (EMAIL_DIGEST_WINDOW_SECONDS, 300). */
  windowSeconds: number;
  maxEventsPerMail: number;
  maxMails: number;
  concurrency: number;
}

export interface EmailRunSummary {
  mails_sent: number;
  mails_retried: number;
  mails_failed: number;
  mails_skipped: number;
  deliveries_sent: number;
  confirmations_sent: number;
  stopped_because: "no_due_work" | "time_budget" | "mail_limit";
}

/** Why a claimed mail is not sent (its deliveries are settled `skipped`), or null to send it. */
export function mailSkipReason(mail: ClaimedMail): string | null {
  if (mail.addressId === null) return "email_address_removed";
  if (mail.addressStatus === "stopped") return "email_stopped";
  if (mail.addressStatus !== "active") return "email_unconfirmed";
  const onlyTests = mail.deliveries.every((delivery) => delivery.event.type === "test");
  if (mail.addressEnabled === false && !onlyTests) return "email_disabled";
  if (mail.to === null) return "account_email_unconfirmed";
  if (mail.unsubscribeToken === null) return "email_address_removed";
  return null;
}

const CONFIRMATION_RETRY_MS = 5 * 60_000;

export async function sendDueEmails(deps: EmailDeps, options: EmailRunOptions): Promise<EmailRunSummary> {
  const now = deps.now ?? Date.now;
  const summary: EmailRunSummary = {
    mails_sent: 0,
    mails_retried: 0,
    mails_failed: 0,
    mails_skipped: 0,
    deliveries_sent: 0,
    confirmations_sent: 0,
    stopped_because: "no_due_work",
  };
  let claimed = 0;

  async function sendConfirmation(due: { addressId: string; to: string; token: string; expiresAt: Date }) {
    if (deps.send === null) {
      await deps.queue.confirmationNotSent(
        due.addressId,
        new Date(now() + CONFIRMATION_RETRY_MS),
        "smtp_not_configured",
      );
      return;
    }
    const url = `${deps.linksBase}/confirm?token=${due.token}`;
    const result = await deps.send(
      due.to,
      confirmationEmail(url, due.expiresAt),
      `<confirm-${due.addressId}-${now()}@${deps.messageIdDomain}>`,
    );
    if (result.kind === "sent") summary.confirmations_sent++;
    else {
      await deps.queue.confirmationNotSent(
        due.addressId,
        result.permanent ? null : new Date(now() + CONFIRMATION_RETRY_MS),
        result.error,
      );
    }
  }

  async function sendMail(mail: ClaimedMail) {
    const ids = mail.deliveries.map((delivery) => delivery.id);
    const oldest = mail.deliveries[0];
    const skip = mailSkipReason(mail);
    if (skip !== null) {
      await deps.queue.settleMail(
        ids,
        { outcome: "skipped", smtpCode: null, error: skip, durationMs: 0 },
        null,
        false,
      );
      summary.mails_skipped++;
      return;
    }
    const startedAt = now();
    const retryAt = () => nextAttemptAfterFailure(oldest.failureCount + 1, oldest.createdAt, new Date(now()));
    if (deps.send === null) {
      const next = retryAt();
      await deps.queue.settleMail(
        ids,
        {
          outcome: "failed",
          smtpCode: null,
          error: deps.problem ?? "smtp_not_configured",
          durationMs: 0,
        },
        next,
        false,
      );
      if (next === null) summary.mails_failed++;
      else summary.mails_retried++;
      return;
    }
    const message = alertEmail(
      mail.deliveries.map((delivery) => delivery.event),
      {
        unsubscribeUrl: `${deps.linksBase}/unsubscribe?token=${mail.unsubscribeToken}`,
        settingsUrl: deps.settingsUrl,
      },
      mail.mailId,
    );
    const result = await deps.send(mail.to!, message, `<${mail.mailId}@${deps.messageIdDomain}>`);
    const durationMs = now() - startedAt;
    if (result.kind === "sent") {
      await deps.queue.settleMail(
        ids,
        { outcome: "delivered", smtpCode: result.code, error: null, durationMs },
        null,
        false,
      );
      summary.mails_sent++;
      summary.deliveries_sent += ids.length;
      return;
    }
    const next = result.permanent ? null : retryAt();
    await deps.queue.settleMail(
      ids,
      { outcome: "failed", smtpCode: result.code, error: result.error, durationMs },
      next,
      result.permanent,
    );
    if (next === null) summary.mails_failed++;
    else summary.mails_retried++;
  }

  const guarded = (work: () => Promise<void>, what: string) =>
    work().catch((error) => {
      // Left to its lease: the mail comes back to a later run.
      console.error(`[email] ${what} could not be completed: ${errorForLog(error)}`);
    });

  while (true) {
    if (now() >= options.deadline) {
      summary.stopped_because = "time_budget";
      break;
    }
    if (claimed >= options.maxMails) {
      summary.stopped_because = "mail_limit";
      break;
    }
    const room = Math.min(options.concurrency, options.maxMails - claimed);
    const confirmations = await deps.queue.claimConfirmations(room);
    const mails = await deps.queue.claimMails(
      room,
      options.leaseSeconds,
      options.windowSeconds,
      options.maxEventsPerMail,
    );
    claimed += confirmations.length + mails.length;
    if (confirmations.length === 0 && mails.length === 0) break;
    await Promise.all([
      ...confirmations.map((due) => guarded(() => sendConfirmation(due), "a confirmation mail")),
      ...mails.map((mail) => guarded(() => sendMail(mail), `mail ${mail.mailId}`)),
    ]);
  }
  return summary;
}
