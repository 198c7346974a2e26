/**
 * No log line holds an email address, webhook URL, chat ID, token or key (docs/decisions.md). Lines the
 * functions write themselves name only ids, counts, domain names and the service's own servers; text that
 * comes from elsewhere (an error's message or stack, which may quote a request URL, a database value or an
 * address) passes through `redactForLog` first.
 */

const PATTERNS: [RegExp, string][] = [
  // Any URL: a webhook URL can carry a token in its path, a Bot API URL the bot's token.
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, "<url>"],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, "<email>"],
  // JSON Web Tokens (session and access tokens).
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, "<token>"],
  // Telegram bot tokens (<bot id>:<secret>).
  [/\b\d{5,}:[A-Za-z0-9_-]{20,}/g, "<token>"],
  // The service's API keys and Standard Webhooks secrets.
  [/\bdwl_[0-9a-f]{8,}/gi, "<key>"],
  [/\bwhsec_[A-Za-z0-9+/=]*/g, "<secret>"],
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
