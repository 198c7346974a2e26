-- A Telegram group as a team channel (issue 42, docs/telegram.md "A group for an organization"): who may
-- make a group link, link/unlink and change the group, who reads it (never the chat ID), the bot's link and
-- /stop, one team message per event in the group's own lane (beside the owner's personal chat), the export
-- and deletion. Roles: owner olga (Pro), admin adam, member mia, stranger sam, an assistant's token.
\ir _setup.psql

select plan(33);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('adam@test.local', 'pro') as adam \gset
select tests.create_user('mia@test.local', 'pro') as mia \gset
select tests.create_user('sam@test.local', 'pro') as sam \gset
update public.profiles set display_name = 'Mia M.' where id = :'mia';
update public.telegram_bot_settings set bot_username = null;

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select tests.authenticate_as('sam@test.local');
select public.create_organization('Sam Co') as sam_org \gset
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values
  (:'org', :'adam', 'admin'), (:'org', :'mia', 'member');

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

-- The group link: owners and admins ------------------------------------------------------------------------
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_telegram_link(%L) $$, :'org')), 'DW503', 'no bot username: DW503');
update public.telegram_bot_settings set bot_username = 'WatchlistTestBot';
select is(pg_temp.outcome('mia@test.local', format($$ select public.create_organization_telegram_link(%L) $$, :'org')), 'DW403', 'a member cannot make a group link');
select is(pg_temp.outcome('sam@test.local', format($$ select public.create_organization_telegram_link(%L) $$, :'org')), 'DW404', 'a stranger cannot');
select is(pg_temp.outcome('adam@test.local', format($$ select public.create_organization_telegram_link(%L) $$, :'org'), true), '42501', 'an assistant''s token of an admin cannot');
select tests.authenticate_as('adam@test.local');
select public.create_organization_telegram_link(:'org') ->> 'url' as link_url \gset
select tests.clear_authentication();
select ok(:'link_url' ~ '^https://t\.me/WatchlistTestBot\?startgroup=[0-9a-f]{48}$', 'a startgroup deep link');
select substring(:'link_url' from '[0-9a-f]{48}$') as token \gset

-- The bot links the group ---------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select is(private.telegram_link_group(:'token', '700000001'), 'invalid', 'a private chat is not a group');
select is(private.telegram_link_group(repeat('ab', 24), '-100700000001'), 'invalid', 'an unknown token is invalid');
select is(private.telegram_link_group(:'token', '-100700000001'), 'linked', 'the group link links the group');
select is(private.telegram_link_group(:'token', '-100700000002'), 'invalid', 'once');
select tests.clear_authentication();
select id as grp from public.organization_telegram_chats where organization_id = :'org' \gset
select results_eq(format($$ select chat_id, linked_by from public.organization_telegram_chats where organization_id = %L $$, :'org'),
  format($$ values ('-100700000001'::text, %L::uuid) $$, :'adam'), 'the group is the organization''s, linked by the link''s maker');
select results_eq(format($$ select action, actor_name, detail ->> 'channel' from public.organization_activity
                             where organization_id = %L and action like 'channel.%%' $$, :'org'),
  $$ values ('channel.added'::text, 'adam'::text, 'telegram_group'::text) $$, 'the log says who linked it');
select ok((select bool_and(detail::text not like '%700000001%') from public.organization_activity), 'the log holds no chat ID');

-- Reading: members see the group, never its chat ID -----------------------------------------------------
select tests.authenticate_as('mia@test.local');
select is((public.organization_telegram_group(:'org') ->> 'linked_by'), 'adam', 'a member reads the group');
select ok(public.organization_telegram_group(:'org')::text not like '%700000001%', 'without the chat ID');
select is((select count(*)::integer from public.organization_telegram_chats where organization_id = :'org'), 1, 'a member reads its row');
select throws_ok($$ select chat_id from public.organization_telegram_chats $$, '42501', null, 'nobody reads a chat ID');
select tests.authenticate_as('sam@test.local');
select is((select count(*)::integer from public.organization_telegram_chats where organization_id = :'org'), 0, 'a stranger reads none');
select tests.clear_authentication();
select is(pg_temp.outcome('sam@test.local', format($$ select public.organization_telegram_group(%L) $$, :'org')), 'DW404', 'nor asks for it');
select is(pg_temp.outcome('mia@test.local', format($$ select public.organization_telegram_group(%L) $$, :'org'), true), '42501', 'an assistant''s token cannot');
select is(pg_temp.outcome('mia@test.local', format($$ select public.update_organization_telegram_group(%L, false) $$, :'org')), 'DW403', 'a member cannot switch it off');
select is(pg_temp.outcome('mia@test.local', format($$ select public.unlink_organization_telegram_group(%L) $$, :'org')), 'DW403', 'nor unlink it');

-- One message per event in the group, beside the owner's own chat ----------------------------------------
-- olga has a personal chat and watches the name personally too; mia claimed it.
update public.notification_settings set telegram_chat_id = '700000009', telegram_linked_at = now() where user_id = :'olga';
insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
select :'olga', '700000009', now() where not exists (select 1 from public.notification_settings where user_id = :'olga');
select tests.authenticate_as('olga@test.local');
select public.add_watchlist_domains(array['tg-drop.com']);
select public.add_organization_watchlist_domains(:'org', array['tg-drop.com', 'tg-late.com']);
select tests.authenticate_as('mia@test.local');
select public.claim_organization_domain(:'org', 'tg-drop.com');
select tests.clear_authentication();
update public.domains set status = 'available', last_checked_at = now() where name = 'tg-drop.com';

select results_eq(format($$ select d.lane_key, e.organization_name, e.claimed_by_name from public.alert_deliveries as d
                              join public.alert_events as e on e.id = d.event_id where d.telegram_group_id = %L $$, :'grp'),
  format($$ values ('telegram-group:' || %L, 'Acme'::text, 'Mia M.'::text) $$, :'grp'),
  'one team message for the group, in its own lane, naming the organization and the claimer');
select is((select count(*)::integer from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
            where e.domain_name = 'tg-drop.com' and d.channel = 'telegram'), 2, 'and the owner''s personal message');
select tests.authenticate_as_service_role();
select results_eq($$ select telegram_chat_id, lane_key like 'telegram-group:%' from private.claim_fair_alert_deliveries(50, 60)
                      where domain_name = 'tg-drop.com' and channel = 'telegram' order by 2 $$,
  $$ values ('700000009'::text, false), ('-100700000001', true) $$, 'the sender reads the group''s chat for the team message, the owner''s for hers');
select tests.clear_authentication();

select tests.authenticate_as('adam@test.local');
select is((public.update_organization_telegram_group(:'org', false) ->> 'enabled'), 'false', 'an admin switches it off');
select tests.clear_authentication();
update public.domains set status = 'pending_delete', last_checked_at = now() where name = 'tg-late.com';
select is((select count(*)::integer from public.alert_deliveries where telegram_group_id = :'grp'), 1, 'a switched-off group gets nothing');

-- The export: settings only ----------------------------------------------------------------------------
select ok((select (o -> 'telegram_group' ->> 'enabled') = 'false' from jsonb_array_elements(private.export_account(:'olga') -> 'organizations_owned') as o),
  'the export has the group''s settings');
select ok(private.export_account(:'olga')::text not like '%700000001%', 'never its chat ID');

-- A group belongs to one organization; /stop; a demoted admin's link -------------------------------------
select tests.authenticate_as('sam@test.local');
select substring(public.create_organization_telegram_link(:'sam_org') ->> 'url' from '[0-9a-f]{48}$') as sam_token \gset
select tests.authenticate_as('adam@test.local');
select substring(public.create_organization_telegram_link(:'org') ->> 'url' from '[0-9a-f]{48}$') as adam_token \gset
select tests.clear_authentication();
select tests.authenticate_as_service_role();
select is(private.telegram_link_group(:'sam_token', '-100700000001'), 'linked', 'linking the group to another organization ...');
select tests.clear_authentication();
select is((select count(*)::integer from public.organization_telegram_chats where organization_id = :'org'), 0, '... unlinks it here');
update public.organization_members set role = 'member' where organization_id = :'org' and user_id = :'adam';
select tests.authenticate_as_service_role();
select is(private.telegram_link_group(:'adam_token', '-100700000003'), 'invalid', 'a link of a maker no longer admin does not link');
select is(private.telegram_unlink_group('-100700000001'), true, '/stop in the group unlinks it');
select tests.clear_authentication();

-- Deleting the organization removes its group --------------------------------------------------------
select tests.authenticate_as('sam@test.local');
select substring(public.create_organization_telegram_link(:'sam_org') ->> 'url' from '[0-9a-f]{48}$') as sam_token2 \gset
select tests.authenticate_as_service_role();
select private.telegram_link_group(:'sam_token2', '-100700000004');
select tests.clear_authentication();
delete from public.organizations where id = :'sam_org';
select is((select count(*)::integer from public.organization_telegram_chats), 0, 'no group is left');

select * from tests.finish();
rollback;
