/**
 * Telegram Bot API `sendMessage`. The bot token appears only in the request URL's path; neither the URL
 * nor fetch's own error messages (which quote the URL) are ever returned or logged.
 */

export type TelegramOutcome =
  | { kind: "sent"; httpStatus: number }
  /** 429: Telegram's `parameters.retry_after` (seconds), in milliseconds. */
  | { kind: "rate_limited"; httpStatus: 429; retryAfterMs: number }
  /** `permanent`: Telegram refused the message itself (400 chat not found, 403 bot blocked). */
  | { kind: "failed"; httpStatus: number | null; error: string; permanent: boolean };

export interface TelegramMessage {
  apiBase: string;
  botToken: string;
  chatId: string;
  text: string;
}

export const TELEGRAM_TIMEOUT_MS = 10_000;
/** A 429 without a usable retry_after waits this long. */
const DEFAULT_RETRY_AFTER_MS = 30_000;

export async function sendTelegramMessage(
  message: TelegramMessage,
  fetchImpl: typeof fetch = fetch,
): Promise<TelegramOutcome> {
  const url = `${message.apiBase.replace(/\/+$/, "")}/bot${message.botToken}/sendMessage`;
  let response: Response;
  let body: unknown;
  try {
    response = await fetchImpl(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        chat_id: message.chatId,
        text: message.text,
        link_preview_options: { is_disabled: true },
      }),
      redirect: "manual",
      signal: AbortSignal.timeout(TELEGRAM_TIMEOUT_MS),
    });
    body = await response.json().catch(() => null);
  } catch (error) {
    const timedOut = error instanceof DOMException &&
      (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      kind: "failed",
      httpStatus: null,
      error: timedOut ? "timeout" : "network_error",
      permanent: false,
    };
  }

  const answer = (body ?? {}) as {
    ok?: unknown;
    description?: unknown;
    parameters?: { retry_after?: unknown };
  };
  if (response.ok && answer.ok === true) return { kind: "sent", httpStatus: response.status };
  if (response.status === 429) {
    const seconds = Number(answer.parameters?.retry_after);
    const retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS;
    return { kind: "rate_limited", httpStatus: 429, retryAfterMs };
  }
  const description = typeof answer.description === "string"
    ? withoutToken(answer.description, message.botToken).slice(0, 200)
    : "";
  return {
    kind: "failed",
    httpStatus: response.status,
    error: `telegram_${response.status}${description ? `: ${description}` : ""}`,
    permanent: response.status === 400 || response.status === 403,
  };
}

function withoutToken(text: string, token: string): string {
  return token === "" ? text : text.split(token).join("[token]");
}
