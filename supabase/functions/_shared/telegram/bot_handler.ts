/**
 * telegram-bot: Telegram's webhook updates. Every request must carry `X-Telegram-Bot-Api-Secret-Token`
 * equal to TELEGRAM_WEBHOOK_SECRET (Telegram's IP ranges are not trusted). Answers 200 once an update is
 * handled, so Telegram does not resend it; 503 when the database is unreachable, so it does.
 */
import { secretsEqual } from "../http/bearer.ts";
import { LIST_LIMIT, listReply, readUpdate, replies } from "./bot_updates.ts";
import type { BotStore } from "./bot_store.ts";

export interface BotDeps {
  /** TELEGRAM_WEBHOOK_SECRET; without it every update is refused (503). */
  webhookSecret: string | undefined;
  store: BotStore;
  /** Sends a plain-text reply; null when TELEGRAM_BOT_TOKEN is not set. */
  reply: ((chatId: string, text: string) => Promise<unknown>) | null;
}

const MAX_BODY_BYTES = 256 * 1024;

export async function handleBotRequest(request: Request, deps: BotDeps): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  if (path !== "/telegram-bot") return problem(404, "not_found", "Updates are posted to /telegram-bot.");
  if (request.method !== "POST") {
    return problem(405, "method_not_allowed", "Telegram posts updates with POST.", { allow: "POST" });
  }
  if (deps.webhookSecret === undefined || deps.reply === null) {
    return problem(503, "not_configured", "The Telegram bot is not configured on this server.");
  }
  const presented = request.headers.get("x-telegram-bot-api-secret-token");
  if (presented === null || !await secretsEqual(presented, deps.webhookSecret)) {
    return problem(401, "unauthorized", "The X-Telegram-Bot-Api-Secret-Token header is missing or wrong.");
  }

  const text = await request.text().catch(() => "");
  let update: unknown;
  try {
    update = text.length <= MAX_BODY_BYTES ? JSON.parse(text) : undefined;
  } catch {
    update = undefined;
  }
  const action = readUpdate(update);
  if (action === null) return problem(400, "invalid_request", "The body is not a Telegram update.");

  let answer: string | null;
  try {
    switch (action.kind) {
      case "link":
        answer = await deps.store.linkChat(action.token, action.chatId) === "linked"
          ? replies.linked
          : replies.invalidLink;
        break;
      case "stop":
        answer = await deps.store.unlinkChat(action.chatId) ? replies.stopped : replies.notLinked;
        break;
      case "list":
        answer = listReply(await deps.store.watchlist(action.chatId, LIST_LIMIT));
        break;
      case "help":
        answer = replies.help;
        break;
      case "link_group":
        answer = await deps.store.linkGroup(action.token, action.chatId) === "linked"
          ? replies.groupLinked
          : replies.groupInvalidLink;
        break;
      case "stop_group":
        answer = await deps.store.unlinkGroup(action.chatId) ? replies.groupStopped : replies.groupNotLinked;
        break;
      case "refuse_chat":
        answer = replies.privateOnly;
        break;
      case "ignore":
        answer = null;
    }
  } catch (error) {
    console.error(`telegram-bot: database unavailable (${(error as Error).name})`);
    return problem(503, "service_unavailable", "Try again later.");
  }
  if (answer !== null && action.kind !== "ignore") await deps.reply(action.chatId, answer);
  return Response.json({ ok: true });
}

function problem(
  status: number,
  error: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error, message }, { status, headers });
}
