-- Issue 43: a small API request close to a bare query. GET /domains (and MCP's list_watchlist) with a personal
-- API key or an OAuth token read their page in ONE statement with the admission:
--
--   select a.<admission columns>, p.*
--     from private.authorize_api_request('<hash>', true) as a
--     left join lateral (select w.* from private.list_watchlist_keyset(a.user_id, <limit>, <cursor>) as w
--                         where a.outcome = 'ok' and a.allowed and a.organization_id is null
--                        offset 0) as p on true
--
-- (for pages over 20 rows the admission comes once, as a first row of a union: api_access.ts), instead of
-- the admission (setting claims and role) followed by `list_watchlist` as the account. The page query lives
-- in one place, `private.list_watchlist_keyset` below, which `list_watchlist` runs too; it is an inlinable
-- SQL function (language sql, stable, not strict, no SET clause, not security definer), so the planner folds its query into the caller's: no function call, no PL/pgSQL, no second statement. The
-- `where` on the lateral subquery (kept there by `offset 0`) is a one-time filter: nothing of the page runs
-- for a refused request.
--
-- The account is the one the admission found for the verified key or token (its `user_id`), the same
-- account whose claims the page ran under before; row-level security is not what scoped the page then
-- either (list_watchlist is a security definer function that reads `auth.uid()`), the user id is.
--
-- Who may run them: only the functions' own role (`postgres`, their owner, which SUPABASE_DB_URL connects
-- as) and the security definer `list_watchlist` (owned by it). Never anon, authenticated or service_role:
-- they take an account's id as an argument.

-- ---------------------------------------------------------------------------------------------------
-- A keyset page of an account's list: limit + 1 rows after the cursor (from the start when null), ordered
-- by name ("C"). An index range scan of (user_id, domain_name collate "C"), joined to domains. The limit is
-- checked by the callers (list_watchlist: DW400; the API: its contract, 1–1000).
-- ---------------------------------------------------------------------------------------------------
create function private.list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text)
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
language sql
stable
as $$
  select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
         d.status_changed_at, d.expires_at, d.registrar, e.tags, e.note
    from public.watchlist_entries as e
    join public.domains as d on d.name = e.domain_name
   where e.user_id = p_user_id
     and e.deleted_at is null
     and e.domain_name collate "C" > coalesce(p_cursor, '') collate "C"
   order by e.domain_name collate "C"
   limit p_limit + 1
$$;
revoke all on function private.list_watchlist_keyset(uuid, integer, text)
  from public, anon, authenticated, service_role;
comment on function private.list_watchlist_keyset(uuid, integer, text) is
  'Keyset page of an account''s watchlist (limit + 1 rows after the cursor). Inlinable: list_watchlist and '
  'the API''s one-statement page (issue 43) share it. Owner only.';

-- ---------------------------------------------------------------------------------------------------
-- An offset page of an account's list: the skipped rows are counted on the index alone (index-only scan of
-- the names), and only the page itself is joined to its entries and domains. Dynamic, so it is planned for
-- this offset: a cached generic plan cannot know that an offset of 99,800 should still walk the index.
-- ---------------------------------------------------------------------------------------------------
create function private.list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer)
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
set search_path = ''
as $$
begin
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
    using p_user_id, p_limit, p_offset;
end
$$;
revoke all on function private.list_watchlist_offset(uuid, integer, integer)
  from public, anon, authenticated, service_role;
comment on function private.list_watchlist_offset(uuid, integer, integer) is
  'Offset page of an account''s watchlist (limit + 1 rows), planned per call. list_watchlist and the API '
  'share it. Owner only.';

-- ---------------------------------------------------------------------------------------------------
-- list_watchlist (the app, and the service's path for other callers): the same checks and pages, its two
-- queries now the functions above.
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
    return query select * from private.list_watchlist_keyset(v_uid, p_limit, p_cursor);
    return;
  end if;
  return query select * from private.list_watchlist_offset(v_uid, p_limit, p_offset);
end
$$;
revoke all on function public.list_watchlist(integer, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_watchlist(integer, integer, text) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- The admission functions return one row. Said so, the planner costs the page joined to them as one page:
-- with the default estimate of 1,000 rows a page of 200 looked like 200,000 rows, past `jit_above_cost`,
-- and every request paid ~15 ms of JIT compilation.
-- ---------------------------------------------------------------------------------------------------
alter function private.authorize_api_request(text, boolean) rows 1;
alter function private.authorize_account_request(uuid, boolean) rows 1;
