/**
 * The evidence of `domain.available` and the `domain.restored`, `domain.registered` and `domain.expiring`
 * events: each body against its published schema, the chat messages, and the corrected drop prediction.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import { webhookBody } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import { discordBody, slackBody } from "../../supabase/functions/_shared/alerts/chat_webhooks.ts";
import { evidenceLine, telegramAlertText } from "../../supabase/functions/_shared/alerts/telegram_message.ts";
import { alertEventSchemas } from "../../supabase/functions/_shared/contract/webhook_event.ts";
import { availabilityEvidence } from "../../supabase/functions/_shared/availability/evidence.ts";
import {
  correctionKey,
  predictDrop,
  registryOf,
} from "../../supabase/functions/_shared/availability/drop_prediction.ts";
import type { RdapSummary } from "../../supabase/functions/_shared/availability/check_domain.ts";
import { openApiDocument } from "../../supabase/functions/_shared/contract/openapi.ts";

const evidence = availabilityEvidence(
  {
    source: "rdap",
    server: "https://rdap.nic.xyz/",
    httpStatus: 404,
    proof: { canaryName: "nic.xyz", provedAt: new Date("2026-11-22T07:00:00.000Z") },
  },
  { rcode: "NXDOMAIN", resolver: "127.0.0.1:53" },
  "2026-11-22T10:00:00.000Z",
);

const base = {
  id: "evt_0123456789abcdef0123456789abcdef",
  createdAt: new Date("2026-11-22T10:00:01.250Z"),
  domainName: "drop.xyz",
  unicodeName: null,
  checkedAt: new Date("2026-11-22T10:00:00.000Z"),
};

const available: AlertEvent = {
  ...base,
  type: "domain.available",
  previousStatus: "pending_delete",
  status: "available",
  evidence,
};
const restored: AlertEvent = {
  ...base,
  type: "domain.restored",
  previousStatus: "pending_delete",
  status: "registered",
  registrar: "Example Registrar, Inc.",
  expiresAt: new Date("2027-11-22T00:00:00.000Z"),
};
const registered: AlertEvent = {
  ...base,
  type: "domain.registered",
  previousStatus: "available",
  status: "registered",
  registrar: null,
  expiresAt: null,
};
const expiring: AlertEvent = {
  ...base,
  type: "domain.expiring",
  previousStatus: null,
  status: "registered",
  expiresAt: new Date("2026-11-29T00:00:00.000Z"),
  daysBefore: 7,
};

Deno.test("the evidence: the contract's fields from the route's answer, RDAP or WHOIS", () => {
  assertEquals(evidence, {
    source: "rdap",
    server: "https://rdap.nic.xyz/",
    answer: 404,
    canary_name: "nic.xyz",
    canary_proved_at: "2026-11-22T07:00:00.000Z",
    dns_rcode: "NXDOMAIN",
    resolver: "127.0.0.1:53",
    checked_at: "2026-11-22T10:00:00.000Z",
  });
  const whois = availabilityEvidence(
    {
      source: "whois",
      server: "whois.nic.xx",
      match: "No match for",
      proof: { canaryName: "nic.xx", provedAt: null },
    },
    { rcode: "NOERROR", resolver: "dns.example" },
    "2026-11-22T10:00:00.000Z",
  );
  assertEquals([whois.source, whois.server, whois.answer, whois.canary_proved_at], [
    "whois",
    "whois.nic.xx",
    "No match for",
    null,
  ]);
  assertEquals(evidenceLine(whois), "Registry WHOIS: not found · canary nic.xx · DNS NOERROR, no NS");
});

Deno.test("every event's body matches its schema (the published one), with the documented key order", () => {
  for (const event of [available, restored, registered, expiring]) {
    const body = JSON.parse(webhookBody(event));
    const schema = alertEventSchemas[event.type as keyof typeof alertEventSchemas];
    const parsed = schema.safeParse(body);
    assert(parsed.success, `${event.type}: ${JSON.stringify(parsed.error?.issues)}`);
  }
  assertEquals(Object.keys(JSON.parse(webhookBody(available)).data.evidence), Object.keys(evidence));
  assertEquals(JSON.parse(webhookBody(expiring)).data, {
    domain_name: "drop.xyz",
    unicode_name: null,
    status: "registered",
    checked_at: "2026-11-22T10:00:00.000Z",
    expires_at: "2026-11-29T00:00:00.000Z",
    days_before: 7,
  });
  assertEquals(JSON.parse(webhookBody(restored)).data.registrar, "Example Registrar, Inc.");
  const document = openApiDocument("https://api.example") as { webhooks: Record<string, unknown> };
  assertEquals(Object.keys(document.webhooks).sort(), Object.keys(alertEventSchemas).sort());
});

Deno.test("chat messages show the evidence in one short line", () => {
  assertEquals(evidenceLine(evidence), "Registry RDAP: not found · proven on nic.xyz 3 h ago · DNS NXDOMAIN");
  const telegram = telegramAlertText(available);
  assert(
    telegram.includes("\nRegistry RDAP: not found · proven on nic.xyz 3 h ago · DNS NXDOMAIN\n"),
    telegram,
  );
  assert(JSON.parse(slackBody(available)).text.includes("proven on nic.xyz 3 h ago"));
  assert(JSON.parse(discordBody(available)).embeds[0].description.includes("DNS NXDOMAIN"));
  assert(!telegramAlertText({ ...available, evidence: null }).includes("Registry"), "no evidence, no line");
});

Deno.test("restored, registered and expiring messages in each chat format", () => {
  assertEquals(
    telegramAlertText(restored),
    "drop.xyz was restored: the drop is off.\n\n" +
      "It left pending delete and is registered again (registrar: Example Registrar, Inc.).\n" +
      "Seen at 2026-11-22 10:00:00 UTC.",
  );
  assert(telegramAlertText(registered).startsWith("drop.xyz was registered.\n\nIt was available."));
  assertEquals(
    telegramAlertText(expiring).split("\n")[0],
    "drop.xyz expires on 2026-11-29 00:00:00 UTC.",
  );
  assert(telegramAlertText(expiring).includes("This is the 7-day reminder"));
  const slack = JSON.parse(slackBody(restored));
  assert(
    slack.blocks[0].text.text.startsWith("*<https://lookup.icann.org/en/lookup?name=drop.xyz|drop.xyz>* was"),
  );
  assert(slack.blocks[1].elements[0].text.includes("domain.restored"));
  const discord = JSON.parse(discordBody(expiring));
  assertEquals(discord.content, "drop.xyz expires on 2026-11-29 00:00:00 UTC.");
  assert(discord.embeds[0].fields.some((f: { name: string }) => f.name === "Expires"));
  const hostile = telegramAlertText({ ...registered, registrar: "Evil\nRegistrar\u202e@everyone" });
  assert(hostile.startsWith("drop.xyz was registered (registrar: Evil Registrar @everyone)."), hostile);
});

Deno.test("a registry's correction moves its predictions; others keep theirs", () => {
  const rdap: RdapSummary = {
    server: "https://rdap.late/",
    http_status: 200,
    status: ["pending delete"],
    registrar: null,
    registration_date: null,
    expiration_date: null,
    last_changed_date: "2026-11-01T00:00:00Z",
  };
  const corrections = new Map([[correctionKey("late", "pending_delete_period"), {
    offsetSeconds: 7200,
    source: "measured",
  }]]);
  assertEquals(registryOf("a.b.late"), "late");
  const late = predictDrop("name.late", rdap, corrections);
  assertEquals(late.at?.toISOString(), "2026-11-06T02:00:00.000Z");
  assertEquals(late.correctionSeconds, 7200);
  const other = predictDrop("name.other", rdap, corrections);
  assertEquals([other.at?.toISOString(), other.correctionSeconds], ["2026-11-06T00:00:00.000Z", 0]);
  const unknown = predictDrop("name.late", { ...rdap, last_changed_date: null }, corrections);
  assertEquals([unknown.at, unknown.basis, unknown.correctionSeconds], [null, "unknown", 0]);
});
