/**
 * The product app in a real browser (Debian's chromium driven by playwright-core) against the whole local
 * stack: the gateway (/rest/v1, /auth/v1, /functions/v1), the local mailbox, the poller and delivery runs,
 * and fakes of an RDAP registry, DNS, Telegram and a webhook receiver. One journey of a Pro account as a
 * person makes it (sign up, confirm from the mailbox, add names, see a poller run change a status, link
 * Telegram, add a webhook and see its secret once, test send, read the delivery log, create an API key and
 * call REST with it, export, invite, and the invitation accepted by a second user), an MCP SDK client
 * completing OAuth through the app's consent page, the assistant shown under Connected assistants and revoked
 * there, then a Free account's view (what Pro adds, no form it cannot use, Upgrade, compact rows at 375 px);
 * the calendar feed's URL made, read with ical.js and revoked; Remove with Undo; Account as an organization's owner and member; the consent page framed by another
 * origin; `next` that would leave the app; PKCE mail links; the dark theme and its switch. axe-core runs on
 * every screen in the light and the dark theme; no serious or critical violation is allowed, and nothing may
 * be blocked by the app's content security policy.
 *
 * Names live under the made-up TLD `apptest`, served only by this file's fake registry.
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import ICAL from "ical.js";
import type { Browser, Page } from "../support/playwright_types.d.ts";
import { startMailbox } from "../../platform/mailbox/server.ts";
import { localSecretKey, namedKeysJson } from "../../platform/secrets.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MemoryOAuthProvider } from "../support/oauth_provider.ts";
import { launchBrowser, seriousViolations, startApp, watchPage } from "../support/browser.ts";
import { fillSignIn, latestMail, password, signUpAndConfirm, verifyLinkOf } from "../support/app_journey.ts";
import { checkNow, domainStatus, leaveNothingDue, postToPoller } from "../support/poller_runs.ts";
import { registerBotWebhook } from "../support/telegram_link.ts";
import { startStack, uniqueEmail } from "../support/stack.ts";
import { fakesEnv, runBudgetsEnv } from "../support/fakes_env.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const TLD = "apptest";
const redirectUrl = "http://localhost:8977/oauth/callback";

function uniqueName(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.${TLD}`;
}

class BrowserProvider extends MemoryOAuthProvider {
  constructor() {
    super("Browser test assistant", redirectUrl);
  }
}

Deno.test(
  "the app in a browser: a Pro account's journey, OAuth consent, a Free account's view",
  options,
  async (t) => {
    const rdap = await startFakeRdap({ tlds: [TLD] });
    rdap.setDomain(`nic.${TLD}`, { status: 200 });
    const dns = await startFakeDns();
    const telegram = startFakeTelegram();
    const receiver = startWebhookReceiver();
    const mailbox = startMailbox({ port: 0 });
    const app = await startApp();
    const stack = await startStack({
      ...fakesEnv({ rdap, dns, telegram }),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      ...runBudgetsEnv,
      // Sign-ups are confirmed from the mailbox, as on a hosted project.
      GOTRUE_MAILER_AUTOCONFIRM: "false",
      // Before the functions load: send-org-invite reads the secret key for Auth's admin API at load.
      SUPABASE_SECRET_KEYS: namedKeysJson(localSecretKey),
    });
    app.config.supabaseUrl = stack.gateway.url;
    const { sql } = stack;
    await setRdapHostLimit(sql, rdap.url, 50);
    await setWebhookTargetPolicy(sql, true);
    await registerBotWebhook(sql, telegram, stack.functionsBase);
    await sql`update public.telegram_send_pace set next_free_at = '-infinity', paused_until = '-infinity'`;

    const browser: Browser = await launchBrowser();
    const violations: string[] = [];
    /** axe-core on the page as it is, in the light and in the dark theme (the system's choice). */
    const audit = async (page: Page, screen: string) => {
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const violation of await seriousViolations(page)) {
          violations.push(`${screen} (${scheme}): ${violation}`);
        }
      }
      await page.emulateMedia({ colorScheme: null });
    };
    /** Account as it must look for anyone, organization members too: their own profile, no error. */
    const accountShowsOwnProfile = async (page: Page, email: string) => {
      await page.getByRole("link", { name: "Account" }).click();
      await page.getByRole("heading", { name: "Plan and limits" }).waitFor();
      await page.getByText(email, { exact: true }).waitFor();
      await page.getByText(/member since/).waitFor();
      assertEquals(await page.getByRole("alert").count(), 0, await page.locator("main").innerText());
    };
    const owner = uniqueEmail("app-owner");
    const member = uniqueEmail("app-member");
    const names = [uniqueName("alpha"), uniqueName("bravo"), uniqueName("charlie")];
    const accountIds: string[] = [];
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const pageErrors: string[] = [];
    // Script errors, and anything the app's content security policy blocked, on every page.
    watchPage(page, pageErrors);
    let apiKey = "";
    /** The MCP client that completed OAuth through the consent page (its registration and tokens). */
    let assistant: BrowserProvider | undefined;
    let failed = false;
    /** A step; after a failure the rest are skipped, and the failing page is told (text, screenshot). */
    const step = (name: string, work: () => Promise<void> | void) =>
      t.step({
        name,
        ignore: failed,
        fn: async () => {
          try {
            await work();
          } catch (error) {
            failed = true;
            const text = await page.locator("body").innerText().catch(() => "");
            console.log(`[page at failure] ${page.url()}\n${text}`);
            await page.screenshot({ path: ".local/app_browser_failure.png", fullPage: true }).catch(() => {});
            throw error;
          }
        },
      });

    try {
      await step("sign up, confirm from the local mailbox; the plan is always in view", async () => {
        await page.goto(app.url);
        await page.getByRole("heading", { name: "Sign in to Domain Watchlist" }).waitFor();
        await audit(page, "sign in");
        await signUpAndConfirm(page, mailbox.url, owner);
        const [user] = await sql<{ id: string }[]>`select id from auth.users where email = ${owner}`;
        accountIds.push(user.id);
        await page.getByLabel("Plan and usage").getByText("free").waitFor();
        // The operator's plan change (deno task admin set-plan); the app only shows it.
        await sql`update public.profiles set plan_id = 'pro' where id = ${user.id}`;
        await page.reload();
        await page.getByLabel("Plan and usage").getByText("pro").waitFor();
      });

      await step("add names by paste: added, duplicates skipped, the quota left", async () => {
        await page.getByLabel(/Domain names/).fill(`${names.join("\n")}\n${names[0]}`);
        await page.getByRole("button", { name: "Add", exact: true }).click();
        const status = page.getByRole("status").filter({ hasText: "Added" });
        await status.waitFor();
        assertMatch(
          await status.textContent() ?? "",
          /Added 3, skipped 1 duplicate\(s\), rejected 0 over the quota/,
        );
        for (const name of names) await page.getByRole("link", { name }).waitFor();
        assertEquals(await page.getByLabel(/Domain names/).inputValue(), "", "everything was handled");
        await audit(page, "watchlist");
      });

      await step("invalid names are refused by the server and stay in the box", async () => {
        await page.getByLabel(/Domain names/).fill("not a name!");
        await page.getByRole("button", { name: "Add", exact: true }).click();
        await page.getByRole("alert").filter({ hasText: "Invalid domain names" }).waitFor();
        assertEquals(await page.getByLabel(/Domain names/).inputValue(), "not a name!");
        await page.getByLabel(/Domain names/).fill("");
      });

      await step(
        "a poller run changes a status; the name's page shows its history and evidence",
        async () => {
          rdap.setDomain(names[0], { status: 200, body: minimalDomain(names[0]) });
          rdap.setDomain(names[1], { status: 404 });
          await checkNow(stack, ...names.slice(0, 2));
          assertEquals(await domainStatus(sql, names[1]), "available");
          await page.reload();
          const available = page.getByRole("row").filter({ hasText: names[1] });
          await available.getByText("Available").waitFor();
          await page.getByRole("row").filter({ hasText: names[0] }).getByText("Registered").waitFor();
          await page.getByLabel("Status").selectOption("available");
          await page.getByRole("link", { name: names[0] }).waitFor({ state: "detached" });
          await page.getByRole("link", { name: names[1] }).click();
          await page.getByRole("heading", { name: names[1] }).waitFor();
          await page.getByText("First seen: Available").waitFor();
          await audit(page, "domain");
        },
      );

      await step("remove a name, then take it back with Undo", async () => {
        await page.getByRole("link", { name: "Watchlist", exact: true }).click();
        await page.getByLabel("Status").selectOption("");
        await page.getByRole("link", { name: names[0] }).waitFor();
        await page.getByRole("button", { name: `Remove ${names[0]}` }).click();
        await page.getByRole("status").filter({ hasText: `Removed ${names[0]}` }).waitFor();
        await page.getByRole("link", { name: names[0] }).waitFor({ state: "detached" });
        await audit(page, "watchlist (undo)");
        await page.getByRole("button", { name: `Undo removing ${names[0]}` }).click();
        await page.getByRole("link", { name: names[0] }).waitFor();
        const [entry] = await sql<{ deleted_at: Date | null }[]>`
          select deleted_at from public.watchlist_entries where domain_name = ${names[0]}
           order by added_at desc limit 1`;
        assertEquals(entry.deleted_at, null, "watched again");
      });

      await step("link Telegram through the (fake) bot's deep link", async () => {
        await page.getByRole("link", { name: "Alerts" }).click();
        await page.getByRole("button", { name: "Link Telegram" }).click();
        const href = await page.getByRole("link", { name: "Open the bot in Telegram" }).getAttribute("href");
        const token = new URL(href!).searchParams.get("start")!;
        const linked = await telegram.deliverUpdate(424242, `/start ${token}`);
        await linked.body?.cancel();
        await page.getByRole("button", { name: "I pressed Start" }).click();
        await page.getByText(/^Linked /).waitFor();
        await page.getByRole("button", { name: "Send test message" }).click();
        await page.getByText("Test message queued").waitFor();
        await audit(page, "alerts");
      });

      await step(
        "add a webhook: its secret is shown once; a test send shows in the delivery log",
        async () => {
          const hookUrl = receiver.endpoint("app-journey");
          await page.getByLabel("URL", { exact: true }).fill(hookUrl);
          await page.getByLabel("Description", { exact: true }).fill("My receiver");
          // Event types read as plain words, never ids.
          await page.getByRole("checkbox", { name: "Became available" }).first().waitFor();
          assert(!(await page.locator("main").innerText()).includes("domain."), "no raw event ids");
          await page.getByRole("button", { name: "Add webhook" }).click();
          const secret = await page.getByLabel("Signing secret").first().textContent();
          assert(secret && secret.length >= 16, `a secret: ${secret}`);
          receiver.endpoint("app-journey", { secret });
          await page.reload();
          await page.getByRole("heading", { name: "My receiver" }).waitFor();
          assert(!(await page.content()).includes(secret), "the secret is not shown again");
          await page.getByRole("button", { name: "Send test to My receiver" }).click();
          await page.getByText("Test alert queued").waitFor();
          await postToPoller(stack, "/rdap-poller/deliveries");
          await page.getByRole("button", { name: "Refresh the log" }).click();
          await page.getByRole("cell", { name: "delivered", exact: true }).waitFor();
          await page.getByRole("cell", { name: "Test alert", exact: true }).first().waitFor();
          const [hook] = receiver.accepted("app-journey");
          assert(hook, "the receiver got the test");
          assertEquals(hook.signatureValid, true, "signed with the secret the page showed");
          await page.getByRole("button", { name: /^Redeliver / }).first().click();
          await audit(page, "alerts (webhooks)");
        },
      );

      await step("create an API key (shown once) and call REST with it", async () => {
        await page.getByRole("link", { name: "Developer API" }).click();
        await page.getByLabel("Key name").fill("browser");
        await page.getByRole("button", { name: "Create key", exact: true }).click();
        apiKey = (await page.getByLabel("Your new API key").textContent())!;
        const listed = await fetch(`${stack.apiBase}/domains`, { headers: { "x-api-key": apiKey } });
        const body = await listed.json();
        assertEquals(listed.status, 200, JSON.stringify(body));
        assert(JSON.stringify(body).includes(names[2]), "the key reads this account's watchlist");
        await page.reload();
        await page.getByRole("cell", { name: "browser", exact: true }).waitFor();
        assert(!(await page.content()).includes(apiKey), "the key is not shown again");
        await page.getByText("/mcp").first().waitFor();
        await audit(page, "developer");
      });

      await step("export the account as a JSON download", async () => {
        await page.getByRole("link", { name: "Account" }).click();
        const download = page.waitForEvent("download");
        await page.getByRole("button", { name: "Export account" }).click();
        const file = await download;
        assertMatch(file.suggestedFilename(), /^domain-watchlist-export-.*\.json$/);
        const exported = JSON.parse(await Deno.readTextFile((await file.path())!));
        assert(exported.format_version, "an export");
        assert(JSON.stringify(exported).includes(names[0]));
        assert(!JSON.stringify(exported).includes(apiKey), "never a key");
        // No command line for an end user: without APP_UPGRADE_URL, a plain sentence says who to ask.
        await page.getByText("Plans are changed by the people who run this service").waitFor();
        assert(!(await page.locator("body").innerText()).includes("deno task"), "no command line");
        await audit(page, "account");
      });

      await step(
        "the calendar feed: make the URL in Account, fetch it, read it with ical.js, revoke it",
        async () => {
          await page.getByRole("button", { name: "Create calendar URL" }).click();
          const shown = page.getByLabel("Your calendar URL");
          await shown.waitFor();
          const url = (await shown.textContent())!.trim();
          assertMatch(url, /\/functions\/v1\/calendar\/dwcal_[0-9a-f]{48}\.ics$/);
          const response = await fetch(url);
          assertEquals(response.headers.get("content-type"), "text/calendar; charset=utf-8");
          const calendar = new ICAL.Component(ICAL.parse(await response.text()));
          assertEquals(calendar.getFirstPropertyValue("x-wr-calname"), "Domain Watchlist");
          for (const event of calendar.getAllSubcomponents("vevent")) {
            const summary = String(event.getFirstPropertyValue("summary"));
            assert(names.some((name) => summary.startsWith(name)), `only this account's names: ${summary}`);
          }
          await audit(page, "account with its calendar URL");
          await page.getByRole("button", { name: "Revoke calendar URL" }).click();
          await page.getByText("Calendar URL revoked.").waitFor();
          const revoked = await fetch(url);
          assertEquals([revoked.status, (await revoked.json()).error], [404, "not_found"]);
          await page.getByRole("button", { name: "Create calendar URL" }).waitFor();
        },
      );

      let inviteLink = "";
      await step("create an organization, invite by email and by link", async () => {
        await page.getByRole("link", { name: "Organizations" }).click();
        await page.getByLabel("Organization name").fill("Acme domains");
        await page.getByRole("button", { name: "Create organization" }).click();
        await page.getByRole("heading", { name: "Acme domains" }).waitFor();
        await page.getByLabel("Invite by email").fill(member);
        await page.getByRole("button", { name: "Invite", exact: true }).click();
        await page.getByText(member).waitFor();
        await page.getByRole("button", { name: `Send the invitation to ${member} by email` }).click();
        await page.getByRole("status").filter({ hasText: `Invitation mailed to ${member}.` }).waitFor();
        await page.getByRole("button", { name: `Show link for ${member}` }).click();
        inviteLink = (await page.getByLabel(`Invitation link for ${member}`).textContent())!;
        assert(inviteLink.startsWith(`${app.url}/accept-invite?token=`), inviteLink);
        await audit(page, "organizations");
      });

      await step("the invited user follows the mailed link and accepts", async () => {
        const second = await browser.newContext();
        second.setDefaultTimeout(10_000);
        const other = await second.newPage();
        watchPage(other, pageErrors, "other");
        await other.goto(inviteLink);
        await other.getByRole("heading", { name: "Accept an invitation" }).waitFor();
        await audit(other, "accept invite (signed out)");
        // send-org-invite had Auth invite the address: the mail's link signs the invited user in and comes
        // back to <APP_URL>/accept-invite?token=….
        await other.goto(verifyLinkOf(await latestMail(mailbox.url, member, "invite")));
        await other.getByText(`You are signed in as ${member}`).waitFor();
        await other.getByRole("button", { name: "Accept invitation" }).click();
        await other.getByText("You joined the organization.").waitFor();
        await audit(other, "accept invite");
        await second.close();
        await page.reload();
        await page.getByText(member).first().waitFor();
      });

      await step("Account for an organization's owner: their own profile, no error", async () => {
        await accountShowsOwnProfile(page, owner);
        await audit(page, "account (organization member)");
      });

      await step("an MCP client completes OAuth through the consent page, then calls a tool", async () => {
        const provider = new BrowserProvider();
        assistant = provider;
        const mcpUrl = new URL(`${stack.apiBase}/mcp`);
        const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
        let refused: unknown;
        try {
          await new Client({ name: "app-browser", version: "1.0.0" }).connect(first);
        } catch (error) {
          refused = error;
        }
        assert(refused instanceof UnauthorizedError, `first connect: ${refused}`);
        let code = "";
        await page.route(`${redirectUrl}**`, async (route) => {
          code = new URL(route.request().url()).searchParams.get("code") ?? "";
          await route.fulfill({ status: 200, contentType: "text/plain", body: "back in the assistant" });
        });
        await page.goto(provider.authorizationUrl!.toString());
        await page.getByRole("heading", { name: "Connect an assistant" }).waitFor();
        await page.getByText("Browser test assistant").first().waitFor();
        await page.getByText(redirectUrl).waitFor();
        const can = page.getByRole("region", { name: "If you approve, Browser test assistant can" });
        await can.getByText("check whether a domain name is available").waitFor();
        await can.getByText("remove names from your watchlist").waitFor();
        await can.getByText("see or create API keys").waitFor();
        // What the assistant cannot do with the sign-in (docs/mcp.md), in plain words.
        await page.getByRole("note", { name: "Your sign-in stays yours" }).waitFor();
        await audit(page, "consent");
        await page.getByRole("button", { name: "Approve", exact: true }).click();
        await page.waitForURL(`${redirectUrl}**`);
        assert(code, "the browser came back to the client with a code");
        await first.finishAuth(code);
        const client = new Client({ name: "app-browser", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
        const result = await client.callTool({ name: "list_watchlist", arguments: {} });
        assert(!result.isError, JSON.stringify(result));
        assert(JSON.stringify(result).includes(names[2]), "the tool reads the approving account's watchlist");
        await client.close();
      });

      await step("the assistant shows under Connected assistants; Revoke disconnects it", async () => {
        const provider = assistant!;
        await page.goto(`${app.url}/developer`);
        const section = page.getByRole("region", { name: "Connected assistants" });
        await section.getByRole("cell", { name: "Browser test assistant", exact: true }).waitFor();
        await audit(page, "developer (connected assistants)");
        await section.getByRole("button", { name: "Revoke Browser test assistant", exact: true }).click();
        await section.getByText("No assistants connected.").waitFor();
        // Revoked: the assistant's refresh token is refused, so it cannot get new access tokens.
        const refreshed = await fetch(`${stack.gateway.url}/auth/v1/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: provider.tokens()!.refresh_token!,
            client_id: provider.clientInformation()!.client_id,
          }),
        });
        assertEquals(refreshed.status, 400);
        assertEquals((await refreshed.json()).error_code, "refresh_token_not_found");
        await page.reload();
        await section.getByText("No assistants connected.").waitFor();
      });

      await step(
        "a signed-out visit to the consent page asks to sign in first; Deny goes back",
        async () => {
          const provider = new BrowserProvider();
          const transport = new StreamableHTTPClientTransport(new URL(`${stack.apiBase}/mcp`), {
            authProvider: provider,
          });
          await new Client({ name: "app-browser", version: "1.0.0" }).connect(transport).catch(() => {});
          const fresh = await browser.newContext();
          fresh.setDefaultTimeout(10_000);
          const consent = await fresh.newPage();
          watchPage(consent, pageErrors, "consent");
          let denied = "";
          await consent.route(`${redirectUrl}**`, async (route) => {
            denied = new URL(route.request().url()).searchParams.get("error") ?? "";
            await route.fulfill({ status: 200, body: "back" });
          });
          await consent.goto(provider.authorizationUrl!.toString());
          await consent.getByText("Sign in first").waitFor();
          await fillSignIn(consent, owner, "Sign in");
          await consent.getByRole("button", { name: "Deny", exact: true }).click();
          await consent.waitForURL(`${redirectUrl}**`);
          assertEquals(denied, "access_denied");
          await fresh.close();
        },
      );

      await step(
        "the consent page in another site's frame: the host's headers refuse it, and without them the app shows no Approve",
        async () => {
          const framing = await browser.newContext();
          framing.setDefaultTimeout(10_000);
          const host = await framing.newPage();
          // Another origin on loopback (127.0.0.1 is not the app's localhost) frames the consent page.
          const framer = app.url.replace("localhost", "127.0.0.1") + "/framer";
          const consentUrl = `${app.url}/oauth/consent?authorization_id=framed`;
          await host.route(framer, (route) =>
            route.fulfill({
              status: 200,
              contentType: "text/html",
              body:
                `<!doctype html><title>framer</title><iframe title="framed" src="${consentUrl}"></iframe>`,
            }));
          await host.goto(framer);
          await host.waitForTimeout(1_500);
          // The browser refused to render it (the same frame renders below once the headers are gone).
          assertEquals(await host.frameLocator("iframe").getByRole("heading").count(), 0, "nothing rendered");
          // A host that sends no headers: the app itself shows no sign-in and no Approve inside a frame.
          await host.route(`${app.url}/oauth/consent**`, async (route) => {
            const response = await route.fetch();
            const headers = { ...response.headers() };
            delete headers["x-frame-options"];
            delete headers["content-security-policy"];
            await route.fulfill({ response, headers });
          });
          await host.goto(framer);
          const frame = host.frameLocator("iframe");
          await frame.getByText("This page cannot be used inside another site.").waitFor();
          await frame.getByRole("link", { name: "Open it in its own window" }).waitFor();
          assertEquals(await frame.getByRole("button").count(), 0, "no Approve, no sign-in form");
          await framing.close();
        },
      );

      await step(
        "a Free account sees what Pro adds, with no form it cannot use and an Upgrade link; compact rows at 375 px",
        async () => {
          const freeContext = await browser.newContext();
          freeContext.setDefaultTimeout(10_000);
          const free = await freeContext.newPage();
          watchPage(free, pageErrors, "free");
          const email = uniqueEmail("app-free");
          app.config.upgradeUrl = "mailto:plans@example.com";
          await free.goto(app.url);
          await signUpAndConfirm(free, mailbox.url, email);
          await free.getByRole("link", { name: "Developer API" }).click();
          await free.getByText("API keys come with Pro.").waitFor();
          // What Pro adds, and no form a Free account cannot use; APP_UPGRADE_URL behind Upgrade.
          assertEquals(await free.getByRole("button", { name: "Create key" }).count(), 0);
          assertEquals(await free.getByLabel("Key name").count(), 0);
          assertEquals(
            await free.getByRole("link", { name: "Upgrade" }).getAttribute("href"),
            "mailto:plans@example.com",
          );
          await free.getByRole("region", { name: "Connected assistants" }).waitFor();
          await audit(free, "developer (free)");
          await free.getByRole("link", { name: "Alerts" }).click();
          await free.getByText("Webhooks, Slack and Discord come with Pro.").waitFor();
          await free.getByRole("button", { name: "Link Telegram" }).waitFor();
          await audit(free, "alerts (free)");
          await accountShowsOwnProfile(free, email);
          await free.getByRole("link", { name: "Upgrade" }).waitFor();
          await free.setViewportSize({ width: 375, height: 800 });
          await free.getByRole("link", { name: "Watchlist", exact: true }).click();
          const small = uniqueName("small");
          await free.getByLabel(/Domain names/).fill(small);
          await free.getByRole("button", { name: "Add", exact: true }).click();
          await free.getByRole("link", { name: small }).waitFor();
          const rowHeight = await free.evaluate(() =>
            // deno-lint-ignore no-explicit-any
            (globalThis as any).document.querySelector("tbody tr").getBoundingClientRect().height
          );
          // The name, its select box, status and actions on one line; a name not checked yet also says why and
          // what happens next (the radar), on its own line: nothing else, no card of dashes.
          assert(rowHeight < 180, `a compact row at 375 px, not a card of dashes: ${rowHeight}px`);
          const rowText = await free.locator("tbody tr").first().innerText();
          assert(!rowText.includes("—"), `no empty facts shown at 375 px: ${rowText}`);
          await audit(free, "watchlist (375 px)");
          const overflow = await free.evaluate(() => {
            // deno-lint-ignore no-explicit-any
            const root = (globalThis as any).document.documentElement;
            return root.scrollWidth - root.clientWidth;
          });
          assertEquals(overflow, 0, "no sideways scrolling at 375 px");
          delete app.config.upgradeUrl;
          await freeContext.close();
        },
      );

      await step("a magic link from the mailbox signs in; signing out ends the session", async () => {
        const fresh = await browser.newContext();
        fresh.setDefaultTimeout(10_000);
        const other = await fresh.newPage();
        watchPage(other, pageErrors, "other");
        await other.goto(app.url);
        await other.getByLabel("Email", { exact: true }).fill(owner);
        await other.getByRole("button", { name: "Email me a sign-in link" }).click();
        await other.getByText(`Check ${owner}: the sign-in link is on its way.`).waitFor();
        const link = verifyLinkOf(await latestMail(mailbox.url, owner, "magiclink"));
        assert(link.includes("token=pkce_"), `a PKCE link: ${link}`);
        await other.goto(link);
        await other.getByRole("link", { name: names[2] }).waitFor();
        // Auth came back with ?code=, which supabase-js traded (with this browser's verifier) and removed.
        assertEquals(other.url(), `${app.url}/`, "no code, no tokens left in the address");
        await other.getByRole("button", { name: "Sign out" }).click();
        await other.getByRole("heading", { name: "Sign in to Domain Watchlist" }).waitFor();
        await other.reload();
        await other.getByRole("heading", { name: "Sign in to Domain Watchlist" }).waitFor();
        await fresh.close();
      });

      await step(
        "a confirmation link opened in another browser confirms the address but cannot sign in there",
        async () => {
          const asking = await browser.newContext();
          asking.setDefaultTimeout(10_000);
          const first = await asking.newPage();
          const elsewhere = await browser.newContext();
          elsewhere.setDefaultTimeout(10_000);
          const second = await elsewhere.newPage();
          watchPage(second, pageErrors, "elsewhere");
          const email = uniqueEmail("app-elsewhere");
          await first.goto(app.url);
          await fillSignIn(first, email, "Sign up");
          await first.getByText(`Check ${email}`).waitFor();
          await second.goto(verifyLinkOf(await latestMail(mailbox.url, email, "signup")));
          // PKCE: only the browser that asked holds the verifier, so this one says what happened instead.
          await second.getByText("This link was opened in a different browser").waitFor();
          await audit(second, "sign in (link from another browser)");
          await fillSignIn(second, email, "Sign in");
          await second.getByRole("button", { name: "Sign out" }).waitFor();
          assertEquals(second.url(), `${app.url}/`, "the link's code is not carried on");
          await asking.close();
          await elsewhere.close();
        },
      );

      await step("after sign-in, a next that leaves the app goes to the watchlist instead", async () => {
        const fresh = await browser.newContext();
        fresh.setDefaultTimeout(10_000);
        const other = await fresh.newPage();
        watchPage(other, pageErrors, "other");
        for (const next of ["@127.0.0.1:1", "//127.0.0.1:1/x", "/\\127.0.0.1:1"]) {
          await other.goto(`${app.url}/sign-in?next=${encodeURIComponent(next)}`);
          if (next === "@127.0.0.1:1") await fillSignIn(other, owner, "Sign in");
          await other.getByRole("button", { name: "Sign out" }).waitFor();
          assertEquals(other.url(), `${app.url}/`, next);
        }
        await other.goto(`${app.url}/sign-in?next=${encodeURIComponent("/alerts")}`);
        await other.getByRole("heading", { name: "Alerts", exact: true }).waitFor();
        await fresh.close();
      });

      await step("a forgotten password: the mail's link leads to a new password that signs in", async () => {
        const fresh = await browser.newContext();
        fresh.setDefaultTimeout(10_000);
        const other = await fresh.newPage();
        watchPage(other, pageErrors, "other");
        await other.goto(app.url);
        await other.getByLabel("Email", { exact: true }).fill(member);
        await other.getByRole("button", { name: "Forgot your password?" }).click();
        await other.getByText(`Check ${member}: the link to choose a new password`).waitFor();
        await other.goto(verifyLinkOf(await latestMail(mailbox.url, member, "recovery")));
        await other.getByLabel("New password").fill("a brand new passphrase");
        await other.getByRole("button", { name: "Save password" }).click();
        await other.getByText("Your password is changed.").waitFor();
        await audit(other, "reset password");
        // The invited member: Account shows their own profile, not "multiple (or no) rows returned".
        await accountShowsOwnProfile(other, member);
        await other.getByRole("button", { name: "Sign out" }).click();
        await other.getByLabel("Email", { exact: true }).fill(member);
        await other.getByLabel("Password", { exact: true }).fill("a brand new passphrase");
        await other.getByRole("button", { name: "Sign in", exact: true }).click();
        await other.getByRole("button", { name: "Sign out" }).waitFor();
        await fresh.close();
      });

      await step("by keyboard alone: sign in, skip to the content, add a name", async () => {
        const fresh = await browser.newContext();
        fresh.setDefaultTimeout(10_000);
        const other = await fresh.newPage();
        watchPage(other, pageErrors, "other");
        const focused = () =>
          other.evaluate(() => {
            // deno-lint-ignore no-explicit-any
            const element = (globalThis as any).document.activeElement;
            const tag = element?.tagName.toLowerCase();
            const name = element?.getAttribute("name") ?? (tag === "main" ? "" : element?.textContent ?? "");
            return `${tag} ${name}`;
          });
        await other.goto(app.url);
        await other.getByRole("button", { name: "Sign in", exact: true }).waitFor();
        for (let i = 0; i < 6 && await focused() !== "input email"; i++) await other.keyboard.press("Tab");
        assertEquals(await focused(), "input email");
        await other.keyboard.type(owner);
        await other.keyboard.press("Tab");
        await other.keyboard.type(password);
        await other.keyboard.press("Enter");
        await other.getByRole("button", { name: "Sign out" }).waitFor();
        assertEquals(await focused(), "main ", "after a navigation, focus is on the new screen's content");
        await other.reload();
        await other.getByRole("button", { name: "Sign out" }).waitFor();
        await other.keyboard.press("Tab");
        assertEquals(await focused(), "a Skip to content");
        await other.keyboard.press("Enter");
        assertEquals(await focused(), "main ");
        const name = uniqueName("keys");
        // Past Export CSV and the radar's four summary buttons to the names box.
        for (let i = 0; i < 10 && !(await focused()).startsWith("textarea"); i++) {
          await other.keyboard.press("Tab");
        }
        await other.keyboard.type(name);
        await other.keyboard.press("Tab");
        assertEquals(await focused(), "button Add");
        await other.keyboard.press("Enter");
        await other.getByRole("link", { name }).waitFor();
        await fresh.close();
      });

      await step("dark mode: the system's choice, a switch that is remembered", async () => {
        const dark = await browser.newContext({ colorScheme: "dark" });
        dark.setDefaultTimeout(10_000);
        const other = await dark.newPage();
        watchPage(other, pageErrors, "dark");
        const background = () =>
          other.evaluate(() =>
            // deno-lint-ignore no-explicit-any
            (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).backgroundColor
          );
        await other.goto(app.url);
        const toggle = other.getByRole("button", { name: "Dark mode" });
        assertEquals(await toggle.getAttribute("aria-pressed"), "true", "the system asks for dark");
        assertEquals(await background(), "rgb(15, 20, 25)");
        await fillSignIn(other, owner, "Sign in");
        await other.getByRole("link", { name: names[2] }).waitFor();
        for (const violation of await seriousViolations(other)) {
          violations.push(`dark watchlist: ${violation}`);
        }
        await toggle.click();
        assertEquals(await toggle.getAttribute("aria-pressed"), "false");
        assertEquals(await background(), "rgb(246, 248, 250)");
        await other.reload();
        await other.getByRole("link", { name: names[2] }).waitFor();
        assertEquals(await toggle.getAttribute("aria-pressed"), "false", "remembered");
        assertEquals(await background(), "rgb(246, 248, 250)");
        await toggle.click();
        await other.reload();
        assertEquals(await toggle.getAttribute("aria-pressed"), "true");
        assertEquals(await background(), "rgb(15, 20, 25)");
        await dark.close();
      });

      await step("no serious or critical axe-core violation on any screen; no script error", () => {
        assertEquals(violations, []);
        assertEquals(pageErrors, []);
      });
    } finally {
      Deno.env.delete("GOTRUE_MAILER_AUTOCONFIRM");
      await leaveNothingDue(sql, [TLD], accountIds);
      await browser.close();
      await app.close();
      await mailbox.close();
      await stack.close();
      await rdap.close();
      await dns.close();
      await telegram.close();
      await receiver.close();
    }
  },
);
