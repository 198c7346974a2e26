-- Domain-name rules that cost what a look-up should (issue 43). A batch of names is validated by one
-- set-based statement (`private.domain_name_problems`): the shape checks are expressions, and the Public
-- Suffix List is joined once with every candidate rule of every name (a name has at most a few), instead of
-- three primary-key probes per label per name from PL/pgSQL. The one-name forms read the same function, so
-- the rule lives in one place; tests/integration/public_suffix_parity.test.ts holds it to the API's rule.
-- The WHOIS zone rule looks its candidate suffixes up by primary key instead of scanning every row, and
-- `domains` checks a whole insert at once (a statement trigger over the new rows).

-- Why each name of a batch cannot be watched (the API's wording), or null when it can; `ord` is the name's
-- position in the batch (from 1). Deliberately without `set search_path` (every object is schema-qualified,
-- operators resolve in pg_catalog first): a SQL function with a SET clause is never inlined, and PostgreSQL
-- 15 plans a non-inlined one again on every call, which made one name cost 3 ms. Inlined, the calling
-- statement's plan (cached by PL/pgSQL) holds it.
create function private.domain_name_problems(p_names text[])
returns table (ord bigint, name text, problem text)
language sql
stable
parallel safe
as $$
  with input as (
    select n.name, n.ord, string_to_array(n.name, '.') as labels
      from unnest(p_names) with ordinality as n (name, ord)
  ),
  shape as (
    select i.name, i.ord, i.labels,
           case
             when i.name is null or i.name = '' then 'is empty'
             when i.name ~ '\.$' then 'ends with a dot; send the name without it'
             when i.name !~ '^[a-z0-9.-]+$' then
               'is not in normalized form (lower-case letters, digits, hyphens and dots; Unicode as A-labels)'
             when length(i.name) > 253 then 'is longer than 253 characters'
             when cardinality(i.labels) < 2 then 'is a bare top-level domain, not a registrable name'
             -- Each label 1-63 characters, no hyphen at either end (the characters are checked above). Two
             -- cheap tests instead of one pattern with bounded repeats, which PostgreSQL's regex engine
             -- expands into a large automaton (40 µs a name).
             when i.name ~ '(^|\.)(-|\.|$)|-(\.|$)'
                  or exists (select 1 from unnest(i.labels) as x (label) where length(x.label) > 63) then
               'has a label that is empty, too long, or uses characters other than letters, digits and hyphens'
             -- Every A-label must decode (RFC 3492) to a plausible Unicode label, as UTS #46 asks.
             when i.name ~ '(^|\.)xn--' and private.domain_unicode_name(i.name) is null then
               'is not a valid domain name'
             when i.name ~ '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' then 'is an IP address, not a domain name'
           end as problem
      from input as i
  ),
  candidates as (
    -- For the k rightmost labels (each suffix built once): the suffix itself, its exception rule
    -- (`!www.ck`), and the wildcard rule over its parent (`*.ck` makes any x.ck a suffix).
    select s.ord, k.k, c.rule
      from shape as s
     cross join lateral generate_series(1, cardinality(s.labels)) as k (k)
     cross join lateral (select array_to_string(s.labels[cardinality(s.labels) - k.k + 1:], '.') as suffix) as x
     cross join lateral unnest(array[
       x.suffix,
       '!' || x.suffix,
       case when k.k > 1 then '*.' || substr(x.suffix, strpos(x.suffix, '.') + 1) end
     ]) as c (rule)
     where s.problem is null
  ),
  matched as (
    -- The PSL algorithm: an exception rule wins and drops its leftmost label; else the longest match.
    select c.ord,
           coalesce(max(c.k) filter (where c.rule like '!%') - 1, max(c.k) filter (where c.rule not like '!%'))
             as suffix_labels
      from candidates as c
      join private.public_suffixes as r on r.rule = c.rule
     group by c.ord
  ),
  measured as (
    select s.name, s.ord, s.labels, s.problem,
           coalesce(
             m.suffix_labels,
             -- Made-up TLDs ending in `test` count as one-label suffixes only where the local seed allows.
             case when s.labels[cardinality(s.labels)] ~ 'test$'
                       and (select d.local_test_tlds from private.domain_name_rules as d) then 1 else 0 end
           ) as suffix_labels
      from shape as s
      left join matched as m on m.ord = s.ord
  )
  select m.ord, m.name,
         coalesce(m.problem, case
           when m.suffix_labels = 0 then 'does not end in a known top-level domain'
           when m.suffix_labels >= cardinality(m.labels) then
             'is a public suffix (' || m.name || '), not a registrable name'
           when m.suffix_labels < cardinality(m.labels) - 1 then
             'is a subdomain; only registrable names can be watched (try '
               || array_to_string(m.labels[cardinality(m.labels) - m.suffix_labels:], '.') || ')'
         end)
    from measured as m
$$;
revoke all on function private.domain_name_problems(text[]) from public, anon, authenticated, service_role;
grant execute on function private.domain_name_problems(text[]) to service_role;

-- The one-name form, for the app's `is_valid_domain_name` and single names: the same statement.
create or replace function private.registrable_domain_problem(p_name text)
returns text
language plpgsql
stable
parallel safe
set search_path = ''
as $$
begin
  return (select p.problem from private.domain_name_problems(array[p_name]) as p);
end
$$;

-- How many labels of the name form its public suffix; kept for callers that ask for the number alone.
drop function private.public_suffix_length(text);

-- ---------------------------------------------------------------------------------------------------
-- The WHOIS zone rule: the candidate suffixes of a name (whole labels, proper) by primary key.
-- ---------------------------------------------------------------------------------------------------
create or replace function private.whois_row_suffix(p_domain_name text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  with labels as (
    select string_to_array(lower(p_domain_name), '.') as l
  )
  select w.suffix
    from labels
   cross join lateral generate_series(1, cardinality(labels.l) - 1) as k (k)
    join public.whois_servers as w
      on w.suffix = array_to_string(labels.l[cardinality(labels.l) - k.k + 1:], '.')
   where w.enabled
   order by k.k desc
   limit 1
$$;

create or replace function private.whois_unsupported_zone(p_domain_name text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select w.suffix
    from public.whois_servers as w
   where w.suffix = (select private.whois_row_suffix(p_domain_name))
     and w.host is null
     and strpos(w.suffix, '.') > 0
$$;

-- The rule on `domains`, checked once per statement over its new rows (an insert of 500 names is one
-- look-up, not 500 trigger calls). Same refusal as before: DW400 naming the first such name and its zone.
drop trigger domains_refuse_unsupported_zone on public.domains;
drop function private.domains_refuse_unsupported_zone();

create function private.domains_refuse_unsupported_zone()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_name text;
  v_zone text;
begin
  -- Each new name's WHOIS row (the longest enabled suffix of whole labels, as whois_row_suffix), by
  -- primary key; refused when that row is a zone without a server.
  select n.name, r.suffix
    into v_name, v_zone
    from new_domains as n
   cross join lateral (
     select w.suffix, w.host
       from generate_series(1, cardinality(string_to_array(n.name, '.')) - 1) as k (k)
       join public.whois_servers as w
         on w.suffix = array_to_string((string_to_array(n.name, '.'))[
              cardinality(string_to_array(n.name, '.')) - k.k + 1:], '.')
      where w.enabled
      order by k.k desc
      limit 1
   ) as r
   where r.host is null
     and strpos(r.suffix, '.') > 0
   order by n.name
   limit 1;
  if v_zone is not null then
    raise exception using errcode = 'DW400',
      message = format('DW400: %s is under %s, a zone with its own WHOIS server that this service cannot read '
        '(unsupported_zone); it cannot be watched.', v_name, v_zone);
  end if;
  return null;
end;
$$;
revoke all on function private.domains_refuse_unsupported_zone() from public, anon, authenticated, service_role;

create trigger domains_refuse_unsupported_zone
  after insert on public.domains
  referencing new table as new_domains
  for each statement execute function private.domains_refuse_unsupported_zone();

-- ---------------------------------------------------------------------------------------------------
-- add_watchlist_domains: as before, with the batch validated by domain_name_problems.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.add_watchlist_domains(p_domain_names text[])
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
  v_first_problem text;
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

  -- Validate the whole request before writing anything, by the API's rule, in one set-based statement.
  select array_agg(coalesce(p.name, '(null)') order by p.ord), (array_agg(p.problem order by p.ord))[1]
    into v_invalid, v_first_problem
    from private.domain_name_problems(p_domain_names) as p
   where p.problem is not null;

  if v_invalid is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Invalid domain names: ' || array_to_string(v_invalid[1:20], ', ')
        || case when cardinality(v_invalid) > 20 then ', ...' else '' end
        || ' (the first ' || v_first_problem || ')',
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
