/**
 * `SMTP_URL` read into a connection, and an SMTP reply sorted into delivered / retry / permanent. Pure.
 *
 * Production is `smtps://user:password@host:465`: implicit TLS (RFC 8314), because hosted Edge Functions
 * cannot reach ports 25 and 587. A plain `smtp://` URL is accepted only for a loopback host (the local
 * mailbox on 54325), so a typo never sends mail and passwords in clear over the internet.
 */

export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (`smtps`). */
  secure: boolean;
  user: string | null;
  password: string | null;
}

export type SmtpUrlReading = { ok: true; settings: SmtpSettings } | { ok: false; problem: string };

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || host === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Reads `SMTP_URL`. The problem never quotes the URL (it holds the password). */
export function readSmtpUrl(raw: string): SmtpUrlReading {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, problem: "SMTP_URL is not a URL (smtps://user:password@host:465)" };
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== "smtps" && scheme !== "smtp") {
    return { ok: false, problem: "SMTP_URL must start with smtps:// (smtp:// only for a loopback host)" };
  }
  if (url.hostname === "") return { ok: false, problem: "SMTP_URL names no host" };
  if (scheme === "smtp" && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      problem: "SMTP_URL: plain smtp:// is allowed only for a loopback host; use smtps://",
    };
  }
  const port = url.port === "" ? (scheme === "smtps" ? 465 : 25) : Number(url.port);
  if (url.pathname !== "" && url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return { ok: false, problem: "SMTP_URL takes no path, query or fragment" };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    ok: true,
    settings: {
      host,
      port,
      secure: scheme === "smtps",
      user: url.username === "" ? null : decodeURIComponent(url.username),
      password: url.password === "" ? null : decodeURIComponent(url.password),
    },
  };
}

export type SmtpResult =
  | { kind: "sent"; code: number }
  /** `permanent`: a 5yz reply (RFC 5321 4.2.1: do not repeat the same request). */
  | { kind: "failed"; code: number | null; permanent: boolean; error: string };

/** A reply code's class: 2yz sent, 5yz permanent, anything else (4yz, no reply) worth retrying. */
export function smtpFailure(code: number | null, error: string): SmtpResult {
  return {
    kind: "failed",
    code,
    permanent: code !== null && code >= 500 && code < 600,
    error: error.slice(0, 300),
  };
}

/** The address part of `Name <a@b>` or `a@b`, for the envelope; null when it is not one. */
export function mailFromAddress(from: string): string | null {
  const match = from.match(/<([^<>\s]+@[^<>\s]+)>\s*$/) ?? from.trim().match(/^([^<>\s]+@[^<>\s]+)$/);
  return match ? match[1] : null;
}
