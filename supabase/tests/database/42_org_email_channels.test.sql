-- Email addresses as team channels (issue 42, docs/organizations.md "Team channels and alerts"): who may
-- add, change and remove them, who reads them (masked), the owner's plan's cap, confirmation by the mailed
-- link, one team mail per event beside the members' own alerts (two opted in and watching personally),
-- the organization and the claimer in the mail's event, one-click unsubscribe, the export (settings only),
-- the log, and deletion with the organization. Roles: owner olga (Pro), admin adam, member mia, removed
-- member rem, stranger sam, an assistant's token; fred owns a Free organization.
\ir _setup.psql

select plan(43);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('adam@test.local', 'pro') as adam \gset
select tests.create_user('mia@test.local', 'pro') as mia \gset
select tests.create_user('rem@test.local', 'free') as rem \gset
select tests.create_user('sam@test.local', 'pro') as sam \gset
select tests.create_user('fred@test.local', 'free') as fred \gset
update public.profiles set display_name = 'Mia M.' where id = :'mia';

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select tests.authenticate_as('fred@test.local');
select public.create_organization('Free Co') as free_org \gset
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values
  (:'org', :'adam', 'admin'), (:'org', :'mia', 'member'), (:'org', :'rem', 'member');
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

-- Adding: owners and admins ----------------------------------------------------------------------------
select is(pg_temp.outcome('mia@test.local', format($$ select public.add_organization_email_address(%L, 'x@team.example') $$, :'org')), 'DW403', 'a member cannot add a team address');
select is(pg_temp.outcome('sam@test.local', format($$ select public.add_organization_email_address(%L, 'x@team.example') $$, :'org')), 'DW404', 'a stranger cannot');
select is(pg_temp.outcome('rem@test.local', format($$ select public.add_organization_email_address(%L, 'x@team.example') $$, :'org')), 'DW404', 'a removed member cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.add_organization_email_address(%L, 'x@team.example') $$, :'org'), true), '42501', 'an assistant''s token of an admin cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.add_organization_email_address(%L, 'not an address') $$, :'org')), 'DW400', 'an address is checked');
select is(pg_temp.outcome('fred@test.local', format($$ select public.add_organization_email_address(%L, 'x@team.example') $$, :'free_org')), 'DWUPG', 'the owner''s plan decides (Free: none)');

select tests.authenticate_as('adam@test.local');
select public.add_organization_email_address(:'org', 'Alerts@Team.Example', array['domain.available', 'domain.pending_delete']) as added \gset
select (:'added'::jsonb ->> 'id') as team_mail \gset
select tests.clear_authentication();
select results_eq(format($$ select user_id, organization_id, status, address from public.email_addresses where id = %L $$, :'team_mail'),
  format($$ values (%L::uuid, %L::uuid, 'pending'::text, 'Alerts@team.example'::text) $$, :'olga', :'org'),
  'a team address is the organization''s, on its owner''s account, pending until confirmed');
select is(:'added'::jsonb ->> 'address_masked', 'A•••@team.example', 'the caller gets it masked');
select ok(:'added'::text not like '%Alerts@%', 'never the address itself');
select is(pg_temp.outcome('olga@test.local', format($$ select public.add_organization_email_address(%L, 'alerts@TEAM.example') $$, :'org')), 'DW409', 'the same address twice is refused');
select results_eq(format($$ select action, actor_name, detail ->> 'channel' from public.organization_activity
                             where organization_id = %L and action like 'channel.%%' $$, :'org'),
  $$ values ('channel.added'::text, 'adam'::text, 'email'::text) $$, 'the log says who added an email channel');
select ok((select bool_and(detail::text not like '%team.example%') from public.organization_activity where organization_id = :'org'),
  'the log holds no address');

-- The cap: the owner's plan's extra_alert_emails (Pro 5), for the organization alone -----------------------
select tests.authenticate_as('olga@test.local');
select public.add_email_address('olga.extra@example.com');
select public.add_organization_email_address(:'org', 'a' || n || '@team.example') from generate_series(2, 5) as n;
select tests.clear_authentication();
select is(pg_temp.outcome('olga@test.local', format($$ select public.add_organization_email_address(%L, 'six@team.example') $$, :'org')), 'DW409', 'at most the owner''s plan''s number of team addresses');
select is((select count(*)::integer from public.email_addresses where user_id = :'olga' and organization_id is null and not is_account), 1,
  'the owner''s own extra address counts apart');

-- Reading: members see them masked; nobody reads an address -------------------------------------------
select tests.authenticate_as('mia@test.local');
select is((select count(*)::integer from public.email_addresses where organization_id = :'org'), 5, 'a member reads the team''s addresses');
select is((select address_masked from public.email_addresses where id = :'team_mail'), 'A•••@team.example', 'masked');
select throws_ok($$ select address from public.email_addresses $$, '42501', null, 'nobody reads an address');
select is((select jsonb_array_length(public.list_organization_email_addresses(:'org') -> 'channels')), 5, 'a member lists them');
select is((select (public.list_organization_email_addresses(:'org') ->> 'allowed')::integer), 5, 'with the owner''s plan''s number');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.email_addresses where organization_id = :'org'), 0, 'a stranger reads none');
select tests.authenticate_as('rem@test.local');
select is((select count(*)::integer from public.email_addresses where organization_id = :'org'), 0, 'a removed member reads none');
select tests.clear_authentication();
select is(pg_temp.outcome('mia@test.local', format($$ do $x$ begin if (select count(*) from public.email_addresses where organization_id = %L) > 0 then raise exception 'seen'; end if; end $x$ $$, :'org'), true), 'ok', 'an assistant''s token reads none');
select is(pg_temp.outcome('mia@test.local', format($$ select public.list_organization_email_addresses(%L) $$, :'org'), true), '42501', 'nor lists them');

-- The owner's personal email functions do not see the team's addresses ----------------------------------
select tests.authenticate_as('olga@test.local');
select is((select count(*)::integer from jsonb_array_elements(public.list_email_channels() -> 'channels')), 2,
  'the owner''s own channels: her address and her extra one, not the team''s');
select tests.clear_authentication();
select is(pg_temp.outcome('olga@test.local', format($$ select public.update_email_address(%L, false) $$, :'team_mail')), 'DW404', 'the owner''s personal update does not reach a team address');
select is(pg_temp.outcome('olga@test.local', format($$ select public.delete_email_address(%L) $$, :'team_mail')), 'DW404', 'nor her personal delete');

-- Changing and removing ---------------------------------------------------------------------------------
select is(pg_temp.outcome('mia@test.local', format($$ select public.update_organization_email_address(%L, %L, false) $$, :'org', :'team_mail')), 'DW403', 'a member cannot switch a team address off');
select is(pg_temp.outcome('mia@test.local', format($$ select public.delete_organization_email_address(%L, %L) $$, :'org', :'team_mail')), 'DW403', 'nor remove one');
select id as a5 from public.email_addresses where organization_id = :'org' and address = 'a5@team.example' \gset
select tests.authenticate_as('adam@test.local');
select is(public.delete_organization_email_address(:'org', :'a5'), true, 'an admin removes one');
select is((public.update_organization_email_address(:'org', :'team_mail', null, null, array[7]) ->> 'expiring_days'), '[7]', 'an admin changes one');
select tests.clear_authentication();
select results_eq(format($$ select action from public.organization_activity where organization_id = %L and action like 'channel.%%'
                              and detail ->> 'channel' = 'email' and action <> 'channel.added' order by created_at, id $$, :'org'),
  $$ values ('channel.removed'::text), ('channel.changed') $$, 'changes and removals are logged');

-- Confirmation by the mailed link --------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select token as confirm_token from private.claim_email_confirmations(20) where email_address_id = :'team_mail' \gset
select is(private.confirm_email_address(:'confirm_token'), 'confirmed', 'the mailed link confirms a team address');
select tests.clear_authentication();

-- One team mail per event, beside the members' own alerts -------------------------------------------------
-- mia and adam opt in and also watch the name personally (their own addresses are channels by default).
select tests.authenticate_as('mia@test.local');
select public.set_organization_personal_alerts(:'org', true);
select public.add_watchlist_domains(array['team-drop.com']);
select tests.authenticate_as('adam@test.local');
select public.set_organization_personal_alerts(:'org', true);
select public.add_watchlist_domains(array['team-drop.com']);
select public.add_organization_watchlist_domains(:'org', array['team-drop.com', 'team-late.com']);
select tests.authenticate_as('mia@test.local');
select public.claim_organization_domain(:'org', 'team-drop.com');
select tests.clear_authentication();

update public.domains set status = 'available', last_checked_at = now() where name = 'team-drop.com';

select is((select count(*)::integer from public.alert_deliveries where email_address_id = :'team_mail'), 1,
  'the team address gets exactly one delivery');
select results_eq($$ select a.user_id, count(*)::integer from public.alert_deliveries as d
                      join public.email_addresses as a on a.id = d.email_address_id
                      join public.alert_events as e on e.id = d.event_id
                     where e.domain_name = 'team-drop.com' and a.is_account group by a.user_id order by a.user_id $$,
  format($$ select x.id, 1 from (values (%L::uuid), (%L::uuid)) as x (id) order by x.id $$, :'mia', :'adam'),
  'mia and adam each get one personal mail on their own address');
select is((select count(*)::integer from public.alert_deliveries as d join public.email_addresses as a on a.id = d.email_address_id
            where a.organization_id = :'org' and a.id <> :'team_mail'), 0, 'pending team addresses get nothing');

select tests.authenticate_as_service_role();
create temporary table mail as select * from private.claim_email_mails(50, 60, 0, 50);
select results_eq(format($$ select m.to_address, e.organization_name, e.claimed_by_name, e.type
                              from mail as m join public.alert_events as e on e.id = m.event_id
                             where m.email_address_id = %L $$, :'team_mail'),
  $$ values ('Alerts@team.example'::text, 'Acme'::text, 'Mia M.'::text, 'domain.available'::text) $$,
  'the team mail goes to the address, its event naming the organization and the claimer');
select unsubscribe_token as unsub from mail where email_address_id = :'team_mail' \gset
select is(private.unsubscribe_email_address(:'unsub'), 'unsubscribed', 'its one-click unsubscribe works');
select is((select stopped_reason from public.email_addresses where id = :'team_mail'), 'unsubscribed', 'the team address is stopped');
select tests.clear_authentication();
update public.domains set status = 'pending_delete', last_checked_at = now() where name = 'team-late.com';
select is((select count(*)::integer from public.alert_deliveries where email_address_id = :'team_mail'), 1,
  'an unsubscribed team address gets nothing more');

-- The owner's export: settings only ----------------------------------------------------------------------
select private.export_account(:'olga') as olga_export \gset
select is((select jsonb_array_length(o -> 'email_channels') from jsonb_array_elements((:'olga_export'::jsonb) -> 'organizations_owned') as o), 4,
  'the export lists the team''s email channels');
select ok(:'olga_export' not like '%team.example%' and :'olga_export' not like '%•••%', 'never an address, masked or not');
select is((select count(*)::integer from private.export_email_channels(:'olga') as c, jsonb_array_elements(c)), 2,
  'the owner''s own email channels in the export leave the team''s out');

-- Deleting the organization removes them --------------------------------------------------------------
delete from public.organizations where id = :'org';
select is((select count(*)::integer from public.email_addresses where organization_id = :'org'), 0,
  'deleting the organization removes its email addresses');

select * from tests.finish();
rollback;
