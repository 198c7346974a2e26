/**
 * A local fake of the Telegram Bot API for tests: `POST /bot<token>/sendMessage` records the message and
 * answers like Telegram. Answers can be queued per chat, e.g. a 429 with `parameters.retry_after`.
 * Requests with another token get Telegram's 401.
 */

export interface SentMessage {
  chatId: string;
  text: string;
  at: number;
  /** The answer's HTTP status. */
  status: number;
}

export type TelegramAnswer =
  | { status: 200 }
  | { status: 429; retryAfter: number }
  | { status: 400 | 403 | 500; description?: string };

export interface FakeTelegram {
  /** The base URL, for `TELEGRAM_API_BASE`. */
  url: string;
  token: string;
  /** Every sendMessage call, successful or not. */
  calls: SentMessage[];
  /** Successful calls only. */
  delivered(chatId?: string): SentMessage[];
  /** The next answers for a chat, in order; after them, 200. */
  queueAnswers(chatId: string, answers: TelegramAnswer[]): void;
  close(): Promise<void>;
}

export function startFakeTelegram(options: { token?: string; port?: number } = {}): FakeTelegram {
  const token = options.token ?? `${Math.floor(Math.random() * 1e9)}:fake-bot-token`;
  const calls: SentMessage[] = [];
  const queued = new Map<string, TelegramAnswer[]>();
  let messageId = 1;

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      const match = path.match(/^\/bot([^/]+)\/sendMessage$/);
      if (!match || request.method !== "POST") {
        return Response.json({ ok: false, error_code: 404, description: "Not Found" }, { status: 404 });
      }
      if (decodeURIComponent(match[1]) !== token) {
        return Response.json({ ok: false, error_code: 401, description: "Unauthorized" }, { status: 401 });
      }
      const body = await request.json().catch(() => ({})) as { chat_id?: unknown; text?: unknown };
      const chatId = String(body.chat_id ?? "");
      const answer = queued.get(chatId)?.shift() ?? { status: 200 };
      calls.push({ chatId, text: String(body.text ?? ""), at: Date.now(), status: answer.status });
      switch (answer.status) {
        case 200:
          return Response.json({
            ok: true,
            result: { message_id: messageId++, chat: { id: chatId }, date: Math.floor(Date.now() / 1000) },
          });
        case 429:
          return Response.json({
            ok: false,
            error_code: 429,
            description: `Too Many Requests: retry after ${answer.retryAfter}`,
            parameters: { retry_after: answer.retryAfter },
          }, { status: 429 });
        default:
          return Response.json({
            ok: false,
            error_code: answer.status,
            description: answer.description ?? "Bad Request: chat not found",
          }, { status: answer.status });
      }
    },
  );

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    calls,
    delivered: (chatId) =>
      calls.filter((call) => call.status === 200 && (chatId === undefined || call.chatId === chatId)),
    queueAnswers: (chatId, answers) => queued.set(chatId, [...(queued.get(chatId) ?? []), ...answers]),
    close: () => server.shutdown(),
  };
}
