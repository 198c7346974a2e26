-- Issue 16 item 7: one pattern for new functions, and one helper for the poller secret's POSTs.
--
-- 1. New functions are executable by nobody until granted. PostgreSQL's built-in default gives EXECUTE on
--    every new function to PUBLIC, which is why each earlier migration revokes it by hand. From here on
--    functions created by `postgres` (the role migrations run as, locally and on hosted Supabase) start
--    without it; a migration grants EXECUTE to exactly the roles that call the function (docs/database.md,
--    "Pattern for new objects"). This must be the global default (no IN SCHEMA): per-schema default
--    privileges are only added to the global ones and cannot take away PUBLIC's EXECUTE. `postgres` may
--    alter its own default privileges without being a superuser. It changes nothing that exists: a
--    `create or replace` keeps the function's privileges, and the explicit revoke lines of earlier (and
--    later) migrations stay valid no-ops. anon, authenticated and service_role hold no default privilege
--    either (checked by supabase/tests/database/00_hosted_roles.test.sql); the second statement keeps that
--    true on a project that still has Supabase's old per-schema default grants in public (a no-op where
--    there are none). Functions called under a role without a grant (a test helper, a function in a
--    policy) now fail with 42501 until granted: grant them explicitly, as the rules always required.
alter default privileges for role postgres
  revoke execute on functions from public, anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  revoke execute on functions from anon, authenticated, service_role;

-- 2. Dead since 20261123001850 redefined webhook_url_problem on outbound_url_problem (docs/url-policy.md):
--    the old private-address rules of 20261122000900, called by nothing.
drop function public.is_non_public_address(inet);
drop function public.is_loopback_address(inet);

-- 3. The Vault read and the pg_net POST that invoke_rdap_poller() and invoke_alert_delivery() both made,
--    once. POSTs `{}` `p_times` times to <Vault project_url>/functions/v1/<p_path> with the Vault secret
--    poller_secret as bearer token; returns the first pg_net request id, or null (nothing sent) while a
--    secret is missing or `p_times` < 1. Security invoker, no grants (item 1): only its two callers run it,
--    as their owner (pg_cron's job as postgres; invoke_alert_delivery() as a security definer).
create function public.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_project_url text;
  v_secret text;
  v_first bigint;
  v_id bigint;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  for i in 1 .. coalesce(p_times, 0) loop
    v_id := net.http_post(
      url := rtrim(v_project_url, '/') || '/functions/v1/' || p_path,
      headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
      body := '{}'::jsonb,
      timeout_milliseconds := p_timeout_milliseconds
    );
    v_first := coalesce(v_first, v_id);
  end loop;
  return v_first;
end
$$;

comment on function public.post_to_edge_function(text, integer, integer) is
  'POSTs {} p_times times to <Vault project_url>/functions/v1/<p_path> with the Vault secret poller_secret '
  'as bearer token; the first pg_net request id, or null while a secret is missing. For invoke_rdap_poller() '
  'and invoke_alert_delivery() only (no grants).';

-- Redefined (was 20261123001100_shared_limits_and_fanout.sql): same behaviour, through the helper.
create or replace function public.invoke_rdap_poller()
returns bigint
language sql
set search_path = ''
as $$
  select public.post_to_edge_function('rdap-poller', 60000, public.poller_invocations_needed())
$$;

-- Redefined (was 20261123001900_fair_delivery.sql): same behaviour, through the helper.
create or replace function public.invoke_alert_delivery()
returns bigint
language sql
security definer
set search_path = ''
as $$
  select public.post_to_edge_function('rdap-poller/deliveries', 120000, 1)
$$;
