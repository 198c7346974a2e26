-- The RDAP engine: service_role-only tables, next_check_delay and record_domain_check.
\ir _setup.psql

select plan(54);

-- Tables and their protection ------------------------------------------------------------------------
select has_table('public', t, 'table public.' || t || ' exists')
  from unnest(array['rdap_bootstrap_cache', 'rdap_server_overrides', 'live_check_cache']) as t;

select is_empty(
  $$ select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public'
        and c.relname in ('rdap_bootstrap_cache', 'rdap_server_overrides', 'live_check_cache')
        and not c.relrowsecurity $$,
  'row-level security is enabled on the three RDAP tables'
);

select is_empty(
  $$ select tablename::text from pg_policies
      where schemaname = 'public'
        and tablename in ('rdap_bootstrap_cache', 'rdap_server_overrides', 'live_check_cache') $$,
  'the RDAP tables have no policies (service_role only)'
);

select is_empty(
  $$ select r || ' ' || p || ' ' || t
       from unnest(array['anon', 'authenticated']) as r,
            unnest(array['select', 'insert', 'update', 'delete']) as p,
            unnest(array['public.rdap_bootstrap_cache', 'public.rdap_server_overrides',
                         'public.live_check_cache']) as t
      where has_table_privilege(r, t, p) $$,
  'anon and authenticated hold no privilege on the RDAP tables'
);

select ok(
  has_table_privilege('service_role', 'public.rdap_server_overrides', 'insert')
  and has_table_privilege('service_role', 'public.live_check_cache', 'delete')
  and has_table_privilege('service_role', 'public.rdap_bootstrap_cache', 'update'),
  'service_role can write the RDAP tables'
);

-- Overrides: what an operator may write --------------------------------------------------------------
set local role service_role;
select lives_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url, note)
     values ('zz-test', 'https://rdap.example.test/', 'test row') $$,
  'service_role can add an override'
);
select lives_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url) values ('co.zz-test', null) $$,
  'a null base_url (no RDAP for this suffix) is allowed'
);
select throws_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url) values ('ZZ', 'https://x.test/') $$,
  '23514', null, 'an upper-case suffix is refused'
);
select throws_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url) values ('.zz', 'https://x.test/') $$,
  '23514', null, 'a suffix with a leading dot is refused'
);
select throws_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url) values ('yy-test', 'ftp://x.test/') $$,
  '23514', null, 'a base_url that is not http(s) is refused'
);
select lives_ok(
  $$ insert into public.live_check_cache (domain_name, result, checked_at, expires_at)
     values ('cached.test', '{"status": "unknown"}', now(), now() + interval '30 seconds') $$,
  'service_role can write the live-check cache'
);
reset role;

set local role authenticated;
select throws_ok($$ select * from public.rdap_server_overrides $$, '42501', null,
  'authenticated cannot read the overrides');
select throws_ok($$ select * from public.live_check_cache $$, '42501', null,
  'authenticated cannot read the live-check cache');
select throws_ok($$ select * from public.rdap_bootstrap_cache $$, '42501', null,
  'authenticated cannot read the bootstrap cache');
reset role;

-- record_domain_check: who may call it ---------------------------------------------------------------
select is_definer('private', 'record_domain_check',
  array['text', 'text', 'timestamp with time zone', 'timestamp with time zone', 'text', 'boolean', 'text'],
  'record_domain_check is security definer');
select is_empty(
  $$ select r from unnest(array['public', 'anon', 'authenticated']) as r
      where r <> 'public' and has_function_privilege(r,
        'private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)', 'execute') $$,
  'anon and authenticated cannot execute record_domain_check'
);
select ok(has_function_privilege('service_role',
  'private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)', 'execute'),
  'service_role can execute record_domain_check');
set local role authenticated;
select throws_ok(
  $$ select private.record_domain_check('a.test', 'available', now(), null, null, true, 'poller') $$,
  '42501', null, 'authenticated is refused at run time too'
);
reset role;

-- next_check_delay ------------------------------------------------------------------------------------
select is(private.next_check_delay('pending_delete', null, 0), interval '5 minutes', 'pending_delete: 5 minutes');
select is(private.next_check_delay('available', null, 0), interval '1 hour', 'available: hourly');
select is(private.next_check_delay('registered', now() + interval '3 days', 0), interval '1 hour',
  'registered, expiring within 7 days: hourly');
select is(private.next_check_delay('registered', now() - interval '2 days', 0), interval '1 hour',
  'registered, past expiry: hourly');
select is(private.next_check_delay('registered', now() + interval '30 days', 0), interval '1 day',
  'registered, expiring within 45 days: daily');
select is(private.next_check_delay('registered', now() + interval '200 days', 0), interval '7 days',
  'registered, expiring later: weekly');
select is(private.next_check_delay('registered', null, 0), interval '7 days', 'registered, no expiry known: weekly');
select is(private.next_check_delay('unknown', null, 0), interval '5 minutes', 'unknown, no failure yet: 5 minutes');
select is(private.next_check_delay('unknown', null, 1), interval '5 minutes', 'unknown, 1 failure: 5 minutes');
select is(private.next_check_delay('unknown', null, 2), interval '10 minutes', 'unknown, 2 failures: 10 minutes');
select is(private.next_check_delay('unknown', null, 4), interval '40 minutes', 'unknown, 4 failures: 40 minutes');
select is(private.next_check_delay('unknown', null, 7), interval '320 minutes', 'unknown, 7 failures: 5 h 20 min');
select is(private.next_check_delay('unknown', null, 8), interval '6 hours', 'unknown, 8 failures: capped at 6 hours');
select is(private.next_check_delay('unknown', null, 10000), interval '6 hours', 'unknown, many failures: 6 hours');

-- record_domain_check: what it writes ----------------------------------------------------------------
insert into public.domains (name, lease_until) values ('rdap-engine.test', now() + interval '5 minutes');

select now() - interval '60 minutes' as t0, now() - interval '50 minutes' as t1,
       now() - interval '40 minutes' as t2, now() - interval '30 minutes' as t3,
       now() - interval '20 minutes' as t4, now() - interval '10 minutes' as t5,
       now() + interval '200 days' as expiry \gset

set local role service_role;
select private.record_domain_check('rdap-engine.test', 'registered', :'t0', :'expiry', 'Example Registrar', true, 'poller');
reset role;
select results_eq(
  $$ select status, status_changed_at, last_checked_at, expires_at, registrar, consecutive_failures, lease_until
       from public.domains where name = 'rdap-engine.test' $$,
  format($$ values ('registered'::text, %L::timestamptz, %L::timestamptz, %L::timestamptz,
                    'Example Registrar'::text, 0, null::timestamptz) $$, :'t0', :'t0', :'expiry'),
  'a successful check sets status, times, expiry and registrar and clears the lease'
);
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  :'t0'::timestamptz + interval '7 days', 'registered far from expiry: next check in a week');

set local role service_role;
select private.record_domain_check('rdap-engine.test', 'registered', :'t1', :'expiry', 'Example Registrar', true, 'poller');
reset role;
select is((select status_changed_at from public.domains where name = 'rdap-engine.test'), :'t0'::timestamptz,
  'status_changed_at stays when the status does not change');
select is((select last_checked_at from public.domains where name = 'rdap-engine.test'), :'t1'::timestamptz,
  'last_checked_at moves on');

update public.domains set lease_until = now() + interval '5 minutes' where name = 'rdap-engine.test';
set local role service_role;
select private.record_domain_check('rdap-engine.test', 'unknown', :'t2', null, null, false, 'poller');
reset role;
select results_eq(
  $$ select status, expires_at, registrar, consecutive_failures, lease_until, last_checked_at
       from public.domains where name = 'rdap-engine.test' $$,
  format($$ values ('registered'::text, %L::timestamptz, 'Example Registrar'::text, 1, null::timestamptz,
                    %L::timestamptz) $$, :'expiry', :'t2'),
  'a failed check keeps the last known status, expiry and registrar, counts the failure, clears the lease'
);
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  :'t2'::timestamptz + interval '5 minutes', 'first failure: retry in 5 minutes');

set local role service_role;
select private.record_domain_check('rdap-engine.test', 'unknown', :'t3', null, null, false, 'poller');
reset role;
select is((select consecutive_failures from public.domains where name = 'rdap-engine.test'), 2,
  'a second failure counts 2');
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  :'t3'::timestamptz + interval '10 minutes', 'second failure: retry in 10 minutes');

update public.domains set lease_until = now() + interval '5 minutes' where name = 'rdap-engine.test';
set local role service_role;
select private.record_domain_check('rdap-engine.test', 'available', :'t1', null, null, true, 'poller');
reset role;
select results_eq(
  $$ select status, consecutive_failures, lease_until from public.domains where name = 'rdap-engine.test' $$,
  $$ values ('registered'::text, 2, null::timestamptz) $$,
  'a result older than the last check changes nothing but the lease'
);

set local role service_role;
select private.record_domain_check('rdap-engine.test', 'available', :'t4', null, null, true, 'poller');
reset role;
select results_eq(
  $$ select status, status_changed_at, expires_at, registrar, consecutive_failures
       from public.domains where name = 'rdap-engine.test' $$,
  format($$ values ('available'::text, %L::timestamptz, null::timestamptz, null::text, 0) $$, :'t4'),
  'a change to available sets status_changed_at and resets the failures'
);
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  :'t4'::timestamptz + interval '1 hour', 'available: next check in an hour');

set local role service_role;
select private.record_domain_check('rdap-engine.test', 'pending_delete', :'t5', now() - interval '40 days',
  'Example Registrar', true, 'poller');
reset role;
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  :'t5'::timestamptz + interval '5 minutes', 'pending_delete: next check in 5 minutes');
select is((select status_changed_at from public.domains where name = 'rdap-engine.test'), :'t5'::timestamptz,
  'status_changed_at follows the change to pending_delete');

-- Expiry close: hourly; expiry within 45 days: daily.
set local role service_role;
select private.record_domain_check('rdap-engine.test', 'registered', now(), now() + interval '2 days', null, true, 'poller');
reset role;
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  now() + interval '1 hour', 'registered, expiring in 2 days: next check in an hour');
set local role service_role;
select private.record_domain_check('rdap-engine.test', 'registered', now(), now() + interval '20 days', null, true, 'poller');
reset role;
select is((select next_check_at from public.domains where name = 'rdap-engine.test'),
  now() + interval '1 day', 'registered, expiring in 20 days: next check tomorrow');

-- Names nobody watches, and bad input ----------------------------------------------------------------
set local role service_role;
select lives_ok(
  $$ select private.record_domain_check('not-watched.test', 'available', now(), null, null, true, 'poller') $$,
  'a name not in public.domains is accepted'
);
reset role;
select is_empty($$ select 1 from public.domains where name = 'not-watched.test' $$,
  'and no row is created for it');
set local role service_role;
select throws_ok(
  $$ select private.record_domain_check('rdap-engine.test', 'gone', now(), null, null, true, 'poller') $$,
  'DW400', null, 'an invalid status is refused'
);
select throws_ok(
  $$ select private.record_domain_check('rdap-engine.test', 'registered', null, null, null, true, 'poller') $$,
  'DW400', null, 'a missing checked_at is refused'
);
reset role;
select is((select status from public.domains where name = 'rdap-engine.test'), 'registered',
  'refused calls change nothing');

select * from finish();
rollback;
