// telegram-bot: Telegram's webhook updates (link a chat with /start <token>, /list, /stop). Wiring only.
import { handleBotRequest } from "../_shared/telegram/bot_handler.ts";
import { defaultBotDeps } from "../_shared/telegram/default_bot.ts";

Deno.serve((request) => handleBotRequest(request, defaultBotDeps()));
