-- Fair invite mail: one account may use at most a third of the project-wide hourly cap (rounded down), so
-- another account can still send in the same hour. Both caps are settings (public.invite_mail_limits).
\ir _setup.psql

select plan(11);

select tests.create_user('alice@test.local') as alice \gset
select tests.create_user('bob@test.local') as bob \gset
select tests.create_user('carol@test.local') as carol \gset
select tests.create_user('dave@test.local') as dave \gset

-- The shipped settings -----------------------------------------------------------------------------------
select results_eq($$ select per_account_per_day, project_per_hour from public.invite_mail_limits $$,
  $$ values (10, 10) $$, 'the caps are settings: 10 per account per day, 10 for the project per hour');
select ok(has_table_privilege('service_role', 'public.invite_mail_limits', 'update')
          and not has_table_privilege('authenticated', 'public.invite_mail_limits', 'select'),
  'operators (service_role) change them; accounts cannot read or change them');

delete from public.invite_mail_log;
select tests.authenticate_as_service_role();

-- Account A sends all it may -----------------------------------------------------------------------------
select results_eq(format('select private.reserve_invite_mail(%L, null) from generate_series(1, 11)', :'alice'),
  array[true, true, true, false, false, false, false, false, false, false, false],
  'one account sends 3 of the hourly 10 (a third, rounded down), then is refused');

-- Account B can still send in the same hour ------------------------------------------------------------------
select results_eq(format('select private.reserve_invite_mail(%L, null) from generate_series(1, 4)', :'bob'),
  array[true, true, true, false], 'another account still sends its own share in the same hour');
select results_eq(format('select private.reserve_invite_mail(%L, null) from generate_series(1, 4)', :'carol'),
  array[true, true, true, false], 'and a third one');
select is(private.reserve_invite_mail(:'dave', null), true, 'a fourth account gets the last mail of the hour');
select tests.clear_authentication();
select is((select count(*)::integer from public.invite_mail_log where sent_at > now() - interval '1 hour'), 10,
  'the project-wide cap holds: 10 in the hour');

-- The share follows the setting, and rolls with the hour -----------------------------------------------------
update public.invite_mail_log set sent_at = now() - interval '2 hours';
update public.invite_mail_limits set project_per_hour = 30;
select tests.authenticate_as_service_role();
select results_eq(format('select private.reserve_invite_mail(%L, null) from generate_series(1, 8)', :'alice'),
  array[true, true, true, true, true, true, true, false],
  'with 30 an hour an account may send 10 in an hour, here 7: its daily cap of 10 (3 sent earlier) ends it');
select tests.clear_authentication();
delete from public.invite_mail_log;
update public.invite_mail_limits set project_per_hour = 2;
select tests.authenticate_as_service_role();
select results_eq(format('select private.reserve_invite_mail(%L, null) from generate_series(1, 2)', :'bob'),
  array[true, false],
  'under 3 an hour (Supabase''s built-in mailer allows 2) the share is one mail');
select is(private.reserve_invite_mail(:'carol', null), true, 'so two accounts can each invite');
select is(private.reserve_invite_mail(:'dave', null), false, 'and the project-wide cap still holds');

select tests.clear_authentication();
select * from tests.finish();
rollback;
