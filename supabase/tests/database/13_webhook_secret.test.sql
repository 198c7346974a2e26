-- Strong Standard Webhooks keys on every write path: a whsec_ secret is whsec_ and the base64 of 24-64
-- bytes; other secrets are 16-256 characters. The app's functions, direct table writes and the rotation.
\ir _setup.psql

select plan(12);

select tests.create_user('keys@test.local', 'pro') as keys \gset
select 'whsec_' || encode(extensions.gen_random_bytes(24), 'base64') as strong \gset

-- The app's functions ------------------------------------------------------------------------------------
select tests.authenticate_as('keys@test.local');
select throws_ok(
  $$ select public.create_webhook_endpoint('https://hooks.example.com/weak', null, 'whsec_AAAAAAAAAA==') $$,
  'DW400', 'DW400: A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.',
  'create_webhook_endpoint refuses a whsec_ secret of 7 bytes');
select public.create_webhook_endpoint('https://hooks.example.com/a', null, :'strong') as hook \gset
select ok(:'hook' is not null, 'a whsec_ secret of 24 bytes is saved');
select throws_ok(
  format('select public.set_webhook_secret(%L, %L)', :'hook', 'whsec_' || replace(encode(extensions.gen_random_bytes(65), 'base64'), E'\n', '')),
  'DW400', null, 'set_webhook_secret refuses 65 bytes');
select throws_ok(format('select public.set_webhook_secret(%L, %L)', :'hook', 'too-short'),
  'DW400', 'DW400: A webhook secret must be 16-256 characters.', 'other secrets keep 16-256 characters');
select lives_ok(format('select public.set_webhook_secret(%L, %L)', :'hook', 'an-ordinary-secret-of-my-own'),
  'an ordinary secret of 16-256 characters is saved');
select matches(public.rotate_webhook_secret(:'hook'), '^whsec_[A-Za-z0-9+/]{43}=$',
  'the rotation generates 32 bytes');

-- Direct table writes (encode() breaks base64 lines at 76 characters: joined again) --------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select throws_ok(
  format($$ insert into public.webhook_endpoints (user_id, url, secret) values (%L, 'https://hooks.example.com/b',
            'whsec_AAAAAAAAAA==') $$, :'keys'),
  '23514', null, 'a direct insert of a weak whsec_ secret is refused');
select throws_ok(format($$ update public.webhook_endpoints set secret = 'whsec_not*base64*at-all__' where id = %L $$,
                        :'hook'),
  '23514', null, 'a direct update to a whsec_ secret that is not base64 is refused');
select throws_ok(format($$ update public.webhook_endpoints set secret = 'short' where id = %L $$, :'hook'),
  '23514', null, 'a direct update to a short secret is refused');
select lives_ok(format($$ update public.webhook_endpoints set secret = %L where id = %L $$,
                       'whsec_' || replace(encode(extensions.gen_random_bytes(64), 'base64'), E'\n', ''), :'hook'),
  'a direct update to 64 bytes is saved');

-- A secret stored before the rule stays usable until it is written again -------------------------------------
select tests.clear_authentication();
alter table public.webhook_endpoints disable trigger webhook_endpoints_check_secret;
update public.webhook_endpoints set secret = 'whsec_AAAAAAAAAA==' where id = :'hook';
alter table public.webhook_endpoints enable trigger webhook_endpoints_check_secret;
select tests.authenticate_as_service_role();
select lives_ok(format($$ update public.webhook_endpoints set description = 'renamed' where id = %L $$, :'hook'),
  'other edits of a webhook with an old weak secret still work');
select throws_ok(format($$ update public.webhook_endpoints set secret = 'whsec_AAAAAAAAAA==' where id = %L $$, :'hook'),
  '23514', null, 'but writing the weak secret again is refused');

select tests.clear_authentication();
select * from tests.finish();
rollback;
