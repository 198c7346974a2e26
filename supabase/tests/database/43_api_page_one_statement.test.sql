-- Issue 43: the API's page in one statement with the admission. private.list_watchlist_keyset (the keyset page,
-- inlinable) and private.list_watchlist_offset are list_watchlist's queries, for the functions' own role
-- only; the admission functions say they return one row.
\ir _setup.psql

select plan(22);

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
       encode(sha256(convert_to('fay-key', 'UTF8')), 'hex') as fay_hash \gset

-- Who may run them: the owner (and list_watchlist, a definer function it owns) only.
select ok(not has_function_privilege(r, 'private.list_watchlist_keyset(uuid, integer, text)', 'execute'),
          format('%s cannot execute list_watchlist_keyset', r))
  from unnest(array['anon', 'authenticated', 'service_role']) as r;
select ok(not has_function_privilege(r, 'private.list_watchlist_offset(uuid, integer, integer)', 'execute'),
          format('%s cannot execute list_watchlist_offset', r))
  from unnest(array['anon', 'authenticated', 'service_role']) as r;

-- Inlinable: SQL, not strict, stable, no SET clause, not security definer (the planner folds its query in).
select ok(
  (select l.lanname = 'sql' and not p.proisstrict and p.provolatile = 's' and p.proconfig is null
          and not p.prosecdef
     from pg_proc as p join pg_language as l on l.oid = p.prolang
    where p.oid = 'private.list_watchlist_keyset(uuid, integer, text)'::regprocedure),
  'list_watchlist_keyset can be inlined');
create function pg_temp.plan_of(p_statement text) returns text language plpgsql as $$
declare
  v_line text;
  v_plan text := '';
begin
  for v_line in execute 'explain (costs off) ' || p_statement loop
    v_plan := v_plan || v_line || E'\n';
  end loop;
  return v_plan;
end
$$;
-- The API's statement (api_access.ts `authorizeAndReadPage`) for a key hash and a page of p_limit.
create function pg_temp.api_statement(p_hash text, p_limit integer, p_count boolean default true)
returns text language sql as $f$
  select format($$
    with a as materialized (
      select outcome, user_id, plan_id, allowed, request_limit, remaining, reset_at, organization_id
        from private.authorize_api_request(%L, %L) as a)
    select a.*, null as domain_name, null as unicode_name, null as status, null as added_at,
           null as last_checked_at, null as status_changed_at, null as expires_at, null as registrar,
           null as tags, null as note from a
    union all
    select null, null, null, null, null, null, null, null, p.*
      from a cross join lateral (select w.* from private.list_watchlist_keyset(a.user_id, %s, null) as w
                                  where a.outcome = 'ok' and a.allowed and a.organization_id is null
                                 offset 0) as p $$, p_hash, p_count, p_limit)
$f$;
select doesnt_match(pg_temp.plan_of(pg_temp.api_statement(:'tia_hash', 1, false)), 'list_watchlist_keyset',
  'the API''s statement reads the page without calling a function');
select matches(pg_temp.plan_of(pg_temp.api_statement(:'tia_hash', 1, false)), 'One-Time Filter',
  'and only when the request is admitted (a one-time filter)');
select matches(pg_temp.plan_of(format(
  $$ select a.outcome, p.* from private.authorize_api_request(%L, false) as a
       left join lateral (select w.* from private.list_watchlist_keyset(a.user_id, 1, null) as w
                           where a.outcome = 'ok' and a.allowed and a.organization_id is null offset 0) as p
         on true $$, :'tia_hash')), 'One-Time Filter.*watchlist_entries',
  'so does a small page''s statement (the admission on every row), and it reads the page inline');
select ok(
  (select bool_and(prorows = 1) and count(*) = 2 from pg_proc
    where oid in ('private.authorize_api_request(text, boolean)'::regprocedure,
                  'private.authorize_account_request(uuid, boolean)'::regprocedure)),
  'the admission functions are costed as the one row they return');

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

-- The API's statement: the admission once, first, then the page; counted once.
select results_eq(
  format('select outcome, allowed, remaining, domain_name from (%s) as s', pg_temp.api_statement(:'tia_hash', 1)),
  $$ values ('ok'::text, true, 1, null::text), (null, null, null, 'a.test'), (null, null, null, 'c.test') $$,
  'an admitted request: the admission, then its page');
select is((select request_count from public.api_request_counters where user_id = :'tia'), 1,
  'counted once');
select results_eq(
  format('select outcome, allowed, domain_name from (%s) as s', pg_temp.api_statement(:'fay_hash', 1)),
  $$ values ('upgrade_required'::text, false, null::text) $$,
  'a plan without API access: the admission only');
select lives_ok(format($$ select * from private.authorize_api_request(%L, true) $$, :'tia_hash'),
  'the last request of the day');
select results_eq(
  format('select outcome, allowed, domain_name from (%s) as s', pg_temp.api_statement(:'tia_hash', 1)),
  $$ values ('ok'::text, false, null::text) $$,
  'a refused request (limit used up): the admission only');

select * from tests.finish();
rollback;
