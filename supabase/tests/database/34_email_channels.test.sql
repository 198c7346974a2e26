-- Email channels: the account's own address on every plan, extra addresses (Pro+, at most 5, pending until
-- confirmed), confirmation and one-click unsubscribe tokens (hashed), privileges (the address is never
-- readable), assistants' tokens refused, and the outbox writing email deliveries.
\ir _setup.psql

select plan(42);

select tests.create_user('free-mail@test.local', 'free') as free_user \gset
select tests.create_user('pro-mail@test.local', 'pro') as pro_user \gset
select tests.create_user('other-mail@test.local', 'pro') as other_user \gset

-- The account's own address --------------------------------------------------------------------------
select is((select count(*)::int from public.email_addresses where user_id = :'free_user' and is_account), 1,
  'every new account has its own address as a channel');
select results_eq(
  $$ select status, enabled, address is null, event_types from public.email_addresses
      where user_id = tests.user_id('free-mail@test.local') $$,
  $$ values ('active'::text, true, true, '{domain.available}'::text[]) $$,
  'on by default, for domain.available, and the address is not stored in the row');

-- Privileges ---------------------------------------------------------------------------------------------
select ok(not has_column_privilege('authenticated', 'public.email_addresses', 'address', 'select'),
  'accounts cannot read a stored address');
select ok(not has_column_privilege('authenticated', 'public.email_addresses', 'confirmation_token_hash', 'select'),
  'nor the confirmation token hash');
select ok(has_column_privilege('authenticated', 'public.email_addresses', 'address_masked', 'select'),
  'the masked form is readable');
select ok(not has_table_privilege('authenticated', 'public.email_unsubscribe_tokens', 'select')
          and not has_table_privilege('anon', 'public.email_addresses', 'select'),
  'unsubscribe tokens are service_role only; anon reads nothing');
select is_empty(
  $$ select r || ' ' || p from unnest(array['anon', 'authenticated']) as r,
            unnest(array['insert', 'update', 'delete']) as p
      where has_table_privilege(r, 'public.email_addresses', p) $$,
  'accounts write email channels only through the functions');
select is_empty(
  $$ select f from unnest(array[
       'private.claim_email_mails(integer, integer, integer, integer)',
       'private.settle_email_mail(uuid[], text, integer, text, integer, timestamptz, boolean)',
       'private.claim_email_confirmations(integer)', 'private.confirm_email_address(text)',
       'private.unsubscribe_email_address(text)',
       'private.email_confirmation_not_sent(uuid, timestamptz, text)'
     ]) as f
     where has_function_privilege('authenticated', f, 'EXECUTE') or has_function_privilege('anon', f, 'EXECUTE')
        or not has_function_privilege('service_role', f, 'EXECUTE') $$,
  'the sender and link functions are for service_role only');
select is_empty(
  $$ select f from unnest(array[
       'public.list_email_channels()', 'public.add_email_address(text, text[])',
       'public.resend_email_confirmation(uuid)', 'public.update_email_address(uuid, boolean, text[], integer[])',
       'public.delete_email_address(uuid)', 'public.send_email_test(uuid)',
       'public.list_email_deliveries(uuid, integer, text)', 'public.redeliver_email_delivery(uuid)'
     ]) as f
     where not has_function_privilege('authenticated', f, 'EXECUTE') or has_function_privilege('anon', f, 'EXECUTE') $$,
  'the app functions are for authenticated only');
select is(public.mask_email('alice@example.com'), 'a•••@example.com', 'an address is shown masked');

-- Free: no extra addresses -------------------------------------------------------------------------------
select tests.authenticate_as('free-mail@test.local');
select is((public.list_email_channels() ->> 'extra_allowed')::int, 0, 'Free has no extra addresses');
select throws_ok($$ select public.add_email_address('someone@example.com') $$, 'DWUPG', null,
  'Free cannot add an extra address');
select is(jsonb_array_length(public.list_email_channels() -> 'channels'), 1, 'Free lists its own address');
select ok((public.list_email_channels() -> 'channels' -> 0 ->> 'address_masked') is null
          and (public.list_email_channels() -> 'channels' -> 0 ->> 'is_account')::boolean,
  'the own address is listed without the address (the app shows it from the session)');

-- Pro: extra addresses -----------------------------------------------------------------------------------
select tests.authenticate_as('pro-mail@test.local');
select throws_ok($$ select public.add_email_address('not an address') $$, 'DW400', null, 'a non-address is refused');
select is((public.add_email_address(' Team@Example.COM ', array['domain.pending_delete', 'domain.available'])) ->> 'status',
  'pending', 'an extra address starts pending');
select id as team_id from public.email_addresses where user_id = tests.user_id('pro-mail@test.local') and not is_account \gset
select is((select address_masked from public.email_addresses where id = :'team_id'), 'T•••@example.com',
  'its masked form keeps the first character and the lower-cased domain');
select throws_ok($$ select public.add_email_address('team@example.com') $$, 'DW409', null,
  'the same address twice is refused');
select count(*) from (select public.add_email_address('a' || i || '@example.com') from generate_series(1, 4) as i) as added \gset
select throws_ok($$ select public.add_email_address('sixth@example.com') $$, 'DW409', null,
  'at most 5 extra addresses on Pro');
select tests.clear_authentication();
select throws_ok(
  format($$ insert into public.email_addresses (user_id, address) values (%L, 'direct@example.com') $$, :'pro_user'),
  'DW409', null, 'the cap holds for every writer (a trigger)');
select throws_ok(
  format($$ insert into public.email_addresses (user_id, address) values (%L, 'direct@example.com') $$, :'free_user'),
  'DWUPG', null, 'and the plan rule too');

-- Assistants' OAuth tokens are refused ----------------------------------------------------------------
select set_config('request.jwt.claims',
  jsonb_build_object('sub', :'pro_user', 'role', 'authenticated', 'client_id', 'assistant-1')::text, true) \gset
set local role authenticated;
select throws_ok($$ select public.list_email_channels() $$, '42501', null, 'an assistant cannot list email channels');
select throws_ok($$ select public.add_email_address('x@example.com') $$, '42501', null, 'nor add one');
select throws_ok(format($$ select public.update_email_address(%L, false) $$, :'team_id'), '42501', null,
  'nor switch one off');
select is((select count(*)::int from public.email_addresses), 0, 'nor read the table');
select tests.clear_authentication();

-- Another account sees nothing of them -------------------------------------------------------------------
select tests.authenticate_as('other-mail@test.local');
select throws_ok(format($$ select public.update_email_address(%L, false) $$, :'team_id'), 'DW404', null,
  'another account''s address is not found');
select is((select count(*)::int from public.email_addresses where id = :'team_id'), 0, 'and not readable');
select tests.clear_authentication();

-- Confirmation ------------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select token as team_token from private.claim_email_confirmations(10) where email_address_id = :'team_id' \gset
select is((select count(*)::int from private.claim_email_confirmations(10)), 0,
  'each confirmation mail is claimed once');
select ok((select confirmation_token_hash = encode(extensions.digest(:'team_token', 'sha256'), 'hex')
             from public.email_addresses where id = :'team_id'), 'only the token''s hash is stored');
select is(private.confirm_email_address('0000' || substr(:'team_token', 5)), 'invalid', 'a wrong token confirms nothing');
select is(private.confirm_email_address(:'team_token'), 'confirmed', 'the mailed token confirms the address');
select is(private.confirm_email_address(:'team_token'), 'invalid', 'once');
select is((select status from public.email_addresses where id = :'team_id'), 'active', 'the address is active');

-- The outbox: a drop reaches the own address and the confirmed extra one, not the pending ones -------------
select tests.clear_authentication();
insert into public.domains (name, status, last_checked_at) values ('email-drop.test', 'pending_delete', now());
insert into public.watchlist_entries (user_id, domain_name) values (:'pro_user', 'email-drop.test');
update public.domains set status = 'available', last_checked_at = now() where name = 'email-drop.test';
select is(
  (select count(*)::int from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
    where e.domain_name = 'email-drop.test' and d.channel = 'email'),
  2, 'one email delivery for the own address and one for the confirmed extra address');
select ok((select bool_and(d.lane_key = 'email:' || d.email_address_id) from public.alert_deliveries as d
            join public.alert_events as e on e.id = d.event_id where e.domain_name = 'email-drop.test'
             and d.channel = 'email'), 'each in its address''s lane');

-- Opt-in events: only the channel that asked for them
update public.domains set status = 'pending_delete', last_checked_at = now() where name = 'email-drop.test';
select results_eq(
  $$ select d.email_address_id from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
      where e.domain_name = 'email-drop.test' and e.type = 'domain.pending_delete' and d.channel = 'email' $$,
  format($$ values (%L::uuid) $$, :'team_id'),
  'domain.pending_delete goes only to the address that asked for it');

-- One-click unsubscribe -----------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select is(private.unsubscribe_email_address('nope'), 'invalid', 'a malformed token is invalid');
select tests.clear_authentication();
insert into public.email_unsubscribe_tokens (token_hash, email_address_id)
values (encode(extensions.digest(repeat('ab', 24), 'sha256'), 'hex'), :'team_id');
select tests.authenticate_as_service_role();
select is(private.unsubscribe_email_address(repeat('ab', 24)), 'unsubscribed', 'a mail''s token unsubscribes');
select results_eq(
  format($$ select status, stopped_reason from public.email_addresses where id = %L $$, :'team_id'),
  $$ values ('stopped'::text, 'unsubscribed'::text) $$, 'the address is stopped');

-- Switching it on again needs a new confirmation (its owner said no)
select tests.authenticate_as('pro-mail@test.local');
select is((public.update_email_address(:'team_id', true)) ->> 'status', 'pending',
  'an unsubscribed extra address switched on again waits for a new confirmation');

-- The export: settings, never an address
select tests.clear_authentication();
select is(jsonb_array_length(private.export_email_channels(:'pro_user')), 6, 'the export lists every email channel');
select ok(private.export_email_channels(:'pro_user')::text !~ '(@|•••)',
  'with no address, masked or not');

select * from tests.finish();
rollback;
