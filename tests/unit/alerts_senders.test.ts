/** The Telegram and webhook adapters against scripted fetch answers. */
import { assert, assertEquals } from "../support/assert.ts";
import { sendTelegramMessage } from "../../supabase/functions/_shared/alerts/telegram_client.ts";
import {
  DEFAULT_WEBHOOK_TIMEOUTS,
  postWebhook,
} from "../../supabase/functions/_shared/alerts/webhook_sender.ts";
import {
  type JudgedFetch,
  type JudgedRequestInit,
  OutboundConnectError,
} from "../../supabase/functions/_shared/net/judged_fetch.ts";
import type { JudgedTarget } from "../../supabase/functions/_shared/net/url_policy.ts";

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

const target: JudgedTarget = {
  url: "https://h.example/a",
  host: "h.example",
  addresses: [{ address: "192.0.2.10", family: 4 }],
};

/** A judged fetch that answers from a script and records what it was asked. */
function scriptedJudgedFetch(
  answer: (init: JudgedRequestInit) => Response | Promise<Response>,
  seen: { target?: JudgedTarget; init?: JudgedRequestInit } = {},
): JudgedFetch {
  return (asked, init) => {
    seen.target = asked;
    seen.init = init;
    return Promise.resolve(answer(init));
  };
}

Deno.test("webhook: 2xx delivers; 3xx is a failure (not followed); other statuses fail", async () => {
  const seen: { target?: JudgedTarget; init?: JudgedRequestInit } = {};
  assertEquals(
    await postWebhook(
      target,
      "{}",
      { "X-Test": "1" },
      DEFAULT_WEBHOOK_TIMEOUTS,
      scriptedJudgedFetch(() => new Response(null, { status: 204 }), seen),
    ),
    { kind: "delivered", httpStatus: 204 },
  );
  assertEquals(seen.target, target, "sent to the judged target");
  assertEquals(seen.init?.body, "{}");
  assertEquals(seen.init?.method, "POST");
  assertEquals(seen.init?.connectTimeoutMs, 3_000);
  assertEquals(
    await postWebhook(
      target,
      "{}",
      {},
      DEFAULT_WEBHOOK_TIMEOUTS,
      scriptedJudgedFetch(() => new Response(null, { status: 302, headers: { location: "/b" } })),
    ),
    { kind: "failed", httpStatus: 302, error: "redirect_not_followed" },
  );
  assertEquals(
    await postWebhook(
      target,
      "{}",
      {},
      DEFAULT_WEBHOOK_TIMEOUTS,
      scriptedJudgedFetch(() => new Response("no", { status: 500 })),
    ),
    { kind: "failed", httpStatus: 500, error: "http_500" },
  );
});

Deno.test("webhook: the timeout covers the whole exchange", async () => {
  const never: JudgedFetch = (_target, init) =>
    new Promise((_resolve, reject) => {
      init.signal.addEventListener("abort", () => reject(init.signal.reason));
    });
  const started = Date.now();
  const outcome = await postWebhook(target, "{}", {}, { connectMs: 100, totalMs: 200 }, never);
  assertEquals(outcome, { kind: "failed", httpStatus: null, error: "timeout" });
  assert(Date.now() - started < 2_000);
});

Deno.test("webhook: connection failures are connect_timeout or connect_failed, other errors network_error", async () => {
  const failing = (error: Error): JudgedFetch => () => Promise.reject(error);
  for (
    const [error, word] of [
      [new OutboundConnectError("connect_timeout"), "connect_timeout"],
      [new OutboundConnectError("connect_failed"), "connect_failed"],
      [new TypeError("the request failed"), "network_error"],
    ] as const
  ) {
    assertEquals(await postWebhook(target, "{}", {}, DEFAULT_WEBHOOK_TIMEOUTS, failing(error)), {
      kind: "failed",
      httpStatus: null,
      error: word,
    });
  }
});
