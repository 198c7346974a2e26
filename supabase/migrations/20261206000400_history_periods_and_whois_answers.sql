-- Issue 40, points 2, 3 and 5.
--
-- 3. A name's history (public.domain_status_changes) is read only for the periods the reader watched the
--    name (from adding it to removing it; a name watched again adds a period), and only the changes the
--    poller recorded or the reader's own live checks caused. Before, any name the account ever watched was
--    readable for ever, removed ones included, with every account's live checks: a Free account could add
--    ten names, remove them, add ten more and keep following all twenty (a way around the quota).
--      * public.watch_periods: one row per period, kept by a trigger on public.watchlist_entries (an entry
--        watched again reuses its row, so the entry alone cannot say when it was watched before);
--      * domain_status_changes.caused_by: the account whose live check recorded a change (null for the
--        poller's), set by private.note_live_change_account in the transaction that records the check;
--      * the read policy and public.domain_detail apply the same rule (parity: pgTAP 33_history_periods).
--
-- 2. An answer the registry gave that could not be read (reason whois_unrecognized) is noted on the name
--    (domains.registry_unreadable_at, private.note_registry_reading) so the name's page can say "the
--    registry's answer could not be read"; a later check that reads the registry's answer clears it. It no
--    longer counts against the registry's host (availability/whois_check.ts); the poller asks that name again
--    later (poller/whois_schedule.ts).

-- ---------------------------------------------------------------------------------------------------
-- watch_periods
-- ---------------------------------------------------------------------------------------------------
create table public.watch_periods (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  domain_name text not null,
  started_at timestamptz not null,
  ended_at timestamptz,
  constraint watch_periods_order_check check (ended_at is null or ended_at >= started_at)
);

comment on table public.watch_periods is
  'When each account watched each name: from adding it (started_at) to removing it (ended_at, null while '
  'watched). Kept by a trigger on public.watchlist_entries; bounds what the account reads of the name''s '
  'history (public.domain_status_changes).';

create index watch_periods_user_id_domain_name_idx
  on public.watch_periods (user_id, domain_name, started_at);

-- At most one open period per account and name.
create unique index watch_periods_open_key
  on public.watch_periods (user_id, domain_name) where ended_at is null;

alter table public.watch_periods enable row level security;

create policy "Users can read their own watch periods"
  on public.watch_periods for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read watch periods"
  on public.watch_periods as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

grant select on table public.watch_periods to authenticated;
grant select, insert, update, delete on table public.watch_periods to service_role;

-- The periods of the entries there are (an entry removed and added again before this migration has only its
-- current period: the earlier ones were not kept).
insert into public.watch_periods (user_id, domain_name, started_at, ended_at)
select e.user_id, e.domain_name, e.added_at,
       case when e.deleted_at is not null then greatest(e.deleted_at, e.added_at) end
  from public.watchlist_entries as e;

-- An entry added opens a period; removed (or deleted outright), closes it; watched again (deleted_at cleared,
-- added_at renewed), opens a new one. Only the functions write watchlist_entries (add_watchlist_domains, remove_watchlist_domain,
-- the service role), and every write goes through this trigger.
create function private.track_watch_period()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    if new.deleted_at is null then
      insert into public.watch_periods (user_id, domain_name, started_at)
      values (new.user_id, new.domain_name, new.added_at);
    else
      insert into public.watch_periods (user_id, domain_name, started_at, ended_at)
      values (new.user_id, new.domain_name, new.added_at, greatest(new.deleted_at, new.added_at));
    end if;
    return null;
  end if;
  if tg_op = 'DELETE' then
    -- An entry deleted outright (not removed) ends its open period now.
    update public.watch_periods as p
       set ended_at = greatest(now(), p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
    return null;
  end if;
  -- UPDATE
  if old.deleted_at is null and new.deleted_at is not null then
    update public.watch_periods as p
       set ended_at = greatest(new.deleted_at, p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
  elsif old.deleted_at is not null and new.deleted_at is null then
    update public.watch_periods as p
       set ended_at = greatest(old.deleted_at, p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
    insert into public.watch_periods (user_id, domain_name, started_at)
    values (new.user_id, new.domain_name, new.added_at);
  end if;
  return null;
end
$$;

revoke all on function private.track_watch_period() from public, anon, authenticated, service_role;

create trigger watchlist_entries_track_watch_period
  after insert or update of deleted_at, added_at or delete on public.watchlist_entries
  for each row execute function private.track_watch_period();

-- ---------------------------------------------------------------------------------------------------
-- domain_status_changes: who caused a live change, and the read rule.
-- ---------------------------------------------------------------------------------------------------
alter table public.domain_status_changes
  add column caused_by uuid references public.profiles (id) on delete set null;

comment on column public.domain_status_changes.caused_by is
  'source = live: the account whose live check recorded the change (null once that account is deleted). '
  'Null for the poller''s changes. Another account never reads a live change it did not cause.';

-- A live check's result was just recorded (record_domain_check, source live) in this transaction: the history
-- row of that transition, if one was written, names the account that asked.
create function private.note_live_change_account(
  p_domain_name text,
  p_checked_at timestamptz,
  p_account uuid
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domain_status_changes as h
     set caused_by = p_account
   where h.domain_id = (select d.id from public.domains as d where d.name = p_domain_name)
     and h.changed_at = p_checked_at
     and h.source = 'live'
     and h.caused_by is null
$$;

revoke all on function private.note_live_change_account(text, timestamptz, uuid)
  from public, anon, authenticated, service_role;
grant execute on function private.note_live_change_account(text, timestamptz, uuid) to service_role;

drop policy "Users can read the history of the names they watch or watched" on public.domain_status_changes;

-- The one rule (public.domain_detail applies it too, with the same predicate): a change the poller recorded
-- or the reader's own live check caused, made while the reader watched the name.
create policy "Users can read a name's changes made while they watched it"
  on public.domain_status_changes for select to authenticated
  using (
    (source = 'poller' or caused_by = (select auth.uid()))
    and exists (
      select 1
        from public.watch_periods as p
       where p.user_id = (select auth.uid())
         and p.domain_name = domain_status_changes.domain_name
         and p.started_at <= domain_status_changes.changed_at
         and (p.ended_at is null or domain_status_changes.changed_at <= p.ended_at)
    )
  );

comment on table public.domain_status_changes is
  'Each name''s history of states: one row per change of public.domains.status (previous_status null: first '
  'seen, the first decided check). evidence: why an available was believed (as domain.available carries it). '
  'An account reads the changes made while it watched the name (public.watch_periods) that the poller '
  'recorded or its own live checks caused (caused_by).';

-- ---------------------------------------------------------------------------------------------------
-- domains.registry_unreadable_at
-- ---------------------------------------------------------------------------------------------------
alter table public.domains add column registry_unreadable_at timestamptz;

comment on column public.domains.registry_unreadable_at is
  'When the last check of the name got an answer from the registry that could not be read (reason '
  'whois_unrecognized: a reserved or blocked name''s text, a new phrasing); null once a later check reads the '
  'registry''s answer. Shown on the name''s page.';

-- Called by the poller with a recorded check whose registry answer could not be read (domain_queue.ts):
-- p_unreadable true notes the check's time; false clears it (a readable answer clears it through
-- record_registry_answer below). A result older than the name's last check changes nothing.
create function private.note_registry_reading(
  p_domain_name text,
  p_checked_at timestamptz,
  p_unreadable boolean
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set registry_unreadable_at = case when p_unreadable then p_checked_at end
   where d.name = p_domain_name
     and p_checked_at is not null
     and p_unreadable is not null
     and (d.last_checked_at is null or d.last_checked_at <= p_checked_at)
     and d.registry_unreadable_at is distinct from (case when p_unreadable then p_checked_at end)
$$;

revoke all on function private.note_registry_reading(text, timestamptz, boolean)
  from public, anon, authenticated, service_role;
grant execute on function private.note_registry_reading(text, timestamptz, boolean) to service_role;

-- A check in which the registry answered about the name (poller/dns_first.ts registryAnswered) also clears
-- the note, in the statement that already records that answer (20261122000900_poller.sql; redefined here):
-- no extra round trip per check for the poller.
create or replace function private.record_registry_answer(p_domain_name text, p_answered_at timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set registry_asked_at = p_answered_at,
         registry_unreadable_at = case when d.registry_unreadable_at > p_answered_at
                                       then d.registry_unreadable_at end
   where d.name = p_domain_name
     and p_answered_at is not null
     and (d.registry_asked_at is null or d.registry_asked_at < p_answered_at);
$$;

-- One watched name as the app shows it: as before, plus registry_unreadable_at.
create or replace function private.watched_domain_json(
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
    'prediction_basis', case when p_domain.status = 'pending_delete' then p_domain.prediction_basis end,
    'registry_unreadable_at', p_domain.registry_unreadable_at
  )
$$;

-- ---------------------------------------------------------------------------------------------------
-- domain_detail: as before (20261122001270_app_reads.sql), its history under the read rule above.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.domain_detail(p_domain_name text)
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
  perform private.refuse_oauth_client_token();
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
   where h.domain_id = v_domain.id
     -- The read policy's rule, word for word (20261206000400): the poller's or the caller's own live change,
     -- made while the caller watched the name.
     and (h.source = 'poller' or h.caused_by = v_uid)
     and exists (
       select 1
         from public.watch_periods as p
        where p.user_id = v_uid
          and p.domain_name = h.domain_name
          and p.started_at <= h.changed_at
          and (p.ended_at is null or h.changed_at <= p.ended_at)
     );

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

-- ---------------------------------------------------------------------------------------------------
-- Issue 40, point 5: not-found patterns that echo the name say which name (`(?<name>…)`): the answer counts
-- only when it is the queried name (_shared/whois/answer.ts). `.tr` (TRABIS) has answered
-- `No match found for <name>` without quotes since 2025; both forms are read (quotes, if any, balanced).
-- Limit notices every registry shares are read for every row in answer.ts (COMMON_LIMIT_NOTICE).
-- ---------------------------------------------------------------------------------------------------
update public.whois_servers
   set not_found_pattern = '^No match found for ("?)(?<name>[^"\s]+)\1$',
       source = source || ' Issue 40 (2026-12): "No match found for <name>" without quotes (TRABIS since 2025), the quoted form still read.'
 where suffix = 'tr';
update public.whois_servers
   set not_found_pattern = '^(?:domain )?"(?<name>[^"]+)" not found\.$'
 where suffix = 'se';
update public.whois_servers
   set not_found_pattern = '^(?:query_status:\s*220 Available|Not found:\s*(?<name>\S+\.nz))$'
 where suffix = 'nz';
update public.whois_servers
   set not_found_pattern = '^(?<name>\S+\.pt)(?: -)? no match$'
 where suffix = 'pt';
update public.whois_servers
   set not_found_pattern = '^No such domain (?<name>\S+\.ac\.uk)$'
 where suffix = 'ac.uk';
update public.whois_servers
   set not_found_pattern = '^No such domain (?<name>\S+\.gov\.uk)$'
 where suffix = 'gov.uk';
update public.whois_servers
   set not_found_pattern = '^No match found for (?<name>\S+\.gov\.za)$'
 where suffix = 'gov.za';

-- Today's "not found" answers of two more rows (richardpenman/whois parser.py, commits 9ddb23d4 of 2025-09-23
-- and 6a1d9375 of 2025-10-13, "update many not found situations", checked against the servers): .au's
-- registry answers "Domain not found." (the older "NOT FOUND" / "No Data Found" still read); .dk's
-- (whois.punktum.dk) "No entries found for the selected source(s)." (RIPE style), the older form still read.
update public.whois_servers
   set not_found_pattern = '^(?:NOT FOUND|No Data Found|Domain not found\.?)$',
       source = source || ' Issue 40 (2026-12): "Domain not found." (richardpenman/whois parser, 2025-09).'
 where suffix = 'au';
update public.whois_servers
   set not_found_pattern = '^No entries found for the selected source(?:\(s\))?\.$',
       source = source || ' Issue 40 (2026-12): the RIPE-style "source(s)" form (richardpenman/whois parser, 2025-09).'
 where suffix = 'dk';
