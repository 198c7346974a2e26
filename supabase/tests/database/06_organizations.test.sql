-- Organisations, members, invitations: RLS, the hidden token, and the invitation functions.
\ir _setup.psql

select plan(52);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('adam@test.local', 'free') as adam \gset
select tests.create_user('mia@test.local', 'free') as mia \gset
select tests.create_user('otto@test.local', 'free') as otto \gset
select tests.create_user('ivy@test.local', 'free') as ivy \gset
select tests.create_user('late@test.local', 'free') as late \gset
select tests.create_user('rev@test.local', 'free') as rev \gset

-- Creating an organisation ------------------------------------------------------------------------
select tests.authenticate_as('olga@test.local');
select public.create_organization('  Acme  ') as org \gset
select results_eq(format('select name, created_by from public.organizations where id = %L', :'org'),
  format($$ values ('Acme'::text, %L::uuid) $$, :'olga'), 'the organisation is created with a trimmed name');
select results_eq($$ select user_id, role from public.organization_members $$,
  format($$ values (%L::uuid, 'owner'::text) $$, :'olga'), 'its creator is the owner');
select throws_ok($$ select public.create_organization('') $$, 'DW400', null, 'an organisation needs a name');
select is(public.has_org_role(:'org', array['owner']), true, 'has_org_role sees the owner');

-- Owner invites an admin; the admin accepts ------------------------------------------------------
insert into public.invitations (organization_id, email, role) values (:'org', 'adam@test.local', 'admin')
  returning id as adam_inv \gset
select tests.clear_authentication();
select is((select invited_by from public.invitations where id = :'adam_inv'), :'olga'::uuid,
  'invited_by defaults to the caller');
select token as adam_token from public.invitations where id = :'adam_inv' \gset
insert into public.organization_members (organization_id, user_id, role) values (:'org', :'mia', 'member');

select tests.authenticate_as('adam@test.local');
select is(public.accept_invitation(:'adam_token'), :'org'::uuid, 'the invited account accepts the invitation');
select is((select role from public.organization_members where user_id = auth.uid()), 'admin',
  'the new member has the invited role');
select throws_ok(format('select public.accept_invitation(%L)', :'adam_token'), 'DW404', null,
  'an invitation is accepted only once');
select throws_ok($$ select public.accept_invitation('no-such-token') $$, 'DW404', null, 'an unknown token is not found');

-- Admin invites ivy (address in another case) ----------------------------------------------------
insert into public.invitations (organization_id, email, role) values (:'org', 'IVY@Test.local', 'member')
  returning id as ivy_inv \gset
select throws_ok($$ select token from public.invitations $$, '42501', null, 'authenticated cannot read tokens');
select throws_ok($$ select * from public.invitations $$, '42501', null, 'select * on invitations is refused too');
select results_eq($$ select email from public.invitations order by created_at, email $$,
  array['IVY@Test.local', 'adam@test.local'], 'an admin reads the organisation''s invitations');
select results_eq(format('select organization_name, email, role, token is not null from public.invitation_for_sending(%L)', :'ivy_inv'),
  $$ values ('Acme'::text, 'IVY@Test.local'::text, 'member'::text, true) $$,
  'an admin gets a pending invitation for sending, with its token');
select tests.authenticate_as_service_role();
select lives_ok(format('select private.mark_invitation_emailed(%L, %L)', tests.user_id('adam@test.local'), :'ivy_inv'),
  'send-org-invite marks it emailed for an admin');
select isnt((select emailed_at from public.invitations where id = :'ivy_inv'), null, 'emailed_at is set');
select tests.authenticate_as('adam@test.local');
select throws_ok(format($$ update public.invitations set status = 'accepted' where id = %L $$, :'ivy_inv'),
  '42501', null, 'an admin cannot mark an invitation accepted');
select throws_ok(format($$ insert into public.invitations (organization_id, email) values (%L, 'x@test.local') $$, gen_random_uuid()),
  '42501', null, 'nobody can invite to an organisation they do not manage');

select tests.clear_authentication();
select token as ivy_token from public.invitations where id = :'ivy_inv' \gset

-- The member mia --------------------------------------------------------------------------------
select tests.authenticate_as('mia@test.local');
select throws_ok(format($$ insert into public.invitations (organization_id, email) values (%L, 'x@test.local') $$, :'org'),
  '42501', null, 'a member cannot invite');
select is_empty($$ select id from public.invitations $$, 'a member does not read the invitations');
select throws_ok(format('select * from public.invitation_for_sending(%L)', :'ivy_inv'), 'DW403', null,
  'a member of the organisation cannot get an invitation for sending (DW403)');
select throws_ok(format('select private.mark_invitation_emailed(%L, %L)', auth.uid(), :'ivy_inv'), '42501', null,
  'a member cannot call mark_invitation_emailed');
select results_eq($$ select name from public.organizations $$, array['Acme'], 'a member reads the organisation');
select is((select count(*)::integer from public.organization_members), 3, 'a member reads the members');
select results_eq($$ select email from public.profiles order by email $$,
  array['adam@test.local', 'mia@test.local', 'olga@test.local'], 'a member reads the profiles of fellow members');
select is(public.has_org_role(:'org', array['owner', 'admin']), false, 'has_org_role: a member is not an admin');
update public.organization_members set role = 'owner' where user_id = auth.uid();
update public.organizations set name = 'Mine' where id = :'org';

-- The outsider otto --------------------------------------------------------------------------------
select tests.authenticate_as('otto@test.local');
select is_empty($$ select id from public.organizations $$, 'an outsider reads no organisation');
select is_empty($$ select user_id from public.organization_members $$, 'an outsider reads no members');
select is_empty($$ select id from public.invitations $$, 'an outsider reads no invitations');
select results_eq($$ select email from public.profiles $$, array['otto@test.local'],
  'an outsider reads only their own profile');
select throws_ok(format('select public.accept_invitation(%L)', :'ivy_token'), 'DW404', null,
  'an invitation for another address is not found');
select throws_ok(format('select * from public.invitation_for_sending(%L)', :'ivy_inv'), 'DW404', null,
  'an outsider cannot get an invitation for sending');
select tests.authenticate_as_service_role();
select throws_ok(format('select private.mark_invitation_emailed(%L, %L)', tests.user_id('otto@test.local'), :'ivy_inv'),
  'DW404', null, 'an outsider''s invitation cannot be marked emailed');
select tests.authenticate_as('otto@test.local');
delete from public.organizations where id = :'org';
delete from public.organization_members where organization_id = :'org';

-- ivy accepts (case-insensitive address), once her address is confirmed ------------------------
select tests.clear_authentication();
update auth.users set email_confirmed_at = null where email = 'ivy@test.local';
select tests.authenticate_as('ivy@test.local');
select throws_ok(format('select public.accept_invitation(%L)', :'ivy_token'), 'DW404', null,
  'an account whose address is not confirmed cannot accept');
select tests.clear_authentication();
update auth.users set email_confirmed_at = now() where email = 'ivy@test.local';
select tests.authenticate_as('ivy@test.local');
select is(public.accept_invitation(:'ivy_token'), :'org'::uuid, 'the address is compared case-insensitively');
select is((select role from public.organization_members where user_id = auth.uid()), 'member', 'ivy is a member');

-- Expired and revoked invitations ----------------------------------------------------------------
select tests.authenticate_as('olga@test.local');
insert into public.invitations (organization_id, email) values (:'org', 'late@test.local') returning id as late_inv \gset
insert into public.invitations (organization_id, email) values (:'org', 'rev@test.local') returning id as rev_inv \gset
select lives_ok(format($$ update public.invitations set status = 'revoked' where id = %L $$, :'rev_inv'),
  'an owner revokes a pending invitation');
select throws_ok(format('select * from public.invitation_for_sending(%L)', :'rev_inv'), 'DW404', null,
  'a revoked invitation cannot be sent');
select tests.clear_authentication();
update public.invitations set expires_at = now() - interval '1 second' where id = :'late_inv';
select token as late_token from public.invitations where id = :'late_inv' \gset
select token as rev_token from public.invitations where id = :'rev_inv' \gset
select tests.authenticate_as('olga@test.local');
select throws_ok(format('select * from public.invitation_for_sending(%L)', :'late_inv'), 'DW404', null,
  'an expired invitation cannot be sent');
select tests.authenticate_as('late@test.local');
select throws_ok(format('select public.accept_invitation(%L)', :'late_token'), 'DW400',
  'DW400: invitation_expired: The invitation has expired.', 'an expired invitation cannot be accepted');
select tests.authenticate_as('rev@test.local');
select throws_ok(format('select public.accept_invitation(%L)', :'rev_token'), 'DW404', null,
  'a revoked invitation cannot be accepted');

-- Member management --------------------------------------------------------------------------------
select tests.authenticate_as('adam@test.local');
delete from public.organization_members where user_id = :'olga';
select tests.authenticate_as('olga@test.local');
select lives_ok(format($$ update public.organization_members set role = 'admin' where user_id = %L $$, :'mia'),
  'the owner changes a member''s role');
select lives_ok(format($$ update public.organizations set name = 'Acme Inc' where id = %L $$, :'org'),
  'the owner renames the organisation');
select tests.authenticate_as('ivy@test.local');
select lives_ok($$ delete from public.organization_members where user_id = auth.uid() $$, 'a member can leave');

select tests.clear_authentication();
select is((select role from public.organization_members where user_id = :'mia'), 'admin',
  'mia''s role was changed only by the owner');
select is((select role from public.organization_members where user_id = :'olga'), 'owner',
  'an admin cannot remove the owner');
select is((select name from public.organizations where id = :'org'), 'Acme Inc',
  'only the owner renamed the organisation');
select is((select count(*)::integer from public.organization_members where organization_id = :'org'), 3,
  'outsiders deleted nothing; ivy left');
select results_eq(format('select status, accepted_by from public.invitations where id = %L', :'ivy_inv'),
  format($$ values ('accepted'::text, %L::uuid) $$, :'ivy'), 'the accepted invitation records who accepted it');

-- anon ---------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();
select throws_ok($$ select * from public.organizations $$, '42501', null, 'anon cannot read organisations');
select throws_ok($$ select * from public.organization_members $$, '42501', null, 'anon cannot read members');
select throws_ok($$ select id from public.invitations $$, '42501', null, 'anon cannot read invitations');
select throws_ok(format('select public.accept_invitation(%L)', :'ivy_token'), '42501', null,
  'anon cannot accept invitations');

select tests.clear_authentication();
select * from tests.finish();
rollback;
