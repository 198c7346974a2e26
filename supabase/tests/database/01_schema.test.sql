-- Structure and security hygiene that must hold for the whole public schema.
\ir _setup.psql

select plan(62);

-- Tables of this part of the design -----------------------------------------------------------------
select has_table('public', t, 'table public.' || t || ' exists')
  from unnest(array[
    'plans', 'profiles', 'api_keys', 'domains', 'watchlist_entries', 'organizations',
    'organization_members', 'invitations', 'notification_settings', 'webhook_endpoints',
    'api_request_counters', 'session_request_log'
  ]) as t;

select is_empty(
  $$ select c.relname::text
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relrowsecurity $$,
  'row-level security is enabled on every table in public'
);

select is_empty(
  $$ select c.relname::text
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm')
        and (has_table_privilege('anon', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
             or has_any_column_privilege('anon', c.oid, 'SELECT, INSERT, UPDATE, REFERENCES')) $$,
  'anon has no privilege on any table in public'
);

select is_empty(
  $$ select c.relname::text
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and has_table_privilege('authenticated', c.oid, 'TRUNCATE') $$,
  'authenticated cannot TRUNCATE any table in public (RLS does not apply to TRUNCATE)'
);

select is_empty(
  $$ select p.oid::regprocedure::text
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prosecdef
        and has_function_privilege('anon', p.oid, 'EXECUTE') $$,
  'no security definer function in public is executable by anon'
);

select is_empty(
  $$ select p.oid::regprocedure::text
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public'
        and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
        and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) as c where c like 'search_path=%') $$,
  'every function in public pins its search_path'
);

-- Plans are product data -----------------------------------------------------------------------------
select results_eq(
  $$ select id, api_access, requests_per_day, watchlist_quota, webhooks from public.plans order by sort_order $$,
  $$ values ('free'::text, false, null::integer, 10, false),
            ('pro', true, 1000, 1000, true),
            ('business', true, 5000, 10000, true),
            ('enterprise', true, null, 100000, true) $$,
  'the four plans with their limits'
);

-- Hidden and write-only columns ---------------------------------------------------------------------
select ok(not has_column_privilege('authenticated', 'public.api_keys', 'key_hash', 'SELECT'),
  'authenticated cannot read api_keys.key_hash');
select ok(not has_column_privilege('authenticated', 'public.webhook_endpoints', 'secret', 'SELECT'),
  'authenticated cannot read webhook_endpoints.secret');
select ok(not has_column_privilege('authenticated', 'public.notification_settings', 'telegram_chat_id', 'SELECT'),
  'authenticated cannot read notification_settings.telegram_chat_id');
select ok(not has_column_privilege('authenticated', 'public.invitations', 'token', 'SELECT'),
  'authenticated cannot read invitations.token');
select ok(not has_table_privilege('authenticated', 'public.webhook_endpoints', 'INSERT, UPDATE'),
  'authenticated writes webhook_endpoints only through the functions');
select ok(not has_table_privilege('authenticated', 'public.notification_settings', 'INSERT, UPDATE'),
  'authenticated writes notification_settings only through the functions');
select ok(not has_column_privilege('authenticated', 'public.notification_settings', 'telegram_chat_id', 'UPDATE')
  and not has_column_privilege('authenticated', 'public.notification_settings', 'telegram_chat_id', 'INSERT'),
  'authenticated cannot write notification_settings.telegram_chat_id (only the bot link flow links a chat)');
select ok(not has_column_privilege('authenticated', 'public.profiles', 'plan_id', 'UPDATE'),
  'authenticated cannot change profiles.plan_id');

-- The function contract -----------------------------------------------------------------------------
select has_function('private', 'authenticate_api_key', array['text']);
select has_function('private', 'consume_api_request', array['uuid']);
select has_function('public', 'add_watchlist_domains', array['text[]']);
select has_function('public', 'list_watchlist', array['integer', 'integer', 'text']);
select has_function('public', 'remove_watchlist_domain', array['text']);
select has_function('public', 'create_api_key', array['text']);
select has_function('public', 'revoke_api_key', array['uuid']);
select has_function('private', 'consume_session_request', array['uuid', 'text']);
select has_function('private', 'export_account', array['uuid']);
select has_function('public', 'invitation_for_sending', array['uuid']);
select has_function('private', 'mark_invitation_emailed', array['uuid', 'uuid']);
select has_function('public', 'accept_invitation', array['text']);
select has_function('public', 'has_org_role', array['uuid', 'text[]']);

select is_definer('private', 'authenticate_api_key', array['text']);
select is_definer('private', 'consume_api_request', array['uuid']);
select is_definer('public', 'add_watchlist_domains', array['text[]']);
select is_definer('public', 'create_api_key', array['text']);
select is_definer('private', 'consume_session_request', array['uuid', 'text']);
select is_definer('private', 'export_account', array['uuid']);
select is_definer('public', 'accept_invitation', array['text']);
select is_definer('public', 'list_watchlist', array['integer', 'integer', 'text']);

select ok(not has_function_privilege('authenticated', 'private.authenticate_api_key(text)', 'EXECUTE'),
  'authenticated cannot execute authenticate_api_key');
select ok(not has_function_privilege('authenticated', 'private.consume_api_request(uuid)', 'EXECUTE'),
  'authenticated cannot execute consume_api_request');
select ok(has_function_privilege('service_role', 'private.authenticate_api_key(text)', 'EXECUTE'),
  'service_role can execute authenticate_api_key');
select ok(has_function_privilege('service_role', 'private.consume_api_request(uuid)', 'EXECUTE'),
  'service_role can execute consume_api_request');
select ok(has_function_privilege('authenticated', 'public.add_watchlist_domains(text[])', 'EXECUTE'),
  'authenticated can execute add_watchlist_domains');

-- auth helpers read the claims like Supabase ---------------------------------------------------------
select set_config('request.jwt.claims', '{"sub": "00000000-0000-0000-0000-0000000000aa", "role": "authenticated"}', true);
select is(auth.uid(), '00000000-0000-0000-0000-0000000000aa'::uuid, 'auth.uid() reads request.jwt.claims');
select is(auth.role(), 'authenticated', 'auth.role() reads request.jwt.claims');
select is(auth.jwt() ->> 'sub', '00000000-0000-0000-0000-0000000000aa', 'auth.jwt() returns the claims');
select set_config('request.jwt.claims', '', true);
select set_config('request.jwt.claim.sub', '00000000-0000-0000-0000-0000000000bb', true);
select is(auth.uid(), '00000000-0000-0000-0000-0000000000bb'::uuid, 'auth.uid() falls back to request.jwt.claim.sub');
select set_config('request.jwt.claim.sub', '', true);
select is(auth.uid(), null, 'auth.uid() is null without claims');

-- Local stand-ins ------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', 'net.http_post(text, jsonb, jsonb, jsonb, integer)', 'EXECUTE')
  and not (select prosecdef from pg_proc where oid = 'net.http_post(text, jsonb, jsonb, jsonb, integer)'::regprocedure),
  'net.http_post is as pg_net >= 0.12 on Supabase: executable by PUBLIC, running as its caller (guard the callers)'
);
select ok(not has_schema_privilege('authenticated', 'vault', 'USAGE'), 'authenticated cannot use schema vault');
select ok(net.http_post('http://127.0.0.1:9/hook', '{"a": 1}'::jsonb) > 0, 'net.http_post queues a request');
select is(
  (select url from net.http_request_queue order by id desc limit 1),
  'http://127.0.0.1:9/hook',
  'the queued request has the URL'
);
select vault.create_secret('s3cret', 'dwl-test-secret') is not null as created;
select is(
  (select decrypted_secret from vault.decrypted_secrets where name = 'dwl-test-secret'),
  's3cret',
  'vault.create_secret stores a secret readable through vault.decrypted_secrets'
);

select * from tests.finish();
rollback;
