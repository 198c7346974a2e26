-- Email delivery in SQL: the digest claim (an address's mail leaves when its oldest event is the window old
-- and takes every due event of the address; one mail in flight per address; nothing claimed twice), the
-- mail's unsubscribe token, settling (delivered, retried, permanent failures stopping the address after
-- 3), the delivery log and redelivery.
\ir _setup.psql

select plan(26);

select tests.create_user('mailer@test.local', 'pro') as mailer \gset
select tests.create_user('unconfirmed@test.local', 'free') as unconfirmed \gset
update auth.users set email_confirmed_at = null where id = :'unconfirmed';
select id as own from public.email_addresses where user_id = :'mailer' and is_account \gset
select id as other_own from public.email_addresses where user_id = :'unconfirmed' and is_account \gset

-- Three events for the address: one 10 minutes old, two just now; and one for another address.
create temporary table queued (n integer, delivery_id uuid);
grant select on queued to service_role, authenticated;
with ev as (
  insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at, created_at)
  select :'mailer', 'domain.available', 'mail' || n || '.test', 'pending_delete', 'available', now(),
         now() - case when n = 1 then interval '10 minutes' else interval '0' end
    from generate_series(1, 3) as n
  returning id, created_at, domain_name
),
d as (
  insert into public.alert_deliveries (event_id, user_id, channel, email_address_id, created_at)
  select ev.id, :'mailer', 'email', :'own', ev.created_at from ev
  returning id, event_id
)
insert into queued select substr(ev.domain_name, 5, 1)::int, d.id from d join ev on ev.id = d.event_id;

with ev as (
  insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
  values (:'unconfirmed', 'domain.available', 'other.test', 'pending_delete', 'available', now())
  returning id
)
insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
select id, :'unconfirmed', 'email', :'other_own' from ev;

select tests.authenticate_as_service_role();
create temporary table claim1 as select * from private.claim_email_mails(10, 60, 300, 50);
select is((select count(distinct mail_id)::int from claim1), 1,
  'only the address whose oldest event is 5 minutes old is due: one mail');
select results_eq($$ select delivery_id from claim1 order by delivery_created_at, delivery_id $$,
  $$ select delivery_id from queued order by n = 1 desc, delivery_id $$,
  'the mail takes every due event of the address, the oldest first');
select ok((select bool_and(mail_id = (select delivery_id from queued where n = 1)) from claim1),
  'the mail is named by its first delivery');
select is((select distinct to_address from claim1), 'mailer@test.local',
  'the account''s own address is read from auth.users when the mail is claimed');
select ok((select count(distinct unsubscribe_token) = 1 and min(unsubscribe_token) ~ '^[0-9a-f]{48}$' from claim1),
  'one unsubscribe token per mail');
select ok(exists (select 1 from public.email_unsubscribe_tokens
                   where token_hash = encode(extensions.digest((select min(unsubscribe_token) from claim1), 'sha256'), 'hex')),
  'stored hashed');
select is_empty($$ select * from private.claim_email_mails(10, 60, 300, 50) $$,
  'a claimed mail''s deliveries and lane are not claimed again');

-- A new event for the busy address waits for the next mail; the other address is due with window 0.
with ev as (
  insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
  values (:'mailer', 'domain.available', 'late.test', 'pending_delete', 'available', now()) returning id
)
insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
select id, :'mailer', 'email', :'own' from ev;
create temporary table claim2 as select * from private.claim_email_mails(10, 60, 0, 50);
select results_eq($$ select email_address_id, to_address from claim2 $$,
  format($$ values (%L::uuid, null::text) $$, :'other_own'),
  'one mail in flight per address; an unconfirmed account address comes without an address (skipped)');

-- Settling: delivered
select is(private.settle_email_mail(array(select delivery_id from claim1), 'delivered', 250, null, 40, null, false),
  'active', 'settled as delivered');
select is((select count(*)::int from public.alert_deliveries where id in (select delivery_id from claim1)
            and status = 'delivered'), 3, 'every delivery of the mail is delivered');
select is((select count(*)::int from public.alert_delivery_attempts where delivery_id in (select delivery_id from claim1)
            and outcome = 'delivered' and http_status = 250), 3, 'each with an attempt carrying the SMTP code');

-- The late event: a transient failure is retried; then three permanent failures stop the address.
create temporary table claim3 as select * from private.claim_email_mails(10, 60, 0, 50);
select is((select count(*)::int from claim3), 1, 'the lane is free again: the late event is its own mail');
select private.settle_email_mail(array(select delivery_id from claim3), 'failed', 451, 'smtp_451: try later', 30,
  now() + interval '1 minute', false) as transient \gset
select results_eq($$ select status, next_attempt_at > now(), failure_count from public.alert_deliveries
                     where id = (select delivery_id from claim3) $$,
  $$ values ('pending'::text, true, 1) $$, 'a 4xx is retried on the schedule');
update public.alert_deliveries set next_attempt_at = now() where id = (select delivery_id from claim3);
select is(private.settle_email_mail(array(select delivery_id from private.claim_email_mails(10, 60, 0, 50)),
  'failed', 550, 'smtp_550: no such user', 30, now() + interval '1 minute', true), 'active', 'a first 5xx: still active');
select results_eq($$ select status, failed_at is not null from public.alert_deliveries
                     where id = (select delivery_id from claim3) $$,
  $$ values ('failed'::text, true) $$, 'a 5xx fails the mail for good');
select is((select permanent_failures from public.email_addresses where id = :'own'), 1, 'and counts');

create function pg_temp.bounce_one() returns text language plpgsql as $$
declare
  v_ids uuid[];
begin
  with ev as (
    insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
    values (tests.user_id('mailer@test.local'), 'domain.available', 'b' || gen_random_uuid() || '.test',
            'pending_delete', 'available', now()) returning id, user_id
  )
  insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
  select ev.id, ev.user_id, 'email', a.id from ev
    join public.email_addresses as a on a.user_id = ev.user_id and a.is_account;
  select array_agg(delivery_id) into v_ids from private.claim_email_mails(10, 60, 0, 50);
  return private.settle_email_mail(v_ids, 'failed', 550, 'smtp_550: no such user', 30, null, true);
end
$$;
select is(pg_temp.bounce_one(), 'active', 'a second 5xx in a row: still active');
select is(pg_temp.bounce_one(), 'stopped', 'the third stops the address');
select results_eq(format($$ select status, stopped_reason from public.email_addresses where id = %L $$, :'own'),
  $$ values ('stopped'::text, 'bounced'::text) $$, 'stopped because its mails bounced (the app says so)');
select tests.clear_authentication();
insert into public.domains (name, status, last_checked_at) values ('after-stop.test', 'pending_delete', now());
insert into public.watchlist_entries (user_id, domain_name) values (:'mailer', 'after-stop.test');
update public.domains set status = 'available' where name = 'after-stop.test';
select is((select count(*)::int from public.alert_deliveries as d join public.alert_events as e on e.id = d.event_id
            where e.domain_name = 'after-stop.test' and d.channel = 'email'), 0,
  'a stopped address gets no new deliveries');

-- The log and redelivery (as the owner)
select tests.authenticate_as('mailer@test.local');
select is(jsonb_array_length(public.list_email_deliveries(:'own', 100) -> 'deliveries'), 6,
  'the owner reads the address''s delivery log');
select ok(public.list_email_deliveries(:'own', 100)::text !~ 'mailer@test\.local', 'without the address');
select throws_ok(format($$ select public.redeliver_email_delivery(%L) $$, (select delivery_id from queued where n = 1)),
  'DW409', null, 'a stopped address cannot be redelivered to');
select public.update_email_address(:'own', true) \gset
select is((public.redeliver_email_delivery((select delivery_id from queued where n = 1))) ->> 'status', 'pending',
  'switched on again, a finished delivery is queued again');
select tests.authenticate_as('unconfirmed@test.local');
select throws_ok(format($$ select public.redeliver_email_delivery(%L) $$, (select delivery_id from queued where n = 1)),
  'DW404', null, 'another account''s delivery is not found');
select throws_ok(format($$ select public.list_email_deliveries(%L) $$, :'own'), 'DW404', null,
  'nor its log');

select * from tests.finish();
rollback;
