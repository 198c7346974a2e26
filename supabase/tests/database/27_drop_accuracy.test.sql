-- Measured drop predictions: a drop that had a prediction is kept (also when nobody watches the name any
-- more); the accuracy report; the per-registry correction learnt from at least 20 observations.
\ir _setup.psql

select plan(15);

select tests.create_user('da-alice@test.local', 'pro') as alice \gset

select ok(
  not has_function_privilege('authenticated', 'private.drop_accuracy_report()', 'EXECUTE')
  and has_function_privilege('service_role', 'private.drop_accuracy_report()', 'EXECUTE')
  and not has_table_privilege('authenticated', 'public.drop_observations', 'SELECT'),
  'the observations and the report are the operator''s'
);
select is(private.registry_of('a.example.co.uk'), 'uk', 'the registry is the top-level domain');

select tests.authenticate_as('da-alice@test.local');
select added from public.add_watchlist_domains(array['da-drop.datest', 'da-again.datest']) \gset ignored_
select tests.authenticate_as_service_role();

-- A drop with a prediction.
select private.record_domain_check('da-drop.datest', 'registered', now() - interval '3 hours', null, null, true, 'poller');
select private.record_domain_check('da-drop.datest', 'pending_delete', now() - interval '2 hours', null, null, true, 'poller');
select private.note_drop_prediction('da-drop.datest', now() - interval '2 hours', now() - interval '90 minutes',
  'pending_delete_period', 600);
select results_eq(
  $$ select predicted_drop_at = now() - interval '90 minutes', prediction_basis, prediction_correction_seconds
       from public.domains where name = 'da-drop.datest' $$,
  $$ values (true, 'pending_delete_period'::text, 600) $$, 'the domain row keeps the prediction in force');
select private.record_domain_check('da-drop.datest', 'pending_delete', now() - interval '80 minutes', null, null, true, 'poller');
select private.note_drop_prediction('da-drop.datest', now() - interval '80 minutes', now() - interval '70 minutes',
  'pending_delete_period', 600);
select private.note_drop_prediction('da-drop.datest', now() - interval '2 hours', now() - interval '5 hours',
  'redemption_period', 0);
select is((select predicted_drop_at from public.domains where name = 'da-drop.datest'), now() - interval '70 minutes',
  'a later check''s prediction replaces it; an older check''s does not');
select private.record_domain_check('da-drop.datest', 'available', now() - interval '60 minutes', null, null, true, 'poller');
select results_eq(
  $$ select domain_name, registry, basis, predicted_drop_at = now() - interval '70 minutes', correction_seconds,
            last_pending_at = now() - interval '80 minutes', observed_at = now() - interval '60 minutes'
       from public.drop_observations $$,
  $$ values ('da-drop.datest'::text, 'datest'::text, 'pending_delete_period'::text, true, 600, true, true) $$,
  'the drop is kept: prediction, basis, registry, the last check in pending delete and the observed drop');

update public.watchlist_entries set deleted_at = now() where user_id = :'alice';
select is((select count(*)::int from public.drop_observations), 1, 'kept when nobody watches the name any more');

-- A cycle without a prediction: entering pending delete starts from none, so nothing is measured.
select private.record_domain_check('da-again.datest', 'pending_delete', now() - interval '50 minutes', null, null, true, 'poller');
update public.domains set predicted_drop_at = now() - interval '1 hour', prediction_basis = 'pending_delete_period'
 where name = 'da-again.datest';
select private.record_domain_check('da-again.datest', 'registered', now() - interval '40 minutes', null, null, true, 'poller');
select private.record_domain_check('da-again.datest', 'pending_delete', now() - interval '30 minutes', null, null, true, 'poller');
select is((select predicted_drop_at from public.domains where name = 'da-again.datest'), null,
  'entering pending delete again clears the last cycle''s prediction');
select private.record_domain_check('da-again.datest', 'available', now() - interval '20 minutes', null, null, true, 'poller');
select is((select count(*)::int from public.drop_observations where domain_name = 'da-again.datest'), 0,
  'a drop without a prediction is not an observation');

-- The correction: a registry whose drops run 2 h late (raw prediction + 2 h). 19 observations: none yet.
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
select 'late' || i || '.late', 'late', 'redemption_period', now() - interval '10 days' + make_interval(hours => i),
       0, now() - interval '10 days' + make_interval(hours => i) + interval '2 hours' + make_interval(secs => 2 * i)
  from generate_series(1, 19) as i;
select private.refresh_drop_prediction_correction('late', 'redemption_period');
select is((select count(*)::int from public.drop_prediction_corrections where registry = 'late'), 0,
  '19 observations: no correction yet');
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
values ('late20.late', 'late', 'redemption_period', now() - interval '1 day', 0, now() - interval '1 day' + interval '2 hours 40 seconds');
select private.refresh_drop_prediction_correction('late', 'redemption_period');
select results_eq(
  $$ select offset_seconds, observations, measured, source like 'measured: median of (observed - predicted) over 20 observed drops%'
       from public.drop_prediction_corrections where registry = 'late' $$,
  $$ values (7221, 20, true, true) $$, '20 observations: the median offset (2 h 21 s), with its source');
-- Observations made with the correction in force are measured against the raw prediction.
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
select 'late-c' || i || '.late', 'late', 'redemption_period', now() - interval '5 days' + make_interval(hours => i),
       7221, now() - interval '5 days' + make_interval(hours => i) + interval '10 seconds'
  from generate_series(1, 11) as i;
select private.refresh_drop_prediction_correction('late', 'redemption_period');
select is((select offset_seconds from public.drop_prediction_corrections where registry = 'late'), 7231,
  'drops seen with the correction in force count against the raw prediction (correction + 10 s)');

-- An operator's row is data with its own source: measurement leaves it alone.
insert into public.drop_prediction_corrections (registry, basis, offset_seconds, source)
values ('datest', 'pending_delete_period', -300, 'operator: registry''s published drop schedule');
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
select 'op' || i || '.datest', 'datest', 'pending_delete_period', now() - interval '3 days', 0, now() - interval '2 days'
  from generate_series(1, 25) as i;
select private.refresh_drop_prediction_correction('datest', 'pending_delete_period');
select is((select offset_seconds from public.drop_prediction_corrections where registry = 'datest'), -300,
  'an operator''s correction is not overwritten');

-- The report on seeded observations.
delete from public.drop_observations;
delete from public.drop_prediction_corrections;
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
select 'r' || i || '.rep', 'rep', 'pending_delete_period', '2026-11-01T00:00:00Z',
       0, '2026-11-01T00:00:00Z'::timestamptz + make_interval(mins => i - 3)
  from generate_series(1, 10) as i;
insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, correction_seconds, observed_at)
values ('a.other', 'other', 'redemption_period', '2026-11-01T00:00:00Z', 0, '2026-11-01T01:00:00Z');
select results_eq(
  $$ select registry, basis, observations, median_seconds, p90_seconds, early from private.drop_accuracy_report() $$,
  $$ values ('other'::text, 'redemption_period'::text, 1, 3600, 3600, 0),
            ('rep', 'pending_delete_period', 10, 150, 366, 2) $$,
  'per registry and basis: count, median and p90 of (observed - predicted), and how many came early');
select is((select correction_seconds from private.drop_accuracy_report() where registry = 'rep'), null,
  'no correction under 20 observations');
select ok((select count(*) = 0 from public.drop_prediction_corrections), 'nothing learnt from 10 and 1');

select * from finish();
rollback;
