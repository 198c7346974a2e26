-- An assistant's OAuth access token (claims with `client_id`) does what the four MCP tools do and nothing
-- else (docs/mcp.md, "What a connected assistant can and cannot do"). Every function `authenticated` may
-- execute in `public` is listed below, read from the catalog, so a new one cannot be forgotten: each runs
-- once with a plain session token and once with an assistant's token of the same account; the managing
-- ones refuse the assistant (42501), the tools and the pure helpers answer both alike. Then the tables:
-- an assistant's token reads only the watchlist and writes nothing.
\ir _setup.psql

select plan(12);

select tests.create_user('olga@test.local', 'pro') as olga \gset
select tests.create_user('bob@test.local', 'pro') as bob \gset

-- The account's things, made with a plain session token.
select tests.authenticate_as('bob@test.local');
select public.create_organization('Bob''s') as bob_org \gset
insert into public.invitations (organization_id, email, role) values (:'bob_org', 'olga@test.local', 'member')
  returning id as bob_inv \gset
select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
insert into public.invitations (organization_id, email, role) values (:'org', 'someone@test.local', 'member')
  returning id as inv \gset
select public.create_webhook_endpoint('https://hooks.example.com/olga') as wh \gset
select id as key_id from public.create_api_key('laptop') \gset
select count(*) as added from public.add_watchlist_domains(array['watched.com']) \gset
select count(*) as org_added from public.add_organization_watchlist_domains(:'org', array['org-watched.com']) \gset
select tests.clear_authentication();
select token as bob_token from public.invitations where id = :'bob_inv' \gset
insert into public.organization_members (organization_id, user_id, role) values (:'org', :'bob', 'member');
update public.telegram_bot_settings set bot_username = 'TestWatchlistBot';
insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at) values (:'olga', '12345', now());
select id as olga_mail from public.email_addresses where user_id = :'olga' and is_account \gset

-- What a call does as olga, with (p_client) or without an assistant's token, undone afterwards: 'ok', or
-- the SQLSTATE and message of its error. The claims and role are set inside the block that the final raise
-- rolls back, so the caller is the superuser again afterwards.
create function pg_temp.outcome(p_client boolean, p_call text)
returns text
language plpgsql
as $$
declare
  v_claims jsonb := jsonb_build_object('sub', tests.user_id('olga@test.local'), 'role', 'authenticated',
    'aud', 'authenticated', 'email', 'olga@test.local');
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

-- How many rows a statement sees or touches as olga (same undoing as outcome).
create function pg_temp.row_count(p_client boolean, p_statement text)
returns integer
language plpgsql
as $$
declare
  v_claims jsonb := jsonb_build_object('sub', tests.user_id('olga@test.local'), 'role', 'authenticated',
    'aud', 'authenticated', 'email', 'olga@test.local');
  v_count integer;
begin
  if p_client then
    v_claims := v_claims || '{"client_id": "9f1c0a44-assistant"}';
  end if;
  begin
    perform set_config('request.jwt.claims', v_claims::text, true);
    perform set_config('role', 'authenticated', true);
    execute p_statement;
    get diagnostics v_count = row_count;
    raise exception using errcode = 'P0T01', detail = v_count::text;
  exception
    when sqlstate 'P0T01' then
      get stacked diagnostics v_count = pg_exception_detail;
      return v_count;
  end;
end
$$;

create temporary table refusal (message text);
insert into refusal values
  ('42501 An assistant''s access token cannot manage the account: sign in to the app to do this.');

-- Every function authenticated may execute, the call that works for the account, and what an assistant's
-- token gets: 'same' (a tool or a pure helper) or 'refused'.
create temporary table cases (fn regprocedure, call text, session text, assistant text);
insert into cases values
  -- the four tools' operations
  ('public.add_watchlist_domains(text[])', $$ select * from public.add_watchlist_domains(array['new-name.com']) $$, 'ok', 'same'),
  ('public.list_watchlist(integer,integer,text)', $$ select * from public.list_watchlist(10, 0, null) $$, 'ok', 'same'),
  ('public.remove_watchlist_domain(text)', $$ select public.remove_watchlist_domain('watched.com') $$, 'ok', 'same'),
  ('public.watchlist_page(text,text,integer,integer,text,text,text,text)', $$ select public.watchlist_page(null, null, 10, 0) $$, 'ok', 'same'),
  ('public.watchlist_summary()', $$ select public.watchlist_summary() $$, 'ok', 'same'),
  -- pure helpers and the policies' own helpers: they answer about the caller only and change nothing
  ('public.current_account_id()', $$ select public.current_account_id() $$, 'ok', 'same'),
  ('public.is_oauth_client_token()', $$ select public.is_oauth_client_token() $$, 'ok', 'same'),
  ('public.is_valid_domain_name(text)', $$ select public.is_valid_domain_name('example.com') $$, 'ok', 'same'),
  ('public.alert_event_types()', $$ select * from public.alert_event_types() $$, 'ok', 'same'),
  ('public.mask_url(text)', $$ select public.mask_url('https://hooks.example.com/abc') $$, 'ok', 'same'),
  ('public.webhook_url_problem(text)', $$ select public.webhook_url_problem('https://hooks.example.com/') $$, 'ok', 'same'),
  ('public.has_org_role(uuid,text[])', format($$ select public.has_org_role(%L, array['owner']) $$, :'org'), 'ok', 'same'),
  ('public.shares_organization_with(uuid)', format($$ select public.shares_organization_with(%L) $$, :'bob'), 'ok', 'same'),
  -- managing the account (and the app's reads of the account and of a name's alerts)
  ('public.account_overview()', $$ select public.account_overview() $$, 'ok', 'refused'),
  ('public.domain_detail(text)', $$ select public.domain_detail('watched.com') $$, 'ok', 'refused'),
  ('public.set_watchlist_details(jsonb)', $$ select public.set_watchlist_details('[{"domain_name": "watched.com", "note": "n"}]') $$, 'ok', 'refused'),
  ('public.tag_watchlist_domains(text[],text[],text[])', $$ select public.tag_watchlist_domains(array['watched.com'], array['t']) $$, 'ok', 'refused'),
  ('public.create_api_key(text)', $$ select public.create_api_key('k2') $$, 'ok', 'refused'),
  ('public.revoke_api_key(uuid)', format($$ select public.revoke_api_key(%L) $$, :'key_id'), 'ok', 'refused'),
  ('public.create_organization(text)', $$ select public.create_organization('Two') $$, 'ok', 'refused'),
  ('public.accept_invitation(text)', format($$ select public.accept_invitation(%L) $$, :'bob_token'), 'ok', 'refused'),
  ('public.invitation_for_sending(uuid)', format($$ select * from public.invitation_for_sending(%L) $$, :'inv'), 'ok', 'refused'),
  ('public.create_telegram_link()', $$ select * from public.create_telegram_link() $$, 'ok', 'refused'),
  ('public.set_telegram_chat(text)', $$ select public.set_telegram_chat(null) $$, 'ok', 'refused'),
  ('public.set_telegram_enabled(boolean)', $$ select public.set_telegram_enabled(false) $$, 'ok', 'refused'),
  ('public.set_telegram_event_types(text[])', $$ select public.set_telegram_event_types(array['domain.available']) $$, 'ok', 'refused'),
  ('public.set_telegram_expiring_days(integer[])', $$ select public.set_telegram_expiring_days(array[7]) $$, 'ok', 'refused'),
  ('public.send_telegram_test()', $$ select public.send_telegram_test() $$, 'ok', 'refused'),
  ('public.create_webhook_endpoint(text,text,text,text,text[])', $$ select public.create_webhook_endpoint('https://hooks.example.com/two') $$, 'ok', 'refused'),
  ('public.update_webhook_endpoint(uuid,text,text,boolean,text,text[])', format($$ select public.update_webhook_endpoint(%L, 'https://hooks.example.com/moved') $$, :'wh'), 'ok', 'refused'),
  ('public.delete_webhook_endpoint(uuid)', format($$ select public.delete_webhook_endpoint(%L) $$, :'wh'), 'ok', 'refused'),
  ('public.rotate_webhook_secret(uuid)', format($$ select public.rotate_webhook_secret(%L) $$, :'wh'), 'ok', 'refused'),
  ('public.set_webhook_secret(uuid,text)', format($$ select public.set_webhook_secret(%L, null) $$, :'wh'), 'ok', 'refused'),
  ('public.set_webhook_expiring_days(uuid,integer[])', format($$ select public.set_webhook_expiring_days(%L, array[7]) $$, :'wh'), 'ok', 'refused'),
  ('public.send_webhook_test(uuid)', format($$ select public.send_webhook_test(%L) $$, :'wh'), 'ok', 'refused'),
  ('public.list_webhook_deliveries(uuid,integer,text)', format($$ select * from public.list_webhook_deliveries(%L, 10, null) $$, :'wh'), 'ok', 'refused'),
  -- the calendar feed (a feed to change does not exist yet: the account gets past the gate to DW404)
  ('public.calendar_feed()', $$ select * from public.calendar_feed() $$, 'ok', 'refused'),
  ('public.create_calendar_feed(integer[])', $$ select public.create_calendar_feed() $$, 'ok', 'refused'),
  ('public.set_calendar_reminder_days(integer[])', $$ select public.set_calendar_reminder_days(array[7]) $$, 'DW404', 'refused'),
  ('public.revoke_calendar_feed()', $$ select public.revoke_calendar_feed() $$, 'ok', 'refused'),
  -- an organization's watchlist, claims (issue 42): the app's, never an assistant's
  ('public.add_organization_watchlist_domains(uuid,text[])', format($$ select * from public.add_organization_watchlist_domains(%L, array['org-new.com']) $$, :'org'), 'ok', 'refused'),
  ('public.remove_organization_watchlist_domain(uuid,text)', format($$ select public.remove_organization_watchlist_domain(%L, 'org-watched.com') $$, :'org'), 'ok', 'refused'),
  ('public.organization_watchlist_page(uuid,text,text,integer,integer)', format($$ select public.organization_watchlist_page(%L) $$, :'org'), 'ok', 'refused'),
  ('public.claim_organization_domain(uuid,text)', format($$ select public.claim_organization_domain(%L, 'org-watched.com') $$, :'org'), 'ok', 'refused'),
  ('public.release_organization_domain_claim(uuid,text)', format($$ select public.release_organization_domain_claim(%L, 'org-watched.com') $$, :'org'), 'ok', 'refused'),
  ('public.create_organization_webhook(uuid,text,text,text,text,text[])', format($$ select public.create_organization_webhook(%L, 'https://hooks.example.com/team') $$, :'org'), 'ok', 'refused'),
  ('public.set_organization_webhook_enabled(uuid,uuid,boolean)', format($$ select public.set_organization_webhook_enabled(%L, %L, false) $$, :'org', gen_random_uuid()), 'ok', 'refused'),
  ('public.delete_organization_webhook(uuid,uuid)', format($$ select public.delete_organization_webhook(%L, %L) $$, :'org', gen_random_uuid()), 'ok', 'refused'),
  ('public.set_organization_personal_alerts(uuid,boolean)', format($$ select public.set_organization_personal_alerts(%L, true) $$, :'org'), 'ok', 'refused'),
  ('public.create_organization_api_key(uuid,text)', format($$ select * from public.create_organization_api_key(%L, 'org key') $$, :'org'), 'ok', 'refused'),
  ('public.revoke_organization_api_key(uuid,uuid)', format($$ select public.revoke_organization_api_key(%L, %L) $$, :'org', gen_random_uuid()), 'ok', 'refused'),
  ('public.list_organization_watchlist(uuid,integer,integer,text)', format($$ select * from public.list_organization_watchlist(%L, 10) $$, :'org'), 'ok', 'refused'),
  -- a delivery that does not exist: the account gets past the gate to DW404
  ('public.redeliver_webhook_delivery(uuid)', format($$ select public.redeliver_webhook_delivery(%L) $$, gen_random_uuid()), 'DW404', 'refused'),
  -- email channels (20261206000500_email_alerts.sql)
  ('public.mask_email(text)', $$ select public.mask_email('a@example.com') $$, 'ok', 'same'),
  ('public.list_email_channels()', $$ select public.list_email_channels() $$, 'ok', 'refused'),
  ('public.add_email_address(text,text[])', $$ select public.add_email_address('extra@example.com') $$, 'ok', 'refused'),
  ('public.resend_email_confirmation(uuid)', format($$ select public.resend_email_confirmation(%L) $$, gen_random_uuid()), 'DW404', 'refused'),
  ('public.update_email_address(uuid,boolean,text[],integer[])', format($$ select public.update_email_address(%L, false) $$, :'olga_mail'), 'ok', 'refused'),
  ('public.delete_email_address(uuid)', format($$ select public.delete_email_address(%L) $$, gen_random_uuid()), 'DW404', 'refused'),
  ('public.send_email_test(uuid)', format($$ select public.send_email_test(%L) $$, :'olga_mail'), 'ok', 'refused'),
  ('public.list_email_deliveries(uuid,integer,text)', format($$ select public.list_email_deliveries(%L, 10, null) $$, :'olga_mail'), 'ok', 'refused'),
  ('public.redeliver_email_delivery(uuid)', format($$ select public.redeliver_email_delivery(%L) $$, gen_random_uuid()), 'DW404', 'refused'),
  -- an organization's team email addresses and Telegram group (20261206000850, 20261206000860)
  ('public.list_organization_email_addresses(uuid)', format($$ select public.list_organization_email_addresses(%L) $$, :'org'), 'ok', 'refused'),
  ('public.add_organization_email_address(uuid,text,text[])', format($$ select public.add_organization_email_address(%L, 'team@example.com') $$, :'org'), 'ok', 'refused'),
  ('public.resend_organization_email_confirmation(uuid,uuid)', format($$ select public.resend_organization_email_confirmation(%L, %L) $$, :'org', gen_random_uuid()), 'DW404', 'refused'),
  ('public.update_organization_email_address(uuid,uuid,boolean,text[],integer[])', format($$ select public.update_organization_email_address(%L, %L, false) $$, :'org', gen_random_uuid()), 'DW404', 'refused'),
  ('public.delete_organization_email_address(uuid,uuid)', format($$ select public.delete_organization_email_address(%L, %L) $$, :'org', gen_random_uuid()), 'ok', 'refused'),
  ('public.organization_telegram_group(uuid)', format($$ select public.organization_telegram_group(%L) $$, :'org'), 'ok', 'refused'),
  ('public.create_organization_telegram_link(uuid)', format($$ select public.create_organization_telegram_link(%L) $$, :'org'), 'ok', 'refused'),
  ('public.unlink_organization_telegram_group(uuid)', format($$ select public.unlink_organization_telegram_group(%L) $$, :'org'), 'ok', 'refused'),
  ('public.update_organization_telegram_group(uuid,boolean,text[],integer[])', format($$ select public.update_organization_telegram_group(%L, false) $$, :'org'), 'DW404', 'refused');

select set_eq(
  $$ select p.oid from pg_catalog.pg_proc as p join pg_catalog.pg_namespace as n on n.oid = p.pronamespace
      where n.nspname = 'public' and has_function_privilege('authenticated', p.oid, 'execute') $$,
  $$ select fn::oid from cases $$,
  'every function authenticated may execute has a case (a new one must say whether an assistant may call it)');

select is_empty($$
  select fn::text || ': ' || pg_temp.outcome(false, call) from cases
   where split_part(pg_temp.outcome(false, call), ' ', 1) <> session $$,
  'with a plain session token every function works as before');

select is_empty($$
  select fn::text || ': ' || pg_temp.outcome(true, call) from cases
   where assistant = 'refused' and pg_temp.outcome(true, call) <> (select message from refusal) $$,
  'with an assistant''s token every function that manages the account is refused with 42501');

select is_empty($$
  select fn::text || ': ' || pg_temp.outcome(true, call) from cases
   where assistant = 'same' and pg_temp.outcome(true, call) <> pg_temp.outcome(false, call) $$,
  'with an assistant''s token the tools and pure helpers answer as with a session token');

-- Tables: an assistant's token reads only plans and the watchlist (its names and their state).
select is_empty($$
  select c.relname from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'v')
     and has_any_column_privilege('authenticated', c.oid, 'select')
     and c.relname not in ('plans', 'domains', 'watchlist_entries')
     and pg_temp.row_count(true, format('select 1 from public.%I', c.relname)) <> 0 $$,
  'an assistant''s token sees no row of any other table it may select from');
select is_empty($$
  select relname from (values ('profiles'), ('api_keys'), ('organizations'), ('organization_members'),
                              ('invitations'), ('notification_settings'), ('webhook_endpoints')) as t (relname)
   where pg_temp.row_count(false, format('select 1 from public.%I', relname)) = 0 $$,
  '(the same tables have rows for a session token)');
select is(pg_temp.row_count(true, 'select 1 from public.watchlist_entries'), 1,
  'an assistant''s token reads the account''s watchlist');

-- Writes the grants allow: a session token makes them; an assistant's token is refused (an insert with
-- 42501; an update or delete finds no row, as its rows are not visible to it, and the update policies'
-- checks refuse it as well).
select is(pg_temp.outcome(false, format($$ insert into public.invitations (organization_id, email) values (%L, 'new@test.local') $$, :'org')),
  'ok', 'a session token invites someone');
select is(pg_temp.outcome(true, format($$ insert into public.invitations (organization_id, email) values (%L, 'new@test.local') $$, :'org')),
  '42501 new row violates row-level security policy "Assistants'' tokens cannot add invitations" for table "invitations"', 'an assistant''s token cannot invite (42501)');

create temporary table writes (what text, statement text);
insert into writes values
  ('rename the account', format($$ update public.profiles set display_name = 'x' where id = %L $$, :'olga')),
  ('revoke an invitation', format($$ update public.invitations set status = 'revoked' where id = %L $$, :'inv')),
  ('rename an organisation', format($$ update public.organizations set name = 'x' where id = %L $$, :'org')),
  ('change a member''s role', format($$ update public.organization_members set role = 'admin' where user_id = %L $$, :'bob')),
  ('delete the organisation', format('delete from public.organizations where id = %L', :'org')),
  ('remove a member', format('delete from public.organization_members where user_id = %L', :'bob')),
  ('delete the notification settings', format('delete from public.notification_settings where user_id = %L', :'olga')),
  ('delete a webhook', format('delete from public.webhook_endpoints where id = %L', :'wh'));
select is_empty($$ select what from writes where pg_temp.row_count(false, statement) <> 1 $$,
  'a session token updates and deletes what the policies allow');
select is_empty($$ select what from writes where pg_temp.row_count(true, statement) <> 0 $$,
  'an assistant''s token updates and deletes nothing');

select results_eq(
  $$ values (pg_temp.row_count(true, 'select 1 where public.is_oauth_client_token()'),
             pg_temp.row_count(false, 'select 1 where public.is_oauth_client_token()')) $$,
  $$ values (1, 0) $$,
  'is_oauth_client_token() tells an assistant''s token (client_id) from a session token');

select * from tests.finish();
rollback;
