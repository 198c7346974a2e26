/**
 * Organizations that watch together, in a real browser (issue 42, docs/organizations.md): the owner invites
 * a member by email, both see the organization's list (the list switcher), the member claims a name and the
 * owner sees the claim, a drop alerts the team's webhook and the team's email address (confirmed by its mailed
 * link; one mail in the local mailbox) naming the claimer, and the activity log shows it.
 * axe-core runs on the new screen. Screenshots of the organization's radar, a claim and the log are written
 * to .local/ (copied into docs/screenshots/ as organization-*.png).
 */
import type { Browser, Page } from "../support/playwright_types.d.ts";
import { startMailbox } from "../../platform/mailbox/server.ts";
import { startSmtp } from "../../platform/mailbox/smtp.ts";
import { localSecretKey, namedKeysJson } from "../../platform/secrets.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { launchBrowser, seriousViolations, startApp } from "../support/browser.ts";
import { fillSignIn, latestMail, verifyLinkOf } from "../support/app_journey.ts";
import { postToPoller } from "../support/poller_runs.ts";
import { startStack, uniqueEmail } from "../support/stack.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("organizations in the browser: invite, shared list, claim, team alert, log", options, async (t) => {
  const receiver = startWebhookReceiver();
  const mailbox = startMailbox({ port: 0 });
  const smtp = startSmtp({ port: 0 });
  const app = await startApp();
  const stack = await startStack({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    SMTP_URL: smtp.url,
    ALERT_MAIL_FROM: "Domain Watchlist <alerts@localhost>",
    EMAIL_DIGEST_WINDOW_SECONDS: "1",
    SUPABASE_SECRET_KEYS: namedKeysJson(localSecretKey),
  });
  app.config.supabaseUrl = stack.gateway.url;
  const { sql } = stack;
  await setWebhookTargetPolicy(sql, true);
  const browser: Browser = await launchBrowser();
  const violations: string[] = [];
  const audit = async (page: Page, screen: string) => {
    for (const violation of await seriousViolations(page)) violations.push(`${screen}: ${violation}`);
  };
  const owner = uniqueEmail("org-owner");
  const member = uniqueEmail("org-member");
  const memberLabel = member.split("@")[0];
  const name = `drop-${crypto.randomUUID().slice(0, 8)}.orgtest`;
  const teamAddress = `team-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const mailsTo = async (address: string): Promise<{ ID: string; Subject: string }[]> =>
    (await (await fetch(`${mailbox.url}/api/v1/search?query=${encodeURIComponent(`to:${address}`)}`)).json())
      .messages;
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const second = await browser.newContext();
  const other = await second.newPage();
  other.setDefaultTimeout(10_000);
  let orgUrl = "";
  try {
    await t.step("the owner signs up, creates an organization and invites a member by email", async () => {
      await page.goto(app.url);
      await fillSignIn(page, owner, "Sign up");
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      await sql`update public.profiles set plan_id = 'pro' where email = ${owner}`;
      await page.getByRole("link", { name: "Organizations" }).click();
      await page.getByLabel("Organization name").fill("Acme");
      await page.getByRole("button", { name: "Create organization" }).click();
      await page.getByRole("heading", { name: "Acme" }).waitFor();
      await page.getByLabel("Invite by email").fill(member);
      await page.getByRole("button", { name: "Invite", exact: true }).click();
      await page.getByRole("button", { name: `Send the invitation to ${member} by email` }).click();
      await page.getByRole("status").filter({ hasText: `Invitation mailed to ${member}.` }).waitFor();
    });

    await t.step("the member accepts from the mail", async () => {
      await other.goto(verifyLinkOf(await latestMail(mailbox.url, member, "invite")));
      await other.getByText(`You are signed in as ${member}`).waitFor();
      await other.getByRole("button", { name: "Accept invitation" }).click();
      await other.getByText("You joined the organization.").waitFor();
    });

    await t.step("the owner adds a name and a team webhook; both see the list", async () => {
      await page.getByRole("link", { name: "Open Acme's watchlist, claims and activity" }).click();
      await page.getByRole("heading", { name: "Acme", exact: true }).waitFor();
      orgUrl = page.url();
      await page.getByLabel("Domain names (one a line, or separated by commas)").fill(name);
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.getByRole("rowheader", { name }).waitFor();
      await page.getByLabel("Team webhook URL").fill(receiver.endpoint("team"));
      await page.getByRole("button", { name: "Add team webhook" }).click();
      await page.getByText(/generic webhook http:\/\/127\.0\.0\.1/).waitFor();
      // The member finds it through the list switcher on the radar.
      await other.goto(app.url);
      await other.getByRole("navigation", { name: "Lists" }).getByRole("link", { name: "Acme" }).click();
      await other.getByRole("rowheader", { name }).waitFor();
      const row = other.getByRole("row").filter({ hasText: name });
      await row.getByText(owner.split("@")[0]).waitFor(); // who added it
      await audit(other, "organization (member)");
      await page.screenshot({ path: ".local/organization-radar.png", fullPage: true });
    });

    await t.step(
      "the owner adds a team email address; its mailed link confirms it; the member sees it masked",
      async () => {
        await page.getByLabel("Team email address").fill(teamAddress);
        await page.getByRole("button", { name: "Add team address" }).click();
        await page.getByText(/t•••@example\.test · .*Waiting for confirmation/).waitFor();
        await postToPoller(stack, "/rdap-poller/deliveries");
        const confirmation = await latestMail(mailbox.url, teamAddress);
        const link = confirmation.Text.match(/https?:\/\/\S+\/email-links\/confirm\?token=[0-9a-f]{48}/)![0];
        const confirmed = await fetch(link, { method: "POST" });
        assertEquals(await confirmed.json(), { status: "confirmed" });
        await other.reload();
        await other.getByText(/t•••@example\.test · .*Alerts are on\./).waitFor();
        assert(!(await other.content()).includes(teamAddress), "a member never sees the address");
        assertEquals(
          await other.getByRole("button", { name: "Add team address" }).count(),
          0,
          "nor manages it",
        );
      },
    );

    await t.step("the member claims the name; the owner sees the claim", async () => {
      await other.getByRole("button", { name: `Claim ${name}` }).click();
      await other.getByText("Claimed by you").waitFor();
      await page.reload();
      await page.getByText(`Claimed by ${memberLabel}`).waitFor();
      // The owner may release it (an owner), but not claim it over the member.
      await page.getByRole("button", { name: `Release the claim on ${name}` }).waitFor();
      assertEquals(await page.getByRole("button", { name: `Claim ${name}` }).count(), 0);
      await audit(page, "organization (owner)");
      // The name's page shows the claim too.
      await page.getByRole("link", { name, exact: true }).click();
      await page.getByText(`claimed by ${memberLabel}`).waitFor();
      await page.getByRole("button", { name: `Release the claim on ${name} in Acme` }).waitFor();
      await audit(page, "a name's page (organization claim)");
      await page.goto(orgUrl);
      await other.screenshot({ path: ".local/organization-claim.png", fullPage: true });
    });

    await t.step("a drop alerts the team's webhook naming the claimer", async () => {
      await sql`update public.domains set status = 'available', last_checked_at = now() where name = ${name}`;
      await postToPoller(stack, "/rdap-poller/deliveries");
      const deadline = Date.now() + 10_000;
      while (receiver.accepted("team").length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const [hook] = receiver.accepted("team");
      assert(hook, "the team webhook got the alert");
      const body = JSON.parse(hook.rawBody);
      assertEquals(body.type, "domain.available");
      assertEquals(body.data.domain_name, name);
      assertEquals(body.data.organization.name, "Acme");
      assertEquals(body.data.organization.claimed_by, memberLabel);
      assertEquals(receiver.accepted("team").length, 1, "one alert per event on the team channel");
    });

    await t.step(
      "the drop alerts the team's email address naming the claimer (the local mailbox)",
      async () => {
        const deadline = Date.now() + 10_000;
        while ((await mailsTo(teamAddress)).length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await postToPoller(stack, "/rdap-poller/deliveries");
        }
        const alerts = (await mailsTo(teamAddress)).filter((m) => m.Subject === `${name} is available.`);
        assertEquals(alerts.length, 1, "one team mail for the event");
        const mail = await (await fetch(`${mailbox.url}/api/v1/message/${alerts[0].ID}`)).json();
        assert(mail.Text.includes(`Acme's list · claimed by ${memberLabel}`), mail.Text);
      },
    );

    await t.step("the owner makes an organization API key; it lists the organization's names", async () => {
      await page.goto(orgUrl);
      await page.getByLabel("Organization key name").fill("ci");
      await page.getByRole("button", { name: "Create organization key" }).click();
      const key = (await page.getByLabel("The organization's new API key").textContent())!;
      assert(key.startsWith("dwo_"), key);
      const listed = await fetch(`${stack.apiBase}/domains`, { headers: { "x-api-key": key } });
      const body = await listed.json();
      assertEquals(listed.status, 200, JSON.stringify(body));
      assertEquals(body.domains.map((d: { domain_name: string }) => d.domain_name), [name]);
      await page.reload();
      await page.getByRole("button", { name: "Revoke the organization key ci" }).waitFor();
      assert(!(await page.content()).includes(key), "the key is not shown again");
      await audit(page, "organization (keys)");
    });

    await t.step("the activity log shows who added and who claimed", async () => {
      await page.goto(orgUrl);
      const log = page.getByRole("region", { name: "Activity" });
      await log.getByText(`${memberLabel} claimed ${name}`).waitFor();
      await log.getByText(`${owner.split("@")[0]} added ${name}`).waitFor();
      await log.getByText(`${memberLabel} joined as member`).waitFor();
      await log.screenshot({ path: ".local/organization-log.png" });
    });

    await t.step("no serious accessibility violation", () => {
      assertEquals(violations, []);
    });
  } finally {
    await browser.close();
    await app.close();
    await mailbox.close();
    await smtp.close();
    await stack.close();
    await receiver.close();
  }
});
