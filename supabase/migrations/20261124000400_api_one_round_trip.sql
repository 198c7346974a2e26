-- The API in one round trip (issue 12, second pass). Measured per call (backend CPU, 100,000 names):
-- the first page went through the offset plan (index-only count, then a join back to the entries and the
-- domains), 2.4 ms for limit=1 against 0.45 ms for the keyset plan, and every call re-planned both
-- statements (`plan_cache_mode = force_custom_plan` on the function).
--
--   * list_watchlist (redefined): no cursor and no (or a zero) offset is the keyset plan from the start of
--     the list; only a positive offset takes the offset plan, run as a dynamic statement so that it alone
--     is planned for its own offset and limit; the keyset statement keeps a cached plan. Same signature,
--     results, errors and grants.

create or replace function public.list_watchlist(
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
  registrar text
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
             d.status_changed_at, d.expires_at, d.registrar
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
            d.status_changed_at, d.expires_at, d.registrar
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
