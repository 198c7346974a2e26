-- Housekeeping: the purge-expired-rows job is scheduled, and private.purge_expired_rows() deletes exactly
-- what is older than its retention period (public.retention_settings), never a pending delivery's event.
\ir _setup.psql

select plan(17);

select results_eq(
  $$ select schedule, btrim(command), active from cron.job where jobname = 'purge-expired-rows' $$,
  $$ values ('17 3 * * *'::text, 'select private.purge_expired_rows()'::text, true) $$,
  'pg_cron purges expired rows every day at 03:17 UTC'
);
select ok(
  not has_function_privilege('authenticated', 'private.purge_expired_rows()', 'EXECUTE')
  and not has_function_privilege('anon', 'private.purge_expired_rows()', 'EXECUTE')
  and not has_function_privilege('service_role', 'private.purge_expired_rows()', 'EXECUTE'),
  'only the job''s owner runs the purge'
);
select results_eq(
  $$ select delivery_attempts_days, alert_events_days, live_check_cache_hours, request_counters_days,
            session_request_log_days, cron_run_details_days from public.retention_settings $$,
  $$ values (90, 365, 24, 35, 2, 7) $$,
  'the documented default periods'
);
select ok(
  not has_table_privilege('authenticated', 'public.retention_settings', 'select')
  and has_table_privilege('service_role', 'public.retention_settings', 'update'),
  'retention settings are the operator''s'
);

-- Rows on both sides of every boundary.
select tests.create_user('keeper@test.local', 'pro') as keeper \gset

insert into public.alert_events (id, user_id, type, domain_name, status, checked_at, created_at) values
  ('evt_old_final', :'keeper', 'domain.available', 'old.test', 'available', now(), now() - interval '400 days'),
  ('evt_old_pending', :'keeper', 'domain.available', 'stuck.test', 'available', now(), now() - interval '400 days'),
  ('evt_recent', :'keeper', 'domain.available', 'new.test', 'available', now(), now() - interval '300 days');
insert into public.alert_deliveries (id, event_id, user_id, channel, status, created_at) values
  ('00000000-0000-0000-0000-00000000d001', 'evt_old_final', :'keeper', 'telegram', 'delivered', now() - interval '400 days'),
  ('00000000-0000-0000-0000-00000000d002', 'evt_old_pending', :'keeper', 'telegram', 'pending', now() - interval '400 days'),
  ('00000000-0000-0000-0000-00000000d003', 'evt_recent', :'keeper', 'telegram', 'delivered', now() - interval '300 days');
insert into public.alert_delivery_attempts (delivery_id, user_id, attempted_at, outcome) values
  ('00000000-0000-0000-0000-00000000d003', :'keeper', now() - interval '91 days', 'failed'),
  ('00000000-0000-0000-0000-00000000d003', :'keeper', now() - interval '89 days', 'delivered');
insert into public.live_check_cache (domain_name, result, checked_at, expires_at) values
  ('gone.test', '{}', now() - interval '26 hours', now() - interval '25 hours'),
  ('kept.test', '{}', now() - interval '2 hours', now() - interval '1 hour');
insert into public.api_request_counters (user_id, day, request_count) values
  (:'keeper', (now() at time zone 'utc')::date - 36, 5),
  (:'keeper', (now() at time zone 'utc')::date - 35, 5),
  (:'keeper', (now() at time zone 'utc')::date, 5);
insert into public.session_request_log (user_id, action, requested_at) values
  (:'keeper', 'export', now() - interval '3 days'),
  (:'keeper', 'export', now() - interval '1 hour');
insert into cron.job_run_details (jobid, runid, job_pid, database, username, command, status, return_message,
                                  start_time, end_time)
values (1, -1, 1, 'postgres', 'postgres', 'select 1', 'succeeded', '1 row', now() - interval '8 days',
        now() - interval '8 days'),
       (1, -2, 1, 'postgres', 'postgres', 'select 1', 'succeeded', '1 row', now() - interval '6 days',
        now() - interval '6 days');

select ok((private.purge_expired_rows() ->> 'alert_events')::int >= 1, 'the purge reports what it deleted');

select is((select count(*)::int from public.alert_events where id = 'evt_old_final'), 0,
  'an old event whose deliveries are final is deleted');
select is((select count(*)::int from public.alert_deliveries where event_id = 'evt_old_final'), 0,
  'with its deliveries');
select is((select count(*)::int from public.alert_events where id = 'evt_old_pending'), 1,
  'an old event with a pending delivery is kept');
select is((select count(*)::int from public.alert_events where id = 'evt_recent'), 1, 'a recent event is kept');
select is(
  (select array_agg(outcome order by attempted_at) from public.alert_delivery_attempts
    where delivery_id = '00000000-0000-0000-0000-00000000d003'),
  array['delivered'], 'attempts older than 90 days are deleted, newer ones kept'
);
select is((select array_agg(domain_name::text order by domain_name) from public.live_check_cache
            where domain_name in ('gone.test', 'kept.test')),
  array['kept.test'], 'cache rows expired more than 24 hours ago are deleted');
select is((select count(*)::int from public.api_request_counters where user_id = :'keeper'), 2,
  'API counters older than 35 days are deleted');
select is((select min(day) from public.api_request_counters where user_id = :'keeper'),
  (now() at time zone 'utc')::date - 35, 'the 35th day back is kept');
select is((select count(*)::int from public.session_request_log where user_id = :'keeper'), 1,
  'session log rows older than 2 days are deleted');
select is((select array_agg(runid order by runid) from cron.job_run_details where runid < 0), array[-2::bigint],
  'pg_cron run details older than 7 days are deleted');

update public.retention_settings set alert_events_days = 250;
select private.purge_expired_rows() as ignored \gset
select is((select count(*)::int from public.alert_events where id = 'evt_recent'), 0,
  'a shorter period takes effect at the next run');
select throws_ok($$ update public.retention_settings set request_counters_days = 1 $$, '23514', null,
  'periods too short for the rules are refused');

select * from tests.finish();
rollback;
