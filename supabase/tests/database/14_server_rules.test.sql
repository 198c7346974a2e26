-- Server-owned rules: rules that hold for every writer. Webhook cap and secret length in the table, derived unicode
-- names, invitations of former admins, the inviter check in accept_invitation, invite-mail caps.
\ir _setup.psql

select plan(40);

select tests.create_user('wendy@test.local', 'pro') as wendy \gset
select tests.create_user('owen@test.local', 'pro') as owen \gset
select tests.create_user('ada@test.local', 'free') as ada \gset
select tests.create_user('max@test.local', 'free') as max \gset
select tests.create_user('newbie@test.local', 'free') as newbie \gset

-- Webhooks: the cap and the secret rule hold for every writer ------------------------------------------
select tests.authenticate_as('wendy@test.local');
select throws_ok($$ insert into public.webhook_endpoints (url) values ('https://hooks.example.com/1') $$, '42501',
  null, 'authenticated cannot insert webhooks directly');
select throws_ok($$ update public.webhook_endpoints set secret = 'x' $$, '42501', null,
  'authenticated cannot update webhooks directly');
select tests.authenticate_as_service_role();
select lives_ok(format($$ insert into public.webhook_endpoints (user_id, url)
  select %L, 'https://hooks.example.com/' || g from generate_series(1, 10) as g $$, :'wendy'),
  'ten webhooks may be stored');
select throws_ok(format($$ insert into public.webhook_endpoints (user_id, url) values (%L, 'https://hooks.example.com/11') $$,
  :'wendy'), 'DW400', null, 'an 11th is refused even to a direct service_role write');
select is((select count(*)::integer from public.webhook_endpoints where user_id = :'wendy'), 10, 'still 10 webhooks');
insert into public.webhook_endpoints (user_id, url) values (:'owen', 'https://hooks.example.com/owen')
  returning id as owen_hook \gset
select throws_ok(format($$ update public.webhook_endpoints set user_id = %L where id = %L $$, :'wendy', :'owen_hook'),
  'DW400', null, 'moving a webhook to a full account is refused too');
select throws_ok(format($$ update public.webhook_endpoints set secret = 'x'
  where id = (select id from public.webhook_endpoints where user_id = %L limit 1) $$, :'wendy'), '23514', null,
  'a direct write cannot store a secret shorter than 16 characters');
select throws_ok(format($$ update public.webhook_endpoints set secret = repeat('s', 257)
  where id = (select id from public.webhook_endpoints where user_id = %L limit 1) $$, :'wendy'), '23514', null,
  'nor one longer than 256');
select tests.authenticate_as('wendy@test.local');
select throws_ok($$ select public.create_webhook_endpoint('https://hooks.example.com/12') $$, 'DW400', null,
  'create_webhook_endpoint refuses the 11th');

-- Notification settings: written only through the functions -------------------------------------------
select throws_ok($$ insert into public.notification_settings (telegram_chat_id) values ('<b>x</b>') $$, '42501',
  null, 'authenticated cannot insert notification settings directly');
select lives_ok($$ select public.set_telegram_enabled(false) $$, 'the function writes them');
select throws_ok($$ update public.notification_settings set telegram_chat_id = 'anything' $$, '42501', null,
  'authenticated cannot update notification settings directly');

-- Unicode names are derived from the A-label ------------------------------------------------------------
select tests.authenticate_as_service_role();
select is(private.domain_unicode_name('xn--bcher-kva.test'), 'bücher.test', 'ToUnicode of a German IDN');
select is(private.domain_unicode_name('xn--mnchen-3ya.xn--p1ai'), 'münchen.рф', 'every IDN label is decoded');
select is(private.domain_unicode_name('xn--fiqs8s.xn--fiqz9s'), '中国.中國', 'CJK labels');
select is(private.domain_unicode_name('example.com'), null, 'an ASCII name has no unicode form');
select is(private.domain_unicode_name('xn--abc.test'), null, 'a label that does not decode gives null');
select is(private.domain_unicode_name('xn--click-here-.test'), null,
  'a label that decodes to ASCII only gives null');
select is(private.domain_unicode_name('xn--ls8h.test'), '💩.test', 'a symbol outside the BMP decodes');
-- U+202E (right-to-left override) and U+2044 (fraction slash) must never be shown.
select is(private.domain_unicode_name('xn--a-qin.test'), null, 'a label with a bidi control gives null');
select is(private.domain_unicode_name('xn--evilcompaypal-966g.test'), null, 'a label with a slash look-alike gives null');
select is(private.domain_unicode_name('xn--qi7ciaj2b.test'), null, 'full-width letters (which IDNA maps away) give null');
select is(private.domain_unicode_name('xn--ab-cja2992a.test'), null, 'a zero-width space gives null');

select tests.authenticate_as('wendy@test.local');
select throws_ok($$ select * from public.add_watchlist_domains(array['xn--bcher-kva.test'], array['<a href="https://phish.example">x</a>']) $$,
  '42883', null, 'add_watchlist_domains takes no unicode names from the caller');
select results_eq($$ select added from public.add_watchlist_domains(array['xn--bcher-kva.test']) $$, array[1],
  'the IDN is added');
select results_eq($$ select unicode_name from public.watchlist_entries where domain_name = 'xn--bcher-kva.test' $$,
  array['bücher.test'], 'its unicode form is derived');
select tests.authenticate_as_service_role();
update public.watchlist_entries set unicode_name = 'https://phish.example/login' where user_id = :'wendy';
select results_eq(format('select unicode_name from public.watchlist_entries where user_id = %L', :'wendy'),
  array['bücher.test'], 'even a direct write cannot store another unicode form');
select private.record_domain_check('xn--bcher-kva.test', 'registered', now() - interval '2 minutes', null, null, true, 'poller');
select private.record_domain_check('xn--bcher-kva.test', 'available', now() - interval '1 minute', null, null, true, 'poller');
select results_eq(format('select unicode_name from public.alert_events where user_id = %L', :'wendy'),
  array['bücher.test'], 'the alert carries the derived form');
insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
values (:'owen', 'test', 'example.com', 'Click https://phish.example', 'registered', 'available', now());
select is((select unicode_name from public.alert_events where user_id = :'owen'), null,
  'no writer can put its own text into an alert event');

-- Invitations: former admins ---------------------------------------------------------------------------
select tests.authenticate_as('owen@test.local');
select public.create_organization('Acme') as org \gset
select tests.authenticate_as_service_role();
insert into public.organization_members (organization_id, user_id, role) values (:'org', :'ada', 'admin');
select tests.authenticate_as('ada@test.local');
insert into public.invitations (organization_id, email, role) values (:'org', 'ada-alt@test.local', 'admin')
  returning id as ada_inv \gset
insert into public.invitations (organization_id, email, role) values (:'org', 'max@test.local', 'member')
  returning id as ada_inv2 \gset
select tests.clear_authentication();
select token as ada_token2 from public.invitations where id = :'ada_inv2' \gset
select tests.authenticate_as('owen@test.local');
update public.organization_members set role = 'member' where organization_id = :'org' and user_id = :'ada';
select tests.clear_authentication();
select results_eq(format('select status from public.invitations where id in (%L, %L)', :'ada_inv', :'ada_inv2'),
  array['revoked', 'revoked'], 'losing the admin role revokes that person''s pending invitations');
-- Even if an invitation were left pending, the inviter must still hold the right to grant it.
update public.invitations set status = 'pending' where id = :'ada_inv2';
select tests.authenticate_as('max@test.local');
select throws_ok(format('select public.accept_invitation(%L)', :'ada_token2'), 'DW404', null,
  'a removed admin''s invitation cannot be accepted');
select is((select count(*)::integer from public.organization_members where user_id = auth.uid()), 0,
  'nobody joined');

-- An admin who leaves: their pending invitations are revoked.
select tests.authenticate_as_service_role();
update public.organization_members set role = 'admin' where organization_id = :'org' and user_id = :'ada';
select tests.authenticate_as('ada@test.local');
insert into public.invitations (organization_id, email, role) values (:'org', 'someone@test.local', 'member')
  returning id as ada_inv3 \gset
select tests.clear_authentication();
delete from public.organization_members where organization_id = :'org' and user_id = :'ada';
select is((select status from public.invitations where id = :'ada_inv3'), 'revoked',
  'leaving revokes the pending invitations too');

-- The owner's invitation still works.
select tests.authenticate_as('owen@test.local');
insert into public.invitations (organization_id, email, role) values (:'org', 'newbie@test.local', 'member')
  returning id as owen_inv \gset
select tests.clear_authentication();
select token as owen_token from public.invitations where id = :'owen_inv' \gset
select tests.authenticate_as('newbie@test.local');
select is(public.accept_invitation(:'owen_token'), :'org'::uuid, 'a current owner''s invitation is accepted');

-- Invite-mail caps ---------------------------------------------------------------------------------------
select tests.authenticate_as('owen@test.local');
select throws_ok(format('select private.reserve_invite_mail(%L, %L)', :'owen', :'owen_inv'), '42501', null,
  'a user cannot reserve invite mail');
select tests.authenticate_as_service_role();
delete from public.invite_mail_log;
update public.invite_mail_limits set per_account_per_day = 2, project_per_hour = 9;
select results_eq(format('select private.reserve_invite_mail(%L, %L) from generate_series(1, 3)', :'owen', :'owen_inv'),
  array[true, true, false], 'the per-account daily cap');
-- Mail of accounts since deleted still counts project-wide.
insert into public.invite_mail_log (user_id) select null from generate_series(1, 6);
select results_eq(format('select private.reserve_invite_mail(%L, %L) from generate_series(1, 2)', :'wendy', null),
  array[true, false], 'the project-wide hourly cap');
select is((select count(*)::integer from public.invite_mail_log), 9, 'every reservation stays in the log');
update public.invite_mail_log set sent_at = now() - interval '2 hours';
select is(private.reserve_invite_mail(:'wendy', null), true, 'the hourly window rolls');
select is(private.reserve_invite_mail(:'owen', null), false, 'the daily window has not rolled');

select tests.clear_authentication();
select * from tests.finish();
rollback;
