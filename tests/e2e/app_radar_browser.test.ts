/**
 * The drop radar in a real browser (Debian's chromium through playwright-core, as app_browser.test.ts) against
 * the whole local stack and a fake RDAP registry: a Free account's watchlist opens in urgency order (a
 * pending-delete name, then an expiring one, then an unknown one with its reason, then the rest), with
 * relative times and a summary whose counts filter the list; Check now within the Free allowance and beyond
 * it; the name's lifecycle; tags and a note; bulk tag and bulk remove with undo; the CSV export with tags and
 * notes. axe-core runs on every screen; no serious or critical violation is allowed.
 */
import type { Browser, Page } from "../support/playwright_types.d.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { launchBrowser, seriousViolations, startApp } from "../support/browser.ts";
import { fillSignIn } from "../support/app_journey.ts";
import { addNames, signUpAccount } from "../support/app_seed.ts";
import { startStack, uniqueEmail } from "../support/stack.ts";
import { fakesEnv } from "../support/fakes_env.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../fakes/rdap_server.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
// A real TLD: Check now normalises names by the Public Suffix List, as GET /check does. The fake registry
// answers for it, its canary (example.com, from the shipped table) proved.
const TLD = "com";

Deno.test(
  "the drop radar in a browser: order, summary, Check now, tags, notes, bulk undo",
  options,
  async (t) => {
    const rdap = await startFakeRdap({ tlds: [TLD] });
    rdap.setDomain(`example.${TLD}`, { status: 200 });
    const dns = await startFakeDns();
    const app = await startApp();
    const stack = await startStack({ ...fakesEnv({ rdap, dns }) });
    app.config.supabaseUrl = stack.gateway.url;
    const { sql } = stack;
    const id = crypto.randomUUID().slice(0, 6);
    const rest = `a-rest-${id}.${TLD}`;
    const unknown = `b-unknown-${id}.${TLD}`;
    const expiring = `c-expiring-${id}.${TLD}`;
    const dropping = `d-drop-${id}.${TLD}`;

    const browser: Browser = await launchBrowser();
    const context = await browser.newContext({ acceptDownloads: true });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const violations: string[] = [];
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const audit = async (screen: string) => {
      for (const violation of await seriousViolations(page)) violations.push(`${screen}: ${violation}`);
    };
    const listed = async () => await page.locator("tbody tr th a").allTextContents();
    /** Waits until `name` is the first row (a new order has loaded). */
    const firstListed = async (name: string) => {
      for (let i = 0; i < 100 && (await listed())[0] !== name; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assertEquals((await listed())[0], name);
    };
    let failed = false;
    const step = (name: string, work: () => Promise<void>) =>
      t.step({
        name,
        ignore: failed,
        fn: async () => {
          try {
            await work();
          } catch (error) {
            failed = true;
            console.log(
              `[page at failure] ${page.url()}\n${await page.locator("body").innerText().catch(() => "")}`,
            );
            await page.screenshot({ path: ".local/app_radar_failure.png", fullPage: true }).catch(() => {});
            throw error;
          }
        },
      });

    try {
      const email = uniqueEmail("radar");
      const userId = await signUpAccount(stack.gateway.url, email);
      await addNames(sql, userId, [rest, unknown, expiring, dropping]);
      await sql`update public.domains set status = 'registered', last_checked_at = now(),
                                        expires_at = now() + interval '400 days' where name = ${rest}`;
      await sql`update public.domains set status = 'registered', last_checked_at = now(),
                                        expires_at = now() + interval '12 days 1 hour' where name = ${expiring}`;
      await sql`update public.domains set status = 'pending_delete', last_checked_at = now() where name = ${dropping}`;
      await sql`update public.domains set predicted_drop_at = now() + interval '2 days 1 hour',
                                        prediction_basis = 'pending_delete_period' where name = ${dropping}`;
      await sql`update public.domains set last_checked_at = now(), consecutive_failures = 1 where name = ${unknown}`;
      await sql`select private.note_unknown_reason(${unknown}, 'rdap_timeout')`;

      await step(
        "the radar opens by urgency: pending delete, expiring, unknown (with why), the rest",
        async () => {
          await page.goto(`${app.url}/sign-in`);
          await fillSignIn(page, email, "Sign in");
          await page.getByRole("link", { name: rest }).waitFor();
          assertEquals(await listed(), [dropping, expiring, unknown, rest]);
          await page.getByRole("row").filter({ hasText: dropping }).getByText("drops in about 2 days")
            .waitFor();
          await page.getByRole("row").filter({ hasText: expiring }).getByText("expires in 12 days").waitFor();
          await page.getByRole("row").filter({ hasText: unknown }).getByText(
            "The registry did not answer in time.",
          )
            .waitFor();
          await audit("radar");
        },
      );

      await step("the summary's counts filter the list; the order is one click away", async () => {
        await page.getByRole("button", { name: "Dropping within 7 days: 1", exact: true }).waitFor();
        await page.getByRole("button", { name: "Unknown: 1", exact: true }).waitFor();
        await page.getByRole("button", { name: "Expiring within 30 days: 1", exact: true }).click();
        await page.getByRole("link", { name: rest }).waitFor({ state: "detached" });
        assertEquals(await listed(), [expiring]);
        await page.getByRole("button", { name: /^Expiring within 30 days: 1 \(showing only these/ }).click();
        await page.getByRole("link", { name: rest }).waitFor();
        await page.getByLabel("Order").selectOption("name");
        await firstListed(rest);
        assertEquals(await listed(), [rest, unknown, expiring, dropping]);
        await page.getByLabel("Order").selectOption("urgency");
        await firstListed(dropping);
      });

      await step("Check now within the Free allowance, then beyond it", async () => {
        rdap.setDomain(rest, { status: 200, body: minimalDomain(rest) });
        await page.getByRole("button", { name: `Check ${rest} now` }).click();
        await page.getByRole("row").filter({ hasText: rest }).getByText(
          "Registered (checked just now). 19 checks left today.",
        )
          .waitFor();
        const [row] = await sql<{ check_count: number }[]>`
        select check_count from public.app_check_counters where user_id = ${userId}`;
        assertEquals(row.check_count, 1, "one check counted");
        await sql`update public.app_check_counters set check_count = 20 where user_id = ${userId}`;
        await page.getByRole("button", { name: `Check ${expiring} now` }).click();
        const refused = page.getByRole("row").filter({ hasText: expiring }).getByRole("alert");
        await refused.waitFor();
        assertMatch(await refused.innerText(), /Your 20 checks from the app for today are used up/);
        assertMatch(await refused.innerText(), /Try again after/);
        await audit("radar after Check now");
      });

      await step("the name's page shows its lifecycle and keeps tags and a note", async () => {
        await page.getByRole("link", { name: dropping }).click();
        await page.getByRole("heading", { name: dropping }).waitFor();
        const current = page.locator('ol.lifecycle li[aria-current="step"]');
        assertMatch(await current.innerText(), /Pending delete/);
        await page.getByText("The name is at").waitFor();
        await page.getByRole("button", { name: `Check ${dropping} now` }).waitFor();
        await page.getByLabel(/^Tags/).fill("clients, q3");
        await page.getByLabel(/^Note/).fill("Call the registrar on Monday");
        await page.getByRole("button", { name: "Save tags and note" }).click();
        await page.getByText("Saved.").waitFor();
        await audit("domain page");
        await page.getByRole("link", { name: "← Watchlist" }).click();
        const row = page.getByRole("row").filter({ hasText: dropping });
        await row.getByText("Call the registrar on Monday").waitFor();
        await row.getByRole("button", { name: "Show names tagged clients" }).click();
        await page.getByRole("link", { name: rest }).waitFor({ state: "detached" });
        assertEquals(await listed(), [dropping]);
        await page.getByLabel("Tag", { exact: true }).fill("");
        await page.getByRole("link", { name: rest }).waitFor();
      });

      await step("bulk tag with undo", async () => {
        await page.getByRole("checkbox", { name: `Select ${rest}` }).check();
        await page.getByRole("checkbox", { name: `Select ${unknown}` }).check();
        await page.getByLabel("Tag to add").fill("batch");
        await page.getByRole("button", { name: "Tag selected" }).click();
        await page.getByText('Tagged 2 names "batch".').waitFor();
        await page.getByRole("button", { name: "Show names tagged batch" }).first().waitFor();
        assertEquals(await page.getByRole("button", { name: "Show names tagged batch" }).count(), 2);
        await audit("radar with a selection");
        await page.getByRole("button", { name: "Undo" }).click();
        await page.getByRole("button", { name: "Show names tagged batch" }).first().waitFor({
          state: "detached",
        });
      });

      await step("bulk remove with undo: the names come back with their tags and note", async () => {
        await page.getByRole("checkbox", { name: `Select ${dropping}` }).check();
        await page.getByRole("checkbox", { name: `Select ${rest}` }).check();
        await page.getByRole("button", { name: "Remove selected" }).click();
        await page.getByText("Removed 2 names.").waitFor();
        await page.getByRole("link", { name: dropping }).waitFor({ state: "detached" });
        assertEquals(await listed(), [expiring, unknown]);
        await page.getByRole("button", { name: "Undo" }).click();
        await page.getByRole("link", { name: dropping }).waitFor();
        const row = page.getByRole("row").filter({ hasText: dropping });
        await row.getByRole("button", { name: "Show names tagged clients" }).waitFor();
        await row.getByText("Call the registrar on Monday").waitFor();
        assertEquals((await listed()).length, 4);
      });

      await step("the CSV export carries tags and notes", async () => {
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("button", { name: "Export CSV" }).click(),
        ]);
        const path = await download.path();
        const text = await Deno.readTextFile(path!);
        assert(text.split("\r\n")[0].endsWith(",tags,note"), text.split("\r\n")[0]);
        assert(text.includes(`"clients,q3",Call the registrar on Monday`), text);
      });

      await step("at 375 px the radar and a name's page need no sideways scrolling", async () => {
        await page.setViewportSize({ width: 375, height: 800 });
        for (const path of ["/", `/domains/${dropping}`]) {
          await page.goto(`${app.url}${path}`);
          await page.getByRole("link", { name: path === "/" ? rest : "← Watchlist" }).waitFor();
          const overflow = await page.evaluate(() => {
            // deno-lint-ignore no-explicit-any
            const root = (globalThis as any).document.documentElement;
            return root.scrollWidth - root.clientWidth;
          });
          assertEquals(overflow, 0, `no sideways scrolling at 375 px on ${path}`);
          await audit(`375 px ${path}`);
        }
      });

      assertEquals(violations, [], "no serious or critical axe violation on any screen");
      assertEquals(pageErrors, [], "no uncaught error in the page");
    } finally {
      await browser.close();
      await app.close();
      await stack.close();
      await rdap.close();
      await dns.close();
    }
  },
);
