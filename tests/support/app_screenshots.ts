/**
 * The scenes of `deno task screenshots`: a local stack with sample data, each screen opened in chromium as
 * a signed-in person would, saved at 1280 px and 375 px wide (the watchlist also in the dark theme). Called by scripts/screenshots.ts with a
 * throwaway database in the environment.
 */
import type { Page } from "./playwright_types.d.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { setWebhookTargetPolicy } from "../../platform/postgres/vault.ts";
import { launchBrowser, startApp } from "./browser.ts";
import { fillSignIn } from "./app_journey.ts";
import { addNames, setPlan, signUpAccount } from "./app_seed.ts";
import { startStack } from "./stack.ts";
import { startWebhookReceiver } from "../fakes/webhook_receiver.ts";
import { postToPoller } from "./poller_runs.ts";

const DAY = 86_400_000;
const iso = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString();

const sample: {
  name: string;
  status: string;
  expires: number | null;
  registrar: string | null;
  drop?: number;
}[] = [
  { name: "acme-widgets.com", status: "registered", expires: 212, registrar: "Example Registrar, Inc." },
  { name: "bluebird.io", status: "pending_delete", expires: -38, registrar: "Gandi SAS", drop: 2 },
  { name: "cloudnine.dev", status: "available", expires: null, registrar: null },
  { name: "dataforge.net", status: "registered", expires: 45, registrar: "Namecheap, Inc." },
  { name: "evergreen.app", status: "registered", expires: 301, registrar: "Google LLC" },
  { name: "fastlane.co", status: "unknown", expires: null, registrar: null },
  { name: "greenfield.org", status: "registered", expires: 12, registrar: "Tucows Domains Inc." },
  { name: "harborlight.com", status: "pending_delete", expires: -33, registrar: "GoDaddy.com, LLC", drop: 4 },
];

export async function takeScreenshots(outDir: string): Promise<string[]> {
  const app = await startApp();
  const stack = await startStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
  app.config.supabaseUrl = stack.gateway.url;
  const { sql } = stack;
  const receiver = startWebhookReceiver();
  await setWebhookTargetPolicy(sql, true);
  const files: string[] = [];
  const browser = await launchBrowser();
  try {
    // The Pro account and its data.
    const owner = "ada@example.com";
    const ownerId = await signUpAccount(stack.gateway.url, owner);
    await setPlan(sql, ownerId, "pro");
    await sql`update public.profiles set display_name = 'Ada Lovelace' where id = ${ownerId}`;
    await addNames(sql, ownerId, sample.map((s) => s.name));
    // The account has watched its names for long (the history below goes back 400 days): an account reads a
    // name's changes only from when it started watching it (issue 40).
    await sql`update public.watch_periods set started_at = now() - interval '2 years' where user_id = ${ownerId}`;
    for (const [index, s] of sample.entries()) {
      const [domain] = await sql<{ id: number }[]>`
        update public.domains set status = ${s.status}, last_checked_at = now() - make_interval(mins => ${
        index * 3 + 1
      }),
          status_changed_at = now() - interval '2 days',
          expires_at = ${s.expires === null ? null : iso(s.expires)}, registrar = ${s.registrar}
        where name = ${s.name} returning id`;
      if (s.drop) {
        // After the status: entering pending delete clears any earlier prediction (a trigger).
        await sql`update public.domains set predicted_drop_at = ${iso(s.drop)},
          prediction_basis = 'pending_delete_period' where name = ${s.name}`;
      }
      await sql`delete from public.domain_status_changes where domain_id = ${domain.id}`;
      if (s.name === "cloudnine.dev") {
        const rows: [string | null, string, number, unknown][] = [
          [null, "registered", -400, null],
          ["registered", "pending_delete", -9, null],
          ["pending_delete", "available", -2, {
            server: "https://rdap.nic.dev/domain/cloudnine.dev",
            answer: "HTTP 404 (no such object)",
            canary_proof: "nic.dev answered 200 at the same server 3 s before",
            dns: "NXDOMAIN from the TLD's name servers",
          }],
        ];
        for (const [previous, status, days, evidence] of rows) {
          await sql`insert into public.domain_status_changes
            (domain_id, domain_name, previous_status, status, changed_at, source, evidence)
            values (${domain.id}, ${s.name}, ${previous}, ${status}, ${iso(days)}, 'poller', ${
            evidence ? sql.json(evidence as Record<string, string>) : null
          })`;
        }
      } else if (s.status !== "unknown") {
        await sql`insert into public.domain_status_changes (domain_id, domain_name, previous_status, status, changed_at, source)
          values (${domain.id}, ${s.name}, null, ${s.status}, now() - interval '20 days', 'poller')`;
      }
    }
    await asAccount(sql, ownerId, async (tx) => {
      await tx`select public.create_webhook_endpoint(${
        receiver.endpoint("ops")
      }, 'Ops alerts', null, 'generic',
        array['domain.available', 'domain.pending_delete'])`;
      await tx`select * from public.create_api_key('laptop')`;
      const [org] = await tx<{ id: string }[]>`select public.create_organization('Acme domains') as id`;
      await tx`insert into public.invitations (organization_id, email, role) values (${org.id}, 'grace@example.com', 'member')`;
      return org.id;
    }).then(async (orgId) => {
      const alan = await signUpAccount(stack.gateway.url, "alan@example.com");
      await sql`update public.profiles set display_name = 'Alan Turing' where id = ${alan}`;
      await sql`insert into public.organization_members (organization_id, user_id, role) values (${orgId}, ${alan}, 'admin')`;
    });
    // A linked Telegram chat (as the bot's link flow leaves it) and a test alert through the webhook.
    await sql`insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
              values (${ownerId}, '424242', now() - interval '5 days')`;
    await asAccount(sql, ownerId, async (tx) => {
      const [hook] = await tx<{ id: string }[]>`select id from public.webhook_endpoints limit 1`;
      await tx`select public.send_webhook_test(${hook.id})`;
    });
    await postToPoller(stack, "/rdap-poller/deliveries");
    await sql`update public.api_keys set last_used_at = now() - interval '3 hours' where user_id = ${ownerId}`;

    // The Free account.
    const free = "lin@example.com";
    const freeId = await signUpAccount(stack.gateway.url, free);
    await addNames(sql, freeId, ["acme-widgets.com", "cloudnine.dev"]);

    const shoot = async (page: Page, name: string) => {
      await page.waitForLoadState("networkidle");
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.screenshot({ path: `${outDir}/${name}.png`, fullPage: true });
      await page.setViewportSize({ width: 375, height: 800 });
      await page.screenshot({ path: `${outDir}/${name}-375.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
      files.push(`${name}.png`, `${name}-375.png`);
    };
    const signedIn = async (email: string) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      await page.goto(`${app.url}/sign-in`);
      await fillSignIn(page, email, "Sign in");
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      return page;
    };

    /** Registers an assistant and starts its authorization: the consent page's path and query. */
    const pendingConsentPath = async (name: string, redirectUri: string): Promise<URL> => {
      const auth = `${stack.gateway.url}/auth/v1`;
      const client = await (await fetch(`${auth}/oauth/clients/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: name,
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: "none",
        }),
      })).json();
      const authorize = await fetch(
        `${auth}/oauth/authorize?${new URLSearchParams({
          client_id: client.client_id,
          redirect_uri: redirectUri,
          response_type: "code",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          code_challenge_method: "S256",
          state: "screenshot",
        })}`,
        { redirect: "manual" },
      );
      await authorize.body?.cancel();
      return new URL(authorize.headers.get("location")!);
    };

    const anonymous = await (await browser.newContext()).newPage();
    await anonymous.goto(`${app.url}/sign-in`);
    await anonymous.getByRole("button", { name: "Sign up", exact: true }).waitFor();
    await shoot(anonymous, "sign-in");

    const page = await signedIn(owner);
    await page.getByRole("link", { name: "harborlight.com" }).waitFor();
    await shoot(page, "watchlist");
    // The dark theme (the system's choice), desktop and 375 px.
    await page.emulateMedia({ colorScheme: "dark" });
    await shoot(page, "watchlist-dark");
    await page.emulateMedia({ colorScheme: null });
    await page.goto(`${app.url}/domains/cloudnine.dev`);
    await page.getByText("First seen: Registered").waitFor();
    await shoot(page, "domain");
    await page.goto(`${app.url}/alerts`);
    await page.getByRole("heading", { name: "Ops alerts" }).waitFor();
    await page.getByRole("button", { name: "Delivery log of Ops alerts" }).click();
    await shoot(page, "alerts");
    // An assistant approved on the consent page, for Connected assistants (its redirect answered here).
    const chatgptRedirect = "https://chatgpt.com/connector_platform_oauth_redirect";
    await page.route(`${chatgptRedirect}**`, (route) => route.fulfill({ status: 200, body: "back" }));
    const chatgptConsent = await pendingConsentPath("ChatGPT", chatgptRedirect);
    await page.goto(`${app.url}${chatgptConsent.pathname}${chatgptConsent.search}`);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.waitForURL(`${chatgptRedirect}**`);
    await page.goto(`${app.url}/developer`);
    await page.getByRole("button", { name: "Revoke ChatGPT", exact: true }).waitFor();
    await page.getByLabel("Key name").fill("ci");
    await page.getByRole("button", { name: "Create key", exact: true }).click();
    await page.getByLabel("Your new API key").waitFor();
    await shoot(page, "developer");
    await page.goto(`${app.url}/organizations`);
    await page.getByText("grace@example.com").waitFor();
    await shoot(page, "organizations");
    await page.goto(`${app.url}/account`);
    await page.getByRole("heading", { name: "Plan and limits" }).waitFor();
    await shoot(page, "account");

    // A pending OAuth authorization, as an assistant's connect starts one.
    const consentPath = await pendingConsentPath("Claude", "https://claude.ai/api/mcp/auth_callback");
    await page.goto(`${app.url}${consentPath.pathname}${consentPath.search}`);
    await page.getByRole("button", { name: "Approve", exact: true }).waitFor();
    await shoot(page, "consent");

    const [invitation] = await sql<
      { token: string }[]
    >`select token from public.invitations where email = 'grace@example.com'`;
    await anonymous.goto(`${app.url}/accept-invite?token=${invitation.token}`);
    await anonymous.getByRole("heading", { name: "Accept an invitation" }).waitFor();
    await shoot(anonymous, "accept-invite");

    const freePage = await signedIn(free);
    await freePage.goto(`${app.url}/alerts`);
    await freePage.getByText("Webhooks, Slack and Discord come with Pro.").waitFor();
    await shoot(freePage, "alerts-free");
    await freePage.goto(`${app.url}/developer`);
    await freePage.getByText("API keys come with Pro.").waitFor();
    await shoot(freePage, "developer-free");
    return files;
  } finally {
    await browser.close();
    await app.close();
    await receiver.close();
    await stack.close();
  }
}
