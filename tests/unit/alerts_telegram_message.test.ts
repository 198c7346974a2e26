import { assert, assertEquals } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import { formatUtc, telegramAlertText } from "../../supabase/functions/_shared/alerts/telegram_message.ts";

const base: AlertEvent = {
  id: "evt_1",
  type: "domain.available",
  createdAt: new Date("2026-11-22T10:04:06Z"),
  domainName: "drop-demo.com",
  unicodeName: null,
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-11-22T10:04:05.123Z"),
};

Deno.test("the alert names the domain and when it was seen free", () => {
  const text = telegramAlertText(base);
  assert(text.startsWith("drop-demo.com is available."), text);
  assert(text.includes("Seen free at 2026-11-22 10:04:05 UTC (it was pending delete)."), text);
});

Deno.test("an IDN shows both spellings; a test alert says it is a test", () => {
  const idn = telegramAlertText({ ...base, domainName: "xn--bcher-kva.de", unicodeName: "bücher.de" });
  assert(idn.startsWith("bücher.de (xn--bcher-kva.de) is available."), idn);
  const test = telegramAlertText({ ...base, type: "test", domainName: "example.com" });
  assert(test.startsWith("Test alert from Domain Watchlist"), test);
  assert(test.includes("example.com is available."), test);
});

Deno.test("formatUtc", () => {
  assertEquals(formatUtc(new Date("2026-01-02T03:04:05.999Z")), "2026-01-02 03:04:05 UTC");
});

Deno.test("a unicode form that does not look like a domain name never reaches the chat", () => {
  for (
    const hostile of [
      "Claim your prize: https://phish.example/login",
      "bücher.de\n\nVisit evil.example",
      "bücher\u202e.de",
      "<b>bold</b>.de",
      "a b.de",
      "x".repeat(300),
    ]
  ) {
    const text = telegramAlertText({ ...base, domainName: "xn--bcher-kva.de", unicodeName: hostile });
    assert(!text.includes(hostile), JSON.stringify(hostile));
    assert(text.startsWith("xn--bcher-kva.de is available."), text);
  }
});
