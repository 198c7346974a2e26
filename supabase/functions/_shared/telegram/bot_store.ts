/** The telegram-bot function's database calls, as service_role (the chat is not an account session). */
import { asService, type TransactionRunner } from "../db/client.ts";
import type { WatchedName } from "./bot_updates.ts";

export interface BotStore {
  /** 'linked', or 'invalid' for a token that is unknown, expired or already used. */
  linkChat(token: string, chatId: string): Promise<"linked" | "invalid">;
  /** Whether a chat was linked. */
  unlinkChat(chatId: string): Promise<boolean>;
  /** The linked account's watched names (at most `limit`) and count; null when no account is linked. */
  watchlist(chatId: string, limit: number): Promise<{ count: number; names: WatchedName[] } | null>;
  /** A group's link to an organization: 'linked', or 'invalid' (unknown, expired, used, maker demoted). */
  linkGroup(token: string, chatId: string): Promise<"linked" | "invalid">;
  /** Whether the group was linked to an organization. */
  unlinkGroup(chatId: string): Promise<boolean>;
}

export function databaseBotStore(run: TransactionRunner = asService): BotStore {
  return {
    linkChat: (token, chatId) =>
      run(async (tx) => {
        const [row] = await tx<
          { outcome: string }[]
        >`select private.telegram_link_chat(${token}, ${chatId}) as outcome`;
        return row.outcome === "linked" ? "linked" : "invalid";
      }),
    unlinkChat: (chatId) =>
      run(async (tx) => {
        const [row] = await tx<
          { unlinked: boolean }[]
        >`select private.telegram_unlink_chat(${chatId}) as unlinked`;
        return row.unlinked;
      }),
    watchlist: (chatId, limit) =>
      run(async (tx) => {
        const [row] = await tx<{ list: { count: number; names: WatchedName[] } | null }[]>`
          select private.telegram_chat_watchlist(${chatId}, ${limit}) as list`;
        return row.list;
      }),
    linkGroup: (token, chatId) =>
      run(async (tx) => {
        const [row] = await tx<
          { outcome: string }[]
        >`select private.telegram_link_group(${token}, ${chatId}) as outcome`;
        return row.outcome === "linked" ? "linked" : "invalid";
      }),
    unlinkGroup: (chatId) =>
      run(async (tx) => {
        const [row] = await tx<
          { unlinked: boolean }[]
        >`select private.telegram_unlink_group(${chatId}) as unlinked`;
        return row.unlinked;
      }),
  };
}
