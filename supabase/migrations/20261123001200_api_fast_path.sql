-- The API's fast path (issue 12): one statement authenticates the key and counts the request, and the
-- watchlist page skips rows on the index alone.
--
--   * count_api_request (new, internal): the daily counter, the one place its rule lives;
--   * authorize_api_request (new, service_role): key → account → plan → counted request, one round trip;
--   * consume_api_request, authenticate_api_key (redefined): thin wrappers over the two above, same results;
--   * list_watchlist (redefined): separate keyset and offset plans; offset skips on the index only.

-- ---------------------------------------------------------------------------------------------------
-- count_api_request: one atomic upsert on today's counter. Internal (called by definer functions only).
-- ---------------------------------------------------------------------------------------------------
create function public.count_api_request(p_user_id uuid, p_limit integer)
returns table (allowed boolean, request_limit integer, remaining integer, reset_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_day date := (now() at time zone 'UTC')::date;
  v_reset_at timestamptz := ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC';
  v_count integer;
begin
  -- Unlimited plans are always allowed and not counted (no hot counter row).
  if p_limit is null then
    return query select true, null::integer, null::integer, v_reset_at;
    return;
  end if;

  if p_limit > 0 then
    -- The commit of a counted request need not wait for its WAL flush: a database crash can lose at most
    -- the last fraction of a second of increments, which only lets that many requests through again. It
    -- never refuses one wrongly, and visibility and row locks (and so exactness under concurrency) are
    -- unaffected. Local to the calling transaction (the API calls this in a single-statement transaction).
    perform set_config('synchronous_commit', 'off', true);
    -- Concurrent callers queue on the row lock and re-check the condition against the latest count.
    insert into public.api_request_counters as c (user_id, day, request_count)
    values (p_user_id, v_day, 1)
    on conflict (user_id, day) do update
       set request_count = c.request_count + 1
     where c.request_count < p_limit
    returning c.request_count into v_count;

    if found then
      return query select true, p_limit, p_limit - v_count, v_reset_at;
      return;
    end if;
  end if;

  return query select false, p_limit, 0, v_reset_at;
end
$$;

revoke all on function public.count_api_request(uuid, integer) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- authorize_api_request: the first and only database step of an API request before its data work.
-- outcome 'unauthorized' (unknown, revoked or no key), 'upgrade_required' (plan without API access:
-- nothing counted, allowed false) or 'ok' with the allowance: counted when p_count, else today's as is.
-- ---------------------------------------------------------------------------------------------------
create function public.authorize_api_request(p_key_hash text, p_count boolean default true)
returns table (
  outcome text,
  user_id uuid,
  plan_id text,
  allowed boolean,
  request_limit integer,
  remaining integer,
  reset_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_key_id uuid;
  v_user_id uuid;
  v_last_used_at timestamptz;
  v_plan_id text;
  v_api_access boolean;
  v_requests_per_day integer;
begin
  if p_key_hash is null or p_key_hash = '' then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz;
    return;
  end if;

  select k.id, k.user_id, k.last_used_at, p.plan_id, pl.api_access, pl.requests_per_day
    into v_key_id, v_user_id, v_last_used_at, v_plan_id, v_api_access, v_requests_per_day
    from public.api_keys as k
    join public.profiles as p on p.id = k.user_id
    join public.plans as pl on pl.id = p.plan_id
   where k.key_hash = p_key_hash
     and k.revoked_at is null;

  if not found then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz;
    return;
  end if;

  -- Record use at most once a minute, and never wait for a concurrent request holding the row. Like the
  -- counter, this bookkeeping need not wait for a durable flush (see count_api_request).
  if v_last_used_at is null or v_last_used_at < now() - interval '1 minute' then
    perform set_config('synchronous_commit', 'off', true);
    update public.api_keys as k
       set last_used_at = now()
     where k.id in (
       select k2.id
         from public.api_keys as k2
        where k2.id = v_key_id
          and (k2.last_used_at is null or k2.last_used_at < now() - interval '1 minute')
          for update skip locked
     );
  end if;

  if not v_api_access then
    return query select 'upgrade_required'::text, v_user_id, v_plan_id, false, v_requests_per_day,
                        null::integer, null::timestamptz;
    return;
  end if;

  if p_count then
    return query select 'ok'::text, v_user_id, v_plan_id, c.allowed, c.request_limit, c.remaining, c.reset_at
                   from public.count_api_request(v_user_id, v_requests_per_day) as c;
  else
    return query select 'ok'::text, v_user_id, v_plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at
                   from public.api_request_allowance(v_user_id) as a;
  end if;
end
$$;

revoke all on function public.authorize_api_request(text, boolean) from public, anon, authenticated, service_role;
grant execute on function public.authorize_api_request(text, boolean) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- authenticate_api_key (redefined): the key check alone, counting nothing; same columns as before.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.authenticate_api_key(p_key_hash text)
returns table (outcome text, user_id uuid, plan_id text, requests_per_day integer)
language sql
security definer
set search_path = ''
as $$
  select a.outcome,
         a.user_id,
         a.plan_id,
         case when a.outcome = 'unauthorized' then null else a.request_limit end
    from public.authorize_api_request(p_key_hash, false) as a
$$;

revoke all on function public.authenticate_api_key(text) from public, anon, authenticated, service_role;
grant execute on function public.authenticate_api_key(text) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- consume_api_request (redefined): the account's checks, then the shared counter.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.consume_api_request(p_user_id uuid)
returns table (allowed boolean, request_limit integer, remaining integer, reset_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_api_access boolean;
  v_limit integer;
begin
  select pl.api_access, pl.requests_per_day
    into v_api_access, v_limit
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = p_user_id;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: Unknown account.';
  end if;

  if not v_api_access then
    raise exception using errcode = 'DW403',
      message = 'DW403: upgrade_required: API access needs the Pro plan or higher.';
  end if;

  return query select c.allowed, c.request_limit, c.remaining, c.reset_at
                 from public.count_api_request(p_user_id, v_limit) as c;
end
$$;

revoke all on function public.consume_api_request(uuid) from public, anon, authenticated, service_role;
grant execute on function public.consume_api_request(uuid) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- list_watchlist (redefined). Now security definer with the account's own filter, which is exactly the
-- row-level-security condition: entries of the caller (current_account_id(), from the JWT claims) that
-- are not deleted, and the domains those entries name. Under security invoker the domains policy ran an
-- EXISTS probe, with a parse of the JWT claims, for every returned row. Still granted to authenticated
-- only. Keyset and offset paging get separate statements, so each keeps its own index plan:
--   * cursor: an index range scan from the cursor, joined to domains, limit + 1 rows;
--   * offset: the skipped rows are counted on the index alone (index-only scan of the names), and only the
--     page itself is joined to its entries and domains.
-- ---------------------------------------------------------------------------------------------------
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
-- Plan each page with its own limit, offset and cursor: a cached generic plan cannot know that an offset
-- of 99,800 should still walk the index, and planning these statements is cheap.
set plan_cache_mode = force_custom_plan
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

  if p_cursor is not null then
    return query
      select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
             d.status_changed_at, d.expires_at, d.registrar
        from public.watchlist_entries as e
        join public.domains as d on d.name = e.domain_name
       where e.user_id = v_uid
         and e.deleted_at is null
         and e.domain_name collate "C" > p_cursor collate "C"
       order by e.domain_name collate "C"
       limit p_limit + 1;
    return;
  end if;

  return query
    with page as (
      select s.domain_name
        from public.watchlist_entries as s
       where s.user_id = v_uid
         and s.deleted_at is null
       order by s.domain_name collate "C"
       limit p_limit + 1
      offset coalesce(p_offset, 0)
    )
    select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
           d.status_changed_at, d.expires_at, d.registrar
      from page
      join public.watchlist_entries as e
        on e.user_id = v_uid and e.domain_name = page.domain_name and e.deleted_at is null
      join public.domains as d on d.name = e.domain_name
     order by e.domain_name collate "C";
end
$$;

revoke all on function public.list_watchlist(integer, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_watchlist(integer, integer, text) to authenticated;
