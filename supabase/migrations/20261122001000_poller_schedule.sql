-- The poller's schedule, the way Supabase documents scheduled edge functions: every minute pg_cron runs
-- public.invoke_rdap_poller(), which reads the project URL and the poller's bearer secret from Vault and
-- POSTs to the rdap-poller edge function through pg_net. The request is asynchronous: the job returns at
-- once and pg_net sends it (locally, the stand-in from supabase/local/bootstrap.sql queues it in
-- net.http_request_queue and scripts/local/net_worker.ts sends it).
--
-- Vault secrets (SQL editor on Supabase; `deno task start` writes them locally):
--   select vault.create_secret('https://<ref>.supabase.co', 'project_url');
--   select vault.create_secret('<POLLER_SECRET>', 'poller_secret');

-- pg_net on Supabase (it always creates schema net); a plain PostgreSQL has no pg_net and uses the local
-- stand-in instead.
do $$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_net') then
    create extension if not exists pg_net with schema extensions;
  end if;
end
$$;

create extension if not exists pg_cron;

-- Returns pg_net's request id, or null (and does nothing) while either Vault secret is missing.
-- The timeout covers a whole poller run (POLLER_TIME_BUDGET_MS, 25 s by default, plus its last sends).
create function public.invoke_rdap_poller()
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_project_url text;
  v_secret text;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  return net.http_post(
    url := rtrim(v_project_url, '/') || '/functions/v1/rdap-poller',
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
    body := '{}'::jsonb,
    timeout_milliseconds := 60000
  );
end
$$;

comment on function public.invoke_rdap_poller() is
  'Called every minute by the pg_cron job rdap-poller: POSTs to <project_url>/functions/v1/rdap-poller with '
  'the Vault secret poller_secret as bearer token. Null (nothing sent) while a secret is missing.';

revoke all on function public.invoke_rdap_poller() from public, anon, authenticated, service_role;

select cron.schedule('rdap-poller', '* * * * *', $$ select public.invoke_rdap_poller() $$);
