-- The drop radar (docs/app.md "The drop radar"): the watchlist's default view ordered by urgency, a summary
-- whose numbers filter it, why an unknown name is unknown, and tags and a note per watched name.
--
--   * watchlist_entries.tags / note: the user's own, limits held here (up to 10 tags of 1–32 characters,
--     no commas or control characters; a note of 1–500 characters). Written only by set_watchlist_details
--     and tag_watchlist_domains (both refuse assistants' tokens).
--   * domains.unknown_reason: the check reason (contract `checkReason`) of the poller's last undecided check
--     of the name, so the app can say why a name is unknown (written by private.note_unknown_reason).
--   * watchlist_page (redefined with more parameters: order, keyset cursor, summary filter, tag) and
--     watchlist_summary (the counts). domain_detail is redefined to carry tags, note and unknown_reason.

-- ---------------------------------------------------------------------------------------------------
-- Tags and notes
-- ---------------------------------------------------------------------------------------------------

-- Why a list of tags is not acceptable, or null. Each tag: 1–32 characters, no surrounding blanks, no
-- comma (the CSV export joins tags with commas) and no control character; at most 10, no repeats.
create function private.tags_problem(p_tags text[])
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    when p_tags is null then 'tags must be a list'
    when coalesce(array_ndims(p_tags), 1) <> 1 then 'tags must be a flat list'
    when cardinality(p_tags) > 10 then 'a name has at most 10 tags'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag is null) then 'a tag cannot be null'
    when exists (select 1 from unnest(p_tags) as t (tag) where char_length(t.tag) not between 1 and 32)
      then 'a tag has 1 to 32 characters'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag <> btrim(t.tag))
      then 'a tag cannot start or end with a space'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag ~ '[,[:cntrl:]]')
      then 'a tag cannot contain a comma or a control character'
    when (select count(distinct t.tag) from unnest(p_tags) as t (tag)) <> cardinality(p_tags)
      then 'a tag is repeated'
  end
$$;
revoke all on function private.tags_problem(text[]) from public, anon, authenticated, service_role;
-- The table's check constraint calls it as the writing role: service_role writes entries too.
grant execute on function private.tags_problem(text[]) to service_role;

alter table public.watchlist_entries
  add column tags text[] not null default '{}'
    constraint watchlist_entries_tags_check check (private.tags_problem(tags) is null),
  add column note text
    constraint watchlist_entries_note_check check (note is null or char_length(note) between 1 and 500);

comment on column public.watchlist_entries.tags is
  'The user''s own tags for the name: up to 10, each 1–32 characters (private.tags_problem). Kept while '
  'the entry is removed, so adding the name again (undo) brings them back.';
comment on column public.watchlist_entries.note is
  'The user''s own note for the name, 1–500 characters, or null.';

-- The tags as the caller sent them, trimmed (blank ones dropped, repeats dropped, order kept).
create function private.cleaned_tags(p_tags text[])
returns text[]
language sql
immutable
set search_path = ''
as $$
  select coalesce(array_agg(t.tag order by t.first), '{}')
    from (
      select btrim(u.tag) as tag, min(u.ord) as first
        from unnest(p_tags) with ordinality as u (tag, ord)
       where u.tag is not null and btrim(u.tag) <> ''
       group by btrim(u.tag)
    ) as t
$$;
revoke all on function private.cleaned_tags(text[]) from public, anon, authenticated, service_role;

-- A name's tags after removing p_remove and then adding p_add (new ones at the end, order kept).
create function private.retagged(p_tags text[], p_add text[], p_remove text[])
returns text[]
language sql
immutable
set search_path = ''
as $$
  select private.cleaned_tags(array(select t.tag from unnest(p_tags) with ordinality as t (tag, ord)
                                     where t.tag <> all (p_remove) order by t.ord) || p_add)
$$;
revoke all on function private.retagged(text[], text[], text[]) from public, anon, authenticated, service_role;

-- A name as the watchlist functions take it: lower case, surrounding blanks and a trailing dot dropped.
create function private.watched_name(p_name text)
returns text
language sql
immutable
set search_path = ''
as $$
  select rtrim(lower(btrim(coalesce(p_name, ''))), '.')
$$;
revoke all on function private.watched_name(text) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- set_watchlist_details: sets the tags and/or the note of names on the caller's active watchlist.
--   p_items: a JSON array of 1–500 objects {"domain_name": "...", "tags": [...], "note": "..." | null}.
--   `tags` replaces the name's tags (trimmed; blank and repeated ones dropped); `note` replaces the note
--   (null or blank clears it); a field that is absent is left as it is. Everything is validated first: any
--   bad item is DW400 naming it, and nothing is written. Names not on the active watchlist are skipped and
--   listed. Returns {"updated": n, "not_watched": [names]}. Used by the name's page, the CSV import and the
--   undo of a bulk tag (which restores each name's previous tags).
-- ---------------------------------------------------------------------------------------------------
create function public.set_watchlist_details(p_items jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_problem text;
  v_updated integer;
  v_not_watched jsonb;
begin
  perform private.refuse_oauth_client_token();
  if p_items is null or jsonb_typeof(p_items) <> 'array' or jsonb_array_length(p_items) not between 1 and 500
  then
    raise exception using errcode = 'DW400', message = 'DW400: Send a list of 1 to 500 names with their details.';
  end if;

  select format('item %s (%s): %s', i.ord, coalesce(i.item ->> 'domain_name', '?'), p.problem)
    into v_problem
    from jsonb_array_elements(p_items) with ordinality as i (item, ord)
    cross join lateral (
      select case
        when jsonb_typeof(i.item) <> 'object' then 'each item must be an object'
        when exists (select 1 from jsonb_object_keys(i.item) as k (key)
                      where k.key not in ('domain_name', 'tags', 'note'))
          then 'only domain_name, tags and note may be set'
        when jsonb_typeof(i.item -> 'domain_name') is distinct from 'string'
          then 'domain_name must be a string'
        when i.item ? 'tags' and (jsonb_typeof(i.item -> 'tags') <> 'array'
                                  or exists (select 1 from jsonb_array_elements(i.item -> 'tags') as t (tag)
                                              where jsonb_typeof(t.tag) <> 'string'))
          then 'tags must be a list of strings'
        when i.item ? 'tags' and private.tags_problem(private.cleaned_tags(
               array(select jsonb_array_elements_text(i.item -> 'tags')))) is not null
          then private.tags_problem(private.cleaned_tags(array(select jsonb_array_elements_text(i.item -> 'tags'))))
        when i.item ? 'note' and jsonb_typeof(i.item -> 'note') not in ('string', 'null')
          then 'note must be a string or null'
        when char_length(btrim(coalesce(i.item ->> 'note', ''))) > 500 then 'a note has at most 500 characters'
      end as problem
    ) as p
   where p.problem is not null
   order by i.ord
   limit 1;
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem || '.';
  end if;

  with items as (
    select private.watched_name(i.item ->> 'domain_name') as domain_name,
           i.item ? 'tags' as has_tags,
           case when i.item ? 'tags'
                then private.cleaned_tags(array(select jsonb_array_elements_text(i.item -> 'tags'))) end as tags,
           i.item ? 'note' as has_note,
           nullif(btrim(coalesce(i.item ->> 'note', '')), '') as note,
           i.ord
      from jsonb_array_elements(p_items) with ordinality as i (item, ord)
  ),
  last_items as (
    -- A name sent twice: its last item wins.
    select distinct on (it.domain_name) it.* from items as it order by it.domain_name, it.ord desc
  ),
  updated as (
    update public.watchlist_entries as e
       set tags = case when li.has_tags then li.tags else e.tags end,
           note = case when li.has_note then li.note else e.note end
      from last_items as li
     where e.user_id = v_uid and e.deleted_at is null and e.domain_name = li.domain_name
    returning e.domain_name
  )
  select (select count(*)::integer from updated),
         coalesce((select jsonb_agg(li.domain_name order by li.domain_name) from last_items as li
                    where li.domain_name not in (select u.domain_name from updated as u)), '[]'::jsonb)
    into v_updated, v_not_watched;

  return jsonb_build_object('updated', v_updated, 'not_watched', v_not_watched);
end
$$;
revoke all on function public.set_watchlist_details(jsonb) from public, anon, authenticated, service_role;
grant execute on function public.set_watchlist_details(jsonb) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- tag_watchlist_domains: adds and removes tags on several names of the caller's active watchlist at once
-- (the app's bulk "Tag"). p_domain_names: 1–1,000 names; p_add / p_remove: tags (trimmed). A name that
-- would end with more than 10 tags is DW400 naming it, and nothing is written. Returns how many names
-- changed. The app's undo of a bulk tag calls set_watchlist_details with each name's previous tags.
-- ---------------------------------------------------------------------------------------------------
create function public.tag_watchlist_domains(
  p_domain_names text[],
  p_add text[] default '{}',
  p_remove text[] default '{}'
)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_add text[] := private.cleaned_tags(coalesce(p_add, '{}'));
  v_remove text[] := private.cleaned_tags(coalesce(p_remove, '{}'));
  v_problem text;
  v_changed integer;
begin
  perform private.refuse_oauth_client_token();
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1
     or cardinality(p_domain_names) not between 1 and 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: Send 1 to 1000 names.';
  end if;
  if cardinality(v_add) = 0 and cardinality(v_remove) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: Name a tag to add or to remove.';
  end if;
  v_problem := coalesce(private.tags_problem(v_add), private.tags_problem(v_remove));
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem || '.';
  end if;

  select string_agg(e.domain_name, ', ' order by e.domain_name) into v_problem
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.deleted_at is null
     and e.domain_name in (select private.watched_name(n) from unnest(p_domain_names) as n)
     and cardinality(private.retagged(e.tags, v_add, v_remove)) > 10;
  if v_problem is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: A name has at most 10 tags; these would have more: ' || left(v_problem, 400) || '.';
  end if;

  -- The table's check constraint holds the limit under concurrency too (a concurrent change that would
  -- pass it fails with 23514).
  with changed as (
    update public.watchlist_entries as e
       set tags = private.retagged(e.tags, v_add, v_remove)
     where e.user_id = v_uid and e.deleted_at is null
       and e.domain_name in (select private.watched_name(n) from unnest(p_domain_names) as n)
       and e.tags is distinct from private.retagged(e.tags, v_add, v_remove)
    returning 1
  )
  select count(*)::integer into v_changed from changed;
  return v_changed;
end
$$;
revoke all on function public.tag_watchlist_domains(text[], text[], text[])
  from public, anon, authenticated, service_role;
grant execute on function public.tag_watchlist_domains(text[], text[], text[]) to authenticated;

-- Filtering by tag reads the account's entries; the radar is per account, so no index beyond
-- watchlist_entries_active_user_idx is needed (measured in 36_drop_radar.test.sql).

-- ---------------------------------------------------------------------------------------------------
-- Why an unknown name is unknown
-- ---------------------------------------------------------------------------------------------------
alter table public.domains
  add column unknown_reason text
    constraint domains_unknown_reason_check check (unknown_reason ~ '^[a-z0-9_]{1,64}$');

comment on column public.domains.unknown_reason is
  'The reason (the API contract''s check reason, e.g. rdap_timeout) of the poller''s last undecided check '
  'of the name; shown while the status is unknown. Written by private.note_unknown_reason.';

-- Called with every poller check that decided nothing (availability/live_check.ts, recordDomainCheck).
create function private.note_unknown_reason(p_domain_name text, p_reason text)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set unknown_reason = p_reason
   where d.name = p_domain_name
     and d.unknown_reason is distinct from p_reason
     and p_reason ~ '^[a-z0-9_]{1,64}$'
$$;
revoke all on function private.note_unknown_reason(text, text) from public, anon, authenticated, service_role;
grant execute on function private.note_unknown_reason(text, text) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- One watched name of the caller's own list as the app shows it (a watchlist_page row, the "domain" of
-- domain_detail; an organization's rows keep private.watched_domain_json): the drop prediction only while the name
-- is in pending delete; why it is unknown and when it is checked next only while it is unknown; the
-- entry's tags (always, [] when none) and note (null when none).
-- ---------------------------------------------------------------------------------------------------
create function private.watched_entry_json(p_entry public.watchlist_entries, p_domain public.domains)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'domain_name', p_entry.domain_name,
    'unicode_name', p_entry.unicode_name,
    'status', p_domain.status,
    'added_at', p_entry.added_at,
    'last_checked_at', p_domain.last_checked_at,
    'status_changed_at', p_domain.status_changed_at,
    'expires_at', p_domain.expires_at,
    'registrar', p_domain.registrar,
    'predicted_drop_at', case when p_domain.status = 'pending_delete' then p_domain.predicted_drop_at end,
    'prediction_basis', case when p_domain.status = 'pending_delete' then p_domain.prediction_basis end,
    'unknown_reason', case when p_domain.status = 'unknown'
                           then coalesce(p_domain.unknown_reason,
                                         case when p_domain.last_checked_at is null then 'not_checked_yet' end)
                      end,
    'next_check_at', case when p_domain.status = 'unknown' then p_domain.next_check_at end,
    'tags', to_jsonb(p_entry.tags),
    'note', p_entry.note,
    -- When the last poller check got a registry answer it could not read (20261206000400); null otherwise.
    'registry_unreadable_at', p_domain.registry_unreadable_at
  )
$$;
revoke all on function private.watched_entry_json(public.watchlist_entries, public.domains)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- The radar's order. Every order is a key (rank, key, name) sorted ascending, so one keyset serves all:
--   urgency (the default): 0 available; 1 pending delete, by predicted drop (soonest first, names without
--     a prediction after those with one); 2 registered and expiring within 30 days (or expired), by
--     expiry date; 3 unknown; 4 the rest; ties and ranks 0, 3 and 4 by name.
--   name: by name.  expiry: by expiry date (names without one last).  added: newest first.
-- Inlined by the planner into the page's query (single-expression SQL functions without a SET clause, in the
-- private schema: they read no table and call only built-in operators, so no search_path is needed).
-- ---------------------------------------------------------------------------------------------------
create function private.radar_rank(
  p_order text,
  p_status text,
  p_expires_at timestamptz,
  p_now timestamptz
)
returns integer
language sql
stable
as $$
  select case p_order
    when 'urgency' then
      case when p_status = 'available' then 0
           when p_status = 'pending_delete' then 1
           when p_status = 'registered' and p_expires_at < p_now + interval '30 days' then 2
           when p_status = 'unknown' then 3
           else 4 end
    when 'expiry' then case when p_expires_at is null then 1 else 0 end
    else 0
  end
$$;
revoke all on function private.radar_rank(text, text, timestamptz, timestamptz)
  from public, anon, authenticated, service_role;

create function private.radar_key(
  p_order text,
  p_status text,
  p_expires_at timestamptz,
  p_predicted_drop_at timestamptz,
  p_added_at timestamptz,
  p_now timestamptz
)
returns numeric
language sql
stable
as $$
  select case p_order
    when 'urgency' then
      case when p_status = 'pending_delete' then coalesce(extract(epoch from p_predicted_drop_at), 1e12)
           when p_status = 'registered' and p_expires_at < p_now + interval '30 days'
             then extract(epoch from p_expires_at)
           else 0 end
    when 'expiry' then coalesce(extract(epoch from p_expires_at), 0)
    when 'added' then -extract(epoch from p_added_at)
    else 0
  end
$$;
revoke all on function private.radar_key(text, text, timestamptz, timestamptz, timestamptz, timestamptz)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- watchlist_summary: the radar's counts over the caller's active watchlist, each the number of names the
-- matching watchlist_page `p_focus` lists: available_now (available), dropping_within_7_days (pending delete
-- with a predicted drop before now + 7 days), expiring_within_30_days (registered, expiry before now + 30
-- days, expired ones included), unknown; and total.
-- ---------------------------------------------------------------------------------------------------
create function public.watchlist_summary()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_now timestamptz := now();
  v_result jsonb;
begin
  select jsonb_build_object(
           'available_now', count(*) filter (where d.status = 'available'),
           'dropping_within_7_days', count(*) filter (where d.status = 'pending_delete'
                                                        and d.predicted_drop_at < v_now + interval '7 days'),
           'expiring_within_30_days', count(*) filter (where d.status = 'registered'
                                                         and d.expires_at < v_now + interval '30 days'),
           'unknown', count(*) filter (where d.status = 'unknown'),
           'total', count(*))
    into v_result
    from public.watchlist_entries as e
    join public.domains as d on d.name = e.domain_name
   where e.user_id = v_uid and e.deleted_at is null;
  return v_result;
end
$$;
revoke all on function public.watchlist_summary() from public, anon, authenticated, service_role;
grant execute on function public.watchlist_summary() to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- watchlist_page (redefined): one page of the caller's active watchlist, with the number of names that
-- match and the keyset cursor of the next page.
--   p_status: one of the four statuses, or null. p_search: a case-insensitive literal substring of
--   domain_name or unicode_name. p_limit 1–200.
--   p_order: 'urgency' (default), 'name', 'expiry', 'added' (private.radar_rank / radar_key).
--   p_after: the `next_cursor` of the previous page in the same order and filters (keyset paging, stable
--   while names are added or removed); p_offset: rows to skip instead (both together: 22023).
--   p_focus: a summary filter: 'available_now', 'dropping_within_7_days', 'expiring_within_30_days',
--   'unknown' (as watchlist_summary counts them). p_tag: only names carrying that tag (exact).
--   Anything out of range is SQLSTATE 22023 (PostgREST: 400).
--   Answer: {"total": n, "domains": [...], "next_cursor": "<rank>|<key>|<name>" or null}.
-- The caller's entries are one source (`e.user_id = $1 and e.deleted_at is null`); a list or organization
-- parameter added later narrows that source and leaves the ordering and paging as they are.
-- Plans: the name order without status or summary filter walks watchlist_entries_active_user_idx in order
-- and joins only the page; every other order or filter joins the account's entries to their domains (one
-- primary-key lookup each) and keeps the top of the page with a bounded sort. Built as dynamic SQL so each
-- call is planned for its order and filters (docs/database.md has the figures at 10,000 names).
-- ---------------------------------------------------------------------------------------------------
drop function public.watchlist_page(text, text, integer, integer);

create function public.watchlist_page(
  p_status text default null,
  p_search text default null,
  p_limit integer default 50,
  p_offset integer default null,
  p_order text default 'urgency',
  p_after text default null,
  p_focus text default null,
  p_tag text default null
)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_now timestamptz := now();
  v_pattern text;
  v_order text := coalesce(p_order, 'urgency');
  v_after_rank integer;
  v_after_key numeric;
  v_after_name text;
  v_where text := 'e.user_id = $1 and e.deleted_at is null';
  v_filtered boolean;
  v_joined boolean;
  v_rank text;
  v_key text;
  v_total integer;
  v_rows jsonb;
  v_next text;
begin
  if p_limit is null or p_limit < 1 or p_limit > 200 then
    raise exception using errcode = '22023', message = 'limit must be between 1 and 200.';
  end if;
  if p_offset is not null and p_offset < 0 then
    raise exception using errcode = '22023', message = 'offset must not be negative.';
  end if;
  if p_offset is not null and p_after is not null then
    raise exception using errcode = '22023', message = 'Send either a cursor or an offset, not both.';
  end if;
  if p_status is not null and p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = '22023',
      message = 'status must be one of unknown, registered, pending_delete, available.';
  end if;
  if v_order not in ('urgency', 'name', 'expiry', 'added') then
    raise exception using errcode = '22023', message = 'order must be one of urgency, name, expiry, added.';
  end if;
  if p_focus is not null
     and p_focus not in ('available_now', 'dropping_within_7_days', 'expiring_within_30_days', 'unknown') then
    raise exception using errcode = '22023', message =
      'focus must be one of available_now, dropping_within_7_days, expiring_within_30_days, unknown.';
  end if;
  if p_search is not null and char_length(p_search) > 253 then
    raise exception using errcode = '22023', message = 'search must be at most 253 characters.';
  end if;
  if p_tag is not null and char_length(p_tag) > 32 then
    raise exception using errcode = '22023', message = 'a tag has at most 32 characters.';
  end if;
  if p_after is not null then
    if p_after !~ '^[0-9]\|-?[0-9]+(\.[0-9]+)?\|[a-z0-9.-]{1,253}$' then
      raise exception using errcode = '22023', message = 'cursor is not one this function gave.';
    end if;
    v_after_rank := split_part(p_after, '|', 1)::integer;
    v_after_key := split_part(p_after, '|', 2)::numeric;
    v_after_name := split_part(p_after, '|', 3);
  end if;
  if nullif(btrim(p_search), '') is not null then
    v_pattern := '%' || replace(replace(replace(btrim(p_search), '\', '\\'), '%', '\%'), '_', '\_') || '%';
    v_where := v_where || ' and (e.domain_name ilike $2 escape ''\'' or e.unicode_name ilike $2 escape ''\'')';
  end if;
  if nullif(p_tag, '') is not null then
    v_where := v_where || ' and e.tags @> array[$3]';
  end if;

  -- Conditions on the domain row.
  v_filtered := p_status is not null or p_focus is not null;
  v_joined := v_filtered or v_order <> 'name';
  if p_status is not null then
    v_where := v_where || ' and d.status = $4';
  end if;
  v_where := v_where || case p_focus
    when 'available_now' then ' and d.status = ''available'''
    when 'dropping_within_7_days' then
      ' and d.status = ''pending_delete'' and d.predicted_drop_at < $5 + interval ''7 days'''
    when 'expiring_within_30_days' then
      ' and d.status = ''registered'' and d.expires_at < $5 + interval ''30 days'''
    when 'unknown' then ' and d.status = ''unknown'''
    else '' end;

  v_rank := format('private.radar_rank(%L, d.status, d.expires_at, $5)', v_order);
  v_key := format('private.radar_key(%L, d.status, d.expires_at, d.predicted_drop_at, e.added_at, $5)', v_order);

  if v_filtered then
    execute 'select count(*)::integer from public.watchlist_entries as e
               join public.domains as d on d.name = e.domain_name where ' || v_where
       into v_total
      using v_uid, v_pattern, p_tag, p_status, v_now;
  else
    execute 'select count(*)::integer from public.watchlist_entries as e where ' || v_where
       into v_total
      using v_uid, v_pattern, p_tag, p_status, v_now;
  end if;

  if v_total = 0 or coalesce(p_offset, 0) >= v_total then
    return jsonb_build_object('total', v_total, 'domains', '[]'::jsonb, 'next_cursor', null);
  end if;

  if not v_joined then
    -- The name order: the index gives the order; only the page is joined.
    execute format(
      'with page as (
         select page_rows.e, row_number() over (order by (page_rows.e).domain_name collate "C") as n
           from (
             select e from public.watchlist_entries as e
              where %s %s
              order by e.domain_name collate "C"
              limit $7 + 1 offset $8
           ) as page_rows
       )
       select jsonb_agg(private.watched_entry_json(p.e, pd.d) order by p.n) filter (where p.n <= $7),
              max(case when p.n = $7 then ''0|0|'' || (p.e).domain_name end)
                filter (where (select count(*) from page) > $7)
         from page as p
         cross join lateral (select d from public.domains as d where d.name = (p.e).domain_name offset 0) as pd',
      v_where,
      case when p_after is null then '' else 'and e.domain_name collate "C" > $6 collate "C"' end)
      into v_rows, v_next
      using v_uid, v_pattern, p_tag, p_status, v_now, v_after_name, p_limit, coalesce(p_offset, 0);
  else
    execute format(
      'with page as (
         select r.id, r.rank, r.key, r.domain_name,
                row_number() over (order by r.rank, r.key, r.domain_name collate "C") as n
           from (
             select k.* from (
               select e.id, e.domain_name, %1$s as rank, %2$s as key
                 from public.watchlist_entries as e
                 join public.domains as d on d.name = e.domain_name
                where %3$s
             ) as k
              where %4$s
              order by k.rank, k.key, k.domain_name collate "C"
              limit $7 + 1 offset $8
           ) as r
       )
       select jsonb_agg(private.watched_entry_json(pe.e, pd.d) order by p.n) filter (where p.n <= $7),
              max(case when p.n = $7 then p.rank || ''|'' || p.key || ''|'' || p.domain_name end)
                filter (where (select count(*) from page) > $7)
         from page as p
         cross join lateral (select e from public.watchlist_entries as e where e.id = p.id offset 0) as pe
         cross join lateral (select d from public.domains as d where d.name = p.domain_name offset 0) as pd',
      v_rank, v_key, v_where,
      case when p_after is null then 'true'
           else '(k.rank > $9 or (k.rank = $9 and (k.key > $10 or (k.key = $10
                   and k.domain_name collate "C" > $6 collate "C"))))' end)
      into v_rows, v_next
      using v_uid, v_pattern, p_tag, p_status, v_now, v_after_name, p_limit, coalesce(p_offset, 0),
            v_after_rank, v_after_key;
  end if;

  return jsonb_build_object('total', v_total, 'domains', coalesce(v_rows, '[]'::jsonb), 'next_cursor', v_next);
end
$$;

revoke all on function public.watchlist_page(text, text, integer, integer, text, text, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.watchlist_page(text, text, integer, integer, text, text, text, text)
  to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- domain_detail (redefined): as before (its history under 20261206000400's read rule), with the row built by
-- watched_entry_json (tags, note, why it is unknown).
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
  v_name text := private.watched_name(p_domain_name);
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
    'domain', private.watched_entry_json(v_entry, v_domain),
    'history', v_history,
    'alerts', v_alerts);
end
$$;

-- private.watched_domain_json stays: an organization's list rows (20261206000800, organization_watchlist_page)
-- are built by it; the personal rows and domain_detail use watched_entry_json (tags, note, why unknown).

-- ---------------------------------------------------------------------------------------------------
-- list_watchlist (redefined: REST GET /domains and the MCP list_watchlist tool): the same pages, with the
-- entry's tags and note (the service adds them to a listed domain only when set). Its result type changes,
-- so it is dropped and created again, with the same grants.
-- ---------------------------------------------------------------------------------------------------
drop function public.list_watchlist(integer, integer, text);

create function public.list_watchlist(
  p_limit integer,
  p_offset integer default null,
  p_cursor text default null
)
returns table (
  domain_name text,
  unicode_name text,
  status text,
  added_at timestamptz,
  last_checked_at timestamptz,
  status_changed_at timestamptz,
  expires_at timestamptz,
  registrar text,
  tags text[],
  note text
)
language plpgsql
stable
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
begin
  if p_cursor is not null and p_offset is not null then
    raise exception using errcode = 'DW400', message = 'DW400: Send either cursor or offset, not both.';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: limit must be between 1 and 1000.';
  end if;
  if p_offset is not null and p_offset < 0 then
    raise exception using errcode = 'DW400', message = 'DW400: offset must not be negative.';
  end if;

  if coalesce(p_offset, 0) = 0 then
    -- Keyset: an index range scan of (user_id, domain_name collate "C") from the cursor (from the start
    -- when there is none: every name sorts after ''), joined to domains, limit + 1 rows.
    return query
      select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
             d.status_changed_at, d.expires_at, d.registrar, e.tags, e.note
        from public.watchlist_entries as e
        join public.domains as d on d.name = e.domain_name
       where e.user_id = v_uid
         and e.deleted_at is null
         and e.domain_name collate "C" > coalesce(p_cursor, '') collate "C"
       order by e.domain_name collate "C"
       limit p_limit + 1;
    return;
  end if;

  -- Offset: the skipped rows are counted on the index alone (index-only scan of the names), and only the
  -- page itself is joined to its entries and domains. Dynamic, so it is planned for this offset: a cached
  -- generic plan cannot know that an offset of 99,800 should still walk the index.
  return query execute
    'with page as (
       select s.domain_name
         from public.watchlist_entries as s
        where s.user_id = $1
          and s.deleted_at is null
        order by s.domain_name collate "C"
        limit $2 + 1
       offset $3
     )
     select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
            d.status_changed_at, d.expires_at, d.registrar, e.tags, e.note
       from page
       join public.watchlist_entries as e
         on e.user_id = $1 and e.domain_name = page.domain_name and e.deleted_at is null
       join public.domains as d on d.name = e.domain_name
      order by e.domain_name collate "C"'
    using v_uid, p_limit, p_offset;
end
$$;
revoke all on function public.list_watchlist(integer, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_watchlist(integer, integer, text) to authenticated;
