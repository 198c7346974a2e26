/**
 * The pieces `deno task start` and `deno task test` share: a migrated database and the environment
 * Supabase gives every edge function.
 */
import { migrate } from "./postgres/migrate.ts";
import { ensureExtensionFiles } from "./postgres/extensions.ts";
import { type Cluster, ensureCluster, ensurePostgresPackages, startCluster } from "./postgres/cluster.ts";
import {
  localApiKeys,
  localJwtSecret,
  localPollerSecret,
  localPublishableKey,
  localSecretKey,
  localTelegramBotUsername,
  localTelegramWebhookSecret,
  namedKeysJson,
} from "./secrets.ts";

/** Installs what is missing, creates the cluster on first use, starts it and applies migrations. */
export async function prepareDatabase(cluster: Cluster): Promise<{ created: boolean; applied: string[] }> {
  await ensurePostgresPackages();
  await ensureExtensionFiles();
  const created = await ensureCluster(cluster);
  await startCluster(cluster);
  const applied = await migrate(cluster);
  return { created, applied };
}

/**
 * Sets, where the shell has not already set them, the variables Supabase provides to functions and the
 * local defaults of the project's own settings. Returns the values in force. Locally all five functions
 * share one process, so it gets the connections of several isolates (DB_POOL_SIZE 3 plus the limiter's 2;
 * hosted, each isolate has 1 plus 1). `sslRootCertFile` (the local CA) becomes DB_SSL_ROOT_CERT.
 */
export async function applyFunctionEnvironment(
  options: { supabaseUrl: string; databaseUrl: string; sslRootCertFile?: string },
): Promise<Record<string, string>> {
  const secret = Deno.env.get("AUTH_JWT_SECRET") || localJwtSecret;
  const keys = await localApiKeys(secret);
  const defaults: Record<string, string> = {
    SUPABASE_URL: options.supabaseUrl,
    SUPABASE_DB_URL: options.databaseUrl,
    SUPABASE_ANON_KEY: keys.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: keys.serviceRoleKey,
    // The new API keys, as hosted injects them (JSON of named keys); the functions prefer them.
    SUPABASE_PUBLISHABLE_KEYS: namedKeysJson(localPublishableKey),
    SUPABASE_SECRET_KEYS: namedKeysJson(localSecretKey),
    AUTH_JWT_SECRET: secret,
    POLLER_SECRET: localPollerSecret,
    TELEGRAM_WEBHOOK_SECRET: localTelegramWebhookSecret,
    TELEGRAM_BOT_USERNAME: localTelegramBotUsername,
    APP_URL: "http://localhost:3000",
    DB_POOL_SIZE: "3",
    DB_LIMITER_POOL_SIZE: "2",
    ...(options.sslRootCertFile
      ? { DB_SSL_ROOT_CERT: await Deno.readTextFile(options.sslRootCertFile) }
      : {}),
  };
  for (const [name, value] of Object.entries(defaults)) {
    if (!Deno.env.get(name)) Deno.env.set(name, value);
  }
  return Object.fromEntries(Object.keys(defaults).map((name) => [name, Deno.env.get(name)!]));
}
