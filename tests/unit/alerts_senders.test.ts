/** The Telegram and webhook adapters against scripted fetch answers. */
import { assert, assertEquals } from "../support/assert.ts";
import { sendTelegramMessage } from "../../supabase/functions/_shared/alerts/telegram_client.ts";
import { postWebhook } from "../../supabase/functions/_shared/alerts/webhook_sender.ts";

function scriptedFetch(
  answer: () => Response | Promise<Response>,
  seen: { url?: string; init?: RequestInit } = {},
) {
  return ((url: string | URL | Request, init?: RequestInit) => {
    seen.url = String(url);
    seen.init = init;
    return Promise.resolve(answer());
  }) as typeof fetch;
}

const message = { apiBase: "https://tg.example/", botToken: "123:SECRET", chatId: "42", text: "hi" };

Deno.test("Telegram sendMessage: the token only in the path, the chat and text in the body", async () => {
  const seen: { url?: string; init?: RequestInit } = {};
  const outcome = await sendTelegramMessage(message, scriptedFetch(() => Response.json({ ok: true }), seen));
  assertEquals(outcome, { kind: "sent", httpStatus: 200 });
  assertEquals(seen.url, "https://tg.example/bot123:SECRET/sendMessage");
  assertEquals(JSON.parse(String(seen.init?.body)).chat_id, "42");
  assertEquals(seen.init?.redirect, "manual");
});

Deno.test("Telegram 429 gives parameters.retry_after; 400/403 are permanent; errors never carry the token", async () => {
  const limited = await sendTelegramMessage(
    message,
    scriptedFetch(() =>
      Response.json({ ok: false, error_code: 429, parameters: { retry_after: 7 } }, { status: 429 })
    ),
  );
  assertEquals(limited, { kind: "rate_limited", httpStatus: 429, retryAfterMs: 7_000 });

  const blocked = await sendTelegramMessage(
    message,
    scriptedFetch(() =>
      Response.json({ ok: false, description: "Forbidden: bot 123:SECRET was blocked" }, { status: 403 })
    ),
  );
  assert(blocked.kind === "failed" && blocked.permanent);
  assert(blocked.kind === "failed" && !blocked.error.includes("SECRET"), JSON.stringify(blocked));

  const down = await sendTelegramMessage(
    message,
    () =>
      Promise.reject(
        new TypeError("error sending request for url (https://tg.example/bot123:SECRET/sendMessage)"),
      ),
  );
  assertEquals(down, { kind: "failed", httpStatus: null, error: "network_error", permanent: false });
});

Deno.test("webhook: 2xx delivers; 3xx is a failure (not followed); other statuses fail", async () => {
  const seen: { url?: string; init?: RequestInit } = {};
  assertEquals(
    await postWebhook(
      "https://h.example/a",
      "{}",
      { "X-Test": "1" },
      scriptedFetch(() => new Response(null, { status: 204 }), seen),
    ),
    { kind: "delivered", httpStatus: 204 },
  );
  assertEquals(seen.init?.redirect, "manual");
  assertEquals(seen.init?.body, "{}");
  assertEquals(
    await postWebhook(
      "https://h.example/a",
      "{}",
      {},
      scriptedFetch(() => new Response(null, { status: 302, headers: { location: "/b" } })),
    ),
    { kind: "failed", httpStatus: 302, error: "redirect_not_followed" },
  );
  assertEquals(
    await postWebhook(
      "https://h.example/a",
      "{}",
      {},
      scriptedFetch(() => new Response("no", { status: 500 })),
    ),
    { kind: "failed", httpStatus: 500, error: "http_500" },
  );
});

Deno.test("webhook: the timeout covers the whole exchange", async () => {
  const never = ((_url: string, init?: RequestInit) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
    })) as typeof fetch;
  const started = Date.now();
  const outcome = await postWebhook("https://h.example/a", "{}", {}, never, 200);
  assertEquals(outcome, { kind: "failed", httpStatus: null, error: "timeout" });
  assert(Date.now() - started < 2_000);
});
