/**
 * Email alerts in the app, in a real browser (Debian's chromium, playwright-core, accessible names, axe):
 * a Pro account's own address is on by default and a drop's alert is read from the local mailbox over its
 * SMTP side (and opened in the mailbox's page); an extra address is added in the Email section and
 * confirmed from the mailed link through the app's /email-link page; the one-click unsubscribe POST
 * (RFC 8058) stops it, and the app says so; the account's own address is unsubscribed from a mail's link
 * through the same page. A Free account sees what Pro adds, without a form.
 */
import type { Browser, Page } from "../support/playwright_types.d.ts";
import { startMailbox } from "../../platform/mailbox/server.ts";
import { startSmtp } from "../../platform/mailbox/smtp.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { launchBrowser, seriousViolations, startApp } from "../support/browser.ts";
import { fillSignIn } from "../support/app_journey.ts";
import { addNames, setPlan, signUpAccount } from "../support/app_seed.ts";
import { postToPoller } from "../support/poller_runs.ts";
import { startStack, uniqueEmail } from "../support/stack.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const WINDOW_SECONDS = 1;

interface Mail {
  ID: string;
  Subject: string;
  Text: string;
  HTML: string;
  ListUnsubscribe: { Links: string[]; HeaderPost: string };
}

/** The newest mail to `address` whose subject matches, waiting up to 10 s (Mailpit's API). */
async function mailTo(mailboxUrl: string, address: string, subject: RegExp): Promise<Mail> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const search =
      await (await fetch(`${mailboxUrl}/api/v1/search?query=${encodeURIComponent(`to:${address}`)}`))
        .json();
    const found = (search.messages as { ID: string; Subject: string }[]).find((m) => subject.test(m.Subject));
    if (found) return await (await fetch(`${mailboxUrl}/api/v1/message/${found.ID}`)).json();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${address} matching ${subject}`);
}

/** A watched name of the account drops (the transition the poller records), with its evidence. */
async function drop(sql: postgres.Sql, userId: string): Promise<string> {
  const name = `mail-${crypto.randomUUID().slice(0, 8)}.emailtest`;
  await sql`insert into public.domains (name, status, last_checked_at) values (${name}, 'pending_delete', now())`;
  await addNames(sql, userId, [name]);
  await sql`update public.domains set status = 'available', last_checked_at = now() where name = ${name}`;
  return name;
}

Deno.test(
  "email alerts in the app: a drop's mail, an extra address confirmed, one-click unsubscribe",
  options,
  async (t) => {
    const smtp = startSmtp({ port: 0 });
    const mailbox = startMailbox({ port: 0 });
    const app = await startApp();
    const stack = await startStack({
      SMTP_URL: smtp.url,
      ALERT_MAIL_FROM: "Domain Watchlist <alerts@localhost>",
      EMAIL_DIGEST_WINDOW_SECONDS: String(WINDOW_SECONDS),
      DELIVERY_IDLE_LINGER_MS: "100",
    });
    app.config.supabaseUrl = stack.gateway.url;
    const { sql } = stack;
    const browser: Browser = await launchBrowser();
    const violations: string[] = [];
    const audit = async (page: Page, screen: string) => {
      for (const violation of await seriousViolations(page)) violations.push(`${screen}: ${violation}`);
    };
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const owner = uniqueEmail("mail-owner");
    const team = uniqueEmail("mail-team");
    const deliver = async () => {
      await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000 + 200));
      await postToPoller(stack, "/rdap-poller/deliveries");
    };

    try {
      const ownerId = await signUpAccount(stack.gateway.url, owner);
      await setPlan(sql, ownerId, "pro");

      await t.step(
        "the own address is on by default; a drop's mail arrives in the local mailbox",
        async () => {
          await page.goto(app.url);
          await fillSignIn(page, owner, "Sign in");
          await page.getByRole("button", { name: "Sign out" }).waitFor();
          await page.getByRole("link", { name: "Alerts" }).click();
          await page.getByRole("heading", { name: "Email" }).waitFor();
          await page.getByRole("heading", { name: `Your address ${owner}` }).waitFor();
          await page.getByText("Alerts are on.").first().waitFor();
          await audit(page, "alerts with email");

          const name = await drop(sql, ownerId);
          await deliver();
          const mail = await mailTo(
            mailbox.url,
            owner,
            new RegExp(`^${name.replace(/\./g, "\\.")} is available`),
          );
          assert(mail.Text.includes(`${name} is available.`), mail.Text);
          assert(mail.HTML.includes(`${name} is available.`), mail.HTML);
          assertMatch(
            mail.ListUnsubscribe.Links[0],
            /\/functions\/v1\/email-links\/unsubscribe\?token=[0-9a-f]{48}$/,
          );
          assertEquals(mail.ListUnsubscribe.HeaderPost, "List-Unsubscribe=One-Click");
          // The mail as a person reads it, in the mailbox's page.
          await page.goto(`${mailbox.url}/view/${mail.ID}`);
          await page.getByRole("heading", { name: `${name} is available.` }).first().waitFor();
        },
      );

      await t.step("an extra address is added in the app and confirmed from the mailed link", async () => {
        await page.goto(`${app.url}/alerts`);
        await page.getByLabel("Email address", { exact: true }).fill(team);
        await page.getByRole("button", { name: "Add address" }).click();
        await page.getByText(/Confirmation link mailed to m•••@example\.test/).waitFor();
        await page.getByText(/Waiting for confirmation/).first().waitFor();
        await postToPoller(stack, "/rdap-poller/deliveries");
        const confirmation = await mailTo(mailbox.url, team, /^Confirm this address/);
        const link = confirmation.Text.match(/https?:\/\/\S+\/email-links\/confirm\?token=[0-9a-f]{48}/)![0];
        await page.goto(link);
        await page.getByRole("heading", { name: "Confirm this address" }).waitFor();
        await audit(page, "email link");
        await page.getByRole("button", { name: "Confirm address" }).click();
        await page.getByText("The address is confirmed").waitFor();
        await page.goto(`${app.url}/alerts`);
        await page.getByRole("heading", { name: "m•••@example.test" }).waitFor();
        await page.getByRole("button", { name: "Switch off email alerts to m•••@example.test" }).waitFor();
      });

      await t.step(
        "one-click unsubscribe (RFC 8058 POST) stops the extra address; the app says so",
        async () => {
          const name = await drop(sql, ownerId);
          await deliver();
          const mail = await mailTo(
            mailbox.url,
            team,
            new RegExp(`^${name.replace(/\./g, "\\.")} is available`),
          );
          const response = await fetch(mail.ListUnsubscribe.Links[0], {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "List-Unsubscribe=One-Click",
          });
          assertEquals(await response.json(), { status: "unsubscribed" });
          await page.goto(`${app.url}/alerts`);
          await page.getByText(/someone unsubscribed it from a mail\. Switching it on mails a new link\./)
            .waitFor();
        },
      );

      await t.step("the own address is unsubscribed from a mail's link, through the app's page", async () => {
        const [latest] = (await (await fetch(
          `${mailbox.url}/api/v1/search?query=${encodeURIComponent(`to:${owner}`)}`,
        )).json()).messages as { ID: string }[];
        const mail: Mail = await (await fetch(`${mailbox.url}/api/v1/message/${latest.ID}`)).json();
        await page.goto(mail.ListUnsubscribe.Links[0]);
        await page.getByRole("heading", { name: "Unsubscribe this address" }).waitFor();
        await page.getByRole("button", { name: "Unsubscribe" }).click();
        await page.getByText("The address is unsubscribed").waitFor();
        await page.goto(`${app.url}/alerts`);
        await page.getByText(/someone unsubscribed it from a mail\. Switch it on again/).waitFor();
        await page.getByRole("button", { name: `Switch on email alerts to Your address ${owner}` }).click();
        await page.getByRole("button", { name: `Switch off email alerts to Your address ${owner}` })
          .waitFor();
      });

      await t.step("a Free account sees what Pro adds, without a form", async () => {
        const free = uniqueEmail("mail-free");
        await signUpAccount(stack.gateway.url, free);
        await page.getByRole("button", { name: "Sign out" }).click();
        await fillSignIn(page, free, "Sign in");
        await page.getByRole("button", { name: "Sign out" }).waitFor();
        await page.goto(`${app.url}/alerts`);
        await page.getByText("More addresses come with Pro.").waitFor();
        await page.getByLabel("Email address", { exact: true }).waitFor({
          state: "detached",
          timeout: 1_000,
        });
        await page.getByRole("heading", { name: `Your address ${free}` }).waitFor();
        await audit(page, "alerts on Free");
      });

      assertEquals(violations, [], "axe: no serious or critical violation");
      assertEquals(pageErrors, [], "no page errors");
    } finally {
      await browser.close();
      await app.close();
      await stack.close();
      await mailbox.close();
      await smtp.close();
    }
  },
);
