/**
 * The Telegram bot's pure logic: what an update asks for, and the reply texts (plain text, no markup).
 * A private chat links to an account; a group (or supergroup) links to an organization with a group link
 * (docs/telegram.md "A group for an organization"); channels are refused politely.
 */
import { isRecord } from "../encoding.ts";

export type BotAction =
  | { kind: "link"; chatId: string; token: string }
  | { kind: "stop"; chatId: string }
  | { kind: "list"; chatId: string }
  | { kind: "help"; chatId: string }
  /** A group's `/start <token>` (from a group link): links the group to an organization. */
  | { kind: "link_group"; chatId: string; token: string }
  /** A group's `/stop`: unlinks the group from its organization. */
  | { kind: "stop_group"; chatId: string }
  /** A channel, or a group's other command: never linked. */
  | { kind: "refuse_chat"; chatId: string }
  /** Nothing to answer (an edit, a service message, a reaction, …). */
  | { kind: "ignore" };

export const LIST_LIMIT = 50;

/** Reads one webhook update; null when it is not a Telegram update at all. */
export function readUpdate(update: unknown): BotAction | null {
  if (!isRecord(update) || typeof update.update_id !== "number") return null;
  const message = update.message ?? update.channel_post;
  if (!isRecord(message) || !isRecord(message.chat)) return { kind: "ignore" };
  const chatIdValue = message.chat.id;
  if (typeof chatIdValue !== "number" || !Number.isSafeInteger(chatIdValue)) return { kind: "ignore" };
  const chatId = String(chatIdValue);
  if (message.chat.type !== "private" || chatIdValue <= 0) {
    // Answer only a command (or a channel post) so the bot is not chatty in a group's conversation.
    const text = typeof message.text === "string" ? message.text : "";
    if (update.channel_post !== undefined || !text.startsWith("/")) {
      return update.channel_post !== undefined ? { kind: "refuse_chat", chatId } : { kind: "ignore" };
    }
    const isGroup = (message.chat.type === "group" || message.chat.type === "supergroup") && chatIdValue < 0;
    if (!isGroup) return { kind: "refuse_chat", chatId };
    const [word, ...rest] = text.trim().split(/\s+/);
    const command = word.toLowerCase().replace(/@[a-z0-9_]+$/, "");
    if (command === "/start" && rest.length === 1) return { kind: "link_group", chatId, token: rest[0] };
    if (command === "/stop") return { kind: "stop_group", chatId };
    return { kind: "refuse_chat", chatId };
  }
  if (typeof message.text !== "string") return { kind: "help", chatId };
  const [word, ...rest] = message.text.trim().split(/\s+/);
  const command = word.toLowerCase().replace(/@[a-z0-9_]+$/, "");
  switch (command) {
    case "/start":
      return rest.length === 1 ? { kind: "link", chatId, token: rest[0] } : { kind: "help", chatId };
    case "/stop":
      return { kind: "stop", chatId };
    case "/list":
      return { kind: "list", chatId };
    default:
      return { kind: "help", chatId };
  }
}

export interface WatchedName {
  domain_name: string;
  status: string;
}

export const replies = {
  linked:
    "Linked. This chat now receives Domain Watchlist alerts for your account.\n/list shows your watched names; /stop unlinks this chat.",
  invalidLink:
    "This link does not work any more: each link works once, for 15 minutes. Open a new link from the Domain Watchlist app.",
  stopped: "Unlinked. This chat will not receive Domain Watchlist alerts any more.",
  notLinked: "This chat is not linked to a Domain Watchlist account. Open the link from the app to link it.",
  help:
    "Domain Watchlist bot.\nTo link this chat, open the Telegram link from the app.\n/list - your watched names and their state\n/stop - stop alerts in this chat",
  privateOnly:
    "Sorry, Domain Watchlist sends personal alerts to private chats only. Open the link from the app in a private chat with this bot. A group receives an organization's alerts: an owner or admin opens the group link from the organization's page.",
  groupLinked:
    "Linked. This group now receives the alerts of an organization's list on Domain Watchlist.\n/stop unlinks this group.",
  groupInvalidLink:
    "This link does not work in a group: a personal link works in a private chat only, and a group link works once, for 15 minutes. An owner or admin of the organization opens a new group link from the organization's page.",
  groupStopped: "Unlinked. This group will not receive Domain Watchlist alerts any more.",
  groupNotLinked: "This group is not linked to a Domain Watchlist organization.",
};

/** The `/list` reply: at most LIST_LIMIT names (A-labels, as stored) with their state, and the count. */
export function listReply(list: { count: number; names: WatchedName[] } | null): string {
  if (list === null) return replies.notLinked;
  if (list.count === 0) return "You are not watching any names yet.";
  const shown = list.names.slice(0, LIST_LIMIT);
  const heading = list.count === 1 ? "1 name watched" : `${list.count} names watched`;
  const more = list.count > shown.length ? `\n(showing ${shown.length} of ${list.count})` : "";
  const lines = shown.map((name) => `${name.domain_name} - ${name.status.replace("_", " ")}`);
  return `${heading}:\n${lines.join("\n")}${more}`;
}
