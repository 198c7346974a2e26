-- The project-wide rate limiter (rate_limit_*), the poller fan-out count and the pending-delete-first claim.
\ir _setup.psql

select plan(22);

-- Only the service role (and the owner) may use them.
select ok(
  not has_function_privilege('anon', 'private.rate_limit_acquire(text, text, integer)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_acquire(text, text, integer)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_pause(text, text, timestamptz, text)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_report(text, text, boolean)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_release(uuid)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_confirm(uuid)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.poller_invocations_needed()', 'EXECUTE'),
  'users cannot call the limiter or the fan-out count'
);
select ok(
  not has_table_privilege('authenticated', 'public.rate_limit_keys', 'SELECT')
  and not has_table_privilege('anon', 'public.rate_limit_classes', 'SELECT')
  and not has_table_privilege('authenticated', 'public.poller_settings', 'SELECT'),
  'nor read its tables'
);

insert into public.rate_limit_classes (class, rate_per_second, concurrency, failure_threshold, backoff_base_ms)
values ('tap', 2, 2, 2, 10000);

select tests.authenticate_as_service_role();
select throws_ok($$ select * from private.rate_limit_acquire('nope', 'k', 100) $$, 'DW400', null, 'unknown class');
select throws_ok($$ select * from private.rate_limit_acquire('tap', '', 100) $$, 'DW400', null, 'empty key');

create temporary table grants as select 1 as n, * from private.rate_limit_acquire('tap', 'h1', 5000);
select is((select granted and wait_ms = 0 from grants where n = 1), true, 'the first start is now');
insert into grants select 2, * from private.rate_limit_acquire('tap', 'h1', 5000);
select ok((select granted and wait_ms between 450 and 500 from grants where n = 2),
  'the second waits 1 / rate (500 ms)');
select is((select granted from private.rate_limit_acquire('tap', 'h2', 0)), true, 'other keys do not wait');
select results_eq($$ select granted, reason, retry_ms is not null from private.rate_limit_acquire('tap', 'h1', 5000) $$,
  $$ values (false, 'busy'::text, true) $$, 'all slots held: busy, with a time to look again');
select is(private.rate_limit_confirm((select token from grants where n = 2)) > 0, true,
  'confirming before the planned start says how long to wait');
select private.rate_limit_release((select token from grants where n = 1));
select results_eq($$ select granted, reason, retry_ms from private.rate_limit_acquire('tap', 'h1', 100) $$,
  $$ values (false, 'busy'::text, null::integer) $$, 'a start beyond the caller''s budget is refused');

-- A 429 pauses the key for everyone and voids the slot reserved but not started.
select ok(private.rate_limit_pause('tap', 'h1', now() + interval '30 seconds', 'rate_limited') > now(),
  'pause returns its end');
select is(private.rate_limit_confirm((select token from grants where n = 2)), -1, 'the waiting slot is void');
select results_eq($$ select granted, reason, paused_until > now() + interval '20 seconds' from private.rate_limit_acquire('tap', 'h1', 60000) $$,
  $$ values (false, 'rate_limited'::text, true) $$, 'a long pause refuses at once, with its reason and end');
select lives_ok($$ select private.rate_limit_pause('tap', 'h1', now() + interval '1 second', 'rate_limited') $$,
  'a shorter pause ...');
select ok((select paused_until > now() + interval '20 seconds' from public.rate_limit_keys where key = 'h1'),
  '... never shortens a longer one');
select ok(private.rate_limit_pause('tap', 'h3', now() + interval '30 days', 'rate_limited') <= clock_timestamp() + interval '1 hour',
  'a pause is capped at max_pause_ms');

-- Failure back-off.
select is(private.rate_limit_report('tap', 'h4', false), null, 'one failure: no back-off');
select is(extract(epoch from private.rate_limit_report('tap', 'h4', false) - clock_timestamp())::integer, 10,
  'at the threshold: backed off by the base');
select is((select reason from private.rate_limit_acquire('tap', 'h4', 60000)), 'backoff', 'and refused as backoff');

-- Fan-out: one invocation per checks_per_invocation due names, at most max_invocations.
select tests.clear_authentication();
update public.domains set next_check_at = now() + interval '1 day';
select tests.create_user('fan@test.local', 'pro') as ignored \gset
insert into public.domains (name, next_check_at)
  select 'fan' || i || '.test', now() - interval '1 minute' from generate_series(1, 25) as i;
insert into public.watchlist_entries (user_id, domain_name)
  select tests.user_id('fan@test.local'), 'fan' || i || '.test' from generate_series(1, 25) as i;
update public.poller_settings set checks_per_invocation = 10, max_invocations = 2;
select is(private.poller_invocations_needed(), 2, '25 due at 10 a run, capped at 2');
update public.poller_settings set max_invocations = 8;
select is(private.poller_invocations_needed(), 3, '25 due at 10 a run: 3');

-- Pending delete first.
update public.domains set status = 'pending_delete', next_check_at = now() - interval '1 second' where name = 'fan7.test';
select tests.authenticate_as_service_role();
select is((select domain_name from private.claim_due_domains(1, 60)), 'fan7.test',
  'a due name in pending delete is claimed before older due names');

select * from tests.finish();
rollback;
