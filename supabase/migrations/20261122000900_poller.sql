-- Poller: claiming due names with leases (pending delete first), deferring and aiming drop checks, the fan-out
-- of invocations per tick, and the pg_cron job `rdap-poller` that calls the function through pg_net.

-- Releases a claimed name without recording a check (the registry was not asked: its host is paused or
-- the run's time is up), or pushes a recorded name's next check back (a 429's Retry-After).
create function private.defer_domain_check(p_domain_name text, p_not_before timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = greatest(d.next_check_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.name = p_domain_name
$$;
revoke all on function private.defer_domain_check(text, timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.defer_domain_check(text, timestamptz) to service_role;

create extension if not exists pg_net with schema extensions;
create extension if not exists pg_cron with schema pg_catalog;

-- ===================================================================================================
-- Poller fan-out: the minute's pg_cron tick starts as many rdap-poller invocations as the due backlog
-- needs (one per `checks_per_invocation` due names, at least one, at most `max_invocations`). Each
-- invocation claims with FOR UPDATE SKIP LOCKED and a lease (claim_due_domains), so parallel runs never
-- check a name twice.
-- ===================================================================================================
create table public.poller_settings (
  id boolean primary key default true check (id),
  -- Names one invocation checks at most: keep equal to the function's POLLER_MAX_CHECKS_PER_RUN. Set from
  -- the CPU a check costs with real TLS (docs/runtime.md, "CPU per poller run"): about 2.5 ms in a fresh
  -- isolate, so 400 checks keep one run near 1 s, half of edge-runtime's 2 s CPU limit per isolate.
  checks_per_invocation integer not null default 400 check (checks_per_invocation between 1 and 100000),
  -- Invocations one tick starts at most (the fan-out cap).
  max_invocations integer not null default 8 check (max_invocations between 1 and 100)
);

comment on table public.poller_settings is
  'The poller fan-out (one row): names per invocation and the cap on invocations per pg_cron tick.';

insert into public.poller_settings default values;

alter table public.poller_settings enable row level security;

grant select, update on table public.poller_settings to service_role;

-- How many poller invocations this tick should start: ceil(due backlog / checks_per_invocation), at least
-- 1, at most max_invocations. The backlog counts due, unleased, watched names (counting stops at the cap).
create function private.poller_invocations_needed()
returns integer
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_settings public.poller_settings%rowtype;
  v_due bigint;
begin
  select * into v_settings from public.poller_settings where id;
  select count(*) into v_due
    from (
      select 1
        from public.domains as d
       where d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       limit v_settings.checks_per_invocation::bigint * v_settings.max_invocations
    ) as due;
  return least(v_settings.max_invocations,
               greatest(1, ceil(v_due::numeric / v_settings.checks_per_invocation)::integer));
end
$$;
revoke all on function private.poller_invocations_needed() from public, anon, authenticated, service_role;
grant execute on function private.poller_invocations_needed() to service_role;

create or replace function private.claim_due_domains(p_limit integer, p_lease_seconds integer)
returns table (
  domain_name text,
  status text,
  expires_at timestamptz,
  registrar text,
  last_checked_at timestamptz,
  registry_asked_at timestamptz,
  reminder_days integer[]
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_names text[];
  v_more text[];
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: lease must be 1-3600 s.';
  end if;

  select coalesce(array_agg(due.name), '{}') into v_names
    from (
      select d.name
        from public.domains as d
       where d.status = 'pending_delete'
         and d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       order by d.next_check_at
       limit p_limit
         for update of d skip locked
    ) as due;

  if cardinality(v_names) < p_limit then
    select coalesce(array_agg(due.name), '{}') into v_more
      from (
        select d.name
          from public.domains as d
         where d.next_check_at <= now()
           and (d.lease_until is null or d.lease_until <= now())
           and d.name <> all (v_names)
           and exists (
             select 1 from public.watchlist_entries as e
              where e.domain_name = d.name and e.deleted_at is null
           )
         order by d.next_check_at
         limit p_limit - cardinality(v_names)
           for update of d skip locked
      ) as due;
    v_names := v_names || v_more;
  end if;

  return query
    with claimed as (
      update public.domains as d
         set lease_until = now() + make_interval(secs => p_lease_seconds)
       where d.name = any (v_names)
      returning d.name, d.status, d.expires_at, d.registrar, d.last_checked_at, d.next_check_at,
                d.registry_asked_at
    )
    select c.name::text, c.status, c.expires_at, c.registrar, c.last_checked_at, c.registry_asked_at,
           -- The reminder days of every channel of every account watching the name (empty: none asks).
           (select coalesce(array_agg(distinct r.days order by r.days), '{}')
              from public.watchlist_entries as e
              cross join lateral private.expiring_reminder_days(e.user_id) as r(days)
             where e.domain_name = c.name and e.deleted_at is null)
      from claimed as c
     order by c.status <> 'pending_delete', c.next_check_at, c.name;
end
$$;
revoke all on function private.claim_due_domains(integer, integer) from public, anon, authenticated, service_role;
grant execute on function private.claim_due_domains(integer, integer) to service_role;

-- The registry answered for the name in a poller check (poller/dns_first.ts `registryAnswered`): its
-- registry_asked_at moves to that check's time (never back).
create function private.record_registry_answer(p_domain_name text, p_answered_at timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set registry_asked_at = p_answered_at
   where d.name = p_domain_name
     and p_answered_at is not null
     and (d.registry_asked_at is null or d.registry_asked_at < p_answered_at);
$$;
revoke all on function private.record_registry_answer(text, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function private.record_registry_answer(text, timestamptz) to service_role;

-- Returns pg_net's request id, or null (and does nothing) while either Vault secret is missing.
-- The timeout covers a whole poller run (POLLER_TIME_BUDGET_MS, 25 s by default, plus its last sends).
create or replace function private.invoke_rdap_poller()
returns bigint
language sql
set search_path = ''
as $$
  select private.post_to_edge_function('rdap-poller', 60000, private.poller_invocations_needed())
$$;
comment on function private.invoke_rdap_poller() is
  'Called every minute by the pg_cron job rdap-poller: POSTs to <project_url>/functions/v1/rdap-poller with '
  'the Vault secret poller_secret as bearer token. Null (nothing sent) while a secret is missing.';
revoke all on function private.invoke_rdap_poller() from public, anon, authenticated, service_role;
comment on function private.invoke_rdap_poller() is
  'Called every minute by the pg_cron job rdap-poller: POSTs poller_invocations_needed() times to '
  '<project_url>/functions/v1/rdap-poller with the Vault secret poller_secret as bearer token. Returns the '
  'first pg_net request id; null (nothing sent) while a secret is missing.';
revoke all on function private.invoke_rdap_poller() from public, anon, authenticated, service_role;

select cron.schedule('rdap-poller', '* * * * *', $$ select private.invoke_rdap_poller() $$);

-- The denser schedule of a name in pending delete around its predicted drop (computed by the poller from
-- the RDAP dates). Applies only to the check recorded at p_checked_at, and only while still pending
-- delete; the next check stays within 1 minute and 1 day of that check.
create or replace function private.schedule_pending_delete_check(
  p_domain_name text,
  p_checked_at timestamptz,
  p_next_check_at timestamptz
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = least(greatest(p_next_check_at, p_checked_at + interval '5 seconds'),
                               p_checked_at + interval '1 day')
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at
$$;
revoke all on function private.schedule_pending_delete_check(text, timestamptz, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function private.schedule_pending_delete_check(text, timestamptz, timestamptz) to service_role;
