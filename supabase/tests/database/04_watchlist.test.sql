-- Watchlist: add_watchlist_domains quota rules, list_watchlist paging, remove_watchlist_domain, RLS.
\ir _setup.psql

select plan(53);

-- A plan with a watchlist quota of 3 (rolled back with the test).
insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values ('tiny', false, null, 3, false, 99);

select tests.create_user('alice@test.local', 'tiny') as alice \gset
select tests.create_user('bob@test.local', 'pro') as bob \gset

-- Quota edges ---------------------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');

select results_eq($$ select * from public.add_watchlist_domains(array['a.test', 'b.test']) $$,
  $$ values (2, 0, 0, 1) $$, 'two new names are added, one slot remains');
select results_eq($$ select * from public.add_watchlist_domains(array['c.test']) $$,
  $$ values (1, 0, 0, 0) $$, 'adding exactly up to the quota is allowed');
select results_eq($$ select * from public.add_watchlist_domains(array['d.test']) $$,
  $$ values (0, 0, 1, 0) $$, 'one over the quota is rejected');
select results_eq($$ select * from public.add_watchlist_domains(array['a.test', 'd.test']) $$,
  $$ values (0, 1, 1, 0) $$, 'an active name is a skipped duplicate even when the watchlist is full');
select results_eq($$ select * from public.add_watchlist_domains(array[]::text[]) $$,
  $$ values (0, 0, 0, 0) $$, 'an empty request changes nothing');

-- Removal -------------------------------------------------------------------------------------------
select is(public.remove_watchlist_domain('b.test'), true, 'an active name is removed');
select is(public.remove_watchlist_domain('b.test'), false, 'a removed name cannot be removed again');
select is(public.remove_watchlist_domain('never.test'), false, 'a name not on the watchlist is not removed');
select results_eq($$ select domain_name from public.list_watchlist(50) $$, array['a.test', 'c.test'],
  'a removed name is not listed');

-- Request order decides which new names fit -----------------------------------------------------------
select results_eq($$ select * from public.add_watchlist_domains(array['e.test', 'b.test']) $$,
  $$ values (1, 0, 1, 0) $$, 'the first new name in request order takes the last slot');
select results_eq($$ select domain_name from public.list_watchlist(50) $$, array['a.test', 'c.test', 'e.test'],
  'e.test was added, b.test was not restored');

-- Restoring a soft-deleted entry counts as added ------------------------------------------------------
select is(public.remove_watchlist_domain('e.test'), true, 'e.test removed');
select tests.clear_authentication();
select id as b_entry_id from public.watchlist_entries where user_id = :'alice' and domain_name = 'b.test' \gset
update public.watchlist_entries set added_at = '2020-01-01' where id = :b_entry_id;
select tests.authenticate_as('alice@test.local');
select results_eq($$ select * from public.add_watchlist_domains(array['b.test']) $$,
  $$ values (1, 0, 0, 0) $$, 're-adding a removed name restores it and counts as added');
select results_eq(
  format('select id, deleted_at, added_at = now(), unicode_name from public.watchlist_entries where domain_name = %L', 'b.test'),
  format($$ values (%s::bigint, null::timestamptz, true, null::text) $$, :b_entry_id),
  'the same row is restored with a new added_at (its unicode name is derived: none for an ASCII name)'
);

-- Repeats inside one request --------------------------------------------------------------------------
select is(public.remove_watchlist_domain('c.test'), true, 'c.test removed');
select results_eq($$ select * from public.add_watchlist_domains(array['f.test', 'f.test', 'g.test']) $$,
  $$ values (1, 1, 1, 0) $$, 'a repeat in one request is a duplicate; the next new name is over the limit');
select is(public.remove_watchlist_domain('f.test'), true, 'f.test removed');
select results_eq($$ select * from public.add_watchlist_domains(array['g.test', 'g.test', 'a.test', 'b.test']) $$,
  $$ values (1, 3, 0, 0) $$, 'repeats and active names are all duplicates');

-- Validation: nothing is written when one name is invalid ----------------------------------------------
select is(public.remove_watchlist_domain('g.test'), true, 'g.test removed');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', 'Bad.test']) $$, 'DW400', null,
  'an upper-case name is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', 'x.test.']) $$, 'DW400', null,
  'a trailing dot is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', 'localhost']) $$, 'DW400', null,
  'a single label is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', null]) $$, 'DW400', null,
  'a null name is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', 'a b.test']) $$, 'DW400', null,
  'a space is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test', repeat('a', 250) || '.test']) $$,
  'DW400', null, 'a name longer than 253 characters is invalid');
select throws_ok($$ select * from public.add_watchlist_domains(array['h.test'], array['a', 'b']) $$, '42883', null,
  'a caller cannot send unicode names (the server derives them)');
select throws_ok($$ select * from public.add_watchlist_domains(null) $$, 'DW400', null, 'a null list is invalid');
select tests.clear_authentication();
select is((select count(*)::integer from public.domains where name = 'h.test'), 0,
  'nothing was written by the refused requests');
select tests.authenticate_as('alice@test.local');
select results_eq($$ select * from public.add_watchlist_domains(array['xn--bcher-kva.test']) $$,
  $$ values (1, 0, 0, 0) $$, 'a punycode name is added (its unicode form is derived)');

-- Plan downgrade below the active count ----------------------------------------------------------------
select tests.clear_authentication();
update public.profiles set plan_id = 'free' where id = :'alice';
update public.plans set watchlist_quota = 2 where id = 'tiny';
update public.profiles set plan_id = 'tiny' where id = :'alice';
select tests.authenticate_as('alice@test.local');
select results_eq($$ select * from public.add_watchlist_domains(array['z.test']) $$,
  $$ values (0, 0, 1, 0) $$, 'over the quota after a downgrade: nothing is added and remaining is 0');

-- Unauthenticated ------------------------------------------------------------------------------------
select set_config('request.jwt.claims', '', true);
select throws_ok($$ select * from public.add_watchlist_domains(array['y.test']) $$, 'DW401', null,
  'add_watchlist_domains needs an account');
select throws_ok($$ select * from public.list_watchlist(10) $$, 'DW401', null, 'list_watchlist needs an account');

-- Bob: paging ----------------------------------------------------------------------------------------
select tests.authenticate_as('bob@test.local');
select results_eq(
  $$ select * from public.add_watchlist_domains(array['ab.test', 'a.test', 'a-b.test', 'b.test', 'c.test']) $$,
  $$ values (5, 0, 0, 995) $$, 'bob adds five names, some of which alice watches too');
select results_eq($$ select domain_name from public.list_watchlist(10) $$,
  array['a-b.test', 'a.test', 'ab.test', 'b.test', 'c.test'], 'names are listed in byte order');
select results_eq($$ select domain_name from public.list_watchlist(2) $$,
  array['a-b.test', 'a.test', 'ab.test'], 'a page returns limit + 1 rows');
select results_eq($$ select domain_name from public.list_watchlist(2, null, 'ab.test') $$,
  array['b.test', 'c.test'], 'the cursor continues after the given name');
select results_eq($$ select domain_name from public.list_watchlist(2, 2) $$,
  array['ab.test', 'b.test', 'c.test'], 'offset skips rows');
select is_empty($$ select * from public.list_watchlist(2, 10) $$, 'an offset past the end is empty');
select throws_ok($$ select * from public.list_watchlist(2, 0, 'a.test') $$, 'DW400', null,
  'cursor and offset together are refused');
select throws_ok($$ select * from public.list_watchlist(0) $$, 'DW400', null, 'limit 0 is refused');
select results_eq(
  $$ select domain_name, unicode_name, status from public.list_watchlist(1, null, 'b.test') $$,
  $$ values ('c.test'::text, null::text, 'unknown'::text) $$, 'a listed domain carries its check status');

-- RLS ----------------------------------------------------------------------------------------------------
select results_eq($$ select distinct user_id from public.watchlist_entries $$, array[:'bob'::uuid],
  'bob reads only his own watchlist entries');
select results_eq($$ select name from public.domains order by name collate "C" $$,
  array['a-b.test', 'a.test', 'ab.test', 'b.test', 'c.test'],
  'bob reads exactly the domains he actively watches');
select is(public.remove_watchlist_domain('c.test'), true, 'bob removes c.test');
select is_empty($$ select * from public.domains where name = 'c.test' $$,
  'a removed name is no longer readable in domains');
select throws_ok($$ insert into public.domains (name) values ('evil.test') $$, '42501', null,
  'a user cannot insert domains');
select throws_ok($$ update public.domains set status = 'available' $$, '42501', null, 'a user cannot update domains');
select throws_ok($$ insert into public.watchlist_entries (user_id, domain_name) values (auth.uid(), 'a.test') $$,
  '42501', null, 'a user cannot insert watchlist entries directly');
select throws_ok($$ update public.watchlist_entries set deleted_at = null $$, '42501', null,
  'a user cannot update watchlist entries directly');
select throws_ok($$ delete from public.watchlist_entries $$, '42501', null,
  'a user cannot delete watchlist entries directly');

select tests.authenticate_as_anon();
select throws_ok($$ select * from public.watchlist_entries $$, '42501', null, 'anon cannot read watchlist entries');
select throws_ok($$ select * from public.domains $$, '42501', null, 'anon cannot read domains');
select throws_ok($$ select * from public.add_watchlist_domains(array['a.test']) $$, '42501', null,
  'anon cannot call add_watchlist_domains');

select tests.clear_authentication();
select * from tests.finish();
rollback;
