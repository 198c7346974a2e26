-- The RDAP engine's tables and the one function that writes check results into public.domains.
--   * rdap_bootstrap_cache: copies of IANA's RDAP bootstrap for DNS (RFC 9224), one per source URL,
--     re-fetched once a day by the edge functions;
--   * rdap_server_overrides: operator-edited RDAP servers for TLDs (or longer suffixes) that IANA does not
--     list, or whose listed server must not be used;
--   * live_check_cache: the last live-check result per name, for about LIVE_CHECK_CACHE_SECONDS;
--   * next_check_delay / record_domain_check: the shared check state of a watched name.
-- All three tables are for service_role only: RLS is enabled and there is no policy for anon/authenticated.

-- ---------------------------------------------------------------------------------------------------
-- rdap_bootstrap_cache
-- ---------------------------------------------------------------------------------------------------
create table public.rdap_bootstrap_cache (
  source_url text primary key,
  publication timestamptz,
  document jsonb not null,
  fetched_at timestamptz not null default now()
);

comment on table public.rdap_bootstrap_cache is
  'Copies of the RDAP bootstrap file (RFC 9224) by source URL. fetched_at is when the copy was last fetched '
  'or confirmed current; a fetched copy with an older publication never replaces a newer one.';

alter table public.rdap_bootstrap_cache enable row level security;
revoke all on table public.rdap_bootstrap_cache from anon, authenticated;
grant select, insert, update, delete on table public.rdap_bootstrap_cache to service_role;

-- ---------------------------------------------------------------------------------------------------
-- rdap_server_overrides
-- ---------------------------------------------------------------------------------------------------
create table public.rdap_server_overrides (
  suffix text collate "C" primary key
    constraint rdap_server_overrides_suffix_check check (
      suffix = lower(suffix)
      and suffix ~ '^[a-z0-9-]+(\.[a-z0-9-]+)*$'
    ),
  base_url text
    constraint rdap_server_overrides_base_url_check check (base_url is null or base_url ~ '^https?://[^\s]+$'),
  note text,
  updated_at timestamptz not null default now()
);

comment on table public.rdap_server_overrides is
  'Operator-edited RDAP servers by suffix (a TLD such as "de", or a longer suffix), used before IANA''s '
  'bootstrap for the same suffix; the longest matching suffix wins overall. base_url is the registry''s own '
  'RDAP base URL (the part before "domain/<name>"); null means "no RDAP for this suffix": checks then use DNS '
  'only and never report a name as available. Only add a URL known to be the registry''s own service: a wrong '
  'URL that answers 404 would report registered names as available. Edits take effect within about 5 minutes '
  '(each edge function process keeps the list in memory that long).';
comment on column public.rdap_server_overrides.note is 'Where the URL comes from and who checked it, when.';

-- Deliberately not seeded: no registry URL could be verified (offline) when this was written.

alter table public.rdap_server_overrides enable row level security;
revoke all on table public.rdap_server_overrides from anon, authenticated;
grant select, insert, update, delete on table public.rdap_server_overrides to service_role;

-- ---------------------------------------------------------------------------------------------------
-- live_check_cache
-- ---------------------------------------------------------------------------------------------------
create table public.live_check_cache (
  domain_name text collate "C" primary key,
  result json not null,
  checked_at timestamptz not null,
  expires_at timestamptz not null
);

comment on table public.live_check_cache is
  'Last live-check result per name, served again until expires_at so repeated checks do not reach registries. '
  'Rows more than an hour past expiry are deleted by the next write.';

comment on column public.live_check_cache.result is
  'The result as the API returns it; json rather than jsonb so a cached answer keeps its key order.';

create index live_check_cache_expires_at_idx on public.live_check_cache (expires_at);

alter table public.live_check_cache enable row level security;
revoke all on table public.live_check_cache from anon, authenticated;
grant select, insert, update, delete on table public.live_check_cache to service_role;

-- ---------------------------------------------------------------------------------------------------
-- next_check_delay: how long until a watched name is checked again.
--   pending_delete: 5 minutes (it may drop at any time);
--   registered: hourly when it expires within 7 days or has expired, daily within 45 days, else weekly;
--   available: hourly;
--   unknown (and any failed check): 5 minutes, doubling with each consecutive failure, at most 6 hours.
-- ---------------------------------------------------------------------------------------------------
create function public.next_check_delay(status text, expires_at timestamptz, consecutive_failures integer)
returns interval
language sql
stable
parallel safe
set search_path = ''
as $$
  select case
    when status = 'pending_delete' then interval '5 minutes'
    when status = 'available' then interval '1 hour'
    when status = 'registered' then
      case
        when expires_at is not null and expires_at <= now() + interval '7 days' then interval '1 hour'
        when expires_at is not null and expires_at <= now() + interval '45 days' then interval '1 day'
        else interval '7 days'
      end
    else least(
      interval '6 hours',
      interval '5 minutes' * power(2, least(greatest(coalesce(consecutive_failures, 0) - 1, 0), 16))
    )
  end
$$;

-- ---------------------------------------------------------------------------------------------------
-- record_domain_check: writes one check result into the shared state of an existing public.domains row.
--   p_succeeded true: status, expires_at and registrar are replaced by the check's; status_changed_at is set
--     when the status changes; consecutive_failures returns to 0.
--   p_succeeded false (the check could not decide): the last known status, expiry and registrar stay;
--     consecutive_failures grows and the next check backs off.
--   Both: last_checked_at = p_checked_at, next_check_at = p_checked_at + next_check_delay(...), lease cleared.
--   A result older than the row's last_checked_at (a slow check finishing after a newer one) only clears the
--   lease. A name not in public.domains is ignored (nobody watches it).
-- About state only: alerts hang off status changes elsewhere.
-- ---------------------------------------------------------------------------------------------------
create function public.record_domain_check(
  p_domain_name text,
  p_status text,
  p_checked_at timestamptz,
  p_expires_at timestamptz,
  p_registrar text,
  p_succeeded boolean
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_last_checked_at timestamptz;
  v_failures integer;
begin
  if p_status is null or p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = 'DW400', message = 'DW400: record_domain_check: invalid status.';
  end if;
  if p_checked_at is null or p_succeeded is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_domain_check: checked_at and succeeded are required.';
  end if;

  select d.last_checked_at, d.consecutive_failures
    into v_last_checked_at, v_failures
    from public.domains as d
   where d.name = p_domain_name
     for update;

  if not found then
    return;
  end if;

  if v_last_checked_at is not null and p_checked_at < v_last_checked_at then
    update public.domains set lease_until = null where name = p_domain_name;
    return;
  end if;

  if p_succeeded then
    update public.domains as d
       set status = p_status,
           status_changed_at = case when d.status is distinct from p_status then p_checked_at
                                    else d.status_changed_at end,
           last_checked_at = p_checked_at,
           expires_at = p_expires_at,
           registrar = p_registrar,
           consecutive_failures = 0,
           next_check_at = p_checked_at + public.next_check_delay(p_status, p_expires_at, 0),
           lease_until = null
     where d.name = p_domain_name;
  else
    update public.domains as d
       set last_checked_at = p_checked_at,
           consecutive_failures = v_failures + 1,
           next_check_at = p_checked_at + public.next_check_delay('unknown', d.expires_at, v_failures + 1),
           lease_until = null
     where d.name = p_domain_name;
  end if;
end
$$;

revoke all on function public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean)
  from public, anon, authenticated, service_role;
grant execute on function public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean)
  to service_role;
