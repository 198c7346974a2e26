-- Watchlist: the shared state of each watched name (`domains`, one row per name, checked once however many
-- accounts watch it) and each account's entries (`watchlist_entries`, soft-deleted). Adding applies the
-- plan's quota in request order under concurrency; names are validated and their Unicode form derived here.

-- ---------------------------------------------------------------------------------------------------
-- Domain names: the same rule as the API (POST /domains, `_shared/domain/normalize.ts` with tldts). A name
-- is watchable when it is in its normalized form (lower case, A-labels, no trailing dot; the app and the API
-- normalize Unicode input through normalize.ts first), has 2+ labels of letters, digits and inner hyphens
-- (1-63 characters each, 253 in all), is no IP address, ends in a public suffix of the Public Suffix List's
-- ICANN section (`private.public_suffixes`, generated from the tldts the functions pin by
-- scripts/public_suffixes.ts into migration 20261122001210) and is exactly that suffix plus one label.
-- tests/integration/public_suffix_parity.test.ts runs one table of cases through both rules.
-- ---------------------------------------------------------------------------------------------------
create table private.public_suffixes (
  -- `com`, `co.uk`, `*.ck` (any label under ck), `!www.ck` (an exception: www.ck is registrable)
  rule text primary key
);
comment on table private.public_suffixes is
  'The Public Suffix List''s ICANN rules as tldts@<import_map pin> has them (generated, see scripts/public_suffixes.ts).';
grant select on table private.public_suffixes to service_role;

-- One row: whether made-up top-level domains ending in `test` (RFC 6761 reserves .test; the local fakes
-- serve names like x.followtest) count as known suffixes. Off by default and on hosted; the local seed
-- (supabase/seed.sql, never run on hosted) turns it on so tests can watch names the fakes serve.
create table private.domain_name_rules (
  id boolean primary key default true check (id),
  local_test_tlds boolean not null default false
);
insert into private.domain_name_rules default values;
grant select, update on table private.domain_name_rules to service_role;

-- How many labels of the name form its public suffix (the PSL algorithm: an exception rule wins and
-- drops its leftmost label; else the matching rule with the most labels, `*` matching any one label);
-- 0 when no rule matches (an unknown top-level domain). The name is lower-case ASCII, labels non-empty.
create function private.public_suffix_length(p_name text)
returns integer
language plpgsql
stable
parallel safe
set search_path = ''
as $$
declare
  v_labels text[] := string_to_array(p_name, '.');
  v_count integer := cardinality(v_labels);
  v_suffix text;
  v_parent text;
  v_longest integer := 0;
  v_exception integer;
begin
  -- From the top-level domain down: one primary-key look-up per candidate rule.
  for k in 1 .. v_count loop
    v_suffix := array_to_string(v_labels[v_count - k + 1:], '.');
    if exists (select 1 from private.public_suffixes as r where r.rule = '!' || v_suffix) then
      v_exception := k - 1;
    end if;
    if exists (select 1 from private.public_suffixes as r where r.rule = v_suffix)
       or (k > 1 and exists (select 1 from private.public_suffixes as r where r.rule = '*.' || v_parent)) then
      v_longest := k;
    end if;
    v_parent := v_suffix;
  end loop;
  if v_exception is not null then
    return v_exception;
  end if;
  if v_longest = 0 and v_labels[v_count] ~ 'test$'
     and (select d.local_test_tlds from private.domain_name_rules as d) then
    return 1;
  end if;
  return v_longest;
end
$$;
revoke all on function private.public_suffix_length(text) from public, anon, authenticated, service_role;

-- Why a name cannot be watched (the API's wording), or null when it can.
create function private.registrable_domain_problem(p_name text)
returns text
language plpgsql
stable
parallel safe
set search_path = ''
as $$
declare
  v_labels text[];
  v_suffix integer;
begin
  if p_name is null or p_name = '' then
    return 'is empty';
  end if;
  if p_name ~ '\.$' then
    return 'ends with a dot; send the name without it';
  end if;
  if p_name !~ '^[a-z0-9.-]+$' then
    return 'is not in normalized form (lower-case letters, digits, hyphens and dots; Unicode as A-labels)';
  end if;
  if length(p_name) > 253 then
    return 'is longer than 253 characters';
  end if;
  v_labels := string_to_array(p_name, '.');
  if cardinality(v_labels) < 2 then
    return 'is a bare top-level domain, not a registrable name';
  end if;
  if exists (select 1 from unnest(v_labels) as x (label)
              where x.label !~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$') then
    return 'has a label that is empty, too long, or uses characters other than letters, digits and hyphens';
  end if;
  -- Every A-label must decode (RFC 3492) to a plausible Unicode label (domain_unicode_name's rule: no plain
  -- ASCII, controls, spaces, format or private-use characters), as UTS #46 asks.
  if p_name ~ '(^|\.)xn--' and private.domain_unicode_name(p_name) is null then
    return 'is not a valid domain name';
  end if;
  if p_name ~ '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' then
    return 'is an IP address, not a domain name';
  end if;
  v_suffix := private.public_suffix_length(p_name);
  if v_suffix = 0 then
    return 'does not end in a known top-level domain';
  end if;
  if v_suffix >= cardinality(v_labels) then
    return 'is a public suffix (' || p_name || '), not a registrable name';
  end if;
  if v_suffix < cardinality(v_labels) - 1 then
    return 'is a subdomain; only registrable names can be watched (try '
      || array_to_string(v_labels[cardinality(v_labels) - v_suffix:], '.') || ')';
  end if;
  return null;
end
$$;
revoke all on function private.registrable_domain_problem(text) from public, anon, authenticated, service_role;
grant execute on function private.registrable_domain_problem(text) to service_role;

-- For the app: may this (normalized) name be watched? The same rule as add_watchlist_domains.
create function public.is_valid_domain_name(p_name text)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select private.registrable_domain_problem(p_name) is null
$$;
revoke all on function public.is_valid_domain_name(text) from public, anon, authenticated, service_role;
grant execute on function public.is_valid_domain_name(text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- domains
-- ---------------------------------------------------------------------------------------------------
create table public.domains (
  name text primary key
    constraint domains_name_check check (
      name = lower(name)
      and name !~ '\.$'
      and length(name) <= 253
      and name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$'
    ),
  status text not null default 'unknown'
    check (status in ('unknown', 'registered', 'pending_delete', 'available')),
  last_checked_at timestamptz,
  status_changed_at timestamptz,
  expires_at timestamptz,
  registrar text,
  next_check_at timestamptz not null default now(),
  lease_until timestamptz,
  consecutive_failures integer not null default 0,
  created_at timestamptz not null default now(),
  -- When the registry last answered for the name in a poller check (null: never). The poller's DNS-first
  -- rule (poller/dns_first.ts) asks a delegated name's registry again only when this is old or a reminder
  -- day comes near.
  registry_asked_at timestamptz
);

comment on table public.domains is
  'Shared RDAP/DNS check state, one row per watched name. Written only by service_role and definer functions.';

create index domains_next_check_at_idx on public.domains (next_check_at);

alter table public.domains enable row level security;

-- ---------------------------------------------------------------------------------------------------
-- watchlist_entries
-- ---------------------------------------------------------------------------------------------------
create table public.watchlist_entries (
  id bigint generated by default as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  domain_name text not null references public.domains (name),
  unicode_name text check (unicode_name is null or char_length(unicode_name) between 1 and 253),
  added_at timestamptz not null default now(),
  deleted_at timestamptz,
  constraint watchlist_entries_user_id_domain_name_key unique (user_id, domain_name)
);

comment on column public.watchlist_entries.deleted_at is
  'Soft delete: set by remove_watchlist_domain. Removed rows are excluded from lists and quota.';

create index watchlist_entries_active_user_idx
  on public.watchlist_entries (user_id, domain_name collate "C") where deleted_at is null;

create index watchlist_entries_active_domain_idx
  on public.watchlist_entries (domain_name) where deleted_at is null;

alter table public.watchlist_entries enable row level security;

create policy "Users can read their own watchlist entries"
  on public.watchlist_entries for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Users can read the domains they actively watch"
  on public.domains for select to authenticated
  using (
    exists (
      select 1
        from public.watchlist_entries as e
       where e.domain_name = domains.name
         and e.user_id = (select auth.uid())
         and e.deleted_at is null
    )
  );

-- ---------------------------------------------------------------------------------------------------
-- remove_watchlist_domain: soft delete of the caller's active entry.
-- ---------------------------------------------------------------------------------------------------
create function public.remove_watchlist_domain(p_domain_name text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  update public.watchlist_entries as e
     set deleted_at = now()
   where e.user_id = v_uid
     and e.domain_name = lower(p_domain_name)
     and e.deleted_at is null;
  -- A watched name is always removable (even one a newer suffix list would refuse); a name that is not
  -- watched and could not be is refused as DELETE /domains/{name} refuses it.
  if not found and private.registrable_domain_problem(lower(p_domain_name)) is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: ' || coalesce(p_domain_name, '(null)') || ' '
        || private.registrable_domain_problem(lower(p_domain_name)) || '.';
  end if;
  return found;
end
$$;
revoke all on function public.remove_watchlist_domain(text) from public, anon, authenticated, service_role;
grant execute on function public.remove_watchlist_domain(text) to authenticated;

grant select, insert, update, delete on table public.domains to service_role;
grant select on table public.domains to authenticated;

-- Entries are written only by add_watchlist_domains / remove_watchlist_domain (quota lives there).
grant select, insert, update, delete on table public.watchlist_entries to service_role;
grant select on table public.watchlist_entries to authenticated;

-- The identity columns' sequences (inserting a row as service_role needs them).
grant select, usage on sequence public.watchlist_entries_id_seq to service_role;

-- Names in pending delete are claimed first (claim_due_domains), so a backlog of other names never delays
-- the checks around a predicted drop.
create index domains_pending_delete_next_check_idx on public.domains (next_check_at)
  where status = 'pending_delete';

-- ===================================================================================================
-- 3. The unicode form of a name, derived from its A-label (IDNA ToUnicode, RFC 3492 Punycode)
-- ===================================================================================================

-- The code points of one Punycode-encoded label (the part after "xn--"), or null when it does not decode.
create function private.punycode_decode(p_input text)
returns integer[]
language plpgsql
immutable
strict
parallel safe
set search_path = ''
as $$
declare
  c_base constant integer := 36;
  c_tmin constant integer := 1;
  c_tmax constant integer := 26;
  v_len integer := char_length(p_input);
  v_out integer[] := '{}';
  v_n bigint := 128;
  v_i bigint := 0;
  v_bias bigint := 72;
  v_basic integer;
  v_pos integer;
  v_oldi bigint;
  v_w bigint;
  v_k bigint;
  v_t bigint;
  v_digit integer;
  v_cp integer;
  v_delta bigint;
  v_points integer;
begin
  if v_len = 0 or v_len > 59 or p_input !~ '^[a-z0-9-]+$' then
    return null;
  end if;
  v_basic := char_length(p_input) - strpos(reverse(p_input), '-') + 1;
  if strpos(p_input, '-') = 0 then
    v_basic := 0;
  end if;
  if v_basic > 0 then
    for v_pos in 1 .. v_basic - 1 loop
      v_out := v_out || ascii(substr(p_input, v_pos, 1));
    end loop;
  end if;
  v_pos := case when v_basic > 0 then v_basic + 1 else 1 end;

  while v_pos <= v_len loop
    v_oldi := v_i;
    v_w := 1;
    v_k := c_base;
    loop
      if v_pos > v_len then
        return null;
      end if;
      v_cp := ascii(substr(p_input, v_pos, 1));
      v_pos := v_pos + 1;
      v_digit := case when v_cp between 97 and 122 then v_cp - 97
                      when v_cp between 48 and 57 then v_cp - 22
                      else c_base end;
      if v_digit >= c_base then
        return null;
      end if;
      v_i := v_i + v_digit * v_w;
      if v_i > 2147483647 then
        return null;
      end if;
      v_t := case when v_k <= v_bias then c_tmin
                  when v_k >= v_bias + c_tmax then c_tmax
                  else v_k - v_bias end;
      exit when v_digit < v_t;
      v_w := v_w * (c_base - v_t);
      if v_w > 2147483647 then
        return null;
      end if;
      v_k := v_k + c_base;
    end loop;

    -- Bias adaptation (RFC 3492 section 6.1).
    v_points := coalesce(cardinality(v_out), 0) + 1;
    v_delta := case when v_oldi = 0 then (v_i - v_oldi) / 700 else (v_i - v_oldi) / 2 end;
    v_delta := v_delta + v_delta / v_points;
    v_k := 0;
    while v_delta > ((c_base - c_tmin) * c_tmax) / 2 loop
      v_delta := v_delta / (c_base - c_tmin);
      v_k := v_k + c_base;
    end loop;
    v_bias := v_k + ((c_base - c_tmin + 1) * v_delta) / (v_delta + 38);

    v_n := v_n + v_i / v_points;
    v_i := v_i % v_points;
    if v_n > 1114111 or v_n between 55296 and 57343 then
      return null;
    end if;
    v_out := v_out[1:v_i] || v_n::integer || v_out[v_i + 1:];
    v_i := v_i + 1;
  end loop;
  return v_out;
end
$$;
revoke all on function private.punycode_decode(text) from public, anon, authenticated, service_role;
grant execute on function private.punycode_decode(text) to service_role;

-- The unicode form of a stored A-label name, or null when the name has no IDN label or any IDN label does
-- not decode to a plausible name (decoded ASCII must be letters, digits and hyphens; no controls, spaces,
-- punctuation look-alikes, format or private-use characters). The result holds only characters derived
-- from the A-label, so it can be shown in alerts without trusting any caller.
create function private.domain_unicode_name(p_domain_name text)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
declare
  v_label text;
  v_points integer[];
  v_cp integer;
  v_labels text[] := '{}';
  v_decoded_any boolean := false;
begin
  if p_domain_name is null or char_length(p_domain_name) > 253 or p_domain_name !~ '^[a-z0-9.-]+$' then
    return null;
  end if;
  foreach v_label in array string_to_array(p_domain_name, '.') loop
    if v_label like 'xn--%' then
      v_points := private.punycode_decode(substr(v_label, 5));
      if v_points is null or cardinality(v_points) = 0 then
        return null;
      end if;
      foreach v_cp in array v_points loop
        if (v_cp < 128 and not (v_cp between 97 and 122 or v_cp between 48 and 57 or v_cp = 45))
           or v_cp between 128 and 160
           or v_cp in (173, 847, 1564, 12288, 12289, 12290, 65279, 8725, 10741)
           or v_cp between 4447 and 4448
           or v_cp between 6068 and 6069
           or v_cp between 6155 and 6159
           or v_cp between 8192 and 8303      -- general punctuation: spaces, zero-width, bidi controls, ...
           or v_cp between 11776 and 11903    -- supplemental punctuation
           or v_cp between 57344 and 63743    -- private use
           or v_cp between 65024 and 65039    -- variation selectors
           or v_cp between 65040 and 65135    -- vertical and small form punctuation
           or v_cp between 65280 and 65519    -- full- and half-width forms (IDNA maps them away)
           or v_cp between 65520 and 65535    -- specials
           or v_cp between 917504 and 921599  -- tags, variation selectors supplement
           or v_cp >= 983040                  -- supplementary private use
        then
          return null;
        end if;
      end loop;
      if not exists (select 1 from unnest(v_points) as p (cp) where p.cp >= 128) then
        return null;
      end if;
      v_labels := v_labels || (select string_agg(chr(p.cp), '' order by p.ord)
                                 from unnest(v_points) with ordinality as p (cp, ord));
      v_decoded_any := true;
    else
      v_labels := v_labels || v_label;
    end if;
  end loop;
  if not v_decoded_any then
    return null;
  end if;
  return array_to_string(v_labels, '.');
end
$$;
revoke all on function private.domain_unicode_name(text) from public, anon, authenticated, service_role;
grant execute on function private.domain_unicode_name(text) to service_role;

create function private.derive_unicode_name()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  new.unicode_name := private.domain_unicode_name(new.domain_name);
  return new;
end
$$;
revoke all on function private.derive_unicode_name() from public, anon, authenticated, service_role;

create trigger watchlist_entries_derive_unicode_name
  before insert or update of domain_name, unicode_name on public.watchlist_entries
  for each row execute function private.derive_unicode_name();

-- Names stored before this migration: replace whatever a caller sent with the derived form.
update public.watchlist_entries set unicode_name = null;

-- ---------------------------------------------------------------------------------------------------
-- add_watchlist_domains
-- ---------------------------------------------------------------------------------------------------
create function public.add_watchlist_domains(p_domain_names text[])
returns table (added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
  v_count integer;
  v_invalid text[];
  v_quota integer;
  v_active integer;
  v_room integer;
  v_dups integer;
  v_added integer;
begin
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1 then
    raise exception using errcode = 'DW400', message = 'DW400: domains must be a list of domain names.';
  end if;

  v_count := coalesce(cardinality(p_domain_names), 0);

  if v_count > 10000 then
    raise exception using errcode = 'DW400', message = 'DW400: Too many domains in one request.';
  end if;

  -- Validate the whole request before writing anything, by the API's rule (registrable_domain_problem).
  select array_agg(coalesce(n.name, '(null)') order by n.ord)
    into v_invalid
    from unnest(p_domain_names) with ordinality as n (name, ord)
   where private.registrable_domain_problem(n.name) is not null;

  if v_invalid is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Invalid domain names: ' || array_to_string(v_invalid[1:20], ', ')
        || case when cardinality(v_invalid) > 20 then ', ...' else '' end
        || ' (the first ' || private.registrable_domain_problem(nullif(v_invalid[1], '(null)')) || ')',
      detail = to_jsonb(v_invalid)::text;
  end if;

  -- Serialise every quota decision of this account: concurrent calls queue here, and each one counts
  -- the active entries only after the previous call has committed (READ COMMITTED).
  select pl.watchlist_quota
    into v_quota
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid
     for no key update of p;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;

  select count(*)::integer into v_active
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.deleted_at is null;

  v_room := greatest(v_quota - v_active, 0);

  -- One statement, in request order: repeats and names already active are duplicates; of the other
  -- names the first v_room are added (shared domain row first, then a new entry or the restore of a
  -- soft-deleted one, which counts as added) and the rest are rejected over the limit. The unicode form
  -- is set by the watchlist_entries_derive_unicode_name trigger.
  with input as (
    select n.name as domain_name,
           n.ord,
           row_number() over (partition by n.name order by n.ord) as occurrence
      from unnest(p_domain_names) with ordinality as n (name, ord)
  ),
  classified as (
    select i.domain_name,
           i.ord,
           (i.occurrence > 1 or exists (
              select 1 from public.watchlist_entries as e
               where e.user_id = v_uid and e.domain_name = i.domain_name and e.deleted_at is null
           )) as duplicate
      from input as i
  ),
  to_add as (
    select c.domain_name, c.ord
      from (
        select c.*, row_number() over (order by c.ord) as rank
          from classified as c
         where not c.duplicate
      ) as c
     where c.rank <= v_room
  ),
  new_domains as (
    -- Sorted, so that accounts adding overlapping new names concurrently cannot deadlock.
    insert into public.domains (name)
    select a.domain_name from to_add as a order by a.domain_name
    on conflict (name) do nothing
    returning 1
  ),
  upserted as (
    insert into public.watchlist_entries as e (user_id, domain_name)
    select v_uid, a.domain_name from to_add as a order by a.ord
    on conflict (user_id, domain_name) do update
       set deleted_at = null,
           added_at = now()
     where e.deleted_at is not null
    returning 1
  )
  select (select count(*) from upserted)::integer,
         (select count(*) from classified as c where c.duplicate)::integer
    into v_added, v_dups;

  return query select v_added,
                      v_dups,
                      v_count - v_dups - v_added,
                      greatest(v_quota - (v_active + v_added), 0);
end
$$;
revoke all on function public.add_watchlist_domains(text[]) from public, anon, authenticated, service_role;
grant execute on function public.add_watchlist_domains(text[]) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- list_watchlist: security invoker, so row-level security does the filtering.
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
revoke all on function public.list_watchlist(integer, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_watchlist(integer, integer, text) to authenticated;
revoke all on function public.list_watchlist(integer, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_watchlist(integer, integer, text) to authenticated;
