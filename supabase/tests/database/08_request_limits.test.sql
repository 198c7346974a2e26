-- Daily API request limits (consume_api_request) and rolling session limits (consume_session_request).
\ir _setup.psql

select plan(41);

insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values ('tiny', true, 3, 10, false, 99), ('closed', true, 0, 10, false, 98);

select tests.create_user('tina@test.local', 'tiny') as tina \gset
select tests.create_user('pat@test.local', 'pro') as pat \gset
select tests.create_user('pia@test.local', 'pro') as pia \gset
select tests.create_user('ent@test.local', 'enterprise') as ent \gset
select tests.create_user('fred@test.local', 'free') as fred \gset
select tests.create_user('cleo@test.local', 'closed') as cleo \gset

select (((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC') as next_midnight \gset

-- Daily limit --------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select results_eq(format('select * from private.consume_api_request(%L)', :'tina'),
  format($$ values (true, 3, 2, %L::timestamptz) $$, :'next_midnight'),
  'the first request of the day is allowed; reset_at is the next 00:00:00Z');
select results_eq(format('select allowed, remaining from private.consume_api_request(%L)', :'tina'),
  $$ values (true, 1) $$, 'the second request is allowed');
select results_eq(format('select allowed, remaining from private.consume_api_request(%L)', :'tina'),
  $$ values (true, 0) $$, 'the request that reaches the limit is allowed with 0 remaining');
select results_eq(format('select * from private.consume_api_request(%L)', :'tina'),
  format($$ values (false, 3, 0, %L::timestamptz) $$, :'next_midnight'), 'one over the limit is refused');
select results_eq(format('select allowed from private.consume_api_request(%L)', :'tina'),
  $$ values (false) $$, 'and stays refused');
select is((select request_count from public.api_request_counters where user_id = :'tina'), 3,
  'refused requests do not increase the counter');

select results_eq(format('select * from private.consume_api_request(%L)', :'pat'),
  format($$ values (true, 1000, 999, %L::timestamptz) $$, :'next_midnight'), 'Pro: 1,000 requests a day');
update public.api_request_counters set request_count = 999 where user_id = :'pat';
select results_eq(format('select allowed, remaining from private.consume_api_request(%L)', :'pat'),
  $$ values (true, 0) $$, 'Pro: the 1,000th request is allowed');
select results_eq(format('select allowed, remaining from private.consume_api_request(%L)', :'pat'),
  $$ values (false, 0) $$, 'Pro: the 1,001st request is refused');
select results_eq(format('select * from private.api_request_allowance(%L)', :'pat'),
  format($$ values (false, 1000, 0, %L::timestamptz) $$, :'next_midnight'),
  'the allowance reports a used-up day without counting');
select results_eq(format('select * from private.api_request_allowance(%L)', :'pia'),
  format($$ values (true, 1000, 1000, %L::timestamptz) $$, :'next_midnight'),
  'the allowance of an account with no requests today is the whole limit');
select results_eq(format('select allowed, request_limit from private.api_request_allowance(%L)', :'ent'),
  $$ values (true, null::integer) $$, 'an unlimited plan has no limit to report');

insert into public.api_request_counters (user_id, day, request_count)
values (:'pia', (now() at time zone 'UTC')::date - 1, 1000);
select results_eq(format('select allowed, remaining from private.consume_api_request(%L)', :'pia'),
  $$ values (true, 999) $$, 'yesterday''s requests do not count today');

select results_eq(format('select * from private.consume_api_request(%L)', :'ent'),
  format($$ values (true, null::integer, null::integer, %L::timestamptz) $$, :'next_midnight'),
  'Enterprise is unlimited');
select is_empty(format('select 1 from public.api_request_counters where user_id = %L', :'ent'),
  'unlimited plans are not counted');
select results_eq(format('select allowed, request_limit, remaining from private.consume_api_request(%L)', :'cleo'),
  $$ values (false, 0, 0) $$, 'a limit of 0 refuses every request');
select throws_ok(format('select * from private.consume_api_request(%L)', :'fred'), 'DWUPG', null,
  'a plan without API access is refused');
select throws_ok(format('select * from private.consume_api_request(%L)', gen_random_uuid()), 'DW401', null,
  'an unknown account is refused');

-- Session limits -----------------------------------------------------------------------------------
select tests.authenticate_as('pat@test.local');
select throws_ok(format('select * from private.consume_api_request(%L)', :'pat'), '42501', null,
  'authenticated cannot call consume_api_request');

select throws_ok(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'), '42501',
  null, 'authenticated cannot call consume_session_request (only the edge functions, as service_role)');

select tests.authenticate_as_service_role();
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (true, 2, now() + interval '10 minutes', 3, 600) $$, 'first export in the window (3 per 10 minutes)');
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (true, 1, now() + interval '10 minutes', 3, 600) $$, 'second export');
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (true, 0, now() + interval '10 minutes', 3, 600) $$, 'third export fills the window');
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (false, 0, now() + interval '10 minutes', 3, 600) $$, 'the fourth is refused until the oldest leaves');
select results_eq(format($$ select allowed, remaining, request_limit from private.consume_session_request(%L, 'send-org-invite') $$, :'pat'),
  $$ values (true, 4, 5) $$, 'another action has its own window (5 per 10 minutes)');
select results_eq(format($$ select allowed, remaining from private.consume_session_request(%L, 'export-account') $$, :'pia'),
  $$ values (true, 2) $$, 'another account has its own window');

-- The window rolls ----------------------------------------------------------------------------------
select tests.clear_authentication();
with ranked as (
  select id, row_number() over (order by id) as n
    from public.session_request_log where user_id = :'pat' and action = 'export-account'
)
update public.session_request_log as l
   set requested_at = now() - case r.n when 1 then interval '11 minutes' when 2 then interval '9 minutes'
                                       else interval '8 minutes' end
  from ranked as r
 where r.id = l.id;
select tests.authenticate_as_service_role();
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (true, 0, now() + interval '1 minute', 3, 600) $$,
  'a request older than the window frees a slot; reset_at is when the oldest remaining one leaves');
select results_eq(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'),
  $$ values (false, 0, now() + interval '1 minute', 3, 600) $$, 'refused again, with the same reset_at');
select is((select count(*)::integer from public.session_request_log where user_id = :'pat' and action = 'export-account'), 3,
  'rows older than the window were deleted');

select throws_ok(format($$ select * from private.consume_session_request(%L, 'export') $$, :'pat'), 'DW400', null,
  'an action without a server-side limit is refused');
select throws_ok(format($$ select * from private.consume_session_request(%L, 'Bad Action') $$, :'pat'), 'DW400', null,
  'an action must be a known name');
select is((select count(*)::integer from pg_proc where proname = 'consume_session_request'
            and pronamespace = 'public'::regnamespace and pronargs <> 2), 0,
  'no signature takes a maximum or a window');

select tests.authenticate_as('pat@test.local');
-- RLS ----------------------------------------------------------------------------------------------
select results_eq($$ select distinct user_id from public.session_request_log $$, array[:'pat'::uuid],
  'a user reads only their own session log');
select results_eq($$ select distinct user_id from public.api_request_counters $$, array[:'pat'::uuid],
  'a user reads only their own counters');
select throws_ok($$ insert into public.session_request_log (user_id, action) values (auth.uid(), 'export') $$,
  '42501', null, 'a user cannot write the session log');
select throws_ok($$ update public.api_request_counters set request_count = 0 $$, '42501', null,
  'a user cannot reset their counter');
select throws_ok($$ delete from public.session_request_log $$, '42501', null, 'a user cannot delete the session log');

select tests.authenticate_as_service_role();
select throws_ok($$ select * from private.consume_session_request(null, 'export-account') $$, 'DW401', null,
  'consume_session_request needs an account');

select tests.authenticate_as_anon();
select throws_ok($$ select * from public.api_request_counters $$, '42501', null, 'anon cannot read counters');
select throws_ok($$ select * from public.session_request_log $$, '42501', null, 'anon cannot read the session log');
select throws_ok(format($$ select * from private.consume_session_request(%L, 'export-account') $$, :'pat'), '42501',
  null, 'anon cannot call consume_session_request');

select tests.clear_authentication();
select * from tests.finish();
rollback;
