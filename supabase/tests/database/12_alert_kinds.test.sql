-- Alert channel kinds: Slack and Discord endpoint kinds (their documented hosts only, on every write path), event
-- opt-in per endpoint and per Telegram chat, and domain.pending_delete raised once per transition into
-- pending delete, only on the channels that asked for it, with the poller's drop prediction.
\ir _setup.psql

select plan(31);

select tests.create_user('kalice@test.local', 'pro') as alice \gset
select tests.create_user('kbob@test.local', 'pro') as bob \gset
select tests.create_user('kcarol@test.local', 'free') as carol \gset
select tests.create_user('kdave@test.local', 'pro') as dave \gset
-- Email channels are tested in 34_email_channels.test.sql; here the accounts' own addresses are off.
update public.email_addresses set enabled = false;

-- Privileges -------------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', 'public.create_webhook_endpoint(text, text, text, text, text[])', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.update_webhook_endpoint(uuid, text, text, boolean, text, text[])', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.set_telegram_event_types(text[])', 'EXECUTE')
  and not has_function_privilege('anon', 'public.set_telegram_event_types(text[])', 'EXECUTE'),
  'the app creates and updates endpoints with kind and events, and sets the Telegram opt-in'
);
select ok(
  not has_function_privilege('authenticated', 'private.note_drop_prediction(text, timestamptz, timestamptz, text, integer)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.queue_domain_pending_delete_alerts()', 'EXECUTE')
  and has_function_privilege('service_role', 'private.note_drop_prediction(text, timestamptz, timestamptz, text, integer)', 'EXECUTE'),
  'the prediction and the outbox trigger are the service''s'
);
select ok(
  to_regprocedure('public.create_webhook_endpoint(text, text, text)') is null
  and to_regprocedure('public.update_webhook_endpoint(uuid, text, text, boolean)') is null,
  'the old signatures are gone (positional calls stay unambiguous)'
);

-- Kinds ------------------------------------------------------------------------------------------------
select tests.authenticate_as('kalice@test.local');
select public.create_webhook_endpoint('https://hooks.slack.com/services/T01/B02/secretpart', 'slack', null, 'slack')
  as slack_hook \gset
select public.create_webhook_endpoint('https://discord.com/api/webhooks/123456789/tok-en_1', 'discord', null, 'discord',
  array['domain.pending_delete', 'domain.available', 'domain.available']) as discord_hook \gset
select public.create_webhook_endpoint('https://hooks.example.com/generic') as generic_hook \gset
select results_eq(
  $$ select kind, event_types from public.webhook_endpoints order by kind $$,
  $$ values ('discord'::text, '{domain.available,domain.pending_delete}'::text[]),
            ('generic', '{domain.available}'), ('slack', '{domain.available}') $$,
  'the app reads kind and event types; the default is {domain.available}, lists are deduplicated and sorted'
);
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.example.com/services/T01/B02/x', null, null, 'slack') $$,
  'DW400', 'DW400: A Slack webhook URL must be Slack''s incoming-webhook URL, https://hooks.slack.com/services/….',
  'a non-Slack host for kind slack is refused with a clear error');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.slack.com.evil.example/services/T01/B02/x', null, null, 'slack') $$,
  'DW400', null, 'a look-alike Slack host is refused');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://discord.com/api/webhooks/1/t', null, null, 'slack') $$,
  'DW400', null, 'a Discord URL is not a Slack one');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://evil.example/api/webhooks/1/t', null, null, 'discord') $$,
  'DW400', 'DW400: A Discord webhook URL must be Discord''s webhook URL, https://discord.com/api/webhooks/<id>/<token>.',
  'a non-Discord host for kind discord is refused');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.example.com/x', null, null, 'teams') $$,
  'DW400', 'DW400: The webhook kind must be generic, slack or discord.', 'an unknown kind is refused');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.example.com/x', null, null, null, array[]::text[]) $$,
  'DW400', 'DW400: Choose at least one event type.', 'an empty event list is refused');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.example.com/x', null, null, null, array['domain.gone']) $$,
  'DW400', null, 'an unknown event type is refused');
select throws_ok(
  format($$ select public.update_webhook_endpoint(%L, p_kind => 'slack') $$, :'generic_hook'),
  'DW400', null, 'a generic endpoint cannot become slack without a Slack URL');
select throws_ok(
  format($$ select public.update_webhook_endpoint(%L, p_url => 'https://hooks.example.com/moved') $$, :'slack_hook'),
  'DW400', null, 'a slack endpoint cannot move to another host');
select lives_ok(
  format($$ select public.update_webhook_endpoint(%L, 'https://hooks.slack.com/services/T01/B02/generic', p_kind => 'slack',
                   p_event_types => array['domain.pending_delete']) $$, :'generic_hook'),
  'URL, kind and events change together');
select results_eq(
  format($$ select kind, event_types, url_masked from public.webhook_endpoints where id = %L $$, :'generic_hook'),
  $$ values ('slack'::text, '{domain.pending_delete}'::text[], 'https://hooks.slack.com/…eric'::text) $$,
  'the update is saved');
select throws_ok(
  format($$ select public.update_webhook_endpoint(%L, p_event_types => array[]::text[]) $$, :'generic_hook'),
  'DW400', null, 'an update cannot empty the event list');
select public.update_webhook_endpoint(:'generic_hook', 'https://hooks.example.com/generic', p_kind => 'generic',
  p_event_types => array['domain.available']);

-- Every writer is held to the rule (the service role too, through the trigger).
select tests.authenticate_as_service_role();
select throws_ok(
  format($$ update public.webhook_endpoints set kind = 'slack' where id = %L $$, :'generic_hook'),
  'DW400', null, 'a direct update to kind slack on a non-Slack URL is refused');
select throws_ok(
  format($$ update public.webhook_endpoints set event_types = '{domain.nope}' where id = %L $$, :'generic_hook'),
  'DW400', null, 'a direct write of an unknown event type is refused');
select throws_ok(
  format($$ insert into public.webhook_endpoints (user_id, url, kind) values (%L, 'https://127.0.0.1/services/a', 'slack') $$,
         :'alice'),
  'DW400', null, 'a direct insert is held to the URL and kind rules');

-- Telegram opt-in ----------------------------------------------------------------------------------------
select tests.authenticate_as('kbob@test.local');
select throws_ok($$ select public.set_telegram_event_types(array[]::text[]) $$, 'DW400', null,
  'the Telegram list cannot be empty');
select throws_ok($$ select public.set_telegram_event_types(null) $$, 'DW400', null, 'nor null');
select lives_ok($$ select public.set_telegram_event_types(array['domain.pending_delete', 'domain.available']) $$,
  'an account opts its chat in to pending delete alerts');
select results_eq($$ select telegram_event_types from public.notification_settings $$,
  $$ values ('{domain.available,domain.pending_delete}'::text[]) $$, 'and reads its choice');

-- domain.pending_delete ------------------------------------------------------------------------------------
-- alice: slack (available only), discord (both), generic (available only); no chat.
-- bob: chat opted in to both; a generic webhook without pending delete.
-- carol (Free): chat with the default list. dave: watches, no channel wants pending delete.
select tests.authenticate_as_service_role();
update public.notification_settings set telegram_chat_id = '2002', telegram_linked_at = now() where user_id = :'bob';
insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
values (:'carol', '2003', now()), (:'dave', '2004', now());
select tests.authenticate_as('kbob@test.local');
select public.create_webhook_endpoint('https://hooks.example.com/bob') as bob_hook \gset
select tests.authenticate_as('kalice@test.local');
select added from public.add_watchlist_domains(array['kinds-drop.test']) \gset ignored_
select tests.authenticate_as('kbob@test.local');
select added from public.add_watchlist_domains(array['kinds-drop.test']) \gset ignored_
select tests.authenticate_as('kcarol@test.local');
select added from public.add_watchlist_domains(array['kinds-drop.test']) \gset ignored_
select tests.authenticate_as('kdave@test.local');
select added from public.add_watchlist_domains(array['kinds-drop.test']) \gset ignored_

select tests.authenticate_as_service_role();
select private.record_domain_check('kinds-drop.test', 'registered', now() - interval '10 minutes', null, null, true, 'poller');
select private.record_domain_check('kinds-drop.test', 'pending_delete', now() - interval '9 minutes', null, null, true, 'poller');
select private.note_drop_prediction('kinds-drop.test', now() - interval '9 minutes', now() + interval '3 days',
  'pending_delete_period', 0);
select results_eq(
  $$ select user_id, previous_status, status, prediction_basis, predicted_drop_at = now() + interval '3 days'
       from public.alert_events where domain_name = 'kinds-drop.test' and type = 'domain.pending_delete' order by user_id $$,
  format($$ select * from (values (%L::uuid, 'registered'::text, 'pending_delete'::text, 'pending_delete_period'::text, true),
                                   (%L::uuid, 'registered', 'pending_delete', 'pending_delete_period', true)) as v order by 1 $$,
         :'alice', :'bob'),
  'entering pending delete raises one event per account with a channel that asked for it, with the prediction'
);
select results_eq(
  $$ select d.user_id, d.channel, d.webhook_endpoint_id
       from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
      where e.domain_name = 'kinds-drop.test' and e.type = 'domain.pending_delete' order by d.user_id, d.channel $$,
  format($$ select * from (values (%L::uuid, 'webhook'::text, %L::uuid), (%L::uuid, 'telegram', null::uuid)) as v
            order by 1, 2 $$, :'alice', :'discord_hook', :'bob'),
  'deliveries go only to the channels that asked for it'
);
select private.note_drop_prediction('kinds-drop.test', now() - interval '9 minutes', now() + interval '9 days',
  'redemption_period', 0);
select is((select count(*)::integer from public.alert_events
            where domain_name = 'kinds-drop.test' and prediction_basis = 'redemption_period'), 0,
  'a prediction once noted is not rewritten');

select private.record_domain_check('kinds-drop.test', 'pending_delete', now() - interval '8 minutes', null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events
            where domain_name = 'kinds-drop.test' and type = 'domain.pending_delete'), 2,
  'another check in pending delete raises nothing');

select private.record_domain_check('kinds-drop.test', 'registered', now() - interval '7 minutes', null, null, true, 'poller');
select private.record_domain_check('kinds-drop.test', 'pending_delete', now() - interval '6 minutes', null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events
            where domain_name = 'kinds-drop.test' and type = 'domain.pending_delete'), 4,
  'leaving pending delete and entering it again raises it again');

select private.record_domain_check('kinds-drop.test', 'available', now() - interval '5 minutes', null, null, true, 'poller');
select results_eq(
  $$ select d.user_id, d.channel, d.webhook_endpoint_id
       from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
      where e.domain_name = 'kinds-drop.test' and e.type = 'domain.available' order by d.user_id, d.channel, 3 $$,
  format($$ select * from (values (%L::uuid, 'webhook'::text, %L::uuid), (%L::uuid, 'webhook', %L::uuid),
                                  (%L::uuid, 'webhook', %L::uuid),
                                  (%L::uuid, 'telegram', null::uuid), (%L::uuid, 'webhook', %L::uuid),
                                  (%L::uuid, 'telegram', null::uuid), (%L::uuid, 'telegram', null::uuid)) as v
            order by 1, 2, 3 $$,
         :'alice', :'slack_hook', :'alice', :'discord_hook', :'alice', :'generic_hook',
         :'bob', :'bob', :'bob_hook', :'carol', :'dave'),
  'domain.available still reaches every channel that keeps it (the default)'
);
select is((select count(*)::integer from public.alert_events where domain_name = 'kinds-drop.test' and type = 'domain.available'),
  4, 'one available event per watcher, as before');

-- The claim hands the sender the kind and the prediction (one delivery per lane: the discord lane's head).
select results_eq(
  $$ select c.webhook_kind, c.prediction_basis is not distinct from e.prediction_basis,
            c.predicted_drop_at is not distinct from e.predicted_drop_at
       from private.claim_fair_alert_deliveries(1000, 60) as c
       join public.alert_events as e on e.id = c.event_id
      where c.webhook_endpoint_id = $$ || quote_literal(:'discord_hook') || $$::uuid $$,
  $$ values ('discord'::text, true, true) $$,
  'the claim returns the endpoint kind and the event''s prediction'
);

select * from finish();
rollback;
