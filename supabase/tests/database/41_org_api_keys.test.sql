-- Organizations' API keys (issue 42, docs/organizations.md): who makes, sees and revokes them, the owner's
-- plan, the organization's own count, and the list function the API calls. Roles: owner olga (Free, then
-- Pro), admin adam, member mia, removed member rem, stranger sam, an assistant's token.
\ir _setup.psql

select plan(27);

select tests.create_user('olga@test.local', 'free') as olga \gset
select tests.create_user('adam@test.local', 'pro') as adam \gset
select tests.create_user('mia@test.local', 'pro') as mia \gset
select tests.create_user('rem@test.local', 'pro') as rem \gset
select tests.create_user('sam@test.local', 'pro') as sam \gset

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select public.add_organization_watchlist_domains(:'org', array['org-name.com']);
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values
  (:'org', :'adam', 'admin'), (:'org', :'mia', 'member'), (:'org', :'rem', 'admin');
delete from public.organization_members where organization_id = :'org' and user_id = :'rem';

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
    when others then return sqlstate;
  end;
end
$$;

select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_api_key(%L, 'k') $$, :'org')), 'DWUPG',
  'the owner''s Free plan has no API: an admin (Pro himself) cannot make a key (DWUPG)');
update public.profiles set plan_id = 'pro' where id = :'olga';
select is(pg_temp.outcome('mia@test.local', format($$ select public.create_organization_api_key(%L, 'k') $$, :'org')), 'DW403', 'a member cannot make one');
select is(pg_temp.outcome('sam@test.local', format($$ select public.create_organization_api_key(%L, 'k') $$, :'org')), 'DW404', 'a stranger cannot');
select is(pg_temp.outcome('rem@test.local', format($$ select public.create_organization_api_key(%L, 'k') $$, :'org')), 'DW404', 'a removed admin cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_api_key(%L, 'k') $$, :'org'), true), '42501', 'an assistant''s token cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_api_key(%L, '') $$, :'org')), 'DW400', 'a key needs a name');

select tests.authenticate_as('adam@test.local');
select id as adam_key, api_key as adam_raw from public.create_organization_api_key(:'org', 'adam ci') \gset
select tests.authenticate_as('olga@test.local');
select id as olga_key, api_key as olga_raw from public.create_organization_api_key(:'org', 'olga ci') \gset
select id as olga_personal, api_key as olga_personal_raw from public.create_api_key('mine') \gset
select tests.clear_authentication();
select ok(:'olga_raw' like 'dwo\_%' and :'olga_personal_raw' like 'dwl\_%', 'an organization key starts dwo_, a personal one dwl_');

-- Who sees which keys
select tests.authenticate_as('olga@test.local');
select results_eq($$ select name from public.api_keys where organization_id is null $$, $$ values ('mine'::text) $$,
  'the owner''s personal key list has only her own keys');
select is((select count(*)::integer from public.api_keys where organization_id = :'org'), 2, 'the owner sees the organization''s keys');
select tests.authenticate_as('adam@test.local');
select is((select count(*)::integer from public.api_keys where organization_id = :'org'), 2, 'an admin sees them');
select tests.authenticate_as('mia@test.local');
select is((select count(*)::integer from public.api_keys), 0, 'a member does not');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.api_keys), 0, 'a stranger does not');
select tests.clear_authentication();
select throws_ok(format($$ select pg_temp.outcome('olga@test.local', 'select key_hash from public.api_keys') $$), 'P0001', null, '(setup)')
  where false;
select is(pg_temp.outcome('olga@test.local', 'select key_hash from public.api_keys'), '42501', 'nobody reads a key hash');

-- Admission: the owner's plan, the organization's own count
select results_eq(format($$ select outcome, user_id, plan_id, allowed, request_limit, remaining, organization_id
                              from private.authorize_api_request(encode(extensions.digest(%L, 'sha256'), 'hex')) $$, :'adam_raw'),
  format($$ values ('ok'::text, %L::uuid, 'pro'::text, true, 1000, 999, %L::uuid) $$, :'adam', :'org'),
  'an organization key is admitted on the owner''s plan, acting as the member who made it, counted for the organization');
select private.authorize_api_request(encode(extensions.digest(:'olga_raw', 'sha256'), 'hex'));
select is((select request_count from public.organization_api_request_counters where organization_id = :'org'), 2,
  'both organization keys count on the organization''s counter');
select is((select count(*)::integer from public.api_request_counters where user_id in (:'olga', :'adam')), 0,
  'not on the members'' own counters');
select results_eq(format($$ select organization_id from private.authorize_api_request(encode(extensions.digest(%L, 'sha256'), 'hex')) $$, :'olga_personal_raw'),
  $$ values (null::uuid) $$, 'a personal key is personal');
select is((select request_limit from private.consume_org_api_request(:'org')), 1000, 'consume_org_api_request counts an MCP tool call');

-- The list function the API calls
select is(pg_temp.outcome('mia@test.local', format('select * from public.list_organization_watchlist(%L, 10)', :'org')), 'ok', 'a member lists the organization''s names');
select is(pg_temp.outcome('sam@test.local', format('select * from public.list_organization_watchlist(%L, 10)', :'org')), 'DW404', 'a stranger cannot');
select is(pg_temp.outcome('mia@test.local', format('select * from public.list_organization_watchlist(%L, 10)', :'org'), true), '42501', 'an assistant''s token cannot');

-- Revoking: owners and admins; demotion and leaving revoke a member's keys
select is(pg_temp.outcome('mia@test.local', format($$ select public.revoke_organization_api_key(%L, %L) $$, :'org', :'olga_key')), 'DW403', 'a member cannot revoke');
select tests.authenticate_as('adam@test.local');
select is(public.revoke_organization_api_key(:'org', :'olga_key'), true, 'an admin revokes the owner''s organization key');
select tests.authenticate_as('olga@test.local');
update public.organization_members set role = 'member' where organization_id = :'org' and user_id = :'adam';
select tests.clear_authentication();
select is((select revoked_at is not null from public.api_keys where id = :'adam_key'), true,
  'an admin demoted to member loses the organization keys they made');
select results_eq(format($$ select action from public.organization_activity where organization_id = %L and action like 'api_key.%%' order by id $$, :'org'),
  $$ values ('api_key.created'::text), ('api_key.created'), ('api_key.revoked') $$, 'keys made and revoked are in the log');

select ok((private.export_account(:'olga') -> 'organizations_owned' -> 0 -> 'api_keys')::text not like '%key_hash%',
  'the export lists the organization''s keys by name and prefix, never a hash');
delete from public.organizations where id = :'org';
select is((select count(*)::integer from public.api_keys where organization_id = :'org'), 0,
  'deleting the organization removes its keys');

select * from tests.finish();
rollback;
