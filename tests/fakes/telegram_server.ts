/**
 * A local fake of the Telegram Bot API for tests: `POST /bot<token>/sendMessage` records the message and
 * answers like Telegram. Answers can be queued per chat, e.g. a 429 with `parameters.retry_after`.
 * Requests with another token get Telegram's 401. It also plays Telegram's side of a bot webhook:
 * `setWebhook` (url and secret_token, as `deno task admin telegram-webhook` sends them), `getMe`, and
 * `deliverUpdate`, which posts a message update to the registered URL with the registered secret header
 * (also reachable as `POST /fake/updates {"chat_id", "text"}`, for trying the bot by hand).
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
  /** Drops the recorded calls to a chat (e.g. the bot's link confirmation before counting alerts). */
  forget(chatId: string): void;
  username: string;
  /** What the last `setWebhook` registered, if anything. */
  webhook: { url: string; secretToken: string | null; allowedUpdates: unknown } | null;
  /**
   * Telegram delivering a message update to the registered webhook (`secretToken` overrides the header,
   * null leaves it out). A private chat unless `chatType` says otherwise; channel posts for "channel".
   */
  deliverUpdate(
    chatId: number,
    text: string,
    options?: { chatType?: "private" | "group" | "supergroup" | "channel"; secretToken?: string | null },
  ): Promise<Response>;
  close(): Promise<void>;
}

export function startFakeTelegram(
  options: { token?: string; port?: number; username?: string } = {},
): FakeTelegram {
  const token = options.token ?? `${Math.floor(Math.random() * 1e9)}:fake-bot-token`;
  const calls: SentMessage[] = [];
  const queued = new Map<string, TelegramAnswer[]>();
  let messageId = 1;
  let updateId = 1000;
  const username = options.username ?? "FakeWatchlistBot";
  let webhook: FakeTelegram["webhook"] = null;

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/fake/updates" && request.method === "POST") {
        // Plays a user writing to the bot (README walk-through): {"chat_id": 4242, "text": "/start <token>"}.
        const body = await request.json().catch(() => ({})) as { chat_id?: unknown; text?: unknown };
        if (typeof body.chat_id !== "number" || typeof body.text !== "string") {
          return Response.json({ error: "send {chat_id: number, text: string}" }, { status: 400 });
        }
        const delivered = await fake.deliverUpdate(body.chat_id, body.text).catch((error) => error as Error);
        if (delivered instanceof Error) return Response.json({ error: delivered.message }, { status: 409 });
        return Response.json({
          bot_status: delivered.status,
          bot_answer: await delivered.json().catch(() => null),
        });
      }
      const match = path.match(/^\/bot([^/]+)\/(sendMessage|setWebhook|getMe)$/);
      if (!match || (request.method !== "POST" && match[2] !== "getMe")) {
        return Response.json({ ok: false, error_code: 404, description: "Not Found" }, { status: 404 });
      }
      if (decodeURIComponent(match[1]) !== token) {
        return Response.json({ ok: false, error_code: 401, description: "Unauthorized" }, { status: 401 });
      }
      if (match[2] === "getMe") {
        return Response.json({
          ok: true,
          result: { id: 7000001, is_bot: true, first_name: "Watchlist", username },
        });
      }
      if (match[2] === "setWebhook") {
        const body = await request.json().catch(() => ({})) as Record<string, unknown>;
        if (typeof body.url !== "string" || !body.url.startsWith("http")) {
          return Response.json({ ok: false, error_code: 400, description: "Bad Request: bad webhook" }, {
            status: 400,
          });
        }
        webhook = {
          url: body.url,
          secretToken: typeof body.secret_token === "string" ? body.secret_token : null,
          allowedUpdates: body.allowed_updates,
        };
        return Response.json({ ok: true, result: true, description: "Webhook was set" });
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

  const fake: FakeTelegram = {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    calls,
    delivered: (chatId) =>
      calls.filter((call) => call.status === 200 && (chatId === undefined || call.chatId === chatId)),
    queueAnswers: (chatId, answers) => queued.set(chatId, [...(queued.get(chatId) ?? []), ...answers]),
    forget: (chatId) => {
      for (let i = calls.length - 1; i >= 0; i--) if (calls[i].chatId === chatId) calls.splice(i, 1);
    },
    username,
    get webhook() {
      return webhook;
    },
    deliverUpdate(chatId, text, updateOptions = {}) {
      if (webhook === null) throw new Error("no webhook registered with the fake Telegram (setWebhook)");
      const chatType = updateOptions.chatType ?? "private";
      const message = {
        message_id: messageId++,
        date: Math.floor(Date.now() / 1000),
        chat: chatType === "private"
          ? { id: chatId, type: chatType, first_name: "Test" }
          : { id: chatId, type: chatType, title: "A group" },
        ...(chatType === "channel"
          ? {}
          : { from: { id: Math.abs(chatId), is_bot: false, first_name: "Test" } }),
        text,
      };
      const update = chatType === "channel"
        ? { update_id: updateId++, channel_post: message }
        : { update_id: updateId++, message };
      const secret = updateOptions.secretToken === undefined
        ? webhook.secretToken
        : updateOptions.secretToken;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (secret !== null) headers["x-telegram-bot-api-secret-token"] = secret;
      return fetch(webhook.url, { method: "POST", headers, body: JSON.stringify(update) });
    },
    close: () => server.shutdown(),
  };
  return fake;
}
