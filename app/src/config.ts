/**
 * The app's runtime configuration, read at start from `/config.json` beside index.html: the local static
 * server (platform/app_host/server.ts) writes it from the running stack; for a static host, `deno task
 * app:build` writes it from APP_SUPABASE_URL / APP_PUBLISHABLE_KEY / APP_FUNCTIONS_URL / APP_UPGRADE_URL
 * (docs/app.md).
 */
export interface AppConfig {
  /** The project URL (`https://<ref>.supabase.co`, locally `http://127.0.0.1:54321`). */
  supabaseUrl: string;
  /** The publishable (anon) key: safe in a browser, RLS decides what it may do. */
  publishableKey: string;
  /** `<supabaseUrl>/functions/v1` unless the functions live elsewhere. */
  functionsUrl: string;
  /** The operator's upgrade link (`APP_UPGRADE_URL`: https or mailto), behind the app's "Upgrade" button. */
  upgradeUrl?: string;
}

/** An upgrade link the app may show: an http(s) or mailto URL, else nothing. */
export function upgradeLink(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.trim()) return undefined;
  try {
    const url = new URL(value.trim());
    return ["https:", "http:", "mailto:"].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function readConfig(value: unknown): AppConfig {
  const raw = (value ?? {}) as Record<string, unknown>;
  const supabaseUrl = String(raw.supabaseUrl ?? "").replace(/\/+$/, "");
  const publishableKey = String(raw.publishableKey ?? "");
  if (!supabaseUrl || !publishableKey) {
    throw new Error("config.json must name supabaseUrl and publishableKey (docs/app.md, Configuration).");
  }
  const functionsUrl = String(raw.functionsUrl || `${supabaseUrl}/functions/v1`).replace(/\/+$/, "");
  const upgradeUrl = upgradeLink(raw.upgradeUrl);
  return { supabaseUrl, publishableKey, functionsUrl, ...(upgradeUrl ? { upgradeUrl } : {}) };
}

export async function loadConfig(): Promise<AppConfig> {
  const response = await fetch("/config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`config.json could not be read (HTTP ${response.status}).`);
  return readConfig(await response.json());
}
