/**
 * `deno task app:build`: the app as static files in app/dist, for any static host. With APP_SUPABASE_URL
 * and APP_PUBLISHABLE_KEY set (and optionally APP_FUNCTIONS_URL and APP_UPGRADE_URL, the operator's payment
 * link or mailto behind the app's "Upgrade" button) it also writes app/dist/config.json;
 * without them, give the host a config.json yourself (docs/app.md).
 */
import { buildApp } from "../platform/app_host/build.ts";

const supabaseUrl = Deno.env.get("APP_SUPABASE_URL");
const publishableKey = Deno.env.get("APP_PUBLISHABLE_KEY");
const functionsUrl = Deno.env.get("APP_FUNCTIONS_URL");
const upgradeUrl = Deno.env.get("APP_UPGRADE_URL");
const config = supabaseUrl && publishableKey
  ? {
    supabaseUrl,
    publishableKey,
    ...(functionsUrl ? { functionsUrl } : {}),
    ...(upgradeUrl ? { upgradeUrl } : {}),
  }
  : undefined;
const result = await buildApp({ config });
const gzipped = (await new Response(
  new Blob([await Deno.readFile(`${result.dir}/app.js`)]).stream().pipeThrough(new CompressionStream("gzip")),
).arrayBuffer()).byteLength;
console.log(
  `Built ${result.dir}: app.js ${(result.jsBytes / 1024).toFixed(1)} KB (${
    (gzipped / 1024).toFixed(1)
  } KB gzipped)${
    config ? ", config.json" : " (no config.json: set APP_SUPABASE_URL and APP_PUBLISHABLE_KEY to write one)"
  }`,
);
