/** The email run's dependencies and settings from the environment, read at call time (`SMTP_URL`, `ALERT_MAIL_FROM`, `EMAIL_*`). */
import { config, intEnv } from "../config.ts";
import type { EmailDeps } from "./email_dispatcher.ts";
import { databaseEmailQueue } from "./email_queue.ts";
import { smtpSender } from "./email_sender.ts";
import { mailFromAddress, readSmtpUrl } from "./smtp_settings.ts";

export interface EmailSettings {
  /** An address's mail waits until its oldest event is this old (`EMAIL_DIGEST_WINDOW_SECONDS`, 300). */
  windowSeconds: number;
  /** Events one digest lists at most (`EMAIL_MAX_EVENTS_PER_MAIL`, 50); more go in the next mail. */
  maxEventsPerMail: number;
  /** SMTP connections in flight at once (`EMAIL_CONCURRENCY`, 4). */
  concurrency: number;
  /** Mails one run sends at most (`EMAIL_MAX_PER_RUN`, 200). */
  maxPerRun: number;
}

export function emailSettings(): EmailSettings {
  return {
    windowSeconds: intEnv("EMAIL_DIGEST_WINDOW_SECONDS", 300, 0, 86_400),
    maxEventsPerMail: intEnv("EMAIL_MAX_EVENTS_PER_MAIL", 50, 1, 500),
    concurrency: intEnv("EMAIL_CONCURRENCY", 4, 1, 32),
    maxPerRun: intEnv("EMAIL_MAX_PER_RUN", 200, 1, 10_000),
  };
}

export function defaultEmailDeps(): EmailDeps {
  const from = config.alertMailFrom();
  const fromAddress = from ? mailFromAddress(from) : null;
  const smtpUrl = config.smtpUrl();
  const reading = smtpUrl ? readSmtpUrl(smtpUrl) : null;
  let problem: string | null = null;
  if (reading === null) problem = "smtp_not_configured: SMTP_URL is not set";
  else if (!reading.ok) problem = `smtp_not_configured: ${reading.problem}`;
  else if (fromAddress === null) problem = "smtp_not_configured: ALERT_MAIL_FROM is not set to an address";
  const appUrl = config.appUrl();
  return {
    queue: databaseEmailQueue(),
    send: problem === null && reading?.ok ? smtpSender(reading.settings, from!) : null,
    problem,
    linksBase: `${config.projectPublicUrl().replace(/\/+$/, "")}/functions/v1/email-links`,
    settingsUrl: appUrl ? `${appUrl.replace(/\/+$/, "")}/alerts` : null,
    messageIdDomain: fromAddress?.split("@")[1] ?? "localhost",
  };
}
