-- plans and profiles: the profile trigger, RLS and the display-name-only column grant.
\ir _setup.psql

select plan(19);

select tests.create_user('alice@test.local', 'pro') as alice \gset
select tests.create_user('bob@test.local', 'pro') as bob \gset
insert into auth.users (email) values ('plain@test.local');

-- The trigger --------------------------------------------------------------------------------------
select is((select email from public.profiles where id = :'alice'), 'alice@test.local',
  'a profile is created with the account''s email');
select is((select display_name from public.profiles where id = :'alice'), 'alice',
  'the display name comes from the sign-up metadata');
select is((select plan_id from public.profiles where id = tests.user_id('plain@test.local')), 'free',
  'a new account is on the free plan');
update auth.users set email = 'alice2@test.local' where id = :'alice';
select is((select email from public.profiles where id = :'alice'), 'alice2@test.local',
  'a changed account email is copied to the profile');
update auth.users set email = 'alice@test.local' where id = :'alice';

-- As alice ------------------------------------------------------------------------------------------
select tests.authenticate_as('alice@test.local');

select results_eq($$ select id from public.profiles $$, array[:'alice'::uuid],
  'a user reads only their own profile');
select is((select count(*)::integer from public.plans), 4, 'a signed-in user reads the plans');

select lives_ok($$ update public.profiles set display_name = 'Alice A.' where id = auth.uid() $$,
  'a user can change their display name');
select is((select display_name from public.profiles where id = auth.uid()), 'Alice A.',
  'the display name was changed');
select throws_ok($$ update public.profiles set plan_id = 'enterprise' where id = auth.uid() $$, '42501', null,
  'a user cannot change their plan');
select throws_ok($$ insert into public.profiles (id, email) values (gen_random_uuid(), 'x@test.local') $$,
  '42501', null, 'a user cannot create profiles');
select throws_ok($$ delete from public.profiles where id = auth.uid() $$, '42501', null,
  'a user cannot delete profiles');
select throws_ok($$ update public.plans set watchlist_quota = 1000000 where id = 'free' $$, '42501', null,
  'a user cannot change the plans');

update public.profiles set display_name = 'hacked' where id = :'bob';

-- public.current_account_id() ------------------------------------------------------------------------
select is(public.current_account_id(), :'alice'::uuid, 'current_account_id() is the signed-in account');
select set_config('request.jwt.claims', '', true);
select throws_ok($$ select public.current_account_id() $$, 'DW401', 'DW401: Sign in first.',
  'current_account_id() raises DW401 without claims');

-- As anon -------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();
select throws_ok($$ select * from public.profiles $$, '42501', null, 'anon cannot read profiles');
select throws_ok($$ select * from public.plans $$, '42501', null, 'anon cannot read plans');

select tests.clear_authentication();
select is((select display_name from public.profiles where id = :'bob'), 'bob',
  'a user cannot change another user''s display name');
select is((select plan_id from public.profiles where id = :'alice'), 'pro', 'the plan is unchanged');

delete from auth.users where id = :'bob';
select is((select count(*)::integer from public.profiles where id = :'bob'), 0,
  'deleting the account deletes the profile');

select * from tests.finish();
rollback;
