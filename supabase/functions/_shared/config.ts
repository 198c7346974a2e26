/**
 * Every setting the functions read, in one place, with the defaults README documents.
 * Values are read on each call so tests and the local stack can change the environment.
 */

import { serviceKeyFrom } from "./service_key.ts";

function env(name: string): string | undefined {
  const value = Deno.env.get(name);
  return value === undefined || value === "" ? undefined : value;
}

function numberEnv(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}

/** A whole number from the environment within `min`–`max`; anything else falls back to the default. */
export function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const value = Number(raw.trim());
  return Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

export const config = {
  supabaseUrl: () => env("SUPABASE_URL") ?? "http://127.0.0.1:54321",
  /** The project's URL as API clients address it (a custom domain); api-v1's `{base_url}` is built on it. */
  projectPublicUrl: () => env("PROJECT_PUBLIC_URL") ?? env("SUPABASE_URL") ?? "http://127.0.0.1:54321",
  databaseUrl: () => env("SUPABASE_DB_URL"),
  /** The `default` key of SUPABASE_SECRET_KEYS, else the legacy SUPABASE_SERVICE_ROLE_KEY (service_key.ts). */
  serviceKey: () => serviceKeyFrom(env("SUPABASE_SECRET_KEYS"), env("SUPABASE_SERVICE_ROLE_KEY")),
  /** IANA RDAP bootstrap for DNS (RFC 9224). */
  rdapBootstrapUrl: () => env("RDAP_BOOTSTRAP_URL") ?? "https://data.iana.org/rdap/dns.json",
  /** `host:port` of a resolver for NS look-ups over UDP/TCP; wins over `DNS_DOH_URL` when set. */
  dnsNameserver: () => env("DNS_NAMESERVER"),
  /** DNS-over-HTTPS resolver (RFC 8484) for NS look-ups when `DNS_NAMESERVER` is unset. */
  dnsDohUrl: () => env("DNS_DOH_URL") ?? "https://cloudflare-dns.com/dns-query",
  /** DNS queries per second one process sends to its resolver (the poller's NS look-ups); 0 = no limit. */
  dnsQueryRatePerSecond: () => numberEnv("DNS_QUERY_RATE_PER_SECOND", 50),
  rdapTimeoutMs: () => numberEnv("RDAP_TIMEOUT_MS", 10_000),
  /** `host:port` that receives every WHOIS query (local use, tests); the query and politeness are unchanged. */
  whoisServer: () => env("WHOIS_SERVER"),
  liveCheckCacheSeconds: () => numberEnv("LIVE_CHECK_CACHE_SECONDS", 30),
  telegramBotToken: () => env("TELEGRAM_BOT_TOKEN"),
  telegramApiBase: () => env("TELEGRAM_API_BASE") ?? "https://api.telegram.org",
  /** Telegram presents it in `X-Telegram-Bot-Api-Secret-Token` on every update to telegram-bot. */
  telegramWebhookSecret: () => env("TELEGRAM_WEBHOOK_SECRET"),
  /** The bot's username (without @), for the link flow's deep links `https://t.me/<bot>?start=…`. */
  telegramBotUsername: () => env("TELEGRAM_BOT_USERNAME"),
  authBaseUrl: () => env("AUTH_BASE_URL") ?? env("SUPABASE_URL") ?? "http://127.0.0.1:54321",
  authJwtSecret: () => env("AUTH_JWT_SECRET"),
  supabaseJwks: () => env("SUPABASE_JWKS"),
  appUrl: () => env("APP_URL"),
  appOrigins: (): string[] => {
    const listed = env("APP_ORIGINS");
    if (listed) return listed.split(",").map((origin) => origin.trim()).filter(Boolean);
    const appUrl = env("APP_URL");
    if (!appUrl) return [];
    try {
      return [new URL(appUrl).origin];
    } catch {
      return [];
    }
  },
  /** Stands for `https://hooks.slack.com` when a Slack endpoint is sent to (tests point it at a fake). */
  slackWebhookBaseUrl: () => env("SLACK_WEBHOOK_BASE_URL") ?? "https://hooks.slack.com",
  /** Stands for `https://discord.com` (and discordapp.com) when a Discord endpoint is sent to. */
  discordWebhookBaseUrl: () => env("DISCORD_WEBHOOK_BASE_URL") ?? "https://discord.com",
  /**
   * The SMTP provider of alert mails: `smtps://user:password@host:465` (implicit TLS; a plain `smtp://` URL
   * only to a loopback host, the local mailbox). Unset: alert mails wait and are retried, as Telegram's do.
   */
  smtpUrl: () => env("SMTP_URL"),
  /** The From of alert mails, e.g. `Domain Watchlist <alerts@example.com>`. */
  alertMailFrom: () => env("ALERT_MAIL_FROM"),
  webhookAllowPrivateTargets: () => env("WEBHOOK_ALLOW_PRIVATE_TARGETS") === "true",
  /** Secret the pg_cron job presents to the rdap-poller function. */
  pollerSecret: () => env("POLLER_SECRET"),
};
