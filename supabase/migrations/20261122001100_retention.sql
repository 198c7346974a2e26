-- Retention: the periods after which rows are purged (one-row settings table) and the daily pg_cron job, and
-- the sequences' grants (service_role only) once every table exists.

create table public.retention_settings (
  singleton boolean primary key default true check (singleton),
  delivery_attempts_days integer not null default 90 check (delivery_attempts_days >= 2),
  alert_events_days integer not null default 365 check (alert_events_days >= 2),
  live_check_cache_hours integer not null default 24 check (live_check_cache_hours >= 1),
  request_counters_days integer not null default 35 check (request_counters_days >= 2),
  session_request_log_days integer not null default 2 check (session_request_log_days >= 1),
  cron_run_details_days integer not null default 7 check (cron_run_details_days >= 1),
  updated_at timestamptz not null default now()
);

comment on table public.retention_settings is
  'Retention periods of purge_expired_rows() (one row). Operators change them with SQL; see docs/database.md.';

insert into public.retention_settings default values;

alter table public.retention_settings enable row level security;

grant select, update on table public.retention_settings to service_role;

create trigger retention_settings_set_updated_at
  before update on public.retention_settings
  for each row execute function private.set_updated_at();

-- Deletes everything older than its retention period; returns how many rows each table lost.
-- Runs as the pg_cron job's owner (postgres), which owns the tables and may delete from cron.job_run_details.
create function private.purge_expired_rows()
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_settings public.retention_settings;
  v_attempts bigint;
  v_events bigint;
  v_cache bigint;
  v_counters bigint;
  v_sessions bigint;
  v_cron bigint;
begin
  select * into strict v_settings from public.retention_settings;

  delete from public.alert_delivery_attempts as a
   where a.attempted_at < now() - make_interval(days => v_settings.delivery_attempts_days);
  get diagnostics v_attempts = row_count;

  delete from public.alert_events as e
   where e.created_at < now() - make_interval(days => v_settings.alert_events_days)
     and not exists (
       select 1 from public.alert_deliveries as d where d.event_id = e.id and d.status = 'pending'
     );
  get diagnostics v_events = row_count;

  delete from public.live_check_cache as c
   where c.expires_at < now() - make_interval(hours => v_settings.live_check_cache_hours);
  get diagnostics v_cache = row_count;

  delete from public.api_request_counters as r
   where r.day < (now() at time zone 'utc')::date - v_settings.request_counters_days;
  get diagnostics v_counters = row_count;

  delete from public.session_request_log as s
   where s.requested_at < now() - make_interval(days => v_settings.session_request_log_days);
  get diagnostics v_sessions = row_count;

  delete from cron.job_run_details as j
   where coalesce(j.end_time, j.start_time) < now() - make_interval(days => v_settings.cron_run_details_days);
  get diagnostics v_cron = row_count;

  return jsonb_build_object(
    'alert_delivery_attempts', v_attempts,
    'alert_events', v_events,
    'live_check_cache', v_cache,
    'api_request_counters', v_counters,
    'session_request_log', v_sessions,
    'cron_job_run_details', v_cron
  );
end
$$;
comment on function private.purge_expired_rows() is
  'Daily pg_cron job purge-expired-rows: deletes rows older than the periods in public.retention_settings.';
revoke all on function private.purge_expired_rows() from public, anon, authenticated, service_role;

create extension if not exists pg_cron with schema pg_catalog;
select cron.schedule('purge-expired-rows', '17 3 * * *', $$ select private.purge_expired_rows() $$);

-- ===================================================================================================
-- 5. Leftover grants the grant probe (tests/database/grant_probe.test.ts) found
-- ===================================================================================================
-- Sequences: every table with an identity column is written by definer functions or service_role only.
revoke all on all sequences in schema public from public, anon, authenticated;

grant usage, select on all sequences in schema public to service_role;
