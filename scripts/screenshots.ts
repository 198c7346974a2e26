/**
 * `deno task screenshots`: every screen of the app in Debian's chromium (desktop 1280 px and 375 px wide)
 * into docs/screenshots/, against a throwaway local stack with sample data (a Pro account with names in each
 * state, a name's history with the evidence of an `available`, a webhook with a delivery, a key, an
 * organization with a member and an invitation; a Free account; an approved assistant; a pending OAuth
 * authorization).
 */
import { join } from "node:path";
import { repoRoot } from "../platform/paths.ts";
import { withThrowawayDatabase } from "../platform/postgres/throwaway.ts";

const outDir = join(repoRoot, "docs", "screenshots");

await withThrowawayDatabase(async () => {
  const { takeScreenshots } = await import("../tests/support/app_screenshots.ts");
  await Deno.mkdir(outDir, { recursive: true });
  const files = await takeScreenshots(outDir);
  for (const file of files) console.log(`  docs/screenshots/${file}`);
});
Deno.exit(0);
