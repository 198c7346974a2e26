/** Team alerts name the organization and the claimer on every channel; personal alerts are unchanged. */
import { assertEquals } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import { oneLine, teamLine } from "../../supabase/functions/_shared/alerts/team_line.ts";
import { webhookBody } from "../../supabase/functions/_shared/alerts/webhook_payload.ts";
import { telegramAlertText } from "../../supabase/functions/_shared/alerts/telegram_message.ts";
import { discordBody, slackBody } from "../../supabase/functions/_shared/alerts/chat_webhooks.ts";
import { domainAvailableEvent } from "../../supabase/functions/_shared/contract/webhook_event.ts";

const personal: AlertEvent = {
  id: "evt_0123456789abcdef0123456789abcdef",
  type: "domain.available",
  createdAt: new Date("2026-12-06T10:00:00Z"),
  domainName: "team-drop.com",
  unicodeName: null,
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-12-06T09:59:00Z"),
  evidence: null,
};
const team: AlertEvent = {
  ...personal,
  organization: { id: "7d0b5d8e-2b7c-4c55-9a55-0a3e1b2c3d4e", name: "Acme" },
  claimedBy: "Mia M.",
};

Deno.test("teamLine: organization and claimer, or not claimed; null for a personal alert", () => {
  assertEquals(teamLine(team), "Acme's list · claimed by Mia M.");
  assertEquals(teamLine({ ...team, claimedBy: null }), "Acme's list · not claimed");
  assertEquals(teamLine(personal), null);
});

Deno.test("oneLine: people's text is one line without control characters, at most 100 characters", () => {
  assertEquals(oneLine("Acme\n<b>x</b>\u202e\t Co"), "Acme <b>x</b> Co");
  assertEquals(oneLine("x".repeat(150)).length, 100);
});

Deno.test("webhook body: a team alert adds data.organization; a personal one is unchanged", () => {
  const body = JSON.parse(webhookBody(team));
  assertEquals(body.data.organization, {
    id: "7d0b5d8e-2b7c-4c55-9a55-0a3e1b2c3d4e",
    name: "Acme",
    claimed_by: "Mia M.",
  });
  assertEquals("organization" in JSON.parse(webhookBody(personal)).data, false);
  domainAvailableEvent.parse(body);
  domainAvailableEvent.parse(JSON.parse(webhookBody(personal)));
});

Deno.test("Telegram, Slack and Discord texts name the claimer once, second line", () => {
  const text = telegramAlertText(team);
  assertEquals(text.split("\n")[1], "Acme's list · claimed by Mia M.");
  assertEquals(text.split("Mia M.").length, 2);
  assertEquals(telegramAlertText(personal).includes("list ·"), false);
  const slack = JSON.parse(slackBody(team));
  assertEquals(slack.text.split("claimed by Mia M.").length, 2);
  const discord = JSON.parse(
    discordBody({ ...team, type: "domain.pending_delete", status: "pending_delete" }),
  );
  assertEquals(discord.embeds[0].description.startsWith("Acme's list · claimed by Mia M."), true);
});
