/** Text from elsewhere is redacted before it reaches a log line: no address, URL, token, key or chat ID. */
import { assertEquals } from "../support/assert.ts";
import { errorForLog, redactForLog } from "../../supabase/functions/_shared/log_text.ts";

Deno.test("redactForLog: URLs, email addresses, tokens, keys, secrets and chat IDs are replaced", () => {
  const cases: [string, string][] = [
    ["invite for Alice.Smith+org@mail.example.co.uk refused", "invite for <email> refused"],
    [
      "error sending request for url (https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage)",
      "error sending request for url (<url>)",
    ],
    ["POST https://hooks.slack.com/services/T0/B0/XYZsecret failed", "POST <url> failed"],
    ["token 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw rejected", "token <token> rejected"],
    ["bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc-DEF_123 expired", "bearer <token> expired"],
    ["key dwl_0123456789abcdef0123456789abcdef0123456789abcdef unknown", "key <key> unknown"],
    [
      "GET /calendar/dwcal_0123456789abcdef0123456789abcdef0123456789abcdef.ics failed",
      "GET /calendar/<key>.ics failed",
    ],
    ["secret whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= refused", "secret <secret> refused"],
    [
      "chat -1001234567890 blocked the bot; chat 987654321 too",
      "chat <number> blocked the bot; chat <number> too",
    ],
    [
      "checking example.com failed: rdap_timeout after 8000 ms",
      "checking example.com failed: rdap_timeout after 8000 ms",
    ],
  ];
  for (const [text, expected] of cases) assertEquals(redactForLog(text), expected, text);
});

Deno.test("redactForLog: Unicode email addresses", () => {
  const cases: [string, string][] = [
    ["invite for bücher@müller.de refused", "invite for <email> refused"],
    ["invite for 用户@例子.广告 refused", "invite for <email> refused"],
    ["duplicate key (email)=(Jürgen.Groß@straße.example)", "duplicate key (email)=(<email>)"],
  ];
  for (const [text, expected] of cases) assertEquals(redactForLog(text), expected, text);
});

Deno.test("redactForLog: chat IDs of any length where a chat ID is named", () => {
  const cases: [string, string][] = [
    ["chat 4242 blocked the bot", "chat <number> blocked the bot"],
    ["sendMessage chat_id=12345 failed", "sendMessage chat_id=<number> failed"],
    ['{"chat_id": -4242, "text": "x"}', '{"chat_id": <number>, "text": "x"}'],
    ["Key (telegram_chat_id)=(98765) already exists", "Key (telegram_chat_id)=(<number>) already exists"],
    ["chat id 777 is not linked", "chat id <number> is not linked"],
    // Small numbers elsewhere stay: counts, statuses, durations.
    ["3 deliveries failed with HTTP 502 after 8000 ms", "3 deliveries failed with HTTP 502 after 8000 ms"],
  ];
  for (const [text, expected] of cases) assertEquals(redactForLog(text), expected, text);
});

Deno.test("redactForLog: URLs without a scheme", () => {
  const cases: [string, string][] = [
    ["POST hooks.slack.com/services/T0/B0/XYZsecret failed", "POST <url> failed"],
    ["calling api.telegram.org/bot123:abc/sendMessage", "calling <url>"],
    ["fetch //hooks.example.com/abc?token=1 failed", "fetch <url> failed"],
    ["target 10.0.0.7:8080/hook refused", "target <url> refused"],
    ["webhook münchen.example/hook/geheim", "webhook <url>"],
    // A domain name alone, and a request path that ends in one, are not URLs.
    ["checking example.com failed", "checking example.com failed"],
    ["GET /api-v1/check/example.com answered 503", "GET /api-v1/check/example.com answered 503"],
  ];
  for (const [text, expected] of cases) assertEquals(redactForLog(text), expected, text);
});

Deno.test("redactForLog: Supabase secret keys", () => {
  assertEquals(
    redactForLog("apikey sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz refused"),
    "apikey <key> refused",
  );
});

Deno.test("redactForLog: secrets without the whsec_ prefix, given by name", () => {
  const cases: [string, string][] = [
    ["update failed: secret=c2VjcmV0LXZhbHVl", "update failed: secret=<secret>"],
    ['body {"secret": "bm90LWEtd2hzZWM", "url": null}', 'body {"secret": "<secret>", "url": null}'],
    ["Key (p_secret)=(plain-secret-text) invalid", "Key (p_secret)=(<secret>) invalid"],
    ["poller_secret: abcdef0123", "poller_secret: <secret>"],
    ["password=hunter2&user=x", "password=<secret>&user=x"],
    // The name alone, or another field that starts with it, is no secret.
    ["the secret is configured; secret_configured=true", "the secret is configured; secret_configured=true"],
  ];
  for (const [text, expected] of cases) assertEquals(redactForLog(text), expected, text);
});

Deno.test("errorForLog: an error's message, redacted; any other value as text", () => {
  assertEquals(
    errorForLog(new Error("duplicate key: (email)=(bob@example.test)")),
    "duplicate key: (email)=(<email>)",
  );
  assertEquals(errorForLog("plain"), "plain");
});
