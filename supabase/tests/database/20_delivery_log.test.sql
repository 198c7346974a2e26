-- Delivery log and redelivery (migration `20261122000800_alerts.sql`): grants, owner rules (another account sees
-- "not found"), paging, what is never returned, the refusals, one attempt per redelivery, rate limits.
\ir _setup.psql

select plan(49);

-- Grants ---------------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', p, 'EXECUTE') and not has_function_privilege('anon', p, 'EXECUTE')
  and not has_function_privilege('public', p, 'EXECUTE'),
  p || ': the signed-in account only'
)
from unnest(array[
  'public.list_webhook_deliveries(uuid, integer, text)',
  'public.redeliver_webhook_delivery(uuid)'
]) as p;

select ok(
  not has_function_privilege('authenticated', p, 'EXECUTE') and not has_function_privilege('anon', p, 'EXECUTE')
  and not has_function_privilege('service_role', p, 'EXECUTE'),
  p || ': internal (no role executes it)'
)
from unnest(array[
  'private.require_session_request(uuid, text, text)',
  'private.nudge_alert_delivery()',
  'private.finish_failed_redelivery()'
]) as p;

select results_eq(
  $$ select action, max_requests, window_length from public.session_action_limits
      where action in ('webhook-delivery-log', 'webhook-redelivery') order by action $$,
  $$ values ('webhook-delivery-log'::text, 60, interval '1 minute'), ('webhook-redelivery', 10, interval '10 minutes') $$,
  'the limits are server data'
);

-- A webhook with a failed, a delivered and a pending delivery ------------------------------------------
select tests.create_user('log-owner@test.local', 'pro');
select tests.create_user('log-other@test.local', 'pro');
select tests.create_user('log-free@test.local', 'free');

insert into public.webhook_endpoints (id, user_id, url, secret)
values ('00000000-0000-0000-0000-0000000001a1', tests.user_id('log-owner@test.local'),
        'https://hooks.example.com/very-secret-path-4242', 'log-owner-secret-value-0001'),
       ('00000000-0000-0000-0000-0000000001a2', tests.user_id('log-owner@test.local'),
        'https://hooks.example.com/other-path', null);
insert into public.alert_events (id, user_id, type, domain_name, previous_status, status, checked_at, created_at)
select 'evt_log_' || g, tests.user_id('log-owner@test.local'), 'domain.available', 'log-' || g || '.com',
       'pending_delete', 'available', now(), now() - make_interval(mins => 10 - g)
  from generate_series(1, 4) as g;
insert into public.alert_deliveries (id, event_id, user_id, channel, webhook_endpoint_id, status, attempt_count,
                                     failure_count, created_at, failed_at, delivered_at)
values
  ('00000000-0000-0000-0000-00000000d001', 'evt_log_1', tests.user_id('log-owner@test.local'), 'webhook',
   '00000000-0000-0000-0000-0000000001a1', 'failed', 2, 2, now() - interval '9 minutes', now(), null),
  ('00000000-0000-0000-0000-00000000d002', 'evt_log_2', tests.user_id('log-owner@test.local'), 'webhook',
   '00000000-0000-0000-0000-0000000001a1', 'delivered', 1, 0, now() - interval '8 minutes', null, now()),
  ('00000000-0000-0000-0000-00000000d003', 'evt_log_3', tests.user_id('log-owner@test.local'), 'webhook',
   '00000000-0000-0000-0000-0000000001a1', 'pending', 0, 0, now() - interval '7 minutes', null, null),
  ('00000000-0000-0000-0000-00000000d004', 'evt_log_4', tests.user_id('log-owner@test.local'), 'webhook',
   '00000000-0000-0000-0000-0000000001a2', 'failed', 1, 1, now() - interval '6 minutes', now(), null);
insert into public.alert_delivery_attempts (delivery_id, user_id, attempted_at, outcome, http_status, error, duration_ms)
values
  ('00000000-0000-0000-0000-00000000d001', tests.user_id('log-owner@test.local'), now() - interval '9 minutes',
   'failed', 503, 'http_503', 120),
  ('00000000-0000-0000-0000-00000000d001', tests.user_id('log-owner@test.local'), now() - interval '8 minutes',
   'failed', null, 'timeout', 10000),
  ('00000000-0000-0000-0000-00000000d002', tests.user_id('log-owner@test.local'), now() - interval '8 minutes',
   'delivered', 204, null, 35);

-- The log ----------------------------------------------------------------------------------------------
select tests.authenticate_as('log-owner@test.local');
create temporary table log_page as
  select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1') as doc;
grant all on log_page to authenticated;

select results_eq(
  $$ select jsonb_path_query_array(doc, '$.deliveries[*].id') from log_page $$,
  $$ values ('["00000000-0000-0000-0000-00000000d003", "00000000-0000-0000-0000-00000000d002", "00000000-0000-0000-0000-00000000d001"]'::jsonb) $$,
  'the endpoint''s deliveries, newest first, and only that endpoint''s'
);
select results_eq(
  $$ select doc -> 'deliveries' -> 2 -> 'attempts' from log_page $$,
  $$ select jsonb_build_array(
       jsonb_build_object('attempted_at', now() - interval '8 minutes', 'outcome', 'failed', 'http_status', null,
                          'duration_ms', 10000, 'error', 'timeout'),
       jsonb_build_object('attempted_at', now() - interval '9 minutes', 'outcome', 'failed', 'http_status', 503,
                          'duration_ms', 120, 'error', 'http_503')) $$,
  'each attempt: time, outcome, status code, duration, error (newest first)'
);
select is((select doc -> 'deliveries' -> 0 ->> 'status' from log_page), 'pending', 'the pending one shows as pending');
select is((select doc -> 'deliveries' -> 1 ->> 'domain_name' from log_page), 'log-2.com', 'with its domain');
select is((select doc ->> 'has_more' from log_page), 'false', 'one page');
select ok(
  (select doc::text not like '%very-secret-path%' and doc::text not like '%log-owner-secret-value%'
          and doc::text not like '%hooks.example.com%' and not doc::text ~ '"(url|secret|url_masked|telegram_chat_id)"'
     from log_page),
  'no URL, no secret, no chat ID'
);

-- Keyset pages
select tests.authenticate_as('log-owner@test.local');
create temporary table pages (n integer, doc jsonb);
grant all on pages to authenticated;
insert into pages select 1, public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 2);
insert into pages
  select 2, public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 2, (select doc ->> 'next_cursor' from pages where n = 1));
select results_eq(
  $$ select n, jsonb_array_length(doc -> 'deliveries'), (doc ->> 'has_more')::boolean, doc ->> 'next_cursor' is null
       from pages order by n $$,
  $$ values (1, 2, true, false), (2, 1, false, true) $$,
  'pages of p_limit, with has_more and next_cursor'
);
select results_eq(
  $$ select doc -> 'deliveries' -> 0 ->> 'id' from pages where n = 2 $$,
  $$ values ('00000000-0000-0000-0000-00000000d001') $$,
  'the next page continues after the cursor'
);
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 101) $$,
  'DW400', null, 'at most 100 per page');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 0) $$,
  'DW400', null, 'at least 1');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 10, 'x'' or 1=1') $$,
  'DW400', null, 'a cursor it did not return is refused');
select throws_ok($$ select public.list_webhook_deliveries(null) $$, 'DW400', null, 'the webhook is required');

-- Another account: not found, like a webhook that does not exist
select tests.authenticate_as('log-other@test.local');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1') $$,
  'DW404', 'DW404: No such webhook.', 'another account cannot read the log');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000009a9') $$,
  'DW404', 'DW404: No such webhook.', 'the same answer as for a webhook that does not exist');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') $$,
  'DW404', 'DW404: No such delivery.', 'another account cannot redeliver');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d999') $$,
  'DW404', 'DW404: No such delivery.', 'the same answer as for a delivery that does not exist');
select tests.clear_authentication();
select is((select count(*)::integer from public.session_request_log where user_id = tests.user_id('log-other@test.local')),
  0, 'calls about someone else''s webhook do not count');
select tests.authenticate_as_anon();
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1') $$,
  '42501', null, 'anon cannot call the log');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') $$,
  '42501', null, 'nor redeliver');
select tests.authenticate_as('log-free@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') $$,
  'DWUPG', null, 'a plan without webhooks cannot redeliver');

-- Redelivery -------------------------------------------------------------------------------------------
select tests.authenticate_as('log-owner@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d003') $$,
  'DW409', null, 'a pending (queued or in-flight) delivery is refused');
select throws_ok($$ select public.redeliver_webhook_delivery(null) $$, 'DW400', null, 'the delivery is required');

create temporary table redelivered as
  select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') as doc;
grant all on redelivered to authenticated;
select results_eq(
  $$ select doc ->> 'id', doc ->> 'status', (doc ->> 'redelivery_count')::integer from redelivered $$,
  $$ values ('00000000-0000-0000-0000-00000000d001', 'pending', 1) $$,
  'a failed delivery is queued again under the same id'
);
select tests.clear_authentication();
select results_eq(
  $$ select status, next_attempt_at <= now(), lease_until is null, failed_at is null, redelivered_at = now(),
            event_id, attempt_count
       from public.alert_deliveries where id = '00000000-0000-0000-0000-00000000d001' $$,
  $$ values ('pending'::text, true, true, true, true, 'evt_log_1'::text, 2) $$,
  'due now, same event (so the same body), its history kept'
);
select tests.authenticate_as('log-owner@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') $$,
  'DW409', null, 'a second redeliver while it is queued is refused: queued once');
select is(
  (select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d002') ->> 'status'),
  'pending', 'a delivered one can be redelivered too'
);

-- One attempt per redelivery: a failure after it is final; a delivery never redelivered keeps retrying.
select tests.clear_authentication();
update public.alert_deliveries set lease_until = now() + interval '1 minute'
 where id in ('00000000-0000-0000-0000-00000000d001', '00000000-0000-0000-0000-00000000d003');
select private.settle_alert_delivery('00000000-0000-0000-0000-00000000d001', 'failed', 500, 'http_500', 40,
                                    now() + interval '1 minute', 5, 60, 3600);
select private.settle_alert_delivery('00000000-0000-0000-0000-00000000d003', 'failed', 500, 'http_500', 40,
                                    now() + interval '1 minute', 5, 60, 3600);
select results_eq(
  $$ select id::text, status, failed_at is not null, attempt_count from public.alert_deliveries
      where id in ('00000000-0000-0000-0000-00000000d001', '00000000-0000-0000-0000-00000000d003') order by id $$,
  $$ values ('00000000-0000-0000-0000-00000000d001', 'failed'::text, true, 3),
            ('00000000-0000-0000-0000-00000000d003', 'pending', false, 1) $$,
  'a failed redelivery is final; an ordinary failure is retried'
);
select private.settle_alert_delivery('00000000-0000-0000-0000-00000000d002', 'delivered', 200, null, 12, null, 5, 60, 3600);
select is((select status from public.alert_deliveries where id = '00000000-0000-0000-0000-00000000d002'),
  'delivered', 'a successful redelivery is delivered');

-- Refusals by state
update public.webhook_endpoints set enabled = false where id = '00000000-0000-0000-0000-0000000001a2';
select tests.authenticate_as('log-owner@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d004') $$,
  'DW409', 'DW409: webhook_disabled: The webhook is switched off; switch it on to redeliver.',
  'a switched-off webhook is refused');
select tests.clear_authentication();
update public.webhook_endpoints set enabled = true where id = '00000000-0000-0000-0000-0000000001a2';
update public.alert_deliveries set created_at = now() - interval '8 days'
 where id = '00000000-0000-0000-0000-00000000d004';
select tests.authenticate_as('log-owner@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d004') $$,
  'DW409', null, 'a delivery older than 7 days is refused');
select tests.clear_authentication();
delete from public.webhook_endpoints where id = '00000000-0000-0000-0000-0000000001a2';
select tests.authenticate_as('log-owner@test.local');
select throws_ok($$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d004') $$,
  'DW404', null, 'the webhook was deleted: not found');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a2') $$,
  'DW404', null, 'and its log is gone');

-- Rate limits ------------------------------------------------------------------------------------------
select tests.clear_authentication();
select is((select count(*)::integer from public.session_request_log
            where user_id = tests.user_id('log-owner@test.local') and action = 'webhook-redelivery'), 2,
  'each redelivery counted; refused ones did not');
-- Eight more redeliveries fill the window of 10 (the delivery is marked failed again between them).
create function tests.redeliver_again(p_times integer) returns integer language plpgsql as $$
declare
  v_done integer := 0;
begin
  for i in 1 .. p_times loop
    perform set_config('role', 'none', true);
    update public.alert_deliveries set status = 'failed', failed_at = now()
     where id = '00000000-0000-0000-0000-00000000d001';
    perform set_config('role', 'authenticated', true);
    perform public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001');
    v_done := v_done + 1;
  end loop;
  return v_done;
end
$$;
grant execute on function tests.redeliver_again(integer) to authenticated;
select tests.authenticate_as('log-owner@test.local');
select is(tests.redeliver_again(8), 8, 'ten redeliveries in ten minutes are allowed');
select throws_ok($$ select tests.redeliver_again(1) $$, 'DW429', null, 'the eleventh is refused (DW429)');
select tests.clear_authentication();
update public.alert_deliveries set status = 'failed', failed_at = now()
 where id = '00000000-0000-0000-0000-00000000d001';
select tests.authenticate_as('log-owner@test.local');
select throws_matching(
  $$ select public.redeliver_webhook_delivery('00000000-0000-0000-0000-00000000d001') $$,
  'try again in [0-9]+ s', 'with the wait in the message'
);
select tests.clear_authentication();
select is((select status from public.alert_deliveries where id = '00000000-0000-0000-0000-00000000d001'),
  'failed', 'a refused redelivery changes nothing');

-- The log: 60 per minute (3 used above).
select tests.authenticate_as('log-owner@test.local');
select is(
  (select count(public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1', 1))::integer
     from generate_series(1, 57)),
  57, 'the log allows 60 requests a minute'
);
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1') $$,
  'DW429', null, 'the 61st is refused');
select tests.authenticate_as('log-other@test.local');
select throws_ok($$ select public.list_webhook_deliveries('00000000-0000-0000-0000-0000000001a1') $$,
  'DW404', null, 'per account: another account still gets its own answer');

-- Users cannot touch the limits or the counters.
select throws_ok($$ update public.session_action_limits set max_requests = 1000 $$, '42501', null,
  'the limits are not the account''s to change');
select throws_ok($$ select private.require_session_request(tests.user_id('log-owner@test.local'), 'webhook-redelivery', 'x') $$,
  '42501', null, 'the rate-limit helper is internal');
select throws_ok($$ update public.alert_deliveries set status = 'pending' $$, '42501', null,
  'deliveries are not writable by users');

select * from tests.finish();
rollback;
