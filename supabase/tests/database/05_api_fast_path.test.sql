-- authorize_api_request (key + daily count in one statement) and list_watchlist as a definer function.
\ir _setup.psql

select plan(16);

insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values ('tiny', true, 2, 10, false, 99);

select tests.create_user('tia@test.local', 'tiny') as tia \gset
select tests.create_user('eve@test.local', 'enterprise') as eve \gset
select tests.create_user('fay@test.local', 'free') as fay \gset
select (((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC') as next_midnight \gset

select tests.authenticate_as('tia@test.local');
select api_key as tia_key from public.create_api_key('k') \gset
select tests.authenticate_as('eve@test.local');
select api_key as eve_key from public.create_api_key('k') \gset
select tests.clear_authentication();
insert into public.api_keys (user_id, name, prefix, key_hash)
values (:'fay', 'old', 'dwl_old', encode(sha256(convert_to('fay-key', 'UTF8')), 'hex'));
select encode(sha256(convert_to(:'tia_key', 'UTF8')), 'hex') as tia_hash,
       encode(sha256(convert_to(:'eve_key', 'UTF8')), 'hex') as eve_hash,
       encode(sha256(convert_to('fay-key', 'UTF8')), 'hex') as fay_hash \gset

select tests.authenticate_as_service_role();
select results_eq(format('select * from private.authorize_api_request(%L)', :'tia_hash'),
  format($$ values ('ok'::text, %L::uuid, 'tiny'::text, true, 2, 1, %L::timestamptz, null::uuid) $$, :'tia', :'next_midnight'),
  'a valid key is ok and the request is counted');
select results_eq(format('select allowed, remaining from private.authorize_api_request(%L, false)', :'tia_hash'),
  $$ values (true, 1) $$, 'without counting, the allowance is reported as it stands');
select results_eq(format('select allowed, remaining from private.authorize_api_request(%L, true)', :'tia_hash'),
  $$ values (true, 0) $$, 'the request that reaches the limit is allowed');
select results_eq(format('select outcome, allowed, remaining from private.authorize_api_request(%L)', :'tia_hash'),
  $$ values ('ok'::text, false, 0) $$, 'one over the limit is refused');
select is((select request_count from public.api_request_counters where user_id = :'tia'), 2,
  'refused requests are not counted');
select results_eq(format('select outcome, allowed, request_limit from private.authorize_api_request(%L)', :'eve_hash'),
  $$ values ('ok'::text, true, null::integer) $$, 'an unlimited plan is allowed');
select is_empty(format('select 1 from public.api_request_counters where user_id = %L', :'eve'),
  'and not counted');
select results_eq(format('select outcome, user_id, allowed from private.authorize_api_request(%L)', :'fay_hash'),
  format($$ values ('upgrade_required'::text, %L::uuid, false) $$, :'fay'), 'a Free key is upgrade_required');
select is_empty(format('select 1 from public.api_request_counters where user_id = %L', :'fay'),
  'and not counted');
select results_eq($$ select outcome, user_id from private.authorize_api_request(repeat('0', 64)) $$,
  $$ values ('unauthorized'::text, null::uuid) $$, 'an unknown key is unauthorized');
select results_eq($$ select outcome from private.authorize_api_request(null) $$,
  $$ values ('unauthorized'::text) $$, 'no key is unauthorized');
select results_eq(format('select outcome, allowed, remaining from private.authorize_api_request(%L)', :'tia_hash'),
  $$ values ('ok'::text, false, 0) $$, 'the counter commits without waiting for its flush: visible as usual');

select tests.authenticate_as('tia@test.local');
select throws_ok(format('select * from private.authorize_api_request(%L)', :'tia_hash'), '42501', null,
  'authenticated cannot call authorize_api_request');

-- list_watchlist shows only the caller's active entries, whichever paging style.
select added from public.add_watchlist_domains(array['a.test', 'b.test', 'c.test']) \gset ignored_
select public.remove_watchlist_domain('b.test') \gset ignored_
select tests.authenticate_as('eve@test.local');
select added from public.add_watchlist_domains(array['b.test', 'z.test']) \gset ignored_
select results_eq($$ select domain_name from public.list_watchlist(10) $$, array['b.test', 'z.test'],
  'another account''s entries are not listed');
select tests.authenticate_as('tia@test.local');
select results_eq($$ select domain_name from public.list_watchlist(10, 1) $$, array['c.test'],
  'offset paging skips only the caller''s active entries');
select results_eq($$ select domain_name from public.list_watchlist(10, null, 'a.test') $$, array['c.test'],
  'cursor paging too');

select * from tests.finish();
rollback;
