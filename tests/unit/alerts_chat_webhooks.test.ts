/**
 * Slack and Discord messages, the pending-delete texts, the routing of documented origins to the
 * configured ones, the kind rule's send-time use, and the drop prediction's basis.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import {
  chatWebhookHeaders,
  discordBody,
  lookupLink,
  routeChatWebhook,
  slackBody,
} from "../../supabase/functions/_shared/alerts/chat_webhooks.ts";
import { telegramAlertText } from "../../supabase/functions/_shared/alerts/telegram_message.ts";
import { webhookBody } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import { dropPrediction } from "../../supabase/functions/_shared/availability/drop_prediction.ts";
import { webhookKindProblem } from "../../supabase/functions/_shared/net/url_policy.ts";
import type { RdapSummary } from "../../supabase/functions/_shared/availability/check_domain.ts";
import { domainPendingDeleteEvent } from "../../supabase/functions/_shared/contract/webhook_event.ts";

const available: AlertEvent = {
  id: "evt_0123456789abcdef0123456789abcdef",
  type: "domain.available",
  createdAt: new Date("2026-11-22T10:00:01.250Z"),
  domainName: "xn--bcher-kva.example",
  unicodeName: "bücher.example",
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-11-22T10:00:00.000Z"),
};

const pendingDelete: AlertEvent = {
  ...available,
  type: "domain.pending_delete",
  domainName: "a-b.example",
  unicodeName: null,
  previousStatus: "registered",
  status: "pending_delete",
  predictedDropAt: new Date("2026-11-25T18:30:00.000Z"),
  predictionBasis: "pending_delete_period",
};

Deno.test("Slack: text fallback, a mrkdwn section with the linked name, and a context line", () => {
  const body = JSON.parse(slackBody(available));
  assertEquals(Object.keys(body), ["text", "blocks"]);
  assert(body.text.startsWith("bücher.example (xn--bcher-kva.example) is available."), body.text);
  assert(body.text.includes("Seen free at 2026-11-22 10:00:00 UTC (it was pending delete)."));
  assertEquals(body.blocks[0].type, "section");
  assertEquals(body.blocks[0].text.type, "mrkdwn");
  assert(
    body.blocks[0].text.text.startsWith(
      "*<https://lookup.icann.org/en/lookup?name=xn--bcher-kva.example|bücher.example (xn--bcher-kva.example)>* is available.",
    ),
    body.blocks[0].text.text,
  );
  assertEquals(body.blocks[1].type, "context");
});

Deno.test("Slack escapes &, < and > in mrkdwn", () => {
  const hostile = { ...available, unicodeName: null, domainName: "a<b>&c.example" };
  const body = JSON.parse(slackBody(hostile));
  assert(body.blocks[0].text.text.includes("a&lt;b&gt;&amp;c.example"), body.blocks[0].text.text);
});

Deno.test("Discord: content, one embed with link and time, mentions off", () => {
  const body = JSON.parse(discordBody(pendingDelete));
  assertEquals(body.content, "a-b.example entered pending delete: it may drop soon.");
  assertEquals(body.embeds.length, 1);
  const [embed] = body.embeds;
  assertEquals(embed.title, "a-b.example");
  assertEquals(embed.url, lookupLink("a-b.example"));
  assertEquals(embed.timestamp, "2026-11-22T10:00:00.000Z");
  assert(embed.description.includes("Predicted drop: 2026-11-25 18:30:00 UTC (RDAP's last change + 5 days"));
  assertEquals(embed.fields, [
    { name: "Status", value: "pending_delete", inline: true },
    { name: "Predicted drop", value: "2026-11-25 18:30:00 UTC", inline: true },
  ]);
  assertEquals(body.allowed_mentions, { parse: [] });
});

Deno.test("chat webhooks carry no signature headers", () => {
  const headers = chatWebhookHeaders(available, "d-1");
  assertEquals(Object.keys(headers).sort(), [
    "Content-Type",
    "User-Agent",
    "X-Service-Delivery",
    "X-Service-Event",
  ]);
});

Deno.test("pending delete: Telegram text and the generic body's prediction fields", () => {
  const text = telegramAlertText(pendingDelete);
  assert(text.startsWith("a-b.example entered pending delete: it may drop soon.\n\nPredicted drop: "), text);
  const redemption = telegramAlertText({
    ...pendingDelete,
    predictionBasis: "redemption_period",
  });
  assert(redemption.startsWith("a-b.example entered its redemption period"), redemption);
  const unknown = telegramAlertText({ ...pendingDelete, predictedDropAt: null, predictionBasis: "unknown" });
  assert(unknown.includes("Predicted drop: unknown"), unknown);

  const data = JSON.parse(webhookBody(pendingDelete)).data;
  assertEquals(data.predicted_drop_at, "2026-11-25T18:30:00.000Z");
  assertEquals(data.prediction_basis, "pending_delete_period");
  assert(domainPendingDeleteEvent.safeParse(JSON.parse(webhookBody(pendingDelete))).success, "its schema");
  const availableData = JSON.parse(webhookBody(available)).data;
  assertEquals("prediction_basis" in availableData, false, "domain.available's body is unchanged");
});

Deno.test("the documented origin is swapped for the configured one, nothing else", () => {
  const bases = { slack: "http://127.0.0.1:9300/", discord: "http://127.0.0.1:9400" };
  assertEquals(
    routeChatWebhook("https://hooks.slack.com/services/T1/B2/x", "slack", bases),
    "http://127.0.0.1:9300/services/T1/B2/x",
  );
  assertEquals(
    routeChatWebhook("https://discordapp.com/api/webhooks/1/t?wait=true", "discord", bases),
    "http://127.0.0.1:9400/api/webhooks/1/t?wait=true",
  );
  const defaults = { slack: "https://hooks.slack.com", discord: "https://discord.com" };
  assertEquals(
    routeChatWebhook("https://hooks.slack.com/services/T1/B2/x", "slack", defaults),
    "https://hooks.slack.com/services/T1/B2/x",
  );
  assertEquals(
    routeChatWebhook("https://hooks.slack.com.evil.example/services/x", "slack", bases),
    "https://hooks.slack.com.evil.example/services/x",
    "a look-alike host is not rewritten (and the kind rule refuses it anyway)",
  );
  assert(webhookKindProblem("https://hooks.slack.com.evil.example/services/x", "slack") !== null);
});

Deno.test("the drop prediction says how it was predicted", () => {
  const summary = (status: string[], lastChanged: string | null) =>
    ({ status, last_changed_date: lastChanged }) as unknown as RdapSummary;
  assertEquals(dropPrediction(summary(["pending delete"], "2026-11-20T00:00:00Z")), {
    at: new Date("2026-11-25T00:00:00Z"),
    basis: "pending_delete_period",
  });
  assertEquals(dropPrediction(summary(["redemption period"], "2026-11-20T00:00:00Z")), {
    at: new Date("2026-12-25T00:00:00Z"),
    basis: "redemption_period",
  });
  assertEquals(dropPrediction(summary(["pending delete"], null)), { at: null, basis: "unknown" });
  assertEquals(dropPrediction(null), { at: null, basis: "unknown" });
});
