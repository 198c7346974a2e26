/** The Telegram and webhook adapters against scripted fetch answers. */
import { assert, assertEquals } from "../support/assert.ts";
import { sendTelegramMessage } from "../../supabase/functions/_shared/alerts/telegram_client.ts";
import {
  DEFAULT_WEBHOOK_TIMEOUTS,
  postWebhook,
  probeConnect,
} from "../../supabase/functions/_shared/alerts/webhook_sender.ts";

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
      DEFAULT_WEBHOOK_TIMEOUTS,
      { fetch: scriptedFetch(() => new Response(null, { status: 204 }), seen), connect: null },
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
      DEFAULT_WEBHOOK_TIMEOUTS,
      {
        fetch: scriptedFetch(() => new Response(null, { status: 302, headers: { location: "/b" } })),
        connect: null,
      },
    ),
    { kind: "failed", httpStatus: 302, error: "redirect_not_followed" },
  );
  assertEquals(
    await postWebhook(
      "https://h.example/a",
      "{}",
      {},
      DEFAULT_WEBHOOK_TIMEOUTS,
      { fetch: scriptedFetch(() => new Response("no", { status: 500 })), connect: null },
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
  const outcome = await postWebhook("https://h.example/a", "{}", {}, { connectMs: 100, totalMs: 200 }, {
    fetch: never,
    connect: () => Promise.resolve({ close() {} }),
  });
  assertEquals(outcome, { kind: "failed", httpStatus: null, error: "timeout" });
  assert(Date.now() - started < 2_000);
});

Deno.test("webhook: a receiver that does not accept the connection in time fails fast, before any request", async () => {
  let fetched = 0;
  const transport = {
    fetch: (() => {
      fetched++;
      return Promise.resolve(new Response(null, { status: 200 }));
    }) as typeof fetch,
    connect: () => new Promise<{ close(): void }>(() => {}),
  };
  const started = Date.now();
  const outcome = await postWebhook("https://[2001:db8::1]:8443/a", "{}", {}, {
    connectMs: 50,
    totalMs: 5_000,
  }, transport);
  assertEquals(outcome, { kind: "failed", httpStatus: null, error: "connect_timeout" });
  assert(Date.now() - started < 1_000);
  assertEquals(fetched, 0);
});

Deno.test("webhook: the connect check targets the URL's host and port and closes its connection", async () => {
  const targets: { hostname: string; port: number }[] = [];
  let closed = 0;
  const connect = (target: { hostname: string; port: number }) => {
    targets.push(target);
    return Promise.resolve({ close: () => void closed++ });
  };
  assertEquals(await probeConnect("https://hooks.example.com/x", 100, connect), "ok");
  assertEquals(await probeConnect("http://[::1]:9100/x", 100, connect), "ok");
  assertEquals(
    await probeConnect("https://h.example/x", 100, () => Promise.reject(new Error("refused"))),
    "connect_failed",
  );
  assertEquals(targets, [{ hostname: "hooks.example.com", port: 443 }, { hostname: "::1", port: 9100 }]);
  assertEquals(closed, 2);
});
