/**
 * The app in a real browser for tests, screenshots and the app bench: Debian's chromium (installed with
 * apt-get on first use, as PostgreSQL is) driven by playwright-core, the built app (app/dist) served by
 * platform/app_host/server.ts on a free port, and axe-core injected into a page.
 */
import { existsSync } from "node:fs";
// @ts-types="./playwright_types.d.ts"
import { type Browser, chromium, type Page } from "playwright-core";
import axe from "axe-core";
import { buildApp } from "../../platform/app_host/build.ts";
import { type RunningAppServer, startAppServer } from "../../platform/app_host/server.ts";
import { run } from "../../platform/run.ts";
import { localPublishableKey } from "../../platform/secrets.ts";

export const chromiumPath = "/usr/bin/chromium";

/** Installs Debian's chromium with apt-get when it is missing (first run only). */
export async function ensureChromium(): Promise<void> {
  if (existsSync(chromiumPath)) return;
  console.log("Installing chromium with apt-get (first run only)…");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], { env, quiet: true });
  await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { env, quiet: true });
}

export async function launchBrowser(): Promise<Browser> {
  await ensureChromium();
  return await chromium.launch({
    executablePath: chromiumPath,
    // As root in a container there is no user namespace for chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

let built: Promise<unknown> | undefined;

/** Builds the app once per process. */
export function builtApp(): Promise<unknown> {
  built ??= buildApp();
  return built;
}

export interface TestApp extends RunningAppServer {
  /** What /config.json answers; set `supabaseUrl` once the stack runs. */
  config: { supabaseUrl: string; publishableKey: string; upgradeUrl?: string };
}

/**
 * Starts the app server on a free port and points the local Auth at it (Site URL, redirect allow list) and
 * the functions' CORS and invitation links (APP_URL). Start it before the stack, then set
 * `config.supabaseUrl`.
 */
export async function startApp(supabaseUrl = ""): Promise<TestApp> {
  await builtApp();
  const config: TestApp["config"] = { supabaseUrl, publishableKey: localPublishableKey };
  const server = startAppServer({ port: 0, config });
  // Test files share one process: what is set here is put back on close.
  const saved = ["APP_URL", "GOTRUE_SITE_URL", "GOTRUE_URI_ALLOW_LIST"].map((
    name,
  ) => [name, Deno.env.get(name)]);
  Deno.env.set("APP_URL", server.url);
  Deno.env.set("GOTRUE_SITE_URL", server.url);
  Deno.env.set("GOTRUE_URI_ALLOW_LIST", `${server.url}/**`);
  return {
    ...server,
    config,
    async close() {
      await server.close();
      for (const [name, value] of saved) {
        if (value === undefined) Deno.env.delete(name!);
        else Deno.env.set(name!, value);
      }
    },
  };
}

/** Violations of impact serious or critical that axe-core finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the devtools protocol: the app's content security policy refuses inline scripts.
  await page.evaluate(axe.source);
  const result = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const found = await (globalThis as any).axe.run((globalThis as any).document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    // deno-lint-ignore no-explicit-any
    return found.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      // deno-lint-ignore no-explicit-any
      targets: v.nodes.slice(0, 3).map((n: any) => String(n.target)),
    }));
  });
  return result
    .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
    .map((v: { id: string; impact: string; help: string; targets: string[] }) =>
      `${v.impact} ${v.id}: ${v.help} (${v.targets.join(" | ")})`
    );
}

/**
 * Collects what the browser refused on a page: script errors, and every request or script the app's content
 * security policy blocked (chromium reports those on the console).
 */
export function watchPage(page: Page, problems: string[], label = "page"): void {
  page.on("pageerror", (error) => problems.push(`${label}: ${error.message}`));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(`${label}: ${message.text()}`);
  });
}
