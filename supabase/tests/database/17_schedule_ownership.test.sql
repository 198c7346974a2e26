-- Schedule ownership: the poller plans a watched name's checks; a live check (any account, any name) may
-- record a decided result and bring the next check earlier, never postpone or move it, never count a
-- failure, and an undecided live result leaves the shared state as it was (record_domain_check p_source).
\ir _setup.psql

select plan(26);

-- The signature -----------------------------------------------------------------------------------------
select has_function('private', 'record_domain_check',
  array['text', 'text', 'timestamp with time zone', 'timestamp with time zone', 'text', 'boolean', 'text'],
  'record_domain_check takes the source of the check');
select hasnt_function('private', 'record_domain_check',
  array['text', 'text', 'timestamp with time zone', 'timestamp with time zone', 'text', 'boolean'],
  'the signature without a source is gone');

-- One account watches a name in pending delete --------------------------------------------------------
select tests.create_user('owner@test.local') as watcher \gset
select tests.create_user('checker@test.local') as checker \gset
select tests.authenticate_as('owner@test.local');
select added from public.add_watchlist_domains(
  array['aimed.test', 'far.test', 'backoff.test', 'leased.test', 'source.test']) \gset ignored_

select now() - interval '60 seconds' as t_poll, now() + interval '57 seconds' as aimed \gset

-- The poller's check found it in pending delete, with the drop predicted 56 s from now: the next check is
-- aimed a second after it.
select tests.authenticate_as_service_role();
select private.record_domain_check('aimed.test', 'pending_delete', :'t_poll', now() - interval '35 days',
  'Example Registrar', true, 'poller');
select private.schedule_pending_delete_check('aimed.test', :'t_poll', :'aimed');
select is((select next_check_at from public.domains where name = 'aimed.test'), :'aimed'::timestamptz,
  'the poller aimed its next check just after the predicted drop');

-- Another account's decided live check ------------------------------------------------------------------
select private.record_domain_check('aimed.test', 'pending_delete', now() - interval '50 seconds',
  now() - interval '35 days', 'Example Registrar', true, 'live');
select results_eq(
  $$ select next_check_at, consecutive_failures, last_checked_at, status_changed_at from public.domains
      where name = 'aimed.test' $$,
  format($$ values (%L::timestamptz, 0, now() - interval '50 seconds', %L::timestamptz) $$, :'aimed', :'t_poll'),
  'a decided live check records when it looked and keeps the aimed check'
);

-- Eight undecided live checks (host busy, registry paused, timeouts) ---------------------------------
select private.record_domain_check('aimed.test', 'unknown', now() - interval '45 seconds' + i * interval '1 second',
  null, null, false, 'live')
  from generate_series(0, 7) as i;
select results_eq(
  $$ select status, next_check_at, consecutive_failures, last_checked_at, expires_at, registrar
       from public.domains where name = 'aimed.test' $$,
  format($$ values ('pending_delete'::text, %L::timestamptz, 0, now() - interval '50 seconds',
                    now() - interval '35 days', 'Example Registrar'::text) $$, :'aimed'),
  'eight unknown live checks leave the state as it was: the aimed check stays, failures stay 0'
);
select private.record_domain_check('aimed.test', 'unknown', now() - interval '35 seconds', null, null, true, 'live');
select is((select last_checked_at from public.domains where name = 'aimed.test'), now() - interval '50 seconds',
  'an unknown status is undecided even when called a success');
select is((select count(*)::integer from public.alert_events where domain_name = 'aimed.test'), 0,
  'no alert so far');

-- A decided available from a live check raises the alert, once -----------------------------------------
select private.record_domain_check('aimed.test', 'available', now() - interval '30 seconds', null, null, true, 'live');
select results_eq(
  $$ select status, status_changed_at, next_check_at, consecutive_failures from public.domains
      where name = 'aimed.test' $$,
  format($$ values ('available'::text, now() - interval '30 seconds', %L::timestamptz, 0) $$, :'aimed'),
  'a live available is recorded; the aimed check still comes (an hour later would be later)'
);
select results_eq(
  $$ select user_id, type, previous_status, status from public.alert_events where domain_name = 'aimed.test' $$,
  format($$ values (%L::uuid, 'domain.available'::text, 'pending_delete'::text, 'available'::text) $$, :'watcher'),
  'it raises domain.available for the watcher'
);
select private.record_domain_check('aimed.test', 'available', now() - interval '20 seconds', null, null, true, 'live');
select private.record_domain_check('aimed.test', 'unknown', now() - interval '10 seconds', null, null, false, 'live');
select private.record_domain_check('aimed.test', 'available', now() - interval '5 seconds', null, null, true, 'live');
select is((select count(*)::integer from public.alert_events where domain_name = 'aimed.test'), 1,
  'more live checks of the same result raise nothing more: exactly one alert');
-- The poller's own check at the aimed time confirms it: still one alert.
select private.record_domain_check('aimed.test', 'available', :'aimed', null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events where domain_name = 'aimed.test'), 1,
  'the poller confirming it raises nothing more either');
select is((select next_check_at from public.domains where name = 'aimed.test'),
  :'aimed'::timestamptz + interval '1 hour', 'and the poller plans the next check again');

-- Earlier, never later ----------------------------------------------------------------------------------
select private.record_domain_check('far.test', 'registered', now() - interval '1 hour', now() + interval '1 year',
  null, true, 'poller');
select is((select next_check_at from public.domains where name = 'far.test'),
  now() - interval '1 hour' + interval '7 days', 'registered far from expiry: the poller looks in a week');
select private.record_domain_check('far.test', 'registered', now() - interval '5 minutes', now() + interval '1 year',
  null, true, 'live');
select is((select next_check_at from public.domains where name = 'far.test'),
  now() - interval '1 hour' + interval '7 days', 'a live check with the same result keeps the week');
select private.record_domain_check('far.test', 'pending_delete', now() - interval '4 minutes',
  now() - interval '31 days', null, true, 'live');
select results_eq(
  $$ select status, next_check_at from public.domains where name = 'far.test' $$,
  $$ values ('pending_delete'::text, now() - interval '4 minutes' + interval '5 minutes') $$,
  'a live check that finds it in pending delete brings the next check earlier'
);
select private.record_domain_check('far.test', 'registered', now() - interval '3 minutes', now() + interval '1 year',
  null, true, 'live');
select results_eq(
  $$ select status, next_check_at from public.domains where name = 'far.test' $$,
  $$ values ('registered'::text, now() - interval '4 minutes' + interval '5 minutes') $$,
  'a live registered records the status but does not put the check back a week'
);
select private.record_domain_check('far.test', 'available', now() - interval '10 minutes', null, null, true, 'live');
select is((select status from public.domains where name = 'far.test'), 'registered',
  'a live result older than the last check changes nothing');

-- Failures and backoff are the poller's -----------------------------------------------------------------
select private.record_domain_check('backoff.test', 'unknown', now() - interval '20 minutes', null, null, false,
  'poller');
select private.record_domain_check('backoff.test', 'unknown', now() - interval '15 minutes', null, null, false,
  'poller');
select results_eq(
  $$ select consecutive_failures, next_check_at from public.domains where name = 'backoff.test' $$,
  $$ values (2, now() - interval '15 minutes' + interval '10 minutes') $$,
  'the poller''s failures back off'
);
select private.record_domain_check('backoff.test', 'unknown', now() - interval '10 minutes' + i * interval '30 seconds',
  null, null, false, 'live')
  from generate_series(0, 7) as i;
select results_eq(
  $$ select consecutive_failures, next_check_at from public.domains where name = 'backoff.test' $$,
  $$ values (2, now() - interval '15 minutes' + interval '10 minutes') $$,
  'live unknowns neither count nor back off'
);
select private.record_domain_check('backoff.test', 'registered', now() - interval '1 minute', now() + interval '1 year',
  null, true, 'live');
select results_eq(
  $$ select status, consecutive_failures, next_check_at from public.domains where name = 'backoff.test' $$,
  $$ values ('registered'::text, 2, now() - interval '15 minutes' + interval '10 minutes') $$,
  'a decided live check leaves the poller''s failure count and retry'
);

-- The poller's lease is the poller's ----------------------------------------------------------------------
update public.domains set lease_until = now() + interval '2 minutes' where name = 'leased.test';
select private.record_domain_check('leased.test', 'registered', now(), now() + interval '1 year', null, true, 'live');
select results_eq(
  $$ select status, lease_until from public.domains where name = 'leased.test' $$,
  $$ values ('registered'::text, now() + interval '2 minutes') $$,
  'a live check while the poller holds the name keeps the lease'
);
select private.record_domain_check('leased.test', 'registered', now(), now() + interval '1 year', null, true, 'poller');
select is((select lease_until from public.domains where name = 'leased.test'), null,
  'the poller''s result clears it');

-- The source is required ------------------------------------------------------------------------------
select throws_ok(
  $$ select private.record_domain_check('source.test', 'registered', now(), null, null, true, 'cron') $$,
  'DW400', null, 'an unknown source is refused'
);
select throws_ok(
  $$ select private.record_domain_check('source.test', 'registered', now(), null, null, true, null) $$,
  'DW400', null, 'a missing source is refused'
);
select is((select status from public.domains where name = 'source.test'), 'unknown', 'and nothing is written');

-- Who may call it -------------------------------------------------------------------------------------
select tests.clear_authentication();
select ok(
  not has_function_privilege('authenticated',
    'private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)', 'execute')
  and has_function_privilege('service_role',
    'private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)', 'execute'),
  'service_role only'
);

select * from tests.finish();
rollback;
