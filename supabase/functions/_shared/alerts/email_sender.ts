/**
 * Sends one mail over SMTP with nodemailer (node:net / node:tls, which the Edge runtime provides): one
 * connection per mail, implicit TLS for `smtps`, certificates verified. The outcome carries the SMTP reply
 * code; no address, password or provider text beyond the reply is returned or logged.
 */
import nodemailer from "nodemailer";
import type { EmailMessage } from "./email_message.ts";
import { smtpFailure, type SmtpResult, type SmtpSettings } from "./smtp_settings.ts";

export const SMTP_TIMEOUT_MS = 20_000;

export type SendMail = (to: string, message: EmailMessage, messageId: string) => Promise<SmtpResult>;

function replyCode(text: string | undefined): number | null {
  const match = text?.match(/^(\d{3})\b/);
  return match ? Number(match[1]) : null;
}

/**
 * A sender for `settings`, from `from` (`Name <address>`). `tls` adds trusted roots or the name to verify
 * (tests only: production trusts the runtime's roots and verifies the host's name).
 */
export function smtpSender(
  settings: SmtpSettings,
  from: string,
  timeoutMs = SMTP_TIMEOUT_MS,
  tls: { ca?: string; servername?: string } = {},
): SendMail {
  return async (to, message, messageId) => {
    const transport = nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      // Plain smtp:// is only ever a loopback host (smtp_settings.ts): never upgrade there.
      ignoreTLS: !settings.secure,
      tls: { rejectUnauthorized: true, minVersion: "TLSv1.2", ...tls },
      auth: settings.user !== null ? { user: settings.user, pass: settings.password ?? "" } : undefined,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    try {
      const info = await transport.sendMail({
        from,
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
        messageId,
      });
      return { kind: "sent", code: replyCode(info.response) ?? 250 };
    } catch (error) {
      const failure = error as { responseCode?: number; code?: string; response?: string };
      const code = typeof failure.responseCode === "number"
        ? failure.responseCode
        : replyCode(failure.response);
      const what = code !== null
        ? `smtp_${code}: ${
          (failure.response ?? "").replace(/[\r\n]+/g, " ").replace(/[^\s<>]+@[^\s<>]+/g, "…")
        }`
        : `smtp_${(failure.code ?? "error").toLowerCase()}`;
      return smtpFailure(code, what);
    } finally {
      transport.close();
    }
  };
}
