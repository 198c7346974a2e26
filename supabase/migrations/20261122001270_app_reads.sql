-- What the product app reads: each name's history of states (written by the SQL that records a check, so it
-- exists for every watcher whatever their channels ask for), the account overview (plan, quota, usage), a
-- page of the watchlist with filters and search, and one name's page (state, history, alerts).
-- Everything here is read-only for `authenticated` and answers only about the caller's own account.

-- ---------------------------------------------------------------------------------------------------
-- domains.id: a stable number for a name, the key of its history.
-- ---------------------------------------------------------------------------------------------------
alter table public.domains
  add column id bigint generated always as identity constraint domains_id_key unique;

-- ---------------------------------------------------------------------------------------------------
-- domain_status_changes: one row per change of a domain's shared status, and one "first seen" row
-- (previous_status null) on the name's first decided check. Written by private.note_status_change, which
-- record_domain_check calls in the transaction that changes the row (the row is locked then, so one
-- transition writes one row). domain_name repeats the name of domain_id (names never change) so that the
-- read policy needs only the reader's own watchlist entries.
-- ---------------------------------------------------------------------------------------------------
create table public.domain_status_changes (
  id bigserial primary key,
  domain_id bigint not null references public.domains (id) on delete cascade,
  domain_name text not null,
  previous_status text
    constraint domain_status_changes_previous_status_check
    check (previous_status in ('unknown', 'registered', 'pending_delete', 'available')),
  status text not null
    constraint domain_status_changes_status_check
    check (status in ('unknown', 'registered', 'pending_delete', 'available')),
  changed_at timestamptz not null,
  source text not null constraint domain_status_changes_source_check check (source in ('poller', 'live')),
  evidence jsonb
    constraint domain_status_changes_evidence_check
    check (evidence is null or (status = 'available' and jsonb_typeof(evidence) = 'object')),
  registrar text,
  expires_at timestamptz
);

comment on table public.domain_status_changes is
  'Each name''s history of states: one row per change of public.domains.status (previous_status null: first '
  'seen, the first decided check). evidence: why an available was believed (as domain.available carries it). '
  'Read by the accounts that watch or watched the name.';

create index domain_status_changes_domain_id_changed_at_idx
  on public.domain_status_changes (domain_id, changed_at);

alter table public.domain_status_changes enable row level security;

create policy "Users can read the history of the names they watch or watched"
  on public.domain_status_changes for select to authenticated
  using (
    exists (
      select 1
        from public.watchlist_entries as e
       where e.domain_name = domain_status_changes.domain_name
         and e.user_id = (select auth.uid())
    )
  );

grant select on table public.domain_status_changes to authenticated;
grant select, insert, update, delete on table public.domain_status_changes to service_role;
grant select, usage on sequence public.domain_status_changes_id_seq to service_role;

-- The alerts of one name on its page, newest first.
create index alert_events_user_id_domain_name_created_at_idx
  on public.alert_events (user_id, domain_name, created_at desc);

-- An event's deliveries (the name's page; also the cascade when events are purged).
create index alert_deliveries_event_id_idx on public.alert_deliveries (event_id);

-- ---------------------------------------------------------------------------------------------------
-- note_status_change: called by record_domain_check after it wrote a decided result into the (locked) row.
--   p_previous_status: the row's status before the write. Nothing is written when it did not change. The
--   name's first row is "first seen" (previous_status null), written on its first decided status (never for
--   'unknown'); every later change is a row with the status it left.
-- ---------------------------------------------------------------------------------------------------
create function private.note_status_change(
  p_domain_name text,
  p_previous_status text,
  p_status text,
  p_changed_at timestamptz,
  p_source text,
  p_registrar text,
  p_expires_at timestamptz
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_domain_id bigint;
  v_first boolean;
begin
  if p_previous_status is not distinct from p_status then
    return;
  end if;
  select d.id into v_domain_id from public.domains as d where d.name = p_domain_name;
  if v_domain_id is null then
    return;
  end if;
  v_first := not exists (select 1 from public.domain_status_changes as h where h.domain_id = v_domain_id);
  if v_first and p_status = 'unknown' then
    return;
  end if;
  insert into public.domain_status_changes
    (domain_id, domain_name, previous_status, status, changed_at, source, registrar, expires_at)
  values (v_domain_id, p_domain_name, case when v_first then null else p_previous_status end, p_status,
          p_changed_at, p_source, p_registrar, p_expires_at);
end
$$;

revoke all on function private.note_status_change(text, text, text, timestamptz, text, text, timestamptz)
  from public, anon, authenticated, service_role;

-- note_check_evidence (the check that found a name available) adds its evidence to the history row of that
-- transition too, so the name's page shows it whether or not an alert was raised. Only a row still without
-- evidence is touched.
create function private.note_status_change_evidence(
  p_domain_name text,
  p_checked_at timestamptz,
  p_evidence jsonb
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domain_status_changes as h
     set evidence = p_evidence
   where h.domain_id = (select d.id from public.domains as d where d.name = p_domain_name)
     and h.changed_at = p_checked_at
     and h.status = 'available'
     and h.evidence is null
$$;

revoke all on function private.note_status_change_evidence(text, timestamptz, jsonb)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- One watched name as the app shows it (a watchlist_page row, the "domain" of domain_detail). The drop
-- prediction is shown only while the name is in pending delete.
-- ---------------------------------------------------------------------------------------------------
create function private.watched_domain_json(
  p_domain_name text,
  p_unicode_name text,
  p_added_at timestamptz,
  p_domain public.domains
)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'domain_name', p_domain_name,
    'unicode_name', p_unicode_name,
    'status', p_domain.status,
    'added_at', p_added_at,
    'last_checked_at', p_domain.last_checked_at,
    'status_changed_at', p_domain.status_changed_at,
    'expires_at', p_domain.expires_at,
    'registrar', p_domain.registrar,
    'predicted_drop_at', case when p_domain.status = 'pending_delete' then p_domain.predicted_drop_at end,
    'prediction_basis', case when p_domain.status = 'pending_delete' then p_domain.prediction_basis end
  )
$$;

revoke all on function private.watched_domain_json(text, text, timestamptz, public.domains)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- account_overview: the caller's plan, its limits and today's usage, for the app's header.
--   daily_request_limit: null = unlimited; 0 on a plan without API access. requests_reset_at: the next
--   00:00:00Z (daily limits count per UTC day).
-- ---------------------------------------------------------------------------------------------------
create function public.account_overview()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_result jsonb;
begin
  select jsonb_build_object(
           'plan', pl.id,
           'api_access', pl.api_access,
           'watchlist_quota', pl.watchlist_quota,
           'watchlist_used', (select count(*)::integer from public.watchlist_entries as e
                               where e.user_id = p.id and e.deleted_at is null),
           'daily_request_limit', case when pl.api_access then pl.requests_per_day else 0 end,
           'requests_today', coalesce((select c.request_count from public.api_request_counters as c
                                        where c.user_id = p.id and c.day = v_today), 0),
           'requests_reset_at', (v_today + 1)::timestamp at time zone 'UTC',
           'webhooks_allowed', pl.webhooks,
           'display_name', p.display_name)
    into v_result
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid;
  if v_result is null then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;
  return v_result;
end
$$;

revoke all on function public.account_overview() from public, anon, authenticated, service_role;
grant execute on function public.account_overview() to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- watchlist_page: one page of the caller's active watchlist, ordered by domain_name, with the number of
-- names that match.
--   p_status: one of the four statuses, or null for all. p_search: a case-insensitive substring of
--   domain_name or unicode_name, taken literally (%, _ and \ are escaped); null or blank for all.
--   p_limit 1–200, p_offset >= 0; anything else is SQLSTATE 22023.
--   Without filters the count and the skipped rows are read from the watchlist index alone and only the
--   page is joined to the domains; with filters the account's entries are joined (one primary-key lookup
--   each), which stays in the low milliseconds at 10,000 names (docs/database.md).
-- ---------------------------------------------------------------------------------------------------
create function public.watchlist_page(
  p_status text default null,
  p_search text default null,
  p_limit integer default 50,
  p_offset integer default 0
)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_pattern text;
  v_total integer;
  v_domains jsonb;
begin
  if p_limit is null or p_limit < 1 or p_limit > 200 then
    raise exception using errcode = '22023', message = 'limit must be between 1 and 200.';
  end if;
  if p_offset is null or p_offset < 0 then
    raise exception using errcode = '22023', message = 'offset must not be negative.';
  end if;
  if p_status is not null and p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = '22023',
      message = 'status must be one of unknown, registered, pending_delete, available.';
  end if;
  if p_search is not null and char_length(p_search) > 253 then
    raise exception using errcode = '22023', message = 'search must be at most 253 characters.';
  end if;
  if nullif(btrim(p_search), '') is not null then
    v_pattern := '%' || replace(replace(replace(btrim(p_search), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  end if;

  if p_status is null and v_pattern is null then
    select count(*)::integer into v_total
      from public.watchlist_entries as e
     where e.user_id = v_uid and e.deleted_at is null;

    with page as (
      select e.domain_name, e.unicode_name, e.added_at
        from public.watchlist_entries as e
       where e.user_id = v_uid and e.deleted_at is null
       order by e.domain_name collate "C"
       limit p_limit offset p_offset
    )
    select coalesce(jsonb_agg(private.watched_domain_json(pg.domain_name, pg.unicode_name, pg.added_at, d)
                              order by pg.domain_name collate "C"), '[]'::jsonb)
      into v_domains
      from page as pg
      join public.domains as d on d.name = pg.domain_name;
  elsif p_status is null then
    -- Search only: the entries alone are counted; only the page is joined to the domains.
    select count(*)::integer into v_total
      from public.watchlist_entries as e
     where e.user_id = v_uid
       and e.deleted_at is null
       and (e.domain_name ilike v_pattern escape '\' or e.unicode_name ilike v_pattern escape '\');

    v_domains := '[]'::jsonb;
    if v_total > p_offset then
      with page as (
        select e.domain_name, e.unicode_name, e.added_at
          from public.watchlist_entries as e
         where e.user_id = v_uid
           and e.deleted_at is null
           and (e.domain_name ilike v_pattern escape '\' or e.unicode_name ilike v_pattern escape '\')
         order by e.domain_name collate "C"
         limit p_limit offset p_offset
      )
      select jsonb_agg(private.watched_domain_json(pg.domain_name, pg.unicode_name, pg.added_at, d)
                       order by pg.domain_name collate "C")
        into v_domains
        from page as pg
        join public.domains as d on d.name = pg.domain_name;
    end if;
  else
    -- A status: each entry (that the search keeps) is joined to its domain by primary key.
    select count(*)::integer into v_total
      from public.watchlist_entries as e
      join public.domains as d on d.name = e.domain_name
     where e.user_id = v_uid
       and e.deleted_at is null
       and d.status = p_status
       and (v_pattern is null
            or e.domain_name ilike v_pattern escape '\'
            or e.unicode_name ilike v_pattern escape '\');

    v_domains := '[]'::jsonb;
    if v_total > p_offset then
      with page as (
        select e.domain_name, e.unicode_name, e.added_at, d
          from public.watchlist_entries as e
          join public.domains as d on d.name = e.domain_name
         where e.user_id = v_uid
           and e.deleted_at is null
           and d.status = p_status
           and (v_pattern is null
                or e.domain_name ilike v_pattern escape '\'
                or e.unicode_name ilike v_pattern escape '\')
         order by e.domain_name collate "C"
         limit p_limit offset p_offset
      )
      select jsonb_agg(private.watched_domain_json(pg.domain_name, pg.unicode_name, pg.added_at, pg.d)
                       order by pg.domain_name collate "C")
        into v_domains
        from page as pg;
    end if;
  end if;

  return jsonb_build_object('total', v_total, 'domains', v_domains);
end
$$;

revoke all on function public.watchlist_page(text, text, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.watchlist_page(text, text, integer, integer) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- domain_detail: one name on the caller's active watchlist: its state (as a watchlist_page row), its
-- history of states since it was first seen (oldest first), and the caller's alerts for it with their
-- deliveries (newest first, at most 50). The name is normalized as the watchlist functions do (lower case;
-- surrounding blanks and a trailing dot are dropped); its Unicode form is accepted too. A name not on the
-- active watchlist raises P0002 (PostgREST: 404).
-- ---------------------------------------------------------------------------------------------------
create function public.domain_detail(p_domain_name text)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_name text := rtrim(lower(btrim(coalesce(p_domain_name, ''))), '.');
  v_entry public.watchlist_entries;
  v_domain public.domains;
  v_history jsonb;
  v_alerts jsonb;
begin
  select e.* into v_entry
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.domain_name = v_name and e.deleted_at is null;
  if not found then
    select e.* into v_entry
      from public.watchlist_entries as e
     where e.user_id = v_uid and e.unicode_name = v_name and e.deleted_at is null
     limit 1;
  end if;
  if not found then
    raise exception using errcode = 'P0002', message = 'The name is not on your watchlist.';
  end if;
  select d.* into v_domain from public.domains as d where d.name = v_entry.domain_name;

  select coalesce(jsonb_agg(jsonb_build_object(
           'previous_status', h.previous_status,
           'status', h.status,
           'changed_at', h.changed_at,
           'source', h.source,
           'evidence', h.evidence) order by h.changed_at, h.id), '[]'::jsonb)
    into v_history
    from public.domain_status_changes as h
   where h.domain_id = v_domain.id;

  select coalesce(jsonb_agg(jsonb_build_object(
           'event_id', ev.id,
           'type', ev.type,
           'created_at', ev.created_at,
           'deliveries', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'channel', dl.channel,
                      'status', dl.status,
                      'attempts', dl.attempt_count,
                      'last_attempt_at', dl.last_attempt_at,
                      'delivered_at', dl.delivered_at,
                      'last_response_status', dl.last_http_status) order by dl.created_at, dl.id)
               from public.alert_deliveries as dl
              where dl.event_id = ev.id and dl.user_id = v_uid), '[]'::jsonb))
         order by ev.created_at desc, ev.id desc), '[]'::jsonb)
    into v_alerts
    from (
      select a.id, a.type, a.created_at
        from public.alert_events as a
       where a.user_id = v_uid and a.domain_name = v_entry.domain_name and a.type <> 'test'
       order by a.created_at desc, a.id desc
       limit 50
    ) as ev;

  return jsonb_build_object(
    'domain', private.watched_domain_json(v_entry.domain_name, v_entry.unicode_name, v_entry.added_at, v_domain),
    'history', v_history,
    'alerts', v_alerts);
end
$$;

revoke all on function public.domain_detail(text) from public, anon, authenticated, service_role;
grant execute on function public.domain_detail(text) to authenticated;
