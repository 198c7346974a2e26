-- Fair delivery and Standard Webhooks rotation (migration `20261122000800_alerts.sql`): privileges, the owner's view of
-- breakers, the pg_cron job, the wake-up trigger, and rotation's previous secret.
\ir _setup.psql

select plan(18);

select results_eq(
  $$ select schedule, btrim(command), active from cron.job where jobname = 'alert-delivery' $$,
  $$ values ('* * * * *'::text, 'select private.invoke_alert_delivery()'::text, true) $$,
  'pg_cron starts a delivery run every minute'
);

select ok(
  not has_function_privilege('authenticated', p, 'EXECUTE') and not has_function_privilege('anon', p, 'EXECUTE')
  and has_function_privilege('service_role', p, 'EXECUTE'),
  p || ': service_role only'
)
from unnest(array[
  'private.claim_fair_alert_deliveries(integer, integer)',
  'private.settle_alert_delivery(uuid, text, integer, text, integer, timestamptz, integer, integer, integer)',
  'private.reserve_telegram_send(text, integer, integer, integer)',
  'private.pause_telegram_sends(timestamptz)',
  'private.invoke_alert_delivery()',
  'private.defer_alert_delivery(uuid, timestamptz)'
]) as p;

select ok(
  not has_table_privilege('authenticated', t, 'SELECT') and not has_table_privilege('anon', t, 'SELECT'),
  t || ': not readable by users'
)
from unnest(array['public.telegram_send_pace', 'public.telegram_chat_send_pace', 'public.alert_delivery_wake']) as t;

select ok(
  not has_column_privilege('authenticated', 'public.alert_delivery_lanes', 'busy_delivery_id', 'SELECT')
  and has_column_privilege('authenticated', 'public.alert_delivery_lanes', 'breaker_state', 'SELECT')
  and has_column_privilege('authenticated', 'public.alert_delivery_lanes', 'next_probe_at', 'SELECT'),
  'the owner reads breaker state and next probe, not the in-flight marker'
);
select ok(
  not has_column_privilege('authenticated', 'public.webhook_endpoints', 'previous_secret', 'SELECT')
  and not has_column_privilege('authenticated', 'public.webhook_endpoints', 'previous_secret', 'UPDATE'),
  'the previous secret is neither readable nor writable by users'
);

-- The owner sees their breakers; nobody else does.
select tests.create_user('fair-owner@test.local', 'pro');
select tests.create_user('fair-other@test.local', 'pro');
insert into public.webhook_endpoints (id, user_id, url, secret)
values ('00000000-0000-0000-0000-0000000000f1', tests.user_id('fair-owner@test.local'), 'https://hooks.example.com/f',
        'first-secret-value-000');
insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id, breaker_state, next_probe_at)
values ('webhook:00000000-0000-0000-0000-0000000000f1', tests.user_id('fair-owner@test.local'), 'webhook',
        '00000000-0000-0000-0000-0000000000f1', 'open', now() + interval '1 minute');

select tests.authenticate_as('fair-owner@test.local');
select results_eq(
  $$ select breaker_state from public.webhook_endpoint_breakers $$,
  $$ values ('open'::text) $$,
  'the owner sees the open breaker'
);
select lives_ok(
  $$ select public.rotate_webhook_secret('00000000-0000-0000-0000-0000000000f1') $$,
  'the owner rotates the secret'
);
select tests.authenticate_as('fair-other@test.local');
select is((select count(*)::int from public.webhook_endpoint_breakers), 0, 'another account sees none');
select tests.clear_authentication();

select ok(
  (select previous_secret = 'first-secret-value-000'
          and previous_secret_expires_at between now() + interval '23 hours 59 minutes' and now() + interval '24 hours 1 minute'
          and secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'
     from public.webhook_endpoints where id = '00000000-0000-0000-0000-0000000000f1'),
  'rotation keeps the old secret signing for 24 hours'
);
update public.webhook_endpoints set secret = 'hand-set-secret-000111' where id = '00000000-0000-0000-0000-0000000000f1';
select is(
  (select previous_secret from public.webhook_endpoints where id = '00000000-0000-0000-0000-0000000000f1'),
  null,
  'a secret set by hand drops the previous one'
);

-- Writing deliveries wakes a delivery run (at most once per second), through Vault and pg_net.
select vault.create_secret('http://127.0.0.1:1', 'project_url');
select vault.create_secret('fair-secret', 'poller_secret');
update public.alert_delivery_wake set last_wake_at = '-infinity';
select count(*) as queued_before from net.http_request_queue \gset
insert into public.alert_events (id, user_id, type, domain_name, status, checked_at)
values ('evt_fair1', tests.user_id('fair-owner@test.local'), 'test', 'fair.com', 'available', now());
insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
values ('evt_fair1', tests.user_id('fair-owner@test.local'), 'webhook', '00000000-0000-0000-0000-0000000000f1');
insert into public.alert_deliveries (event_id, user_id, channel)
values ('evt_fair1', tests.user_id('fair-owner@test.local'), 'telegram');
select is(
  (select count(*)::int from net.http_request_queue where url like '%/functions/v1/rdap-poller/deliveries') -
    (:queued_before)::int,
  1,
  'two inserts within a second: one wake-up'
);

select * from tests.finish();
rollback;
