-- Issue 43: the API's page in one call with the admission. private.api_watchlist_page (the admission, then
-- the page) runs list_watchlist's own queries, private.list_watchlist_keyset (inlinable) and
-- private.list_watchlist_offset, with its plans kept for the connection; all three for the functions' own
-- role only.
\ir _setup.psql

select plan(28);

insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values ('tiny', true, 2, 10, false, 99);

select tests.create_user('tia@test.local', 'tiny') as tia \gset
select tests.create_user('eve@test.local', 'enterprise') as eve \gset
select tests.create_user('fay@test.local', 'free') as fay \gset

select tests.authenticate_as('tia@test.local');
select api_key as tia_key from public.create_api_key('k') \gset
select added from public.add_watchlist_domains(array['a.test', 'b.test', 'c.test', 'd.test']) \gset ignored_
select public.remove_watchlist_domain('b.test') \gset ignored_
select tests.authenticate_as('eve@test.local');
select api_key as eve_key from public.create_api_key('k') \gset
select added from public.add_watchlist_domains(array['b.test', 'z.test']) \gset ignored_
select tests.clear_authentication();
insert into public.api_keys (user_id, name, prefix, key_hash)
values (:'fay', 'old', 'dwl_old', encode(sha256(convert_to('fay-key', 'UTF8')), 'hex'));
select encode(sha256(convert_to(:'tia_key', 'UTF8')), 'hex') as tia_hash,
       encode(sha256(convert_to(:'eve_key', 'UTF8')), 'hex') as eve_key_hash,
       encode(sha256(convert_to('fay-key', 'UTF8')), 'hex') as fay_hash \gset

-- Who may run them: the owner (and list_watchlist, a definer function it owns) only.
select ok(not has_function_privilege(r, 'private.list_watchlist_keyset(uuid, integer, text)', 'execute'),
          format('%s cannot execute list_watchlist_keyset', r))
  from unnest(array['anon', 'authenticated', 'service_role']) as r;
select ok(not has_function_privilege(r, 'private.list_watchlist_offset(uuid, integer, integer)', 'execute'),
          format('%s cannot execute list_watchlist_offset', r))
  from unnest(array['anon', 'authenticated', 'service_role']) as r;
select ok(not has_function_privilege(r, 'private.api_watchlist_page(text, uuid, integer, integer, text)',
                                     'execute'),
          format('%s cannot execute api_watchlist_page', r))
  from unnest(array['anon', 'authenticated', 'service_role']) as r;

-- Inlinable: SQL, not strict, stable, no SET clause, not security definer (the planner folds its query in).
select ok(
  (select l.lanname = 'sql' and not p.proisstrict and p.provolatile = 's' and p.proconfig is null
          and not p.prosecdef
     from pg_proc as p join pg_language as l on l.oid = p.prolang
    where p.oid = 'private.list_watchlist_keyset(uuid, integer, text)'::regprocedure),
  'list_watchlist_keyset can be inlined');
-- Its plans are generic, kept per connection (no memoize of unique names).
select results_eq(format($$ select tags from private.api_watchlist_page(p_key_hash => %L, p_limit => 10) offset 1 $$, :'eve_key_hash'),
  $$ values (null::text[]), (null::text[]) $$, 'no tags: null, not an empty array');
select ok(
  (select p.proconfig @> array['plan_cache_mode=force_generic_plan', 'enable_memoize=off', 'search_path=""']
     from pg_proc as p where p.oid = 'private.api_watchlist_page(text, uuid, integer, integer, text)'::regprocedure),
  'api_watchlist_page keeps generic plans');

-- The same pages as list_watchlist.
select results_eq(format($$ select domain_name from private.list_watchlist_keyset(%L, 10, null) $$, :'tia'),
  array['a.test', 'c.test', 'd.test'], 'the account''s active entries, by name');
select results_eq(format($$ select domain_name from private.list_watchlist_keyset(%L, 1, 'a.test') $$, :'tia'),
  array['c.test', 'd.test'], 'after the cursor, limit + 1 rows');
select results_eq(format($$ select domain_name from private.list_watchlist_offset(%L, 10, 1) $$, :'tia'),
  array['c.test', 'd.test'], 'an offset page skips only the account''s active entries');
create temporary table keyset_page as select * from private.list_watchlist_keyset(:'tia', 1, 'a.test');
create temporary table offset_page as select * from private.list_watchlist_offset(:'tia', 10, 1);
grant select on keyset_page, offset_page to authenticated;
select tests.authenticate_as('tia@test.local');
select results_eq($$ select * from public.list_watchlist(1, null, 'a.test') $$,
  $$ select * from pg_temp.keyset_page $$,
  'list_watchlist''s keyset page is list_watchlist_keyset''s, column for column');
select results_eq($$ select * from public.list_watchlist(10, 1) $$,
  $$ select * from pg_temp.offset_page $$,
  'and its offset page list_watchlist_offset''s');
select throws_ok($$ select * from public.list_watchlist(0) $$, 'DW400', null, 'list_watchlist still checks the limit');
select tests.clear_authentication();

-- The API's call: the admission first, then the page; counted once.
create function pg_temp.api_page(p_hash text, p_limit integer, p_offset integer default null,
                                 p_cursor text default null, p_account uuid default null)
returns table (outcome text, allowed boolean, remaining integer, domain_name text)
language sql as $$
  select admission ->> 'outcome', (admission ->> 'allowed')::boolean, (admission ->> 'remaining')::integer,
         domain_name
    from private.api_watchlist_page(p_key_hash => p_hash, p_account => p_account, p_limit => p_limit,
                                    p_offset => p_offset, p_cursor => p_cursor)
$$;
select results_eq(format('select * from pg_temp.api_page(%L, 1)', :'tia_hash'),
  $$ values ('ok'::text, true, 1, null::text), (null, null, null, 'a.test'), (null, null, null, 'c.test') $$,
  'an admitted request: the admission, then its page');
select is((select request_count from public.api_request_counters where user_id = :'tia'), 1,
  'counted once');
select results_eq(format('select domain_name from pg_temp.api_page(null, 10, 1, null, %L) offset 1', :'tia'),
  array['c.test', 'd.test'], 'an OAuth token''s account: its offset page');
select results_eq(format('select domain_name from pg_temp.api_page(%L, 10) offset 1', :'eve_key_hash'),
  array['b.test', 'z.test'], 'another account on the same connection (the plans kept): its own page');
select results_eq(format('select domain_name from pg_temp.api_page(%L, 10, null, %L) offset 1', :'eve_key_hash', 'b.test'),
  array['z.test'], 'and after a cursor');
select results_eq(format('select outcome, allowed, domain_name from pg_temp.api_page(%L, 1)', :'fay_hash'),
  $$ values ('upgrade_required'::text, false, null::text) $$,
  'a plan without API access: the admission only');
select results_eq(format('select outcome, allowed, domain_name from pg_temp.api_page(%L, 1)', repeat('0', 64)),
  $$ values ('unauthorized'::text, false, null::text) $$,
  'an unknown key: the admission only');
select throws_ok($$ select * from private.api_watchlist_page(p_limit => 1) $$,
  'P0001', null, 'neither a key nor an account: refused');
select is((select request_count from public.api_request_counters where user_id = :'tia'), 2,
  'the token''s request counted in the account''s count');
select results_eq(format('select outcome, allowed, domain_name from pg_temp.api_page(%L, 1)', :'tia_hash'),
  $$ values ('ok'::text, false, null::text) $$,
  'a refused request (limit used up): the admission only');

select * from tests.finish();
rollback;
