-- Claims on an organization's names (issue 42, docs/organizations.md): one open claim per name, the
-- claimer or an admin/owner releases it, leaving or removal releases a member's claims, and every step is
-- in the activity log. Roles: owner olga, admin adam, members mia and max, stranger sam, an assistant's
-- token. (The race of two members claiming at once: tests/database/org_watchlist_concurrency.test.ts.)
\ir _setup.psql

select plan(27);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('adam@test.local', 'free') as adam \gset
select tests.create_user('mia@test.local', 'free') as mia \gset
select tests.create_user('max@test.local', 'free') as max \gset
select tests.create_user('sam@test.local', 'free') as sam \gset
update public.profiles set display_name = 'Mia M.' where id = :'mia';

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select public.add_organization_watchlist_domains(:'org', array['drop-1.com', 'drop-2.com', 'drop-3.com', 'drop-4.com']);
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values
  (:'org', :'adam', 'admin'), (:'org', :'mia', 'member'), (:'org', :'max', 'member');

create function pg_temp.outcome(p_email text, p_call text, p_client boolean default false)
returns text
language plpgsql
as $$
declare
  v_claims jsonb := jsonb_build_object('sub', tests.user_id(p_email), 'role', 'authenticated',
    'aud', 'authenticated', 'email', p_email);
begin
  if p_client then
    v_claims := v_claims || '{"client_id": "9f1c0a44-assistant"}';
  end if;
  begin
    perform set_config('request.jwt.claims', v_claims::text, true);
    perform set_config('role', 'authenticated', true);
    execute p_call;
    raise exception using errcode = 'P0T01';
  exception
    when sqlstate 'P0T01' then return 'ok';
    when others then return sqlstate || ' ' || sqlerrm;
  end;
end
$$;

-- Taking ----------------------------------------------------------------------------------------------
select tests.authenticate_as('mia@test.local');
select is(public.claim_organization_domain(:'org', 'drop-1.com') ->> 'name', 'Mia M.', 'a member claims a name; the claim names her');
select is(public.claim_organization_domain(:'org', 'DROP-1.com') ->> 'claimed_by', :'mia', 'claiming one''s own claim again returns it');
select tests.clear_authentication();
select is(pg_temp.outcome('max@test.local', format($$ select public.claim_organization_domain(%L, 'drop-1.com') $$, :'org')),
  'DW409 DW409: already_claimed: drop-1.com is already claimed by Mia M..',
  'another member is told who has it (DW409 already_claimed)');
select is(pg_temp.outcome('olga@test.local', format($$ select public.claim_organization_domain(%L, 'drop-1.com') $$, :'org')),
  'DW409 DW409: already_claimed: drop-1.com is already claimed by Mia M..', 'so is the owner');
select is(pg_temp.outcome('max@test.local', format($$ select public.claim_organization_domain(%L, 'not-listed.com') $$, :'org')),
  'DW404 DW404: The name is not on the organization''s watchlist.', 'a name not on the list cannot be claimed');
select is(pg_temp.outcome('sam@test.local', format($$ select public.claim_organization_domain(%L, 'drop-2.com') $$, :'org')),
  'DW404 DW404: The organization was not found.', 'a stranger cannot claim');
select is(pg_temp.outcome('max@test.local', format($$ select public.claim_organization_domain(%L, 'drop-2.com') $$, :'org'), true),
  '42501 An assistant''s access token cannot manage the account: sign in to the app to do this.',
  'an assistant''s token cannot claim');
select is(pg_temp.outcome('adam@test.local', format($$ select public.claim_organization_domain(%L, 'drop-2.com') $$, :'org')), 'ok', 'an admin claims');
select is(pg_temp.outcome('olga@test.local', format($$ select public.claim_organization_domain(%L, 'drop-2.com') $$, :'org')), 'ok', 'the owner claims');

-- Reading claims: members only ------------------------------------------------------------------------
select tests.authenticate_as('max@test.local');
select results_eq('select domain_name, claimed_by from public.organization_claims',
  format($$ values ('drop-1.com'::text, %L::uuid) $$, :'mia'), 'a member reads the claims');
select is((public.organization_watchlist_page(:'org', null, 'drop-1', 10, 0)) -> 'domains' -> 0 -> 'claim' ->> 'name', 'Mia M.',
  'the list shows the claimer on the row');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.organization_claims), 0, 'a stranger reads none');
select tests.clear_authentication();
select is(pg_temp.outcome('max@test.local', 'do $x$ begin if (select count(*) from public.organization_claims) > 0 then raise exception ''seen''; end if; end $x$', true), 'ok',
  'an assistant''s token reads none');

-- Releasing: the claimer, an admin or the owner -------------------------------------------------------
select is(pg_temp.outcome('max@test.local', format($$ select public.release_organization_domain_claim(%L, 'drop-1.com') $$, :'org')),
  'DW403 DW403: Only the member who claimed the name, an admin or the owner can release the claim.',
  'another member cannot release it');
select is(pg_temp.outcome('sam@test.local', format($$ select public.release_organization_domain_claim(%L, 'drop-1.com') $$, :'org')),
  'DW404 DW404: The organization was not found.', 'a stranger cannot release it');
select is(pg_temp.outcome('mia@test.local', format($$ select public.release_organization_domain_claim(%L, 'drop-1.com') $$, :'org'), true),
  '42501 An assistant''s access token cannot manage the account: sign in to the app to do this.', 'an assistant''s token cannot release it');
select is(pg_temp.outcome('mia@test.local', format($$ select public.release_organization_domain_claim(%L, 'drop-1.com') $$, :'org')), 'ok', 'the claimer may release it');
select is(pg_temp.outcome('adam@test.local', format($$ select public.release_organization_domain_claim(%L, 'drop-1.com') $$, :'org')), 'ok', 'an admin may release it');
select tests.authenticate_as('olga@test.local');
select is(public.release_organization_domain_claim(:'org', 'drop-1.com'), true, 'the owner releases it');
select is(public.release_organization_domain_claim(:'org', 'drop-1.com'), false, 'releasing an unclaimed name is false');

-- Removing the name releases its claim; leaving and removal release a member's claims -----------------
select tests.authenticate_as('max@test.local');
select public.claim_organization_domain(:'org', 'drop-2.com');
select public.claim_organization_domain(:'org', 'drop-3.com');
select tests.authenticate_as('mia@test.local');
select public.claim_organization_domain(:'org', 'drop-4.com');
select tests.authenticate_as('max@test.local');
select public.remove_organization_watchlist_domain(:'org', 'drop-2.com');
select tests.clear_authentication();
select is((select count(*)::integer from public.organization_claims where domain_name = 'drop-2.com'), 0, 'removing a name releases its claim');
select tests.authenticate_as('max@test.local');
delete from public.organization_members where organization_id = :'org' and user_id = :'max';
select tests.authenticate_as('olga@test.local');
delete from public.organization_members where organization_id = :'org' and user_id = :'mia';
select tests.clear_authentication();
select is((select count(*)::integer from public.organization_claims where organization_id = :'org'), 0,
  'leaving (max) and being removed (mia) release the member''s claims');

select results_eq(format($$ select action, actor_name, domain_name, subject_name from public.organization_activity
                            where organization_id = %L and action like 'claim.%%' order by id $$, :'org'),
  $$ values ('claim.taken'::text, 'Mia M.'::text, 'drop-1.com'::text, 'Mia M.'::text),
            ('claim.released', 'olga', 'drop-1.com', 'Mia M.'),
            ('claim.taken', 'max', 'drop-2.com', 'max'),
            ('claim.taken', 'max', 'drop-3.com', 'max'),
            ('claim.taken', 'Mia M.', 'drop-4.com', 'Mia M.'),
            ('claim.released', 'max', 'drop-2.com', 'max'),
            ('claim.released', 'max', 'drop-3.com', 'max'),
            ('claim.released', 'olga', 'drop-4.com', 'Mia M.') $$,
  'the log has every claim taken and released, with who acted and whose claim it was');
select results_eq(format($$ select action, actor_name, subject_name from public.organization_activity
                            where organization_id = %L and action in ('member.left', 'member.removed') order by id $$, :'org'),
  $$ values ('member.left'::text, 'max'::text, 'max'::text), ('member.removed', 'olga', 'Mia M.') $$,
  'leaving and removal are told apart in the log');

-- Role changes are logged -----------------------------------------------------------------------------
select tests.authenticate_as('olga@test.local');
update public.organization_members set role = 'member' where organization_id = :'org' and user_id = :'adam';
select tests.clear_authentication();
select results_eq(format($$ select actor_name, subject_name, detail from public.organization_activity
                            where organization_id = %L and action = 'member.role_changed' $$, :'org'),
  $$ values ('olga'::text, 'adam'::text, '{"from": "admin", "to": "member"}'::jsonb) $$, 'a role change is logged');

-- Retention: the log is kept 365 days -----------------------------------------------------------------
update public.organization_activity set created_at = now() - interval '366 days' where organization_id = :'org' and action = 'claim.taken';
select is((private.purge_expired_rows() ->> 'organization_activity')::integer, 4, 'the retention job purges log rows older than 365 days');
select throws_ok($$ update public.retention_settings set organization_activity_days = 30 $$, '23514', null,
  'the log cannot be kept less than a year');

select * from tests.finish();
rollback;
