/**
 * No log line holds an email address, webhook URL, chat ID, token or key (docs/decisions.md). Lines the
 * functions write themselves name only ids, counts, domain names and the service's own servers; text that
 * comes from elsewhere (an error's message or stack, which may quote a request URL, a database value or an
 * address) passes through `redactForLog` first.
 */

const PATTERNS: [RegExp, string][] = [
  // Any URL: a webhook URL can carry a token in its path, a Bot API URL the bot's token.
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, "<url>"],
  // A URL without its scheme: a host name (or IPv4 address) with a path, `//` optional. A domain name alone
  // (`example.com`, what the poller's lines name) is no URL and stays.
  [
    /(?<![\p{L}\p{N}_@.\/-])(?:\/\/)?(?:(?:[\p{L}\p{N}-]+\.)+\p{L}[\p{L}\p{N}-]+|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?\/[^\s"'<>()]*/giu,
    "<url>",
  ],
  // Email addresses, Unicode ones included (bücher@müller.de, 用户@例子.广告).
  [/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, "<email>"],
  // JSON Web Tokens (session and access tokens).
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, "<token>"],
  // Telegram bot tokens (<bot id>:<secret>).
  [/\b\d{5,}:[A-Za-z0-9_-]{20,}/g, "<token>"],
  // The service's API keys, Supabase secret keys and Standard Webhooks secrets.
  [/\bdwl_[0-9a-f]{8,}/gi, "<key>"],
  // Calendar feed tokens (…/functions/v1/calendar/<token>.ics: the path is the secret).
  [/\bdwcal_[0-9a-f]{8,}/gi, "<key>"],
  [/\bsb_secret_[A-Za-z0-9_-]+/g, "<key>"],
  [/\bwhsec_[A-Za-z0-9+/=]*/g, "<secret>"],
  // A secret, password or token given by name, whatever its form: `secret=…`, `"secret": "…"`,
  // `(p_secret)=(…)`, `password: …`.
  [
    /((?<![A-Za-z])(?:secret|password|token)["')]*\s*[:=]\s*[("']*)(?!<)[^\s"',;&)}\]]+/gi,
    "$1<secret>",
  ],
  // A chat ID given by name, however short: `chat 4242`, `chat_id=4242`, `"chat_id": -4242`,
  // `(telegram_chat_id)=(4242)`.
  [/((?<![A-Za-z])chat(?:[ _-]?id)?["')]*\s*[:=]?\s*[("']*)-?\d+/gi, "$1<number>"],
  // Long digit runs: chat IDs and the like.
  [/(?<![\w.-])-?\d{7,}(?![\w.-])/g, "<number>"],
];

/** `text` with every URL, email address, token, key and long number replaced by a placeholder. */
export function redactForLog(text: string): string {
  let redacted = text;
  for (const [pattern, placeholder] of PATTERNS) redacted = redacted.replace(pattern, placeholder);
  return redacted;
}

/** An error's message (or the value itself) for a log line, redacted. */
export function errorForLog(error: unknown): string {
  return redactForLog(String((error as Error)?.message ?? error));
}
