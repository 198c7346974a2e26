-- Team channels and alerts (issue 42, docs/organizations.md): who may manage a team webhook, who reads it,
-- one alert per event per channel (team webhooks; members who opted in and also watch the name personally),
-- the claimer named in team alerts. Roles: owner olga (Pro), admin adam, member mia, removed member rem,
-- stranger sam, an assistant's token.
\ir _setup.psql

select plan(36);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('adam@test.local', 'pro') as adam \gset
select tests.create_user('mia@test.local', 'pro') as mia \gset
select tests.create_user('rem@test.local', 'free') as rem \gset
select tests.create_user('sam@test.local', 'pro') as sam \gset
update public.profiles set display_name = 'Mia M.' where id = :'mia';

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
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

-- Managing team webhooks: owners and admins ------------------------------------------------------------
select is(pg_temp.outcome('mia@test.local', format($$ select public.create_organization_webhook(%L, 'https://hooks.example.com/team-x') $$, :'org')), 'DW403', 'a member cannot add a team webhook');
select is(pg_temp.outcome('sam@test.local', format($$ select public.create_organization_webhook(%L, 'https://hooks.example.com/team-x') $$, :'org')), 'DW404', 'a stranger cannot');
select is(pg_temp.outcome('rem@test.local', format($$ select public.create_organization_webhook(%L, 'https://hooks.example.com/team-x') $$, :'org')), 'DW404', 'a removed member cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_webhook(%L, 'https://hooks.example.com/team-x') $$, :'org'), true), '42501', 'an assistant''s token of an admin cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_webhook(%L, 'http://127.0.0.1/x') $$, :'org')), 'DW400', 'the URL rules apply');
select tests.authenticate_as('adam@test.local');
select public.create_organization_webhook(:'org', 'https://hooks.example.com/team-hook', 'team',
  'team-secret-0123456789', null, array['domain.available', 'domain.pending_delete']) as team_hook \gset
select tests.authenticate_as('olga@test.local');
select public.create_organization_webhook(:'org', 'https://hooks.slack.com/services/T0/B0/team', null, null, 'slack') as team_slack \gset
select tests.clear_authentication();
select results_eq(format($$ select user_id, organization_id from public.webhook_endpoints where id = %L $$, :'team_hook'),
  format($$ values (%L::uuid, %L::uuid) $$, :'olga', :'org'), 'a team webhook is the organization''s, on its owner''s account');

-- Reading: members see the team's channels, masked; nobody reads a URL or secret -----------------------
select tests.authenticate_as('mia@test.local');
select is((select count(*)::integer from public.webhook_endpoints where organization_id = :'org'), 2, 'a member reads the team''s channels');
select throws_ok($$ select url from public.webhook_endpoints $$, '42501', null, 'nobody reads a URL');
select throws_ok($$ select secret from public.webhook_endpoints $$, '42501', null, 'nobody reads a secret');
select tests.authenticate_as('olga@test.local');
select is((select count(*)::integer from public.webhook_endpoints where organization_id is null), 0,
  'the owner''s personal list of webhooks does not show the team''s');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.webhook_endpoints where organization_id = :'org'), 0, 'a stranger reads none');
select tests.authenticate_as('rem@test.local');
select is((select count(*)::integer from public.webhook_endpoints where organization_id = :'org'), 0, 'a removed member reads none');
select tests.clear_authentication();
select is(pg_temp.outcome('mia@test.local', format($$ do $x$ begin if (select count(*) from public.webhook_endpoints where organization_id = %L) > 0 then raise exception 'seen'; end if; end $x$ $$, :'org'), true), 'ok', 'an assistant''s token reads none');
select is(pg_temp.outcome('mia@test.local', format($$ delete from public.webhook_endpoints where id = %L $$, :'team_hook')), 'ok', 'a member''s direct delete ...');
select is((select count(*)::integer from public.webhook_endpoints where id = :'team_hook'), 1, '... deletes nothing');

-- Switching and deleting --------------------------------------------------------------------------------
select is(pg_temp.outcome('mia@test.local', format($$ select public.set_organization_webhook_enabled(%L, %L, false) $$, :'org', :'team_slack')), 'DW403', 'a member cannot switch a team webhook off');
select is(pg_temp.outcome('mia@test.local', format($$ select public.delete_organization_webhook(%L, %L) $$, :'org', :'team_slack')), 'DW403', 'a member cannot delete one');
select tests.authenticate_as('adam@test.local');
select is(public.set_organization_webhook_enabled(:'org', :'team_slack', false), true, 'an admin switches one off');
select tests.authenticate_as('olga@test.local');
select is(public.delete_organization_webhook(:'org', :'team_slack'), true, 'the owner deletes one');
select tests.clear_authentication();
select results_eq(format($$ select action, actor_name, detail ->> 'channel' from public.organization_activity
                            where organization_id = %L and action like 'channel.%%' order by id $$, :'org'),
  $$ values ('channel.added'::text, 'adam'::text, 'webhook'::text), ('channel.added', 'olga', 'webhook'),
            ('channel.changed', 'adam', 'webhook'), ('channel.removed', 'olga', 'webhook') $$,
  'channel changes are in the log, without URLs');
select is((select count(*)::integer from public.organization_activity where detail::text like '%hooks.%'), 0,
  'no URL in the log');

-- The opt-in: off by default, the member's own ----------------------------------------------------------
select is((select personal_alerts from public.organization_members where user_id = :'mia'), false, 'the opt-in is off by default');
select is(pg_temp.outcome('sam@test.local', format($$ select public.set_organization_personal_alerts(%L, true) $$, :'org')), 'DW404', 'a stranger cannot opt in');
select is(pg_temp.outcome('mia@test.local', format($$ select public.set_organization_personal_alerts(%L, true) $$, :'org'), true), '42501', 'an assistant''s token cannot');

-- One alert per event per channel -----------------------------------------------------------------------
-- mia and adam opt in; both also watch the name personally and each has a personal webhook; mia claimed it.
select tests.authenticate_as('mia@test.local');
select public.set_organization_personal_alerts(:'org', true);
select public.add_watchlist_domains(array['team-drop.com']);
select public.create_webhook_endpoint('https://hooks.example.com/mia') as mia_hook \gset
select tests.authenticate_as('adam@test.local');
select public.set_organization_personal_alerts(:'org', true);
select public.add_watchlist_domains(array['team-drop.com']);
select public.create_webhook_endpoint('https://hooks.example.com/adam') as adam_hook \gset
select tests.authenticate_as('olga@test.local');
select public.add_organization_watchlist_domains(:'org', array['team-drop.com', 'team-other.com']);
select tests.authenticate_as('mia@test.local');
select public.claim_organization_domain(:'org', 'team-drop.com');
-- A second organization of adam's lists it too, with its own team webhook: its own event.
select tests.authenticate_as('adam@test.local');
select public.create_organization('Adam Co') as org2 \gset
select public.add_organization_watchlist_domains(:'org2', array['team-drop.com']);
select public.set_organization_personal_alerts(:'org2', true);
select public.create_organization_webhook(:'org2', 'https://hooks.example.com/adam-co') as org2_hook \gset
select tests.clear_authentication();

update public.domains set status = 'available', last_checked_at = now() where name = 'team-drop.com';

select results_eq(
  format($$ select w.id, count(*)::int from public.alert_deliveries as d join public.webhook_endpoints as w on w.id = d.webhook_endpoint_id
             join public.alert_events as e on e.id = d.event_id
            where e.domain_name = 'team-drop.com' group by w.id order by w.id $$),
  format($$ select x.id, 1 from (values (%L::uuid), (%L::uuid), (%L::uuid), (%L::uuid)) as x (id) order by x.id $$,
         :'team_hook', :'mia_hook', :'adam_hook', :'org2_hook'),
  'exactly one delivery per channel: the team webhooks of both organizations and each opted-in member''s own');
select is((select count(*)::integer from public.alert_events where domain_name = 'team-drop.com' and organization_id is null), 2,
  'one personal event per account (mia, adam), whatever lists hold the name');
select results_eq($$ select organization_name, claimed_by_name from public.alert_events
                     where domain_name = 'team-drop.com' and organization_id is not null order by organization_name $$,
  $$ values ('Acme'::text, 'Mia M.'::text), ('Adam Co', null) $$, 'team alerts name the organization and the claimer');

select tests.authenticate_as('mia@test.local');
select is((select count(*)::integer from public.alert_events where domain_name = 'team-drop.com'), 2,
  'a member reads her own event and the organization''s team event');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.alert_events where domain_name = 'team-drop.com'), 0, 'a stranger reads none');
select tests.clear_authentication();

-- pending_delete: only channels that list it (the team generic hook does; mia's and adam's do not)
update public.domains set status = 'pending_delete', last_checked_at = now() where name = 'team-other.com';
select results_eq($$ select e.organization_name, d.webhook_endpoint_id from public.alert_events as e
                     join public.alert_deliveries as d on d.event_id = e.id where e.domain_name = 'team-other.com' $$,
  format($$ values ('Acme'::text, %L::uuid) $$, :'team_hook'), 'a team channel gets the event types it lists');

-- The owner's export: the organization's list, claims, channels and log, never a URL or secret ------------
select private.export_account(:'olga') as olga_export \gset
select is(jsonb_array_length((:'olga_export'::jsonb) -> 'organizations_owned'), 1, 'the owner''s export has the organization she owns');
select results_eq(format($$ select (o -> 'watchlist' -> 0 ->> 'domain_name'), (o -> 'claims' -> 0 ->> 'claimed_by'),
                                  jsonb_array_length(o -> 'channels'), jsonb_array_length(o -> 'activity') > 0
                              from jsonb_array_elements(%L::jsonb -> 'organizations_owned') as o $$, :'olga_export'),
  $$ values ('team-drop.com'::text, 'Mia M.'::text, 1, true) $$, 'with its list, claims, channels and log');
select ok(:'olga_export' not like '%hooks.example.com%' and :'olga_export' not like '%team-secret%',
  'no channel URL or secret in the export');
select is(jsonb_array_length((:'olga_export'::jsonb) -> 'webhooks'), 0, 'team webhooks are not listed as the owner''s own');
select is((select jsonb_array_length(private.export_account(:'mia') -> 'organizations_owned')), 0,
  'a member''s export has no organization she does not own');

-- Deleting the organization removes its channels (and its team alerts) -------------------------------
delete from public.organizations where id = :'org';
select results_eq(format($$ select (select count(*)::int from public.webhook_endpoints where organization_id = %1$L),
                                   (select count(*)::int from public.alert_events where organization_id = %1$L) $$, :'org'),
  $$ values (0, 0) $$, 'deleting the organization removes its team channels and team alerts');

select * from tests.finish();
rollback;
