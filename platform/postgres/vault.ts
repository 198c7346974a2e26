/**
 * What the local database needs so that the pg_cron job `rdap-poller` fires as on Supabase: the Vault
 * secrets `project_url` (the gateway) and `poller_secret` (POLLER_SECRET) that
 * `private.invoke_rdap_poller()` reads, and the database's copy of WEBHOOK_ALLOW_PRIVATE_TARGETS
 * (`public.webhook_target_policy`), which decides whether http/loopback webhook URLs may be saved.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";

/** Creates the Vault secret, or replaces its value when one with that name exists. */
export async function upsertVaultSecret(sql: postgres.Sql, name: string, value: string): Promise<void> {
  const [existing] = await sql<{ id: string }[]>`select id from vault.secrets where name = ${name}`;
  if (existing) await sql`select vault.update_secret(${existing.id}::uuid, ${value})`;
  else await sql`select vault.create_secret(${value}, ${name}, ${"written by the local stack"})`;
}

export async function storePollerVaultSecrets(
  sql: postgres.Sql,
  options: { projectUrl: string; pollerSecret: string },
): Promise<void> {
  await upsertVaultSecret(sql, "project_url", options.projectUrl);
  await upsertVaultSecret(sql, "poller_secret", options.pollerSecret);
}

export async function removePollerVaultSecrets(sql: postgres.Sql): Promise<void> {
  await sql`delete from vault.secrets where name in ('project_url', 'poller_secret')`;
}

export async function setWebhookTargetPolicy(sql: postgres.Sql, allowPrivateTargets: boolean): Promise<void> {
  await sql`update public.webhook_target_policy set allow_private_targets = ${allowPrivateTargets}`;
}

/** The database's copy of TELEGRAM_BOT_USERNAME, for create_telegram_link's deep links (null: linking off). */
export async function setTelegramBotUsername(sql: postgres.Sql, username: string | null): Promise<void> {
  await sql`update public.telegram_bot_settings set bot_username = ${username}`;
}
