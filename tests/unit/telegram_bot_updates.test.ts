import { assertEquals } from "../support/assert.ts";
import { listReply, readUpdate, replies } from "../../supabase/functions/_shared/telegram/bot_updates.ts";

const message = (text: unknown, chat: Record<string, unknown> = { id: 42, type: "private" }) => ({
  update_id: 1,
  message: { message_id: 1, date: 0, chat, text },
});

Deno.test("private commands: /start <token>, /stop, /list, and help for anything else", () => {
  assertEquals(readUpdate(message("/start abc123")), { kind: "link", chatId: "42", token: "abc123" });
  assertEquals(readUpdate(message("  /START@WatchlistBot   abc123 ")), {
    kind: "link",
    chatId: "42",
    token: "abc123",
  });
  assertEquals(readUpdate(message("/stop")), { kind: "stop", chatId: "42" });
  assertEquals(readUpdate(message("/list@WatchlistBot")), { kind: "list", chatId: "42" });
  for (const text of ["/start", "/start a b", "hello", "/help", "/frobnicate"]) {
    assertEquals(readUpdate(message(text)), { kind: "help", chatId: "42" }, text);
  }
  assertEquals(readUpdate(message(undefined)), { kind: "help", chatId: "42" }, "a sticker or photo");
});

Deno.test("a group: /start <token> links it to an organization, /stop unlinks it, other commands are refused", () => {
  assertEquals(readUpdate(message("/start tok", { id: -100123, type: "supergroup" })), {
    kind: "link_group",
    chatId: "-100123",
    token: "tok",
  });
  assertEquals(readUpdate(message("/start@WatchlistBot tok", { id: -5, type: "group" })), {
    kind: "link_group",
    chatId: "-5",
    token: "tok",
  });
  assertEquals(readUpdate(message("/stop@WatchlistBot", { id: -5, type: "group" })), {
    kind: "stop_group",
    chatId: "-5",
  });
  for (const text of ["/start", "/list", "/help"]) {
    assertEquals(
      readUpdate(message(text, { id: -5, type: "group" })),
      { kind: "refuse_chat", chatId: "-5" },
      text,
    );
  }
  assertEquals(readUpdate(message("/start tok", { id: 5, type: "group" })), {
    kind: "refuse_chat",
    chatId: "5",
  });
});

Deno.test("channels are refused (only when addressed); odd updates are ignored or invalid", () => {
  assertEquals(readUpdate(message("just chatting", { id: -5, type: "group" })), { kind: "ignore" });
  assertEquals(
    readUpdate({ update_id: 2, channel_post: { chat: { id: -1009, type: "channel" }, text: "x" } }),
    {
      kind: "refuse_chat",
      chatId: "-1009",
    },
  );
  assertEquals(readUpdate(message("/start tok", { id: -7, type: "private" })), {
    kind: "refuse_chat",
    chatId: "-7",
  });
  assertEquals(readUpdate({ update_id: 3, edited_message: {} }), { kind: "ignore" });
  assertEquals(readUpdate(message("/list", { id: "42", type: "private" })), { kind: "ignore" });
  assertEquals(readUpdate({ message: {} }), null);
  assertEquals(readUpdate("nope"), null);
});

Deno.test("/list shows at most 50 names with their state and the count", () => {
  const names = Array.from(
    { length: 60 },
    (_, i) => ({ domain_name: `n${i}.com`, status: "pending_delete" }),
  );
  const reply = listReply({ count: 73, names }).split("\n");
  assertEquals(reply[0], "73 names watched:");
  assertEquals(reply[1], "n0.com - pending delete");
  assertEquals(reply.length, 52);
  assertEquals(reply.at(-1), "(showing 50 of 73)");
  assertEquals(
    listReply({ count: 1, names: [{ domain_name: "a.com", status: "available" }] }),
    "1 name watched:\na.com - available",
  );
  assertEquals(listReply({ count: 0, names: [] }), "You are not watching any names yet.");
  assertEquals(listReply(null), replies.notLinked);
});
