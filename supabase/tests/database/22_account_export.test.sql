-- export_account: the document's shape, and that no secret ever appears in it.
\ir _setup.psql

select plan(26);

select tests.create_user('alice@test.local', 'pro') as alice \gset
select tests.create_user('bob@test.local', 'pro') as bob \gset

-- Bob's data must not appear in Alice's export.
select tests.authenticate_as('bob@test.local');
select added from public.add_watchlist_domains(array['bob-only.test']) \gset ignored_

-- Plant Alice's data, secrets included.
select tests.authenticate_as('alice@test.local');
update public.profiles set display_name = 'Alice Example' where id = auth.uid();
select added from public.add_watchlist_domains(array['b.test', 'a.test', 'xn--bcher-kva.test']) \gset ignored_
select public.remove_watchlist_domain('b.test') \gset ignored_
select tests.authenticate_as_service_role();
-- A chat linked through the bot (what telegram_link_chat stores).
insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at) values (:'alice', '8675309424242', now());
select tests.authenticate_as('alice@test.local');
select public.create_webhook_endpoint('https://hooks.example.net/WEBHOOK-URL-SECRET', 'my hook',
  'WEBHOOK-SIGNING-SECRET-42') \gset ignored_
select api_key as raw_key, prefix as key_prefix from public.create_api_key('export test key') \gset
select public.create_organization('Acme') as org \gset
insert into public.invitations (organization_id, email, role) values (:'org', 'friend@test.local', 'admin');

select tests.clear_authentication();
select token as invite_token from public.invitations where organization_id = :'org' \gset
select key_hash from public.api_keys where user_id = :'alice' \gset

select tests.authenticate_as_service_role();
create temporary table export_doc on commit drop as select private.export_account(:'alice') as doc;

select is((select doc -> 'format_version' from export_doc), '1'::jsonb, 'format_version is 1');
select ok((select (doc ->> 'exported_at')::timestamptz = now() from export_doc), 'exported_at is the export time');
select ok((select doc ->> 'exported_at' like '%+00:00' from export_doc), 'timestamps are in UTC');
select is((select (doc -> 'profile') - 'created_at' from export_doc),
  jsonb_build_object('id', :'alice'::uuid, 'email', 'alice@test.local', 'display_name', 'Alice Example', 'plan', 'pro'),
  'the profile');
select is((select jsonb_agg(e - 'added_at') from export_doc, jsonb_array_elements(doc -> 'watchlist') as e),
  jsonb_build_array(
    jsonb_build_object('domain_name', 'a.test', 'unicode_name', null, 'status', 'unknown', 'removed_at', null),
    jsonb_build_object('domain_name', 'b.test', 'unicode_name', null, 'status', 'unknown', 'removed_at', now()),
    jsonb_build_object('domain_name', 'xn--bcher-kva.test', 'unicode_name', 'bücher.test', 'status', 'unknown',
                       'removed_at', null)
  ),
  'the watchlist, removed entries with removed_at');
select is((select doc -> 'notification_preferences' from export_doc),
  '{"telegram_configured": true, "telegram_enabled": true, "telegram_event_types": ["domain.available"],
    "telegram_expiring_days": [30, 7, 1]}'::jsonb,
  'notification preferences (with the chat''s event types and reminder days) without the chat ID');
select is((select array_agg(k order by k) from export_doc, jsonb_object_keys(doc -> 'webhooks' -> 0) as k),
  array['created_at', 'description', 'enabled', 'event_types', 'expiring_days', 'id', 'kind', 'secret_configured'],
  'a webhook has its kind, event types and reminder days, and no url and no secret');
select is((select doc -> 'webhooks' -> 0 -> 'event_types' from export_doc), '["domain.available"]'::jsonb,
  'a webhook''s event types are exported');
select is((select doc -> 'webhooks' -> 0 -> 'secret_configured' from export_doc), 'true'::jsonb,
  'the webhook says a secret is configured');
select is((select (doc -> 'organization_memberships' -> 0) - 'joined_at' from export_doc),
  jsonb_build_object('organization_id', :'org'::uuid, 'organization_name', 'Acme', 'role', 'owner'),
  'organisation memberships');
select is((select array_agg(k order by k) from export_doc, jsonb_object_keys(doc -> 'invitations_sent' -> 0) as k),
  array['created_at', 'email', 'emailed_at', 'expires_at', 'id', 'organization_id', 'role', 'status'],
  'an invitation has no token');
select is((select doc -> 'invitations_sent' -> 0 ->> 'email' from export_doc), 'friend@test.local',
  'invitations sent by the account');
select is((select array_agg(k order by k) from export_doc, jsonb_object_keys(doc) as k),
  array['exported_at', 'format_version', 'invitations_sent', 'notification_preferences',
        'organization_memberships', 'organizations_owned', 'profile', 'watchlist', 'webhooks'],
  'the document''s sections (no api_keys)');

select unalike((select doc::text from export_doc), '%8675309424242%', 'no Telegram chat ID');
select unalike((select doc::text from export_doc), '%WEBHOOK-URL-SECRET%', 'no webhook URL');
select unalike((select doc::text from export_doc), '%hooks.example.net%', 'no webhook host');
select unalike((select doc::text from export_doc), '%WEBHOOK-SIGNING-SECRET-42%', 'no webhook secret');
select unalike((select doc::text from export_doc), '%' || :'invite_token' || '%', 'no invitation token');
select unalike((select doc::text from export_doc), '%' || :'key_hash' || '%', 'no API key hash');
select unalike((select doc::text from export_doc), '%' || :'key_prefix' || '%', 'no API key or prefix');
select unalike((select doc::text from export_doc), '%export test key%', 'no API key name');
select unalike((select doc::text from export_doc), '%bob-only.test%', 'nothing of another account');

select is((select jsonb_array_length(private.export_account(:'bob') -> 'invitations_sent')), 0,
  'another account exports only its own data');

select throws_ok($$ select private.export_account(null) $$, 'DW401', null, 'export_account needs an account');
select tests.authenticate_as('alice@test.local');
select throws_ok(format('select private.export_account(%L)', :'alice'), '42501', null,
  'a user cannot build an export outside the rate-limited endpoint');
select tests.authenticate_as_anon();
select throws_ok(format('select private.export_account(%L)', :'alice'), '42501', null, 'anon cannot export');

select tests.clear_authentication();
select * from tests.finish();
rollback;
