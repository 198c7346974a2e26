/**
 * The grant probe: what can a user do with every privilege they hold?
 *
 * 1. It reads the catalog and lists every table, column and sequence privilege and every executable
 *    function that `anon` and `authenticated` hold in the schemas PostgREST exposes (`[api] schemas` in
 *    supabase/config.toml). Any grant missing from `allowedGrants` (one line per grant saying why that role
 *    needs it) fails the test, and so does an allow-list line whose grant no longer exists.
 * 2. It runs hostile calls as a real user, through the same role switch and claims PostgREST uses: every
 *    function `authenticated` may execute, with other accounts' ids, values past every cap and bound, and
 *    limits or windows the caller should not choose; every direct insert, update and delete the grants
 *    allow. Each call runs in its own savepoint; after it the probe checks, as the superuser, that nothing of
 *    another account changed, that no server-owned limit or counter changed, and that the caller is still
 *    within every cap. Then the savepoint is rolled back.
 * 3. `anon` executes no security-definer function and writes no table.
 *
 * Needs SUPABASE_DB_URL (a superuser URL of a database with bootstrap, migrations and seed applied);
 * `deno task test` sets it, and without it the tests fail.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

type Role = "anon" | "authenticated";

/**
 * Every grant `anon` and `authenticated` may hold in an exposed schema, and why. Keys:
 *   `<role> <PRIVILEGE> <schema.table>`               a table privilege
 *   `<role> <PRIVILEGE> <schema.table>(<column>)`     a column privilege without the table privilege
 *   `<role> USAGE <schema.sequence>`                  a sequence privilege
 *   `<role> EXECUTE <schema.function(arg types)>`     a function
 * To add a function or table: add its lines here, with the reason a user needs it.
 */
const allowedGrants: Record<string, string> = {
  // plans ---------------------------------------------------------------------------------------------
  "authenticated SELECT public.plans": "the app shows the plans and their limits",
  // profiles ------------------------------------------------------------------------------------------
  "authenticated SELECT public.profiles":
    "own profile, and shared-organisation members' email and name (RLS)",
  "authenticated UPDATE public.profiles(display_name)":
    "the account renames itself; the 200-character rule is a check constraint",
  // api keys ------------------------------------------------------------------------------------------
  "authenticated SELECT public.api_keys(id)": "the key list (never key_hash)",
  "authenticated SELECT public.api_keys(user_id)": "the key list (never key_hash)",
  "authenticated SELECT public.api_keys(name)": "the key list (never key_hash)",
  "authenticated SELECT public.api_keys(prefix)": "the key list shows the prefix",
  "authenticated SELECT public.api_keys(created_at)": "the key list (never key_hash)",
  "authenticated SELECT public.api_keys(last_used_at)": "the key list (never key_hash)",
  "authenticated SELECT public.api_keys(revoked_at)": "the key list (never key_hash)",
  "authenticated EXECUTE public.create_api_key(text)": "Pro and higher create keys; plan check inside",
  "authenticated EXECUTE public.revoke_api_key(uuid)": "revokes only the caller's own key",
  // watchlist -----------------------------------------------------------------------------------------
  "authenticated SELECT public.domains": "check state of the names the account watches (RLS)",
  "authenticated SELECT public.watchlist_entries": "own watchlist (RLS); writes only through the functions",
  "authenticated EXECUTE public.add_watchlist_domains(text[])":
    "quota and validation inside; unicode forms derived by trigger",
  "authenticated EXECUTE public.list_watchlist(integer,integer,text)": "security invoker; RLS filters",
  "authenticated EXECUTE public.remove_watchlist_domain(text)": "soft-deletes only the caller's own entry",
  "authenticated EXECUTE public.is_valid_domain_name(text)": "pure check, writes nothing",
  // the app's reads (20261122001270_app_reads.sql) ---------------------------------------------------------
  "authenticated SELECT public.domain_status_changes":
    "history of a name while the account watched it: the poller's changes and its own live checks' (RLS); " +
    "written only by record_domain_check",
  "authenticated SELECT public.watch_periods":
    "own watch periods (RLS; the history policy's bound); written only by the watchlist trigger",
  "authenticated EXECUTE public.account_overview()": "reads the caller's own plan, quota and usage",
  "authenticated EXECUTE public.watchlist_page(text,text,integer,integer,text,text,text,text)":
    "reads a page of the caller's own watchlist; bounds checked inside",
  // the drop radar, tags and notes (20261206000600_drop_radar.sql) ----------------------------------------
  "authenticated EXECUTE public.watchlist_summary()": "counts over the caller's own watchlist",
  "authenticated EXECUTE public.set_watchlist_details(jsonb)":
    "tags and note of the caller's own entries; limits in the function and the table's checks",
  "authenticated SELECT public.app_check_counters":
    "own checks from the app today (RLS); written only by consume_app_check (service_role)",
  "authenticated EXECUTE public.tag_watchlist_domains(text[],text[],text[])":
    "adds/removes tags on the caller's own entries; at most 10 a name (table check)",
  "authenticated EXECUTE public.domain_detail(text)":
    "reads one name of the caller's own watchlist with its history and the caller's alerts",
  "authenticated EXECUTE public.current_account_id()": "auth.uid() or DW401; reads nothing else",
  "authenticated EXECUTE public.is_oauth_client_token()":
    "whether the caller's token was issued to an assistant (client_id); the policies' rule, reads nothing else",
  // organisations -------------------------------------------------------------------------------------
  "authenticated SELECT public.organizations": "members read their organisations (RLS)",
  "authenticated DELETE public.organizations": "owners delete their organisation (RLS)",
  "authenticated UPDATE public.organizations(name)": "owners rename (RLS); length is a check constraint",
  "authenticated SELECT public.organization_members": "members read the member list (RLS)",
  "authenticated DELETE public.organization_members":
    "owners/admins remove, members leave (RLS); a trigger revokes the leaver's invitations",
  "authenticated UPDATE public.organization_members(role)":
    "owners change others' roles (RLS); a trigger revokes a demoted admin's invitations",
  "authenticated SELECT public.invitations(id)":
    "owners, admins and the inviter list invitations (never token)",
  "authenticated SELECT public.invitations(organization_id)": "invitation list (never token)",
  "authenticated SELECT public.invitations(email)": "invitation list (never token)",
  "authenticated SELECT public.invitations(role)": "invitation list (never token)",
  "authenticated SELECT public.invitations(status)": "invitation list (never token)",
  "authenticated SELECT public.invitations(invited_by)": "invitation list (never token)",
  "authenticated SELECT public.invitations(created_at)": "invitation list (never token)",
  "authenticated SELECT public.invitations(expires_at)": "invitation list (never token)",
  "authenticated SELECT public.invitations(emailed_at)": "invitation list (never token)",
  "authenticated SELECT public.invitations(accepted_at)": "invitation list (never token)",
  "authenticated SELECT public.invitations(accepted_by)": "invitation list (never token)",
  "authenticated INSERT public.invitations(organization_id)":
    "owners/admins invite (RLS: role, invited_by = caller, pending); accept re-checks the inviter",
  "authenticated INSERT public.invitations(email)": "see invitations(organization_id); address is a check",
  "authenticated INSERT public.invitations(role)": "see invitations(organization_id); admin/member only",
  "authenticated UPDATE public.invitations(status)":
    "owners/admins revoke pending ones (RLS: only to revoked)",
  "authenticated EXECUTE public.create_organization(text)": "creates an organisation owned by the caller",
  "authenticated EXECUTE public.accept_invitation(text)":
    "the invited, confirmed address accepts once; the inviter must still be owner/admin",
  "authenticated EXECUTE public.invitation_for_sending(uuid)": "the copy-link: owners/admins get the token",
  "authenticated EXECUTE public.has_org_role(uuid,text[])": "used by policies; answers only about the caller",
  "authenticated EXECUTE public.shares_organization_with(uuid)":
    "used by policies; answers only about the caller",
  // organizations' watchlists, claims and log (issue 42; docs/organizations.md) ------------------------
  "authenticated SELECT public.organization_watchlist_entries":
    "members read their organizations' lists (RLS); writes only through the functions",
  "authenticated SELECT public.organization_claims": "members read their organizations' open claims (RLS)",
  "authenticated SELECT public.organization_activity":
    "members read their organizations' log (RLS); written only by the database",
  "authenticated EXECUTE public.add_organization_watchlist_domains(uuid,text[])":
    "members add; the owner's plan's quota counted for the organization, under the organization's row lock",
  "authenticated EXECUTE public.remove_organization_watchlist_domain(uuid,text)":
    "members remove from their organization's list (releases the name's claim)",
  "authenticated EXECUTE public.organization_watchlist_page(uuid,text,text,integer,integer)":
    "members read a page of their organization's list with who added and who claimed",
  "authenticated EXECUTE public.claim_organization_domain(uuid,text)":
    "members claim a listed name; one open claim per name (primary key)",
  "authenticated EXECUTE public.release_organization_domain_claim(uuid,text)":
    "the claimer, an admin or the owner releases a claim",
  "authenticated SELECT public.webhook_endpoints(organization_id)":
    "a team channel's organization: members read their organizations' team webhooks (masked, RLS)",
  "authenticated EXECUTE public.create_organization_webhook(uuid,text,text,text,text,text[])":
    "owners and admins add a team webhook; the owner's plan and every webhook rule inside",
  "authenticated EXECUTE public.set_organization_webhook_enabled(uuid,uuid,boolean)":
    "owners and admins switch their organization's team webhook",
  "authenticated EXECUTE public.delete_organization_webhook(uuid,uuid)":
    "owners and admins delete their organization's team webhook",
  "authenticated SELECT public.api_keys(organization_id)":
    "an organization's key (owners and admins read their organizations' keys, RLS; never key_hash)",
  "authenticated SELECT public.email_addresses(organization_id)":
    "a team address's organization: members read their organizations' team addresses, masked (RLS)",
  "authenticated EXECUTE public.list_organization_email_addresses(uuid)":
    "members read their organization's team addresses, masked; never an address",
  "authenticated EXECUTE public.add_organization_email_address(uuid,text,text[])":
    "owners and admins add a team address, pending until its mailed link; the owner's plan caps the count",
  "authenticated EXECUTE public.resend_organization_email_confirmation(uuid,uuid)":
    "owners and admins resend a pending team address's confirmation (the mail limits inside)",
  "authenticated EXECUTE public.update_organization_email_address(uuid,uuid,boolean,text[],integer[])":
    "owners and admins switch a team address and choose its events and reminder days",
  "authenticated EXECUTE public.delete_organization_email_address(uuid,uuid)":
    "owners and admins delete their organization's team address",
  "authenticated SELECT public.organization_telegram_chats(id)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(organization_id)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(enabled)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(event_types)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(expiring_days)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(linked_by)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(linked_at)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated SELECT public.organization_telegram_chats(updated_at)":
    "members read their organization's Telegram group's settings, never its chat id (RLS, column grant)",
  "authenticated EXECUTE public.organization_telegram_group(uuid)":
    "members read whether their organization has a Telegram group and its settings; never the chat id",
  "authenticated EXECUTE public.create_organization_telegram_link(uuid)":
    "owners and admins make a one-time group link (15 minutes, hash stored)",
  "authenticated EXECUTE public.unlink_organization_telegram_group(uuid)":
    "owners and admins unlink their organization's Telegram group",
  "authenticated EXECUTE public.update_organization_telegram_group(uuid,boolean,text[],integer[])":
    "owners and admins switch the group and choose its events and reminder days",
  "authenticated EXECUTE public.create_organization_api_key(uuid,text)":
    "owners and admins; the owner's plan must have API access; the raw key returned once, hash stored",
  "authenticated EXECUTE public.revoke_organization_api_key(uuid,uuid)":
    "owners and admins revoke their organization's key",
  "authenticated EXECUTE public.list_organization_watchlist(uuid,integer,integer,text)":
    "members page their organization's list (what an organization key's GET /domains runs)",
  "authenticated EXECUTE public.set_organization_personal_alerts(uuid,boolean)":
    "a member's own opt-in to the organization's alerts on their own channels",
  // notifications and webhooks ------------------------------------------------------------------------
  "authenticated SELECT public.notification_settings(user_id)": "own settings without the chat ID",
  "authenticated SELECT public.notification_settings(telegram_enabled)": "own settings without the chat ID",
  "authenticated SELECT public.notification_settings(telegram_configured)":
    "own settings without the chat ID",
  "authenticated SELECT public.notification_settings(updated_at)": "own settings without the chat ID",
  "authenticated DELETE public.notification_settings": "the owner removes their settings (RLS)",
  "authenticated SELECT public.webhook_endpoints(id)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(user_id)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(url_masked)":
    "own webhooks, URL masked (scheme, host, last 4 characters): the URL is a bearer credential",
  "authenticated SELECT public.webhook_endpoints(description)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(enabled)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(secret_configured)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(created_at)": "own webhooks without the secret",
  "authenticated SELECT public.webhook_endpoints(updated_at)": "own webhooks without the secret",
  "authenticated DELETE public.webhook_endpoints": "the owner deletes a webhook (RLS)",
  "authenticated EXECUTE public.create_webhook_endpoint(text,text,text,text,text[])":
    "plan, 10-per-account cap, URL, kind, event and secret rules inside (and in the table)",
  "authenticated EXECUTE public.update_webhook_endpoint(uuid,text,text,boolean,text,text[])":
    "own webhook; URL, kind and event rules",
  "authenticated SELECT public.webhook_endpoints(kind)": "own webhooks: generic, slack or discord",
  "authenticated SELECT public.webhook_endpoints(event_types)": "own webhooks: the events each one wants",
  "authenticated SELECT public.notification_settings(telegram_event_types)":
    "own settings: the chat's events",
  "authenticated EXECUTE public.set_telegram_event_types(text[])": "own chat's event list; known types only",
  "authenticated EXECUTE public.alert_event_types()": "the known event types (a constant)",
  "authenticated SELECT public.webhook_endpoints(expiring_days)":
    "own webhooks: the days before an expiration date each one is reminded at",
  "authenticated SELECT public.notification_settings(telegram_expiring_days)":
    "own settings: the chat's reminder days",
  "authenticated EXECUTE public.set_webhook_expiring_days(uuid,integer[])": "own webhook; 1-10 days of 1-365",
  "authenticated EXECUTE public.set_telegram_expiring_days(integer[])":
    "own chat's reminder days; 1-10 of 1-365",
  "authenticated EXECUTE public.set_webhook_secret(uuid,text)": "own webhook; 16-256 characters",
  "authenticated EXECUTE public.rotate_webhook_secret(uuid)": "own webhook; random secret returned once",
  "authenticated EXECUTE public.delete_webhook_endpoint(uuid)": "own webhook",
  "authenticated EXECUTE public.set_telegram_chat(text)": "own chat: only null (unlink) is accepted",
  "authenticated EXECUTE public.create_telegram_link()":
    "one-time bot deep link for the caller's own account; only its hash is stored",
  // the calendar feed (20261206000150_calendar_feed.sql) ------------------------------------------------
  "authenticated EXECUTE public.calendar_feed()": "own feed's state and reminder days; never the token",
  "authenticated EXECUTE public.create_calendar_feed(integer[])":
    "own feed, made or renewed; random token returned once, only its hash stored",
  "authenticated EXECUTE public.set_calendar_reminder_days(integer[])": "own feed's days; 1-10 of 1-365",
  "authenticated EXECUTE public.revoke_calendar_feed()": "own feed",
  "authenticated EXECUTE public.mask_url(text)":
    "invoker function computing webhook_endpoints.url_masked on insert; reads and writes nothing",
  "authenticated SELECT public.notification_settings(telegram_linked_at)":
    "own settings: when the chat was linked",
  "authenticated EXECUTE public.set_telegram_enabled(boolean)": "own switch",
  "authenticated EXECUTE public.send_webhook_test(uuid)": "own webhook; 10 test alerts per 10 minutes",
  "authenticated EXECUTE public.send_telegram_test()": "own chat; 10 test alerts per 10 minutes",
  "authenticated EXECUTE public.list_webhook_deliveries(uuid,integer,text)":
    "own webhook's delivery log (no URL, secret or chat ID); 60 per minute",
  "authenticated EXECUTE public.redeliver_webhook_delivery(uuid)":
    "own finished webhook delivery, queued once under the same id; plan check; 10 per 10 minutes",
  "authenticated EXECUTE public.webhook_url_problem(text)":
    "the app checks a URL before saving; writes nothing",
  // email channels (20261206000500_email_alerts.sql) ---------------------------------------------------
  "authenticated EXECUTE public.mask_email(text)": "pure: a•••@example.com; reads nothing",
  "authenticated EXECUTE public.list_email_channels()":
    "own email channels, addresses masked (never stored ones)",
  "authenticated EXECUTE public.add_email_address(text,text[])":
    "own extra address, pending until its mailed link is followed; Pro+ and at most 5 (trigger); 10 an hour",
  "authenticated EXECUTE public.resend_email_confirmation(uuid)": "own pending address; 10 mails an hour",
  "authenticated EXECUTE public.update_email_address(uuid,boolean,text[],integer[])":
    "own channel's switch, events and reminder days; a stopped extra address needs a new confirmation",
  "authenticated EXECUTE public.delete_email_address(uuid)": "own extra address (never the account's own)",
  "authenticated EXECUTE public.send_email_test(uuid)":
    "own confirmed address; 10 test alerts per 10 minutes",
  "authenticated EXECUTE public.list_email_deliveries(uuid,integer,text)":
    "own email channel's delivery log (no address); 60 per minute",
  "authenticated EXECUTE public.redeliver_email_delivery(uuid)":
    "own finished email delivery, queued once under the same id; 10 per 10 minutes",
  // limits and alerts (read-only) ---------------------------------------------------------------------
  "authenticated SELECT public.alert_delivery_lanes(breaker_state)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(channel)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(consecutive_failures)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(lane_key)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(next_probe_at)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(opened_at)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(opened_count)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(updated_at)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(user_id)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(webhook_endpoint_id)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.alert_delivery_lanes(email_address_id)":
    "own delivery lanes and breakers, read-only (RLS)",
  "authenticated SELECT public.email_addresses(address_masked)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(confirmation_expires_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(confirmation_sent_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(confirmed_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(created_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(enabled)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(event_types)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(expiring_days)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(id)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(is_account)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(permanent_failures)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(status)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(stopped_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(stopped_reason)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(updated_at)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.email_addresses(user_id)":
    "own email channels without the address or token hashes, read-only (RLS)",
  "authenticated SELECT public.webhook_endpoint_breakers":
    "security-invoker view of the owner's breakers per webhook endpoint (RLS of alert_delivery_lanes)",
  "authenticated SELECT public.api_request_counters": "own daily API usage (RLS)",
  "authenticated SELECT public.session_request_log": "own session-endpoint usage (RLS)",
  "authenticated SELECT public.alert_events": "own alert history (RLS)",
  "authenticated SELECT public.alert_deliveries": "own delivery status (RLS)",
  "authenticated SELECT public.alert_delivery_attempts": "own delivery attempts (RLS)",
};

async function exposedSchemas(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("../../supabase/config.toml", import.meta.url));
  const api = text.split(/^\[/m).find((section) => section.startsWith("api]")) ?? "";
  const match = api.match(/^schemas\s*=\s*\[([^\]]*)\]/m);
  const schemas = match ? [...match[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]) : ["public"];
  return schemas.length > 0 ? schemas : ["public"];
}

interface Grant {
  key: string;
  role: Role;
  definer: boolean;
}

/** Every privilege anon and authenticated hold in the exposed schemas, as allow-list keys. */
async function heldGrants(sql: postgres.Sql, schemas: string[]): Promise<Grant[]> {
  const rows = await sql<{ key: string; role: Role; definer: boolean }[]>`
    with roles (role) as (values ('anon'), ('authenticated')),
    relations as (
      select c.oid, n.nspname || '.' || c.relname as name, c.relkind
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = any(${schemas}) and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
    )
    select r.role || ' ' || p.privilege || ' ' || rel.name as key, r.role, false as definer
      from relations rel cross join roles r
      cross join unnest(array['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) as p (privilege)
     where rel.relkind <> 'S' and has_table_privilege(r.role, rel.oid, p.privilege)
    union all
    select r.role || ' ' || p.privilege || ' ' || rel.name || '(' || a.attname || ')', r.role, false
      from relations rel cross join roles r
      join pg_attribute a on a.attrelid = rel.oid and a.attnum > 0 and not a.attisdropped
      cross join unnest(array['SELECT','INSERT','UPDATE','REFERENCES']) as p (privilege)
     where rel.relkind <> 'S'
       and has_column_privilege(r.role, rel.oid, a.attnum, p.privilege)
       and not has_table_privilege(r.role, rel.oid, p.privilege)
    union all
    select r.role || ' ' || p.privilege || ' ' || rel.name, r.role, false
      from relations rel cross join roles r cross join unnest(array['USAGE','SELECT','UPDATE']) as p (privilege)
     where rel.relkind = 'S' and has_sequence_privilege(r.role, rel.oid, p.privilege)
    union all
    select r.role || ' EXECUTE ' || n.nspname || '.' || f.proname || '(' ||
             coalesce((select string_agg(format_type(t, null), ',' order by i)
                         from unnest(f.proargtypes) with ordinality as x (t, i)), '') || ')',
           r.role, f.prosecdef
      from pg_proc f join pg_namespace n on n.oid = f.pronamespace cross join roles r
     where n.nspname = any(${schemas})
       and has_function_privilege(r.role, f.oid, 'EXECUTE')
     order by 1`;
  return rows.map((row) => ({ key: row.key, role: row.role, definer: row.definer }));
}

Deno.test({
  name: "grant probe: every privilege anon and authenticated hold is on the allow-list, with a reason",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {}, idle_timeout: 5 });
    try {
      const held = await heldGrants(sql, await exposedSchemas());
      const unexpected = held.filter((grant) => !(grant.key in allowedGrants)).map((grant) => grant.key);
      const heldKeys = new Set(held.map((grant) => grant.key));
      const stale = Object.keys(allowedGrants).filter((key) => !heldKeys.has(key));
      if (unexpected.length + stale.length > 0) console.error(JSON.stringify({ unexpected, stale }, null, 1));
      assertEquals(
        { unexpected, stale },
        { unexpected: [], stale: [] },
        "grants not on the allow-list (add a line saying why the role needs it, or revoke the grant), " +
          "and allow-list lines whose grant is gone",
      );
      const anonDefiner = held.filter((grant) => grant.role === "anon" && grant.definer).map((g) => g.key);
      assertEquals(anonDefiner, [], "anon executes no security-definer function");
      const anonWrites = held.filter((grant) =>
        grant.role === "anon" && /^anon (INSERT|UPDATE|DELETE|TRUNCATE) /.test(grant.key)
      );
      assertEquals(anonWrites, [], "anon writes no table");
      for (const reason of Object.values(allowedGrants)) {
        assert(reason.trim().length > 0, "every line says why");
      }
    } finally {
      await sql.end();
    }
  },
});

// -------------------------------------------------------------------------------------------------------
// Hostile calls as a real user
// -------------------------------------------------------------------------------------------------------

type Tx = postgres.TransactionSql;

interface World {
  attacker: string;
  attackerEmail: string;
  victim: string;
  victimEmail: string;
  victimOrg: string;
  victimHook: string;
  victimInvitation: string;
  victimKey: string;
}

class Rollback extends Error {}

async function createAccount(tx: Tx, label: string, plan: string): Promise<{ id: string; email: string }> {
  const email = `probe-${label}-${crypto.randomUUID()}@test.local`;
  const [user] = await tx<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${email}, now()) returning id`;
  await tx`update public.profiles set plan_id = ${plan} where id = ${user.id}`;
  return { id: user.id, email };
}

async function actAs(tx: Tx, role: Role | "service_role", userId?: string, email?: string): Promise<void> {
  const claims = role === "authenticated"
    ? JSON.stringify({ sub: userId, role, aud: "authenticated", email })
    : JSON.stringify({ role });
  await tx`select set_config('role', ${role}, true), set_config('request.jwt.claims', ${claims}, true)`;
}

async function asSuperuser(tx: Tx): Promise<void> {
  await tx`select set_config('role', 'none', true), set_config('request.jwt.claims', '', true)`;
}

/** A victim with data everywhere, and an attacker at their webhook cap who is a plain member of the victim's org. */
async function buildWorld(tx: Tx): Promise<World> {
  const victim = await createAccount(tx, "victim", "pro");
  const attacker = await createAccount(tx, "attacker", "pro");
  await actAs(tx, "authenticated", victim.id, victim.email);
  const [{ org }] = await tx<{ org: string }[]>`select public.create_organization('Victim Org') as org`;
  const [{ hook }] = await tx<{ hook: string }[]>`
    select public.create_webhook_endpoint('https://hooks.example.com/victim', 'victim', 'victim-secret-0123456789')
      as hook`;
  await tx`select public.set_telegram_enabled(true)`;
  // A chat linked through the bot (what telegram_link_chat stores once /start <token> proved it).
  await actAs(tx, "service_role");
  await tx`update public.notification_settings set telegram_chat_id = '424242', telegram_linked_at = now()
            where user_id = ${victim.id}`;
  await actAs(tx, "authenticated", victim.id, victim.email);
  await tx`select * from public.add_watchlist_domains(array['victim-name.test', 'xn--bcher-kva.test'])`;
  await tx`select * from public.add_organization_watchlist_domains(${org}, array['victim-org-name.test'])`;
  await tx`select public.claim_organization_domain(${org}, 'victim-org-name.test')`;
  const [{ id: key }] = await tx<{ id: string }[]>`select id from public.create_api_key('victim key')`;
  const [{ id: invitation }] = await tx<{ id: string }[]>`
    insert into public.invitations (organization_id, email, role) values (${org}, 'friend@test.local', 'member')
    returning id`;
  await actAs(tx, "authenticated", attacker.id, attacker.email);
  for (let i = 0; i < 10; i++) {
    await tx`select public.create_webhook_endpoint(${`https://hooks.example.com/attacker-${i}`})`;
  }
  await tx`select * from public.add_watchlist_domains(array['attacker-name.test'])`;
  await asSuperuser(tx);
  await tx`insert into public.organization_members (organization_id, user_id, role)
           values (${org}, ${attacker.id}, 'member')`;
  await tx`insert into public.session_request_log (user_id, action)
           select ${attacker.id}, 'export-account' from generate_series(1, 3)`;
  return {
    attacker: attacker.id,
    attackerEmail: attacker.email,
    victim: victim.id,
    victimEmail: victim.email,
    victimOrg: org,
    victimHook: hook,
    victimInvitation: invitation,
    victimKey: key,
  };
}

/**
 * A fingerprint of everything the attacker must not be able to change: the victim's rows in every table
 * (the attacker's own membership row excepted: members may leave), the server-owned limits and counters,
 * and the attacker's plan, counters and memberships.
 */
async function protectedState(tx: Tx, w: World): Promise<Record<string, string>> {
  const [row] = await tx<Record<string, string>[]>`
    select
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.profiles t
        where t.id = ${w.victim}) as victim_profile,
      (select t.plan_id || ' ' || coalesce(t.email, '') from public.profiles t where t.id = ${w.attacker})
        as attacker_plan_and_email,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.webhook_endpoints t
        where t.user_id = ${w.victim}) as victim_webhooks,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.notification_settings t
        where t.user_id = ${w.victim}) as victim_settings,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.watchlist_entries t
        where t.user_id = ${w.victim}) as victim_watchlist,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.api_keys t
        where t.user_id = ${w.victim}) as victim_keys,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.organizations t
        where t.id = ${w.victimOrg}) as victim_org,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.organization_members t
        where t.organization_id = ${w.victimOrg} and t.user_id <> ${w.attacker}) as victim_members,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.organization_members t
        where t.organization_id = ${w.victimOrg} and t.user_id = ${w.attacker} and t.role <> 'member')
        as attacker_role_in_victim_org,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.invitations t
        where t.organization_id = ${w.victimOrg}) as victim_invitations,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.session_request_log t
        where t.user_id in (${w.victim}, ${w.attacker})) as session_log,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.session_action_limits t)
        as session_limits,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.invite_mail_limits t)
        as invite_limits,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.invite_mail_log t)
        as invite_log,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.api_request_counters t)
        as api_counters,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.plans t) as plans,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.webhook_target_policy t)
        as target_policy,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.alert_events t
        where t.user_id = ${w.victim}) as victim_alerts,
      (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from public.organization_activity t
        where t.actor_id = ${w.victim}) as victim_org_log,
      (select count(*) <= 1000 from public.organization_watchlist_entries t
        where t.organization_id = ${w.victimOrg} and t.deleted_at is null)::text as victim_org_within_quota,
      (select count(*) <= 10 from public.webhook_endpoints t where t.user_id = ${w.attacker})::text
        as attacker_webhooks_within_cap,
      (select count(*) = 0 from public.webhook_endpoints t
        where t.secret is not null and char_length(t.secret) not between 16 and 256)::text as no_short_secret,
      (select count(*) <= 1000 from public.watchlist_entries t
        where t.user_id = ${w.attacker} and t.deleted_at is null)::text as attacker_within_quota,
      (select count(*) = 0 from public.watchlist_entries t
        where t.unicode_name is distinct from private.domain_unicode_name(t.domain_name))::text as derived_unicode`;
  return row;
}

/** Hostile values per argument type; the probe calls each function with the i-th value of every argument. */
function candidates(w: World): Record<string, string[]> {
  const q = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const manyNames = `(select array_agg('probe-' || g || '.test') from generate_series(1, 1001) g)`;
  return {
    uuid: [w.victim, w.victimOrg, w.victimHook, w.victimInvitation, w.victimKey, w.attacker].map(q),
    text: [
      q("x"),
      q("export-account"),
      `repeat('x', 300)`,
      q(w.victimEmail),
      q("owner"),
      q("https://hooks.example.com/probe-target"),
      q('<a href="https://phish.example">win</a>'),
      q("https://127.0.0.1/"),
    ],
    "text[]": [
      manyNames,
      `array['xn--bcher-kva.test']`,
      `array['owner', 'admin']`,
      `(select array_agg('x' || g || '.test') from generate_series(1, 10001) g)`,
    ],
    integer: ["2147483647", "-1", "0", "1000000"],
    bigint: ["9223372036854775807", "-1"],
    interval: [q("1 second"), q("-1 day"), q("100 years")],
    boolean: ["true", "false"],
    inet: [q("127.0.0.1")],
    jsonb: [q(`{"sub": "${w.victim}", "role": "service_role"}`)],
  };
}

interface Callable {
  name: string;
  types: string[];
}

async function executableFunctions(tx: Tx, role: Role, schemas: string[]): Promise<Callable[]> {
  const rows = await tx<{ name: string; types: string[] }[]>`
    select n.nspname || '.' || f.proname as name,
           coalesce((select array_agg(format_type(t, null) order by i)
                       from unnest(f.proargtypes) with ordinality as x (t, i)), '{}') as types
      from pg_proc f join pg_namespace n on n.oid = f.pronamespace
     where n.nspname = any(${schemas}) and f.prokind = 'f'
       and has_function_privilege(${role}, f.oid, 'EXECUTE')
       and f.prorettype <> 'trigger'::regtype
       and not exists (select 1 from pg_depend d where d.objid = f.oid and d.deptype = 'e')
     order by 1`;
  return rows;
}

/** Every combination of hostile values is tried when there are at most this many; else each value once. */
const maxCombinations = 200;

function callVariants(fn: Callable, values: Record<string, string[]>): string[] {
  const lists = fn.types.map((t) => (values[t] ?? ["null"]).map((value) => `${value}::${t}`));
  const variants = [`select * from ${fn.name}(${fn.types.map((t) => `null::${t}`).join(", ")})`];
  const combinations = lists.reduce((total, list) => total * list.length, 1);
  if (combinations <= maxCombinations) {
    let rows: string[][] = [[]];
    for (const list of lists) rows = rows.flatMap((row) => list.map((value) => [...row, value]));
    for (const row of rows) variants.push(`select * from ${fn.name}(${row.join(", ")})`);
  } else {
    const rounds = Math.max(1, ...lists.map((list) => list.length));
    for (let i = 0; i < rounds; i++) {
      variants.push(`select * from ${fn.name}(${lists.map((list) => list[i % list.length]).join(", ")})`);
    }
  }
  return [...new Set(variants)];
}

interface WriteTarget {
  table: string;
  privilege: "INSERT" | "UPDATE" | "DELETE";
  columns: { name: string; type: string }[];
}

async function writableTables(tx: Tx, role: Role, schemas: string[]): Promise<WriteTarget[]> {
  const rows = await tx<{ table: string; privilege: "INSERT" | "UPDATE" | "DELETE"; columns: string[][] }[]>`
    select n.nspname || '.' || c.relname as table, p.privilege,
           coalesce((select array_agg(array[a.attname::text, format_type(a.atttypid, a.atttypmod)] order by a.attnum)
                       from pg_attribute a
                      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                        and p.privilege <> 'DELETE'
                        and has_column_privilege(${role}, c.oid, a.attnum, p.privilege)), '{}') as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     cross join unnest(array['INSERT', 'UPDATE', 'DELETE']) as p (privilege)
     where n.nspname = any(${schemas}) and c.relkind in ('r', 'p')
       and (has_table_privilege(${role}, c.oid, p.privilege)
            or (p.privilege <> 'DELETE' and has_any_column_privilege(${role}, c.oid, p.privilege)))
     order by 1, 2`;
  return rows.map((row) => ({
    table: row.table,
    privilege: row.privilege,
    columns: row.columns.map(([name, type]) => ({ name, type })),
  }));
}

function writeVariants(target: WriteTarget, values: Record<string, string[]>): string[] {
  if (target.privilege === "DELETE") return [`delete from ${target.table}`];
  const valueFor = (type: string, i: number) => {
    const base = type.replace(/\(.*\)$/, "");
    const list = values[base];
    return list ? `${list[i % list.length]}::${base}` : "default";
  };
  const rounds = Math.max(
    1,
    ...target.columns.map((c) => values[c.type.replace(/\(.*\)$/, "")]?.length ?? 1),
  );
  const variants: string[] = [];
  for (let i = 0; i < rounds; i++) {
    if (target.privilege === "INSERT") {
      const names = target.columns.map((c) => c.name).join(", ");
      const row = target.columns.map((c) => valueFor(c.type, i)).join(", ");
      variants.push(`insert into ${target.table} (${names}) values (${row})`);
      variants.push(`insert into ${target.table} (${names}) select ${row} from generate_series(1, 15)`);
    } else {
      for (const column of target.columns) {
        variants.push(`update ${target.table} set ${column.name} = ${valueFor(column.type, i)}`);
      }
    }
  }
  return [...new Set(variants)];
}

async function probeStatements(
  sql: postgres.Sql,
  role: Role,
  statements: (w: World, tx: Tx) => Promise<string[]>,
): Promise<{ ran: number; succeeded: string[]; changed: string[] }> {
  let ran = 0;
  const succeeded: string[] = [];
  const changed: string[] = [];
  await sql.begin(async (tx) => {
    const w = await buildWorld(tx);
    const before = await protectedState(tx, w);
    for (const statement of await statements(w, tx)) {
      ran++;
      try {
        await tx.savepoint(async (sp) => {
          if (role === "authenticated") await actAs(sp, role, w.attacker, w.attackerEmail);
          else await actAs(sp, role);
          let ok = true;
          try {
            await sp.savepoint((inner) => inner.unsafe(statement));
          } catch (error) {
            if (error instanceof Rollback) throw error;
            ok = false;
          }
          await asSuperuser(sp);
          if (ok) succeeded.push(statement);
          const after = await protectedState(sp, w);
          for (const [key, value] of Object.entries(after)) {
            if (value !== before[key]) changed.push(`${key} changed by: ${statement.slice(0, 200)}`);
          }
          throw new Rollback();
        });
      } catch (error) {
        if (!(error instanceof Rollback)) throw error;
      }
    }
    throw new Rollback();
  }).catch((error) => {
    if (!(error instanceof Rollback)) throw error;
  });
  return { ran, succeeded, changed };
}

Deno.test({
  name: "grant probe: hostile calls to every function authenticated may execute change nothing they must not",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {}, idle_timeout: 5 });
    try {
      const schemas = await exposedSchemas();
      const result = await probeStatements(sql, "authenticated", async (w, tx) => {
        const values = candidates(w);
        const statements: string[] = [];
        for (const fn of await executableFunctions(tx, "authenticated", schemas)) {
          statements.push(...callVariants(fn, values));
        }
        // Limits and windows the caller should not choose, and the old signatures.
        statements.push(
          `select * from private.consume_session_request('export-account', 1000, '1 second')`,
          `select * from private.consume_session_request('${w.attacker}', 'export-account')`,
          `select private.export_account('${w.attacker}')`,
          `select private.export_account()`,
          `select private.reserve_invite_mail('${w.attacker}', null)`,
          `update public.session_action_limits set max_requests = 1000`,
          `delete from public.session_request_log`,
          `update public.invite_mail_limits set project_per_hour = 100000`,
          `delete from public.invite_mail_log`,
          `select * from public.add_watchlist_domains(array['xn--bcher-kva.test'], array['phish'])`,
        );
        return statements;
      });
      assertEquals(result.changed, [], "hostile calls changed protected state");
      assert(result.ran > 100, `the probe ran ${result.ran} calls`);
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name: "grant probe: direct writes through every table privilege break no rule",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {}, idle_timeout: 5 });
    try {
      const schemas = await exposedSchemas();
      let targets: WriteTarget[] = [];
      const result = await probeStatements(sql, "authenticated", async (w, tx) => {
        const values = candidates(w);
        targets = await writableTables(tx, "authenticated", schemas);
        return targets.flatMap((target) => writeVariants(target, values));
      });
      assertEquals(result.changed, [], "direct writes changed protected state");
      const insertable = targets.filter((t) => t.privilege !== "DELETE").map((t) =>
        `${t.privilege} ${t.table}`
      );
      for (const table of ["public.webhook_endpoints", "public.notification_settings"]) {
        assert(
          !insertable.some((entry) => entry.endsWith(` ${table}`)),
          `${table} is written only by functions`,
        );
      }
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name: "grant probe: anon calls nothing and writes nothing",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {}, idle_timeout: 5 });
    try {
      const schemas = await exposedSchemas();
      const result = await probeStatements(sql, "anon", async (w, tx) => {
        const values = candidates(w);
        const statements: string[] = [];
        for (const fn of await executableFunctions(tx, "anon", schemas)) {
          statements.push(...callVariants(fn, values));
        }
        const tables = await tx<{ name: string }[]>`
          select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = any(${schemas}) and c.relkind in ('r', 'p') order by 1`;
        for (const { name } of tables) {
          statements.push(`insert into ${name} default values`, `delete from ${name}`, `truncate ${name}`);
        }
        return statements;
      });
      assertEquals(result.succeeded, [], "anon statements that succeeded");
      assertEquals(result.changed, [], "anon changed protected state");
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name:
    "grant probe: public holds only functions authenticated may call; private is closed to anon and authenticated",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {}, idle_timeout: 5 });
    try {
      const internal = await sql<{ name: string }[]>`
        select p.oid::regprocedure::text as name
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'public' and not has_function_privilege('authenticated', p.oid, 'execute')
         order by 1`;
      assertEquals(
        internal.map((row) => row.name),
        [],
        "functions in public that authenticated cannot execute",
      );
      const [access] = await sql<{ anon: boolean; authenticated: boolean; service_role: boolean }[]>`
        select has_schema_privilege('anon', 'private', 'usage') as anon,
               has_schema_privilege('authenticated', 'private', 'usage') as authenticated,
               has_schema_privilege('service_role', 'private', 'usage') as service_role`;
      assertEquals(access, { anon: false, authenticated: false, service_role: true });
      const exposed = await exposedSchemas();
      assert(!exposed.includes("private"), "PostgREST must not expose private");
    } finally {
      await sql.end();
    }
  },
});
