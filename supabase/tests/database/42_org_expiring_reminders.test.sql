-- Expiry reminders on team channels (issue 42): a team webhook, email address and Telegram group listing
-- domain.expiring get one reminder per threshold for the organization's names (one event per organization,
-- name and threshold naming the organization and the claimer; one delivery per channel; never twice); channels
-- without the event get none; the owner's own channels get none for the organization's names.
\ir _setup.psql

select plan(9);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('mia@test.local', 'pro') as mia \gset
update public.profiles set display_name = 'Mia M.' where id = :'mia';
select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values (:'org', :'mia', 'member');

select tests.authenticate_as('olga@test.local');
select public.create_organization_webhook(:'org', 'https://hooks.example.com/team-exp', null, null, null,
  array['domain.expiring']) as hook \gset
select public.create_organization_webhook(:'org', 'https://hooks.example.com/team-avail') as avail_hook \gset
select public.add_organization_email_address(:'org', 'exp@team.example', array['domain.expiring']) ->> 'id' as mail \gset
select public.update_email_address((select id from public.email_addresses where user_id = :'olga' and is_account),
  null, array['domain.available', 'domain.expiring']);
select public.add_organization_watchlist_domains(:'org', array['team-exp.com']);
select tests.authenticate_as('mia@test.local');
select public.claim_organization_domain(:'org', 'team-exp.com');
select tests.clear_authentication();
update public.email_addresses set status = 'active', confirmed_at = now() where id = :'mail';
insert into public.organization_telegram_chats (organization_id, chat_id, event_types, expiring_days, linked_by)
values (:'org', '-100800000001', array['domain.expiring'], array[7], :'olga') returning id as grp \gset
update public.domains set status = 'registered', expires_at = now() + interval '20 days', last_checked_at = now()
 where name = 'team-exp.com';

select tests.authenticate_as_service_role();
select is(private.queue_domain_expiring_alerts(now()), 1, 'one team reminder event at 30 days');
select tests.clear_authentication();
select results_eq($$ select organization_name, claimed_by_name, days_before, user_id::text from public.alert_events
                      where domain_name = 'team-exp.com' and type = 'domain.expiring' $$,
  format($$ values ('Acme'::text, 'Mia M.'::text, 30, %L::text) $$, :'olga'), 'naming the organization and the claimer');
select results_eq($$ select d.channel, d.lane_key from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
                      where e.domain_name = 'team-exp.com' order by d.channel $$,
  format($$ values ('email'::text, 'email:' || %L), ('webhook', 'webhook:' || %L) $$, :'mail', :'hook'),
  'to the team webhook and address that asked (the group reminds at 7 days only; the other webhook did not ask)');
select is((select count(*)::integer from public.alert_events where domain_name = 'team-exp.com' and organization_id is null), 0,
  'the owner''s own channels get nothing for the organization''s names');

select tests.authenticate_as_service_role();
select is(private.queue_domain_expiring_alerts(now()), 0, 'never twice');
select is(private.queue_domain_expiring_alerts(now() + interval '14 days'), 1, 'the 7-day reminder');
select tests.clear_authentication();
select results_eq($$ select d.channel, d.telegram_group_id is not null from public.alert_deliveries as d
                      join public.alert_events as e on e.id = d.event_id
                     where e.domain_name = 'team-exp.com' and e.days_before = 7 order by d.channel, 2 $$,
  $$ values ('email'::text, false), ('telegram', true), ('webhook', false) $$, 'to all three team channels, the group included');
update public.organization_telegram_chats set enabled = false where id = :'grp';
update public.domains set expires_at = now() + interval '380 days' where name = 'team-exp.com';
update public.domains set expires_at = now() + interval '5 days' where name = 'team-exp.com';
select tests.authenticate_as_service_role();
select is(private.queue_domain_expiring_alerts(now()), 1, 'a renewal re-arms them');
select tests.clear_authentication();
select is((select count(*)::integer from public.alert_deliveries where telegram_group_id = :'grp'), 1, 'a switched-off group gets none');

select * from tests.finish();
rollback;
