-- Alerts: the outbox written with a transition into available, the poller's claim/record functions,
-- the app's webhook and Telegram functions, RLS and privileges.
\ir _setup.psql

select plan(99);

-- Tables and their protection ------------------------------------------------------------------------
select has_table('public', t, 'table public.' || t || ' exists')
  from unnest(array['alert_events', 'alert_deliveries', 'alert_delivery_attempts', 'webhook_target_policy']) as t;

select is_empty(
  $$ select r || ' ' || p || ' ' || t
       from unnest(array['anon', 'authenticated']) as r,
            unnest(array['insert', 'update', 'delete']) as p,
            unnest(array['public.alert_events', 'public.alert_deliveries', 'public.alert_delivery_attempts',
                         'public.webhook_target_policy']) as t
      where has_table_privilege(r, t, p) $$,
  'anon and authenticated cannot write alert tables'
);
select ok(
  not has_table_privilege('authenticated', 'public.webhook_target_policy', 'select')
  and not has_table_privilege('anon', 'public.alert_events', 'select'),
  'the policy table is service_role only; anon reads nothing'
);
select ok(
  has_table_privilege('authenticated', 'public.alert_events', 'select')
  and has_table_privilege('authenticated', 'public.alert_deliveries', 'select')
  and has_table_privilege('authenticated', 'public.alert_delivery_attempts', 'select'),
  'accounts can read (their own) alert history'
);
select is((select allow_private_targets from public.webhook_target_policy), false,
  'private webhook targets are refused by default');

-- Privileges on functions ----------------------------------------------------------------------------
select is_empty(
  $$ select f from unnest(array[
       'private.claim_due_domains(integer, integer)', 'private.defer_domain_check(text, timestamptz)',
       'private.schedule_pending_delete_check(text, timestamptz, timestamptz)',
       'private.claim_alert_deliveries(integer, integer)',
       'private.mark_alert_delivery_delivered(uuid, integer, integer)',
       'private.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)',
       'private.fail_alert_delivery(uuid, text, integer, text, integer)',
       'private.defer_alert_delivery(uuid, timestamptz)'
     ]) as f
     where has_function_privilege('authenticated', f, 'EXECUTE') or not has_function_privilege('service_role', f, 'EXECUTE') $$,
  'the poller functions are for service_role only'
);
select is_empty(
  $$ select f from unnest(array[
       'public.create_webhook_endpoint(text, text, text, text, text[])',
       'public.update_webhook_endpoint(uuid, text, text, boolean, text, text[])',
       'public.set_webhook_secret(uuid, text)', 'public.rotate_webhook_secret(uuid)',
       'public.delete_webhook_endpoint(uuid)', 'public.set_telegram_chat(text)',
       'public.set_telegram_enabled(boolean)', 'public.send_webhook_test(uuid)', 'public.send_telegram_test()'
     ]) as f
     where not has_function_privilege('authenticated', f, 'EXECUTE') or has_function_privilege('anon', f, 'EXECUTE') $$,
  'the app functions are for authenticated only'
);
select ok(
  not has_function_privilege('authenticated', 'private.queue_test_alert(uuid, text, uuid)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.queue_domain_available_alerts()', 'EXECUTE'),
  'internal helpers are not callable by accounts'
);

-- Accounts ------------------------------------------------------------------------------------------------
select tests.create_user('alice@test.local', 'pro') as alice \gset
select tests.create_user('bob@test.local', 'free') as bob \gset
select tests.create_user('carol@test.local', 'pro') as carol \gset
select tests.create_user('dave@test.local', 'pro') as dave \gset
select tests.create_user('eve@test.local', 'business') as eve \gset
update public.telegram_bot_settings set bot_username = 'TestWatchlistBot';
-- Email channels are tested in 34_email_channels.test.sql; here the accounts' own addresses are off.
update public.email_addresses set enabled = false;

-- The app's functions: Telegram ------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select throws_ok($$ select public.set_telegram_chat('123456789') $$, 'DW400', null, 'a hand-typed chat ID is refused');
select matches((public.create_telegram_link())->>'url', '^https://t\.me/TestWatchlistBot\?start=[0-9a-f]{48}$',
  'the app gets a one-time deep link to the bot');
select split_part((public.create_telegram_link())->>'url', 'start=', 2) as alice_token \gset
select tests.authenticate_as_service_role();
select is(private.telegram_link_chat(:'alice_token', '-1001234567890'), 'invalid', 'a group chat is never linked');
select is(private.telegram_link_chat(:'alice_token', '123456789'), 'linked', 'the private chat that opened the link is');
select is(private.telegram_link_chat(:'alice_token', '123456789'), 'invalid', 'a link works once');
select tests.authenticate_as('alice@test.local');
select results_eq($$ select telegram_configured, telegram_enabled from public.notification_settings $$,
  $$ values (true, true) $$, 'the app sees that Telegram is configured');
select throws_ok($$ select telegram_chat_id from public.notification_settings $$, '42501', null,
  'the chat ID stays write-only');

-- The app's functions: webhooks ------------------------------------------------------------------------
select public.create_webhook_endpoint('https://hooks.example.com/alice', 'main', 'alice-secret-0123456789') as alice_hook \gset
select results_eq($$ select url_masked, description, enabled, secret_configured from public.webhook_endpoints $$,
  $$ values ('https://hooks.example.com/…lice'::text, 'main'::text, true, true) $$,
  'a Pro account creates a webhook with a secret');
select throws_ok($$ select secret from public.webhook_endpoints $$, '42501', null, 'the secret is write-only');
select throws_ok($$ select public.create_webhook_endpoint('http://hooks.example.com/x') $$, 'DW400', null,
  'http is refused');
select throws_ok($$ select public.create_webhook_endpoint('https://127.0.0.1/x') $$, 'DW400', null,
  'loopback is refused');
select throws_ok($$ select public.create_webhook_endpoint('https://169.254.169.254/latest/meta-data/') $$, 'DW400', null,
  'the metadata address is refused');
select throws_ok($$ select public.create_webhook_endpoint('https://[fd00::1]/x') $$, 'DW400', null,
  'IPv6 unique-local is refused');
select throws_ok($$ select public.create_webhook_endpoint('https://[::ffff:127.0.0.1]/x') $$, 'DW400', null,
  'IPv4-mapped loopback is refused');
select throws_ok($$ select public.create_webhook_endpoint('https://2130706433/x') $$, 'DW400', null,
  'numeric spellings of an address are refused');
select throws_ok($$ select public.create_webhook_endpoint('https://localhost/x') $$, 'DW400', null,
  'localhost is refused');
select throws_ok($$ insert into public.webhook_endpoints (url) values ('https://10.1.2.3/x') $$, '42501', null,
  'a plain insert is refused: webhooks are written through the functions');
select throws_ok($$ select public.create_webhook_endpoint('https://hooks.example.com/y', null, 'short') $$, 'DW400', null,
  'a secret shorter than 16 characters is refused');
select lives_ok(format($$ select public.update_webhook_endpoint(%L, 'https://hooks.example.com/alice2', '', false) $$, :'alice_hook'),
  'the webhook is updated (URL, description cleared, disabled)');
select results_eq($$ select url_masked, description, enabled from public.webhook_endpoints $$,
  $$ values ('https://hooks.example.com/…ice2'::text, null::text, false) $$, 'the update is applied');
select lives_ok(format($$ select public.update_webhook_endpoint(%L, p_enabled => true) $$, :'alice_hook'),
  'null arguments leave the other fields alone');
select throws_ok(format($$ select public.update_webhook_endpoint(%L, 'https://192.168.0.1/') $$, :'alice_hook'), 'DW400', null,
  'an update to a private address is refused');
select matches((select public.rotate_webhook_secret(:'alice_hook')), '^whsec_[A-Za-z0-9+/]{43}=$',
  'rotating returns a fresh random secret once');
select lives_ok(format($$ select public.set_webhook_secret(%L, 'a-secret-of-my-own-choosing') $$, :'alice_hook'),
  'a secret of the user''s own is set');

select tests.authenticate_as('carol@test.local');
select throws_ok(format($$ select public.update_webhook_endpoint(%L, p_enabled => false) $$, :'alice_hook'), 'DW404', null,
  'another account''s webhook is not found');
select throws_ok(format($$ select public.set_webhook_secret(%L, 'carol-wants-alices-hook') $$, :'alice_hook'), 'DW404', null,
  'nor can its secret be set');
select throws_ok(format($$ select public.delete_webhook_endpoint(%L) $$, :'alice_hook'), 'DW404', null,
  'nor can it be deleted');
select throws_ok(format($$ select public.send_webhook_test(%L) $$, :'alice_hook'), 'DW404', null,
  'nor can it be sent a test');

select tests.authenticate_as('bob@test.local');
select throws_ok($$ select public.create_webhook_endpoint('https://hooks.example.com/bob') $$, 'DWUPG', null,
  'the Free plan has no webhooks');
select lives_ok($$ select public.create_telegram_link() $$, 'the Free plan has Telegram');
select lives_ok($$ select public.set_telegram_enabled(false) $$, 'and can switch it off');

select tests.clear_authentication();
select is((select secret from public.webhook_endpoints where id = :'alice_hook'), 'a-secret-of-my-own-choosing',
  'the sender (service side) reads the saved secret');
select is((select telegram_chat_id from public.notification_settings where user_id = :'alice'), '123456789',
  'and the chat ID');

-- Chats linked through the bot (what telegram_link_chat stores).
update public.notification_settings set telegram_chat_id = '1001', telegram_linked_at = now() where user_id = :'alice';
insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
values (:'eve', '1005', now()), (:'carol', '1003', now()), (:'bob', '555', now())
on conflict (user_id) do update set telegram_chat_id = excluded.telegram_chat_id, telegram_linked_at = now();
select tests.authenticate_as('alice@test.local');
select public.create_webhook_endpoint('https://hooks.example.com/alice-off') as alice_off \gset
select public.update_webhook_endpoint(:'alice_off', p_enabled => false);

-- Everybody watches drop.test; carol removes it again ----------------------------------------------
select tests.authenticate_as('alice@test.local');
select added from public.add_watchlist_domains(array['drop.test']) \gset ignored_
select tests.authenticate_as('bob@test.local');
select added from public.add_watchlist_domains(array['drop.test']) \gset ignored_
select tests.authenticate_as('carol@test.local');
select added from public.add_watchlist_domains(array['drop.test']) \gset ignored_
select public.remove_watchlist_domain('drop.test') \gset ignored_
select tests.authenticate_as('dave@test.local');
select added from public.add_watchlist_domains(array['drop.test', 'other.test']) \gset ignored_
select tests.authenticate_as('eve@test.local');
select added from public.add_watchlist_domains(array['drop.test']) \gset ignored_

-- The outbox ---------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select private.record_domain_check('drop.test', 'pending_delete', now() - interval '2 minutes', null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events where domain_name = 'drop.test'), 0,
  'pending delete alerts nobody');

select private.record_domain_check('drop.test', 'available', now() - interval '1 minute', null, null, true, 'poller');
select results_eq(
  $$ select user_id, type, domain_name, previous_status, status from public.alert_events
      where domain_name = 'drop.test' order by user_id $$,
  format($$ select u, 'domain.available'::text, 'drop.test'::text, 'pending_delete'::text, 'available'::text
              from unnest(array[%L, %L, %L, %L]::uuid[]) as u order by u $$, :'alice', :'bob', :'dave', :'eve'),
  'a transition into available writes one event per active watcher (not the one who removed it)'
);
select matches((select min(id) from public.alert_events where domain_name = 'drop.test'), '^evt_[0-9a-f]{32}$',
  'event ids look like evt_…');
select is((select unicode_name from public.alert_events where user_id = :'alice'), null,
  'a unicode name equal to the name is not repeated');
select results_eq(
  $$ select e.user_id, d.channel, d.webhook_endpoint_id, d.status
       from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
      where e.domain_name = 'drop.test' order by e.user_id, d.channel $$,
  format($$ select * from (values (%L::uuid, 'telegram'::text, null::uuid, 'pending'::text),
                                   (%L::uuid, 'webhook', %L::uuid, 'pending'),
                                   (%L::uuid, 'telegram', null::uuid, 'pending')) as v order by 1, 2 $$,
         :'alice', :'alice', :'alice_hook', :'eve'),
  'deliveries: Telegram where set and on, webhooks that are enabled on plans with webhooks'
);
select ok((select count(*) from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
            where e.user_id = :'alice') = 2, 'the disabled webhook gets nothing');
select is((select count(*)::integer from public.alert_deliveries d join public.alert_events e on e.id = d.event_id
            where e.user_id in (:'bob', :'dave')), 0, 'Telegram switched off, or no channel: events only');

select private.record_domain_check('drop.test', 'available', now() - interval '30 seconds', null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events where domain_name = 'drop.test'), 4,
  'still available: no new alert');
select private.record_domain_check('drop.test', 'unknown', now() - interval '20 seconds', null, null, false, 'poller');
select is((select count(*)::integer from public.alert_events where domain_name = 'drop.test'), 4,
  'a failed check changes nothing');
select private.record_domain_check('drop.test', 'registered', now() - interval '10 seconds', null, null, true, 'poller');
select private.record_domain_check('drop.test', 'available', now(), null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events
            where domain_name = 'drop.test' and previous_status = 'registered'), 4,
  'dropping again later is a new transition with new events');
select private.record_domain_check('other.test', 'available', now(), null, null, true, 'poller');
select is((select count(*)::integer from public.alert_events where domain_name = 'other.test'), 1,
  'unknown → available (the first check finds it free) alerts too');

-- RLS: each account reads only its own history, without secrets ---------------------------------------
select tests.authenticate_as('alice@test.local');
select is((select count(*)::integer from public.alert_events), 2, 'alice reads her two events');
select is((select count(*)::integer from public.alert_deliveries), 4, 'and her four deliveries');
select is((select count(*)::integer from public.alert_events where user_id <> auth.uid()), 0, 'and nobody else''s');
select tests.authenticate_as('carol@test.local');
select is((select count(*)::integer from public.alert_deliveries), 0, 'carol reads none');
select tests.authenticate_as_anon();
select throws_ok($$ select id from public.alert_events $$, '42501', null, 'anon reads nothing');

-- Delivery claims and outcomes (service_role) ---------------------------------------------------------
select tests.authenticate_as_service_role();
delete from public.alert_deliveries where status = 'pending' and user_id <> :'alice';
select results_eq(
  $$ select channel, webhook_url, webhook_secret, webhook_enabled, telegram_chat_id, event_type, domain_name
       from private.claim_alert_deliveries(10, 60) order by channel, event_created_at $$,
  $$ values ('telegram'::text, null::text, null::text, null::boolean, '1001'::text, 'domain.available'::text, 'drop.test'::text),
            ('telegram', null, null, null, '1001', 'domain.available', 'drop.test'),
            ('webhook', 'https://hooks.example.com/alice2', 'a-secret-of-my-own-choosing', true, null, 'domain.available', 'drop.test'),
            ('webhook', 'https://hooks.example.com/alice2', 'a-secret-of-my-own-choosing', true, null, 'domain.available', 'drop.test') $$,
  'claims return what sending needs, secrets included (service_role only)'
);
select is_empty($$ select * from private.claim_alert_deliveries(10, 60) $$, 'claimed deliveries are leased');

select id as d_tg from public.alert_deliveries where user_id = :'alice' and channel = 'telegram' order by created_at limit 1 \gset
select id as d_wh from public.alert_deliveries where user_id = :'alice' and channel = 'webhook' order by created_at limit 1 \gset
select private.schedule_alert_delivery_retry(:'d_wh', 'failed', 500, 'http_500', 120, now() + interval '1 minute');
select results_eq(format($$ select status, attempt_count, failure_count, last_http_status, last_error, lease_until
                             from public.alert_deliveries where id = %L $$, :'d_wh'),
  $$ values ('pending'::text, 1, 1, 500, 'http_500'::text, null::timestamptz) $$,
  'a failed attempt is counted and rescheduled, lease released');
select private.schedule_alert_delivery_retry(:'d_tg', 'rate_limited', 429, 'telegram_429', 30, now() + interval '30 seconds');
select results_eq(format($$ select attempt_count, failure_count from public.alert_deliveries where id = %L $$, :'d_tg'),
  $$ values (1, 0) $$, 'a rate limit is an attempt but not a failure');
select throws_ok(format($$ select private.schedule_alert_delivery_retry(%L, 'delivered', 200, null, 1, now()) $$, :'d_tg'),
  'DW400', null, 'only failures are retried');
select private.mark_alert_delivery_delivered(:'d_wh', 204, 80);
select results_eq(format($$ select status, attempt_count, delivered_at is not null from public.alert_deliveries where id = %L $$, :'d_wh'),
  $$ values ('delivered'::text, 2, true) $$, 'delivered');
select private.fail_alert_delivery(:'d_tg', 'failed', 403, 'telegram_403: blocked', 50);
select results_eq(format($$ select status, failed_at is not null from public.alert_deliveries where id = %L $$, :'d_tg'),
  $$ values ('failed'::text, true) $$, 'failed for good, kept for inspection');
select results_eq(format($$ select outcome, http_status from public.alert_delivery_attempts
                             where delivery_id in (%L, %L) order by id $$, :'d_wh', :'d_tg'),
  $$ values ('failed'::text, 500), ('rate_limited', 429), ('delivered', 204), ('failed', 403) $$,
  'every attempt is in the history');
select private.mark_alert_delivery_delivered(:'d_tg', 200, 10);
select is((select status from public.alert_deliveries where id = :'d_tg'), 'failed', 'a final status does not change');
select id as d_other from public.alert_deliveries where status = 'pending' and user_id = :'alice' limit 1 \gset
select private.defer_alert_delivery(:'d_other', now() + interval '10 minutes');
select results_eq(format($$ select attempt_count, lease_until, next_attempt_at > now() + interval '9 minutes'
                             from public.alert_deliveries where id = %L $$, :'d_other'),
  $$ values (0, null::timestamptz, true) $$, 'deferring gives a delivery back without an attempt');

select tests.authenticate_as('alice@test.local');
select results_eq($$ select count(*)::integer from public.alert_delivery_attempts $$, $$ values (5) $$,
  'the owner reads the attempt history');
select throws_ok($$ select * from private.claim_alert_deliveries(1, 60) $$, '42501', null,
  'an account cannot claim deliveries');

-- Webhook deleted: history stays, pending deliveries lose their target ---------------------------------
select tests.authenticate_as('alice@test.local');
select lives_ok(format($$ select public.delete_webhook_endpoint(%L) $$, :'alice_hook'), 'the webhook is deleted');
select tests.authenticate_as_service_role();
select ok((select count(*) from public.alert_deliveries where user_id = :'alice' and channel = 'webhook') = 2
          and (select count(*) from public.alert_deliveries where user_id = :'alice' and channel = 'webhook'
                 and webhook_endpoint_id is not null) = 0,
  'its deliveries are kept, with no endpoint');

-- Test alerts -------------------------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select public.create_webhook_endpoint('https://hooks.example.com/alice3') as alice_hook3 \gset
select public.update_webhook_endpoint(:'alice_hook3', p_enabled => false);
select ok(public.send_webhook_test(:'alice_hook3') is not null, 'a test can be sent to a disabled webhook');
select ok(public.send_telegram_test() is not null, 'and to Telegram');
select results_eq($$ select e.type, e.domain_name, d.channel, d.status from public.alert_deliveries d
                     join public.alert_events e on e.id = d.event_id where e.type = 'test' order by d.channel $$,
  $$ values ('test'::text, 'example.com'::text, 'telegram'::text, 'pending'::text),
            ('test', 'example.com', 'webhook', 'pending') $$,
  'each test queues one `test` delivery');
select lives_ok($$ select public.send_telegram_test() from generate_series(1, 8) $$, 'up to ten tests in ten minutes');
select throws_ok($$ select public.send_telegram_test() $$, 'DW429', null, 'the eleventh is refused');
select tests.authenticate_as('dave@test.local');
select throws_ok($$ select public.send_telegram_test() $$, 'DW400', null, 'a test needs a chat ID');
select tests.authenticate_as('bob@test.local');
select lives_ok($$ select public.send_telegram_test() $$, 'a Free account can test Telegram (even switched off)');

-- Domain claims (service_role) -----------------------------------------------------------------------------
select tests.clear_authentication();
-- Only this test's names are due.
update public.domains set next_check_at = now() + interval '1 day';
insert into public.domains (name, next_check_at) values ('nobody-watches.test', now() - interval '1 hour');
update public.domains set next_check_at = now() - interval '10 minutes' where name = 'drop.test';
update public.domains set next_check_at = now() - interval '20 minutes' where name = 'other.test';
select tests.authenticate_as_service_role();
select results_eq($$ select domain_name, status from private.claim_due_domains(10, 60) $$,
  $$ values ('other.test'::text, 'available'::text), ('drop.test', 'available') $$,
  'due names with a watcher are claimed, most overdue first; unwatched names never');
select is_empty($$ select * from private.claim_due_domains(10, 60) $$, 'a leased name is not claimed again');
select throws_ok($$ select * from private.claim_due_domains(0, 60) $$, 'DW400', null, 'limit is checked');
select throws_ok($$ select * from private.claim_due_domains(1, 0) $$, 'DW400', null, 'lease is checked');
select private.defer_domain_check('drop.test', now() + interval '2 minutes');
select results_eq($$ select lease_until, next_check_at > now() + interval '1 minute' from public.domains where name = 'drop.test' $$,
  $$ values (null::timestamptz, true) $$, 'deferring releases the lease and sets the next check');
select tests.clear_authentication();
update public.domains set lease_until = now() - interval '1 second' where name = 'other.test';
select tests.authenticate_as_service_role();
select results_eq($$ select domain_name from private.claim_due_domains(10, 60) $$, $$ values ('other.test'::text) $$,
  'an expired lease (a crashed poller) gives the name back');

select private.record_domain_check('drop.test', 'pending_delete', now(), null, null, true, 'poller');
select private.schedule_pending_delete_check('drop.test', now(), now() + interval '1 second');
select is((select next_check_at from public.domains where name = 'drop.test'), now() + interval '5 seconds',
  'the pending-delete schedule is at least 5 s (the check aimed just after a predicted drop)');
select private.schedule_pending_delete_check('drop.test', now(), now() + interval '30 minutes');
select is((select next_check_at from public.domains where name = 'drop.test'), now() + interval '30 minutes',
  'and follows the poller''s prediction');
select private.schedule_pending_delete_check('drop.test', now() - interval '1 hour', now() + interval '9 minutes');
select is((select next_check_at from public.domains where name = 'drop.test'), now() + interval '30 minutes',
  'a stale check does not move it');
select private.schedule_pending_delete_check('other.test', now(), now() + interval '9 minutes');
select isnt((select next_check_at from public.domains where name = 'other.test'), now() + interval '9 minutes',
  'only names in pending delete');

-- The URL rules (as service_role; the policy switch) -------------------------------------------------------
select is(public.webhook_url_problem('https://hooks.example.com/x'), null, 'a public https URL is fine');
select is(public.webhook_url_problem('https://[2001:4860:4860::8888]/x'), null, 'so is a public IPv6 literal');
select isnt(public.webhook_url_problem('https://intranet/x'), null, 'single-label hosts are refused');
select isnt(public.webhook_url_problem('https://100.100.100.200/x'), null, 'shared address space (a metadata host) too');
update public.webhook_target_policy set allow_private_targets = true;
select is(public.webhook_url_problem('http://127.0.0.1:8080/hook'), null, 'the local switch allows http and loopback');
select is(public.webhook_url_problem('http://localhost:8080/hook'), null, 'and localhost');
select isnt(public.webhook_url_problem('http://169.254.169.254/'), null, 'but never metadata');
select isnt(public.webhook_url_problem('https://10.0.0.1/'), null, 'nor private ranges');

select * from tests.finish();
rollback;
