-- Issue 43: a small API request close to a bare query. GET /domains (and MCP's list_watchlist) with a personal
-- API key or an OAuth token read their page in ONE call with the admission,
--
--   select * from private.api_watchlist_page(p_key_hash => '<hash>', p_limit => …, p_offset => …, p_cursor => …)
--
-- (the admission and count as its first row, then the page), instead of the admission (setting claims and
-- role) followed by `list_watchlist` as the account. The page queries live in one place,
-- `private.list_watchlist_keyset` and `private.list_watchlist_offset` below, which `list_watchlist` runs too.
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
-- A moment as the API writes it: ISO 8601 in UTC with milliseconds, `2026-12-06T10:00:00.123Z`, exactly
-- what JavaScript's `toISOString()` gives for the same value as the driver reads it (milliseconds
-- truncated, years 0–9999). The API's page read returns its moments so, so that the function need not
-- turn each into a Date and back (on Deno 2.1, ~0.4 ms of CPU for a page of 200). Parity with
-- `toISOString()` over one table of cases: tests/database/iso_timestamp_parity.test.ts.
-- ---------------------------------------------------------------------------------------------------
create function private.iso_timestamp(p_at timestamptz)
returns text
language sql
stable
as $$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
revoke all on function private.iso_timestamp(timestamptz) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- The API's page read: the admission and count of a personal API key (`p_key_hash`) or of an OAuth access
-- token's account (`p_account`), as its first row (in one JSON column, `admission`; the page's columns
-- null), then, only when admitted on the account's personal list, the page's rows (`admission` null):
-- `list_watchlist`'s own two queries for the account the admission found.
--
-- Why a function: planning the same statement sent as text cost PostgreSQL more than running it (the
-- inlined keyset query is parsed, analysed and planned again on every request: ~0.3 ms of a limit-1
-- request's ~0.6 ms). A PL/pgSQL function keeps its statements' plans for the life of the connection, so
-- only its call is planned per request; unlike a prepared statement, that works behind a transaction-mode
-- pooler too. The plans are generic (`force_generic_plan`): the keyset page is the same index range scan
-- for every account, limit and cursor, and the automatic choice kept re-planning it per call because a
-- generic LIMIT is estimated at a tenth of the table. With that estimate the generic plan also put a
-- Memoize in front of each name's look-up in `domains`, which only misses (a page's names are distinct):
-- `enable_memoize` is off here. The offset page stays dynamic, planned per offset.
-- ---------------------------------------------------------------------------------------------------
create function private.api_watchlist_page(
  p_key_hash text default null,
  p_account uuid default null,
  p_limit integer default 50,
  p_offset integer default null,
  p_cursor text default null
)
returns table (
  admission json,
  domain_name text,
  unicode_name text,
  status text,
  added_at text,
  last_checked_at text,
  status_changed_at text,
  expires_at text,
  registrar text,
  tags text[],
  note text
)
language plpgsql
set search_path = ''
set plan_cache_mode = force_generic_plan
set enable_memoize = off
as $$
declare
  v_admission record;
begin
  if (p_key_hash is null) = (p_account is null) then
    raise exception 'api_watchlist_page: give exactly one of p_key_hash and p_account';
  end if;
  if p_key_hash is not null then
    select a.outcome, a.user_id, a.plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at,
           a.organization_id
      into v_admission
      from private.authorize_api_request(p_key_hash, true) as a;
  else
    select a.outcome, a.user_id, a.plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at,
           null::uuid as organization_id
      into v_admission
      from private.authorize_account_request(p_account, true) as a;
  end if;

  -- The admission: one column of the first row, so that the page's rows carry only their own columns.
  return query select json_build_object('outcome', v_admission.outcome, 'user_id', v_admission.user_id,
                                        'plan_id', v_admission.plan_id, 'allowed', v_admission.allowed,
                                        'request_limit', v_admission.request_limit,
                                        'remaining', v_admission.remaining, 'reset_at', v_admission.reset_at,
                                        'organization_id', v_admission.organization_id),
                      null::text, null::text, null::text, null::text, null::text, null::text, null::text,
                      null::text, null::text[], null::text;
  -- The page only for a request admitted on a personal list (anything unknown reads as not admitted).
  if (v_admission.outcome = 'ok' and v_admission.allowed and v_admission.organization_id is null) is not true
  then
    return;
  end if;

  -- The page, its moments as the API writes them; no tags is null rather than an empty array, which the
  -- API reads alike (and need not parse).
  if coalesce(p_offset, 0) = 0 then
    return query select null::json, w.domain_name, w.unicode_name, w.status,
                        private.iso_timestamp(w.added_at), private.iso_timestamp(w.last_checked_at),
                        private.iso_timestamp(w.status_changed_at), private.iso_timestamp(w.expires_at),
                        w.registrar, nullif(w.tags, '{}'), w.note
                   from private.list_watchlist_keyset(v_admission.user_id, p_limit, p_cursor) as w;
  else
    return query select null::json, w.domain_name, w.unicode_name, w.status,
                        private.iso_timestamp(w.added_at), private.iso_timestamp(w.last_checked_at),
                        private.iso_timestamp(w.status_changed_at), private.iso_timestamp(w.expires_at),
                        w.registrar, nullif(w.tags, '{}'), w.note
                   from private.list_watchlist_offset(v_admission.user_id, p_limit, p_offset) as w;
  end if;
end
$$;
revoke all on function private.api_watchlist_page(text, uuid, integer, integer, text)
  from public, anon, authenticated, service_role;
comment on function private.api_watchlist_page(text, uuid, integer, integer, text) is
  'The API''s page read (GET /domains, MCP list_watchlist) for a personal key or an OAuth token''s account: '
  'the admission and count as the first row, then the page when admitted. Plans kept per connection. '
  'Owner only.';
