-- Alerts that follow the whole drop: the evidence of domain.available, and the opt-in domain.restored,
-- domain.registered and domain.expiring events (per-channel reminder days), each raised once per transition
-- and only to the channels that asked for it.
\ir _setup.psql

select plan(37);

select tests.create_user('fu-alice@test.local', 'pro') as alice \gset
select tests.create_user('fu-bob@test.local', 'pro') as bob \gset
select tests.create_user('fu-carol@test.local', 'pro') as carol \gset

-- Privileges -------------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', 'public.set_webhook_expiring_days(uuid, integer[])', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.set_telegram_expiring_days(integer[])', 'EXECUTE')
  and not has_function_privilege('anon', 'public.set_telegram_expiring_days(integer[])', 'EXECUTE'),
  'the app sets each channel''s reminder days'
);
select ok(
  not has_function_privilege('authenticated', 'private.note_check_evidence(text, timestamptz, jsonb)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.queue_domain_expiring_alerts(timestamptz)', 'EXECUTE')
  and has_function_privilege('service_role', 'private.note_check_evidence(text, timestamptz, jsonb)', 'EXECUTE')
  and has_function_privilege('service_role', 'private.queue_domain_expiring_alerts(timestamptz)', 'EXECUTE'),
  'the evidence and the reminders are the service''s'
);
select is(public.alert_event_types(),
  array['domain.available', 'domain.expiring', 'domain.pending_delete', 'domain.registered', 'domain.restored'],
  'five event types');

-- Settings ---------------------------------------------------------------------------------------------
select tests.authenticate_as('fu-alice@test.local');
select public.create_webhook_endpoint('https://hooks.example.com/alice-follow', null, null, null,
  array['domain.restored', 'domain.registered', 'domain.expiring']) as alice_hook \gset
select public.create_webhook_endpoint('https://hooks.example.com/alice-plain') as alice_plain \gset
select results_eq(
  format($$ select event_types, expiring_days from public.webhook_endpoints where id = %L $$, :'alice_hook'),
  $$ values ('{domain.expiring,domain.registered,domain.restored}'::text[], '{30,7,1}'::integer[]) $$,
  'new events are accepted; reminder days default to 30, 7 and 1');
select throws_ok(format($$ select public.set_webhook_expiring_days(%L, array[0]) $$, :'alice_hook'), 'DW400',
  'DW400: Reminder days must be 1 to 10 whole numbers of days from 1 to 365.', 'a day 0 is refused');
select throws_ok(format($$ select public.set_webhook_expiring_days(%L, array[400]) $$, :'alice_hook'), 'DW400', null,
  'more than a year is refused');
select throws_ok(format($$ select public.set_webhook_expiring_days(%L, array[]::integer[]) $$, :'alice_hook'),
  'DW400', null, 'an empty list is refused');
select lives_ok(format($$ select public.set_webhook_expiring_days(%L, array[1, 30, 7, 30]) $$, :'alice_hook'),
  'a list with a repeat is accepted');
select is((select expiring_days from public.webhook_endpoints where id = :'alice_hook'), '{30,7,1}'::integer[],
  'deduplicated and sorted, nearest last');
select tests.authenticate_as('fu-bob@test.local');
select throws_ok(format($$ select public.set_webhook_expiring_days(%L, array[14]) $$, :'alice_hook'), 'DW404',
  'DW404: No such webhook.', 'another account''s webhook is not found');
select lives_ok($$ select public.set_telegram_event_types(array['domain.expiring', 'domain.restored']) $$,
  'bob opts his chat in');
select lives_ok($$ select public.set_telegram_expiring_days(array[14]) $$, 'and reminds it at 14 days only');
select tests.authenticate_as('fu-carol@test.local');
select public.create_webhook_endpoint('https://hooks.example.com/carol') as carol_hook \gset

select tests.authenticate_as_service_role();
update public.notification_settings set telegram_chat_id = '3002', telegram_linked_at = now() where user_id = :'bob';

select tests.authenticate_as('fu-alice@test.local');
select added from public.add_watchlist_domains(array['fu-drop.test', 'fu-new.test', 'fu-taken.test', 'fu-mine.test'])
  \gset ignored_
select tests.authenticate_as('fu-bob@test.local');
select added from public.add_watchlist_domains(array['fu-drop.test', 'fu-mine.test']) \gset ignored_
select tests.authenticate_as('fu-carol@test.local');
select added from public.add_watchlist_domains(array['fu-drop.test']) \gset ignored_
select tests.authenticate_as_service_role();

-- Evidence ------------------------------------------------------------------------------------------------
create temporary table fu_evidence as select
  '{"source":"rdap","server":"https://rdap.test/","answer":404,"canary_name":"nic.test",
    "canary_proved_at":"2026-11-25T05:00:00.000Z","dns_rcode":"NXDOMAIN","resolver":"127.0.0.1:53",
    "checked_at":"2026-11-25T08:00:00.000Z"}'::jsonb as evidence;
grant select on fu_evidence to service_role;
select private.record_domain_check('fu-new.test', 'available', now() - interval '50 minutes', null, null, true, 'poller');
select private.note_check_evidence('fu-new.test', now() - interval '50 minutes', (select evidence from fu_evidence));
select is((select evidence from public.alert_events where domain_name = 'fu-new.test' and type = 'domain.available'),
  (select evidence from fu_evidence), 'the check''s evidence is on its domain.available event');
select private.note_check_evidence('fu-new.test', now() - interval '50 minutes',
  jsonb_set((select evidence from fu_evidence), '{answer}', '"changed"'));
select is((select evidence ->> 'answer' from public.alert_events where domain_name = 'fu-new.test'
            and type = 'domain.available'), '404', 'evidence already written is never rewritten');
select throws_ok($$ select private.note_check_evidence('fu-new.test', now(), '{"source":"guess"}') $$, 'DW400', null,
  'evidence from an unknown source is refused');

-- domain.registered ---------------------------------------------------------------------------------------
select private.record_domain_check('fu-new.test', 'registered', now() - interval '40 minutes',
  now() + interval '1 year', 'Example Registrar, Inc.', true, 'poller');
select results_eq(
  $$ select user_id, previous_status, status, registrar, expires_at is not null
       from public.alert_events where domain_name = 'fu-new.test' and type = 'domain.registered' $$,
  format($$ values (%L::uuid, 'available'::text, 'registered'::text, 'Example Registrar, Inc.'::text, true) $$, :'alice'),
  'available to registered: domain.registered with the registrar, for the account that asked');
select is((select count(*)::int from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
            where e.domain_name = 'fu-new.test' and e.type = 'domain.registered'), 1,
  'one delivery: the endpoint that asked (not the one on the default list)');
select private.record_domain_check('fu-new.test', 'registered', now() - interval '30 minutes',
  now() + interval '1 year', 'Example Registrar, Inc.', true, 'poller');
select is((select count(*)::int from public.alert_events where domain_name = 'fu-new.test' and type = 'domain.registered'),
  1, 'still registered: nothing new');

select private.record_domain_check('fu-taken.test', 'registered', now() - interval '40 minutes', null, null, true, 'poller');
select is((select count(*)::int from public.alert_events where domain_name = 'fu-taken.test'), 0,
  'a first check finding the name registered is not a transition');

select private.record_domain_check('fu-mine.test', 'unknown', now() - interval '45 minutes', null, null, false, 'poller');
select private.record_domain_check('fu-mine.test', 'registered', now() - interval '40 minutes', null, null, true, 'poller');
select is((select count(*)::int from public.alert_events where domain_name = 'fu-mine.test' and type = 'domain.registered'),
  1, 'watched without ever being found registered, now registered: domain.registered');

-- domain.restored -----------------------------------------------------------------------------------------
select private.record_domain_check('fu-drop.test', 'registered', now() - interval '40 minutes', null, null, true, 'poller');
select private.record_domain_check('fu-drop.test', 'pending_delete', now() - interval '30 minutes', null, null, true, 'poller');
select private.record_domain_check('fu-drop.test', 'registered', now() - interval '20 minutes',
  now() + interval '1 year', 'Renewing Registrar', true, 'poller');
select results_eq(
  $$ select user_id, previous_status, registrar from public.alert_events
      where domain_name = 'fu-drop.test' and type = 'domain.restored' order by user_id $$,
  format($$ select * from (values (%L::uuid, 'pending_delete'::text, 'Renewing Registrar'::text),
                                  (%L::uuid, 'pending_delete', 'Renewing Registrar')) as v order by 1 $$,
         :'alice', :'bob'),
  'pending delete to registered: domain.restored for the accounts with a channel that asked (not carol)');
select results_eq(
  $$ select d.channel from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
      where e.domain_name = 'fu-drop.test' and e.type = 'domain.restored' order by d.channel $$,
  $$ values ('telegram'::text), ('webhook') $$, 'alice''s endpoint and bob''s chat');
select is((select count(*)::int from public.alert_events where domain_name = 'fu-drop.test' and type = 'domain.registered'),
  0, 'a restore is not a registration');

-- domain.expiring -----------------------------------------------------------------------------------------
-- fu-mine.test expires at T; alice's endpoint reminds at 30, 7 and 1 days, bob's chat at 14.
create temporary table fu_clock as select date_trunc('second', now()) + interval '60 days' as expires_at;
grant select on fu_clock to service_role;
update public.domains set expires_at = (select expires_at from fu_clock) where name = 'fu-mine.test';

create function pg_temp.reminders(p_days_out numeric)
returns text
language sql
as $$
  select private.queue_domain_expiring_alerts(
    (select expires_at from fu_clock) - make_interval(secs => p_days_out * 86400))::text
$$;
create function pg_temp.sent()
returns text
language sql
as $$
  select coalesce(string_agg(coalesce(d.webhook_endpoint_id::text, 'chat') || '@' || e.days_before, ','
                             order by e.days_before desc, d.channel), '')
    from public.alert_events as e join public.alert_deliveries as d on d.event_id = e.id
   where e.domain_name = 'fu-mine.test' and e.type = 'domain.expiring'
$$;

select is(pg_temp.reminders(40), '0', '40 days out: nothing');
select is(pg_temp.reminders(29.5), '1', '29.5 days out: the 30-day reminder');
select is(pg_temp.reminders(29), '0', 'once');
select is(pg_temp.reminders(13), '1', '13 days out: bob''s 14-day reminder');
select is(pg_temp.reminders(6.9), '1', '6.9 days out: the 7-day reminder');
select is(pg_temp.reminders(0.5), '1', 'half a day out: the 1-day reminder');
select is(pg_temp.reminders(0.4), '0', 'each once');
select is(pg_temp.sent(), format('%s@30,chat@14,%s@7,%s@1', :'alice_hook', :'alice_hook', :'alice_hook'),
  'each channel at its own days');
select results_eq(
  $$ select status, expires_at = (select expires_at from fu_clock), previous_status is null
       from public.alert_events where domain_name = 'fu-mine.test' and type = 'domain.expiring' and days_before = 30 $$,
  $$ values ('registered'::text, true, true) $$, 'the event carries the expiration date');

-- A renewal moves the date by a year: re-armed. First seen 6 days out: only the 7-day reminder.
update public.domains set expires_at = (select expires_at from fu_clock) + interval '365 days' where name = 'fu-mine.test';
update fu_clock set expires_at = expires_at + interval '365 days';
select is(pg_temp.reminders(6), '2', 'after a renewal: reminders again, one per channel');
select is((select string_agg(e.days_before::text, ',' order by e.days_before desc) from public.alert_events as e
            where e.domain_name = 'fu-mine.test' and e.type = 'domain.expiring'
              and e.expires_at = (select expires_at from fu_clock)), '14,7',
  'first seen 6 days out: the nearest passed reminder of each channel (7; bob''s 14), not 30');

-- The poller's claim carries each name's reminder days: every channel of every watching account that asks
-- for domain.expiring (poller/dns_first.ts asks the registry ahead of them) ---------------------------------
select tests.authenticate_as_service_role();
update public.domains set next_check_at = now() + interval '1 day', lease_until = null;
update public.domains set next_check_at = now() - interval '1 minute'
 where name in ('fu-mine.test', 'fu-taken.test', 'fu-drop.test');
update public.domains set status = 'registered' where name = 'fu-drop.test';
select results_eq(
  $$ select domain_name, reminder_days, registry_asked_at from private.claim_due_domains(10, 60) order by 1 $$,
  $$ values ('fu-drop.test'::text, '{1,7,14,30}'::integer[], null::timestamptz),
            ('fu-mine.test', '{1,7,14,30}', null), ('fu-taken.test', '{1,7,30}', null) $$,
  'alice''s webhook (30, 7, 1) and bob''s chat (14); carol''s webhook does not ask for the event');
select private.record_registry_answer('fu-mine.test', now() - interval '1 hour');
select private.record_registry_answer('fu-mine.test', now() - interval '2 hours');
select is((select registry_asked_at from public.domains where name = 'fu-mine.test'), now() - interval '1 hour',
  'the registry''s last answer is remembered and never moves back');
select ok(
  has_function_privilege('service_role', 'private.record_registry_answer(text, timestamptz)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.record_registry_answer(text, timestamptz)', 'EXECUTE')
  and not has_table_privilege('authenticated', 'private.expiring_reminder_channels', 'select'),
  'the registry''s answers and the reminder channels are the service''s');

select * from finish();
rollback;
