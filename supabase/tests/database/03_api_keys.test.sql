-- API keys: creation (Pro and higher), the hidden hash, revocation and authenticate_api_key.
\ir _setup.psql

select plan(29);

select tests.create_user('alice@test.local', 'pro') as alice \gset
select tests.create_user('bob@test.local', 'business') as bob \gset
select tests.create_user('fred@test.local', 'free') as fred \gset

-- Free plan ------------------------------------------------------------------------------------------
select tests.authenticate_as('fred@test.local');
select throws_ok($$ select * from public.create_api_key('my key') $$, 'DWUPG',
  'DWUPG: API keys need the Pro plan or higher.', 'the free plan cannot create API keys');

-- Bob's key ------------------------------------------------------------------------------------------
select tests.authenticate_as('bob@test.local');
select id as bob_key_id from public.create_api_key('bob key') \gset

-- Alice ----------------------------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select id as alice_key_id, api_key as alice_key, prefix as alice_prefix, name as alice_key_name
  from public.create_api_key('  laptop  ') \gset

select ok(:'alice_key' ~ '^dwl_[0-9a-f]{48}$', 'the raw key is dwl_ and 48 hex characters');
select is(:'alice_prefix'::text, left(:'alice_key', 12), 'the prefix is the first 12 characters of the key');
select is(:'alice_key_name'::text, 'laptop', 'the name is trimmed');
select is((select prefix from public.api_keys where id = :'alice_key_id'), :'alice_prefix',
  'the owner reads the key''s prefix');
select throws_ok($$ select key_hash from public.api_keys $$, '42501', null,
  'authenticated cannot select key_hash');
select throws_ok($$ select * from public.api_keys $$, '42501', null,
  'select * on api_keys is refused too (list the columns)');
select lives_ok($$ select id, user_id, name, prefix, created_at, last_used_at, revoked_at from public.api_keys $$,
  'the other columns are readable');
select results_eq($$ select id from public.api_keys $$, array[:'alice_key_id'::uuid],
  'a user sees only their own keys');
select throws_ok($$ select * from public.create_api_key('   ') $$, 'DW400', null, 'a key needs a name');
select is(public.revoke_api_key(:'bob_key_id'), false, 'a user cannot revoke another user''s key');
select throws_ok($$ insert into public.api_keys (user_id, name, prefix, key_hash) values (auth.uid(), 'x', 'x', 'x') $$,
  '42501', null, 'a user cannot insert keys directly');
select throws_ok($$ update public.api_keys set revoked_at = null $$, '42501', null,
  'a user cannot update keys directly');
select throws_ok($$ delete from public.api_keys $$, '42501', null, 'a user cannot delete keys directly');
select throws_ok(format('select * from private.authenticate_api_key(%L)', 'x'), '42501', null,
  'authenticated cannot call authenticate_api_key');

select tests.clear_authentication();
select is((select key_hash from public.api_keys where id = :'alice_key_id'),
  encode(sha256(convert_to(:'alice_key', 'UTF8')), 'hex'), 'the stored hash is the SHA-256 hex of the raw key');
select is((select revoked_at from public.api_keys where id = :'bob_key_id'), null, 'bob''s key is not revoked');

-- authenticate_api_key as service_role ---------------------------------------------------------------
select encode(sha256(convert_to(:'alice_key', 'UTF8')), 'hex') as alice_hash \gset
select tests.authenticate_as_service_role();
select results_eq(format('select * from private.authenticate_api_key(%L)', :'alice_hash'),
  format($$ values ('ok'::text, %L::uuid, 'pro'::text, 1000) $$, :'alice'),
  'a valid key of a Pro account is ok, with the plan and its daily limit');
select results_eq($$ select * from private.authenticate_api_key(repeat('0', 64)) $$,
  $$ values ('unauthorized'::text, null::uuid, null::text, null::integer) $$, 'an unknown key is unauthorized');
select results_eq($$ select * from private.authenticate_api_key(null) $$,
  $$ values ('unauthorized'::text, null::uuid, null::text, null::integer) $$, 'no key is unauthorized');

select tests.clear_authentication();
select is((select last_used_at from public.api_keys where id = :'alice_key_id'), now(), 'last_used_at is recorded');

-- last_used_at is written at most once a minute
update public.api_keys set last_used_at = now() - interval '30 seconds' where id = :'alice_key_id';
select * from private.authenticate_api_key(:'alice_hash') \gset ignored_
select is((select last_used_at from public.api_keys where id = :'alice_key_id'), now() - interval '30 seconds',
  'last_used_at is not rewritten within a minute');
update public.api_keys set last_used_at = now() - interval '2 minutes' where id = :'alice_key_id';
select * from private.authenticate_api_key(:'alice_hash') \gset ignored_
select is((select last_used_at from public.api_keys where id = :'alice_key_id'), now(),
  'last_used_at is rewritten after a minute');

-- Plan without API access ----------------------------------------------------------------------------
update public.profiles set plan_id = 'free' where id = :'alice';
select results_eq(format('select outcome, user_id, plan_id from private.authenticate_api_key(%L)', :'alice_hash'),
  format($$ values ('upgrade_required'::text, %L::uuid, 'free'::text) $$, :'alice'),
  'a key of an account without API access is upgrade_required');
update public.profiles set plan_id = 'pro' where id = :'alice';

-- Revocation -----------------------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');
select is(public.revoke_api_key(:'alice_key_id'), true, 'a user revokes their own key');
select is(public.revoke_api_key(:'alice_key_id'), false, 'a revoked key cannot be revoked again');
select tests.authenticate_as_service_role();
select is((select outcome from private.authenticate_api_key(:'alice_hash')), 'unauthorized',
  'a revoked key is unauthorized');

-- anon ----------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();
select throws_ok($$ select * from public.create_api_key('x') $$, '42501', null, 'anon cannot create keys');
select throws_ok($$ select id from public.api_keys $$, '42501', null, 'anon cannot read keys');

select tests.clear_authentication();
select * from tests.finish();
rollback;
