-- Alert channels: a Telegram chat only through the bot's link flow (never typed by hand), write-only webhook
-- secret, masked webhook URL, webhooks on Pro and higher, RLS.
\ir _setup.psql

select plan(30);

select tests.create_user('alice@test.local', 'pro') as alice \gset
select tests.create_user('bob@test.local', 'pro') as bob \gset
select tests.create_user('fred@test.local', 'free') as fred \gset
update public.telegram_bot_settings set bot_username = 'TestWatchlistBot';

-- Alice's Telegram chat ---------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select throws_ok($$ insert into public.notification_settings (telegram_chat_id) values ('12345') $$, '42501', null,
  'a hand-typed Telegram chat ID cannot be saved');
select lives_ok($$ select public.set_telegram_enabled(true) $$, 'a user creates their settings');
select tests.clear_authentication();
-- What telegram_link_chat does once the chat proved itself (/start <token>).
update public.notification_settings set telegram_chat_id = '12345', telegram_linked_at = now() where user_id = :'alice';
select tests.authenticate_as('alice@test.local');
select results_eq($$ select user_id, telegram_enabled, telegram_configured from public.notification_settings $$,
  format($$ values (%L::uuid, true, true) $$, :'alice'), 'the user sees that Telegram is configured');
select throws_ok($$ select telegram_chat_id from public.notification_settings $$, '42501', null,
  'the chat ID is not readable by authenticated');
select throws_ok($$ select * from public.notification_settings $$, '42501', null,
  'select * on notification_settings is refused too');
select throws_ok($$ update public.notification_settings set telegram_chat_id = '99999' $$, '42501', null,
  'the user cannot change the chat ID by hand');
select lives_ok($$ select public.set_telegram_enabled(false) $$, 'the user switches Telegram off');
select throws_ok(format($$ insert into public.notification_settings (user_id, telegram_enabled) values (%L, true) $$, :'bob'),
  '42501', null, 'a user cannot create settings for someone else');

-- Alice's webhook ---------------------------------------------------------------------------------
select public.create_webhook_endpoint('https://hooks.example.net/alice', 'main', 'alice-secret-0123456') as hook \gset
select results_eq($$ select user_id, url_masked, secret_configured, enabled from public.webhook_endpoints $$,
  format($$ values (%L::uuid, 'https://hooks.example.net/…lice'::text, true, true) $$, :'alice'),
  'a Pro user adds a webhook and sees it masked, without the secret');
select throws_ok($$ select url from public.webhook_endpoints $$, '42501', null,
  'the webhook URL itself is not readable by authenticated');
select throws_ok($$ select secret from public.webhook_endpoints $$, '42501', null,
  'the webhook secret is not readable by authenticated');
select throws_ok($$ select * from public.webhook_endpoints $$, '42501', null,
  'select * on webhook_endpoints is refused too');
select lives_ok(format($$ select public.set_webhook_secret(%L, 'rotated-secret-0123456') $$, :'hook'),
  'the user replaces the secret');
select throws_ok($$ insert into public.webhook_endpoints (url) values ('https://hooks.example.net/') $$, '42501', null,
  'a direct insert is refused: webhooks are written through the functions');
select throws_ok(format($$ insert into public.webhook_endpoints (user_id, url) values (%L, 'https://x.test/') $$, :'bob'),
  '42501', null, 'a user cannot add a webhook for someone else');

-- Free plan: no webhooks; Telegram is fine ---------------------------------------------------------
select tests.authenticate_as('fred@test.local');
select throws_ok($$ insert into public.webhook_endpoints (url) values ('https://hooks.example.net/fred') $$,
  '42501', null, 'the free plan cannot add webhooks');
select lives_ok($$ select public.create_telegram_link() $$, 'the free plan can link Telegram');

-- Bob cannot see or touch Alice's rows --------------------------------------------------------------
select tests.authenticate_as('bob@test.local');
select is_empty($$ select user_id from public.notification_settings $$, 'bob reads no one else''s settings');
select is_empty($$ select id from public.webhook_endpoints $$, 'bob reads no one else''s webhooks');
delete from public.webhook_endpoints;
delete from public.notification_settings;

select tests.clear_authentication();
select results_eq(format('select telegram_chat_id, telegram_enabled from public.notification_settings where user_id = %L', :'alice'),
  $$ values ('12345'::text, false) $$, 'alice''s settings hold her values and bob changed nothing');
select results_eq(format('select url, secret from public.webhook_endpoints where id = %L', :'hook'),
  $$ values ('https://hooks.example.net/alice'::text, 'rotated-secret-0123456'::text) $$,
  'alice''s webhook keeps its URL and secret; bob changed nothing');
select is((select count(*)::integer from public.notification_settings where user_id in (:'alice', :'bob', :'fred')), 1,
  'bob deleted no settings');

-- service_role (the alert sender) reads everything ----------------------------------------------------
select tests.authenticate_as_service_role();
select is((select secret from public.webhook_endpoints where id = :'hook'), 'rotated-secret-0123456',
  'service_role reads the webhook secret');
select is((select telegram_chat_id from public.notification_settings where user_id = :'alice'), '12345',
  'service_role reads the chat ID');

-- Alice removes her webhook and her chat --------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select lives_ok($$ delete from public.webhook_endpoints $$, 'a user deletes their own webhook');
select lives_ok($$ select public.set_telegram_chat(null) $$, 'a user unlinks their chat');
select results_eq($$ select telegram_configured from public.notification_settings $$, array[false],
  'Telegram is no longer configured');
select tests.clear_authentication();
select is((select count(*)::integer from public.webhook_endpoints where user_id in (:'alice', :'bob')), 0,
  'the webhook is gone');

-- anon ------------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();
select throws_ok($$ select user_id from public.notification_settings $$, '42501', null, 'anon cannot read settings');
select throws_ok($$ select id from public.webhook_endpoints $$, '42501', null, 'anon cannot read webhooks');

select tests.clear_authentication();
select * from tests.finish();
rollback;
