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

Deno.test("errorForLog: an error's message, redacted; any other value as text", () => {
  assertEquals(
    errorForLog(new Error("duplicate key: (email)=(bob@example.test)")),
    "duplicate key: (email)=(<email>)",
  );
  assertEquals(errorForLog("plain"), "plain");
});
