-- A name's history is read only for the periods the reader watched it, and only the changes the poller
-- recorded or the reader's own live checks caused (issue 40, point 3; migration 20261206000400). The periods
-- are kept by a trigger on watchlist_entries (added, removed, watched again, deleted outright); the read
-- policy of domain_status_changes and domain_detail apply the same rule. The quota case: a Free account adds
-- ten names, removes them, adds ten more, and no longer follows the first ten.
-- Time in one transaction stands still (now()), so the periods the functions open and close are moved back
-- afterwards to the dates the history is written at.
\ir _setup.psql

select plan(33);

select tests.create_user('hp-fran@test.local', 'free') as fran \gset
select tests.create_user('hp-pat@test.local', 'pro') as pat \gset
select tests.create_user('hp-olga@test.local', 'pro') as olga \gset

-- Privileges -------------------------------------------------------------------------------------------
select ok(
  has_table_privilege('authenticated', 'public.watch_periods', 'SELECT')
  and not has_table_privilege('authenticated', 'public.watch_periods', 'INSERT')
  and not has_table_privilege('authenticated', 'public.watch_periods', 'UPDATE')
  and not has_table_privilege('authenticated', 'public.watch_periods', 'DELETE')
  and not has_table_privilege('anon', 'public.watch_periods', 'SELECT'),
  'an account reads its watch periods; only the trigger writes them');
select ok(
  not has_function_privilege('authenticated', 'private.note_live_change_account(text, timestamptz, uuid)',
    'EXECUTE')
  and not has_function_privilege('authenticated', 'private.note_registry_reading(text, timestamptz, boolean)',
    'EXECUTE')
  and has_function_privilege('service_role', 'private.note_live_change_account(text, timestamptz, uuid)',
    'EXECUTE')
  and has_function_privilege('service_role', 'private.note_registry_reading(text, timestamptz, boolean)',
    'EXECUTE'),
  'who caused a live change, and an unreadable answer, are noted by the service only');

-- The periods the trigger keeps --------------------------------------------------------------------------
select tests.authenticate_as('hp-fran@test.local');
select public.add_watchlist_domains(
  (select array_agg(format('first%s-hp.test', g)) from generate_series(1, 10) as g));
select public.remove_watchlist_domain(format('first%s-hp.test', g)) from generate_series(1, 10) as g;
select is((select (public.add_watchlist_domains(
  (select array_agg(format('second%s-hp.test', g)) from generate_series(1, 10) as g))).added), 10,
  'Free: ten names, removed, then ten more (the quota counts watched names)');
select is((select count(*)::integer from public.watch_periods where ended_at is not null), 10,
  'the ten removed names have closed periods');
select is((select count(*)::integer from public.watch_periods where ended_at is null), 10,
  'the ten watched names have open periods');
select ok((select bool_and(p.started_at = e.added_at and p.ended_at = e.deleted_at)
             from public.watch_periods as p
             join public.watchlist_entries as e on e.user_id = p.user_id and e.domain_name = p.domain_name
            where p.domain_name like 'first%'),
  'a period runs from adding the name to removing it');

select tests.authenticate_as('hp-pat@test.local');
select public.add_watchlist_domains(array['again-hp.test', 'second1-hp.test', 'gone-hp.test']);
select public.remove_watchlist_domain('again-hp.test');
select public.add_watchlist_domains(array['again-hp.test']);
select is((select count(*)::integer from public.watch_periods where domain_name = 'again-hp.test'), 2,
  'a name watched again has two periods');
select is((select count(*)::integer from public.watch_periods
            where domain_name = 'again-hp.test' and ended_at is null), 1, 'only the second is open');

-- An entry deleted outright closes its period.
select tests.clear_authentication();
delete from public.watchlist_entries where user_id = :'pat' and domain_name = 'gone-hp.test';
select ok((select ended_at is not null from public.watch_periods
            where user_id = :'pat' and domain_name = 'gone-hp.test'),
  'an entry deleted outright closes its period');

-- Dates: fran watched the first ten from 30 to 20 days ago and the second ten from 10 days ago; pat watches
-- second1 from 40 days ago, and again-hp from 30 to 20 days ago and again from 10 days ago.
select now() as t0 \gset
update public.watch_periods set started_at = :'t0'::timestamptz - interval '30 days',
                                ended_at = :'t0'::timestamptz - interval '20 days'
 where user_id = :'fran' and domain_name like 'first%';
update public.watch_periods set started_at = :'t0'::timestamptz - interval '10 days'
 where user_id = :'fran' and domain_name like 'second%';
update public.watch_periods set started_at = :'t0'::timestamptz - interval '40 days'
 where user_id = :'pat' and domain_name = 'second1-hp.test';
update public.watch_periods set started_at = :'t0'::timestamptz - interval '30 days',
                                ended_at = :'t0'::timestamptz - interval '20 days'
 where user_id = :'pat' and domain_name = 'again-hp.test' and ended_at is not null;
update public.watch_periods set started_at = :'t0'::timestamptz - interval '10 days'
 where user_id = :'pat' and domain_name = 'again-hp.test' and ended_at is null;

-- The history ----------------------------------------------------------------------------------------------
create function pg_temp.poller(p_name text, p_status text, p_days_ago integer)
returns void
language sql
as $$
  select private.record_domain_check(p_name, p_status, now() - make_interval(days => p_days_ago), null, null,
                                     true, 'poller')
$$;
create function pg_temp.live(p_name text, p_status text, p_days_ago integer, p_account uuid)
returns void
language sql
as $$
  select private.record_domain_check(p_name, p_status, now() - make_interval(days => p_days_ago), null, null,
                                     true, 'live');
  select private.note_live_change_account(p_name, now() - make_interval(days => p_days_ago), p_account)
$$;

-- first1: seen while fran watched it, then it went to pending delete and dropped after she removed it.
select pg_temp.poller('first1-hp.test', 'registered', 25);
select pg_temp.poller('first1-hp.test', 'pending_delete', 15);
select pg_temp.poller('first1-hp.test', 'available', 1);
select private.note_status_change_evidence('first1-hp.test', now() - interval '1 day', '{"source": "rdap"}');
-- first2: every change after the removal.
select pg_temp.poller('first2-hp.test', 'pending_delete', 12);
select pg_temp.poller('first2-hp.test', 'available', 2);
-- second1: a change before fran started watching, then pat's live check, then fran's, then the poller's.
select pg_temp.poller('second1-hp.test', 'registered', 12);
select pg_temp.live('second1-hp.test', 'pending_delete', 8, :'pat');
select pg_temp.live('second1-hp.test', 'available', 6, :'fran');
select pg_temp.poller('second1-hp.test', 'registered', 4);
-- A live change nobody is noted for (e.g. an account deleted since): nobody reads it.
select pg_temp.live('second1-hp.test', 'available', 3, null);
-- again-hp: during pat's first period, between the two, and during the second.
select pg_temp.poller('again-hp.test', 'registered', 25);
select pg_temp.poller('again-hp.test', 'pending_delete', 15);
select pg_temp.poller('again-hp.test', 'available', 5);
select is((select caused_by from public.domain_status_changes
            where domain_name = 'second1-hp.test' and status = 'pending_delete'), :'pat'::uuid,
  'a live change names the account whose check caused it');
select is((select count(*)::integer from public.domain_status_changes where caused_by is not null
             and source = 'poller'), 0, 'the poller''s changes name no account');

-- What fran reads.
select tests.authenticate_as('hp-fran@test.local');
select results_eq(
  $$ select domain_name, status from public.domain_status_changes where domain_name like 'first%'
      order by changed_at $$,
  $$ values ('first1-hp.test'::text, 'registered'::text) $$,
  'a removed name: only what happened while it was watched; nothing after the removal');
select is((select count(*)::integer from public.domain_status_changes where status = 'available'
             and domain_name like 'first%'), 0,
  'the quota case: an available (with its evidence) after the removal is not read');
select throws_ok($$ select public.domain_detail('first1-hp.test') $$, 'P0002', null,
  'a removed name has no page');
select results_eq(
  $$ select status, source from public.domain_status_changes where domain_name = 'second1-hp.test'
      order by changed_at $$,
  $$ values ('available'::text, 'live'::text), ('registered', 'poller') $$,
  'a watched name: from the start of the period, the poller''s changes and her own live check only');
select results_eq(
  $$ select h ->> 'status' from jsonb_array_elements(public.domain_detail('second1-hp.test') -> 'history') as h $$,
  $$ select status from public.domain_status_changes where domain_name = 'second1-hp.test'
      order by changed_at, id $$,
  'domain_detail shows exactly what the table policy lets her read');
select is((select count(*)::integer from public.watch_periods), 20, 'she reads her own periods');
select is((select count(*)::integer from public.watch_periods where user_id <> :'fran'), 0,
  'and no one else''s');

-- What pat reads.
select tests.authenticate_as('hp-pat@test.local');
select results_eq(
  $$ select status, source from public.domain_status_changes where domain_name = 'second1-hp.test'
      order by changed_at $$,
  $$ values ('registered'::text, 'poller'::text), ('pending_delete', 'live'), ('registered', 'poller') $$,
  'another watcher: the poller''s changes and his own live check, not fran''s');
select results_eq(
  $$ select status from public.domain_status_changes where domain_name = 'again-hp.test' order by changed_at $$,
  $$ values ('registered'::text), ('available') $$,
  'a name watched again: the changes of both periods, not those between them');
select results_eq(
  $$ select h ->> 'status' from jsonb_array_elements(public.domain_detail('again-hp.test') -> 'history') as h $$,
  $$ values ('registered'::text), ('available') $$,
  'domain_detail: the same periods');
select results_eq(
  $$ select h ->> 'status' from jsonb_array_elements(public.domain_detail('second1-hp.test') -> 'history') as h $$,
  $$ select status from public.domain_status_changes where domain_name = 'second1-hp.test'
      order by changed_at, id $$,
  'domain_detail and the table agree for him too');

-- Someone who never watched a name reads nothing of it.
select tests.authenticate_as('hp-olga@test.local');
select is((select count(*)::integer from public.domain_status_changes), 0, 'a non-watcher reads nothing');
select is((select count(*)::integer from public.watch_periods), 0, 'and has no periods');

-- An assistant's token reads no periods (the history is refused to it already).
select set_config('request.jwt.claims', jsonb_build_object('sub', :'pat', 'role', 'authenticated',
  'client_id', '9f1c0a44-assistant')::text, true);
select set_config('role', 'authenticated', true);
select is((select count(*)::integer from public.watch_periods), 0, 'an assistant''s token reads no periods');
select is((select count(*)::integer from public.domain_status_changes), 0,
  'nor the history');

-- An account cannot write periods or history.
select tests.authenticate_as('hp-fran@test.local');
select throws_ok($$ insert into public.watch_periods (user_id, domain_name, started_at)
                    values (auth.uid(), 'first1-hp.test', now() - interval '1 year') $$, '42501', null,
  'an account cannot open a period of its own making');
select throws_ok($$ update public.watch_periods set ended_at = null $$, '42501', null,
  'nor reopen one');
select throws_ok($$ update public.domain_status_changes set caused_by = auth.uid() $$, '42501', null,
  'nor claim another''s live change');

-- The unreadable-answer note (point 2) -------------------------------------------------------------------
select tests.authenticate_as_service_role();
select private.record_domain_check('second2-hp.test', 'unknown', now() - interval '2 hours', null, null, false,
  'poller');
select private.note_registry_reading('second2-hp.test', now() - interval '2 hours', true);
select tests.authenticate_as('hp-fran@test.local');
select is((public.domain_detail('second2-hp.test') -> 'domain' ->> 'registry_unreadable_at')::timestamptz,
  now() - interval '2 hours', 'the name''s page says when the registry''s answer could not be read');
select tests.authenticate_as_service_role();
select private.note_registry_reading('second2-hp.test', now() - interval '3 hours', false);
select isnt((select registry_unreadable_at from public.domains where name = 'second2-hp.test'), null,
  'an older check clears nothing');
select private.record_domain_check('second2-hp.test', 'registered', now() - interval '1 hour', null, null, true,
  'poller');
select private.record_registry_answer('second2-hp.test', now() - interval '1 hour');
select is((select registry_unreadable_at from public.domains where name = 'second2-hp.test'), null,
  'a later readable answer clears it (record_registry_answer, the poller''s call for every registry answer)');

-- Performance: the policy's period test is an index lookup per row, not a scan of every period.
select tests.clear_authentication();
select ok(
  (select count(*) from pg_indexes where tablename = 'watch_periods'
      and indexdef like '%(user_id, domain_name, started_at)%') = 1,
  'periods are indexed by account and name');

select * from tests.finish();
rollback;
