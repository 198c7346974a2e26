-- Email alerts (docs/alerts.md, "Email"): email is an alert channel on every plan, like Telegram.
--   * Every account has its own address as a channel (on by default). That row never holds the address:
--     the sender reads it from auth.users when a mail is claimed.
--   * Extra addresses (plans.extra_alert_emails: Pro and higher 5) stay `pending` until the confirmation
--     link mailed to them is followed (token hashed, 24 hours, once). They are stored (the sender needs
--     them) but never readable: the owner reads `address_masked` (a•••@example.com).
--   * Every alert mail carries a one-click unsubscribe link (RFC 8058) with a token of its own (hashed);
--     following it stops the address (`stopped`, `unsubscribed`).
--   * A permanent SMTP failure (5xx) fails that mail for good; 3 in a row stop the address (`bounced`).
--   * Digest: an address's mail leaves once its oldest waiting event is p_window_seconds (300) old, and takes
--     every event queued for the address by then (at most p_max_events): one mail in flight per address
--     (its delivery lane), its deliveries locked and leased together (claim_email_mails).
-- Deliveries are alert_deliveries rows (channel `email`), so they have attempts, retries, a log
-- (list_email_deliveries) and redelivery (redeliver_email_delivery) as the other channels'.

-- ---------------------------------------------------------------------------------------------------
-- The plan's allowance of extra addresses
-- ---------------------------------------------------------------------------------------------------
alter table public.plans
  add column extra_alert_emails integer not null default 0
    constraint plans_extra_alert_emails_check check (extra_alert_emails between 0 and 100);

comment on column public.plans.extra_alert_emails is
  'Confirmed or pending extra alert email addresses an account may have besides its own (Free 0, Pro+ 5).';

update public.plans set extra_alert_emails = 5 where id in ('pro', 'business', 'enterprise');

-- ---------------------------------------------------------------------------------------------------
-- email_addresses
-- ---------------------------------------------------------------------------------------------------
-- a•••@example.com: the first character of the local part, then three dots, then the domain.
create function public.mask_email(p_address text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select case
    when p_address is null then null
    when position('@' in p_address) < 2 then '•••'
    else left(p_address, 1) || '•••' || substr(p_address, position('@' in p_address))
  end
$$;
revoke all on function public.mask_email(text) from public, anon, authenticated, service_role;
grant execute on function public.mask_email(text) to authenticated, service_role;

create table public.email_addresses (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  is_account boolean not null default false,
  address text check (address is null or char_length(address) between 3 and 254),
  address_masked text generated always as (public.mask_email(address)) stored,
  status text not null default 'pending' check (status in ('pending', 'active', 'stopped')),
  stopped_reason text check (stopped_reason is null or stopped_reason in ('unsubscribed', 'bounced')),
  enabled boolean not null default true,
  event_types text[] not null default '{domain.available}'
    constraint email_addresses_event_types_check
    check (cardinality(event_types) > 0
           and event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                    'domain.registered', 'domain.restored']::text[]),
  expiring_days integer[] not null default '{30,7,1}'
    constraint email_addresses_expiring_days_check
    check (cardinality(expiring_days) between 1 and 10 and 1 <= all (expiring_days) and 365 >= all (expiring_days)),
  permanent_failures integer not null default 0 check (permanent_failures >= 0),
  last_failure text check (last_failure is null or char_length(last_failure) <= 500),
  confirmation_token_hash text unique,
  confirmation_expires_at timestamptz,
  confirmation_mail_due_at timestamptz,
  confirmation_sent_at timestamptz,
  confirmed_at timestamptz,
  stopped_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint email_addresses_kind_check check (is_account = (address is null)),
  constraint email_addresses_stopped_check check ((status = 'stopped') = (stopped_reason is not null))
);

comment on table public.email_addresses is
  'Alert email channels: the account''s own address (is_account, address null: read from auth.users when '
  'sending) and extra addresses (Pro+, confirmed by a mailed link). address is never readable by the '
  'account (address_masked is); status pending | active | stopped (stopped_reason unsubscribed | bounced).';

create unique index email_addresses_one_account_row_idx on public.email_addresses (user_id) where is_account;
create unique index email_addresses_unique_extra_idx on public.email_addresses (user_id, lower(address))
  where not is_account;
create index email_addresses_confirmation_due_idx on public.email_addresses (confirmation_mail_due_at)
  where confirmation_mail_due_at is not null;

create trigger email_addresses_set_updated_at
  before update on public.email_addresses
  for each row execute function private.set_updated_at();

alter table public.email_addresses enable row level security;

create policy "Users can read their own email channels"
  on public.email_addresses for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read email channels"
  on public.email_addresses as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

grant select, insert, update, delete on table public.email_addresses to service_role;
grant select (id, user_id, is_account, address_masked, status, stopped_reason, enabled, event_types,
              expiring_days, permanent_failures, confirmation_expires_at, confirmation_sent_at, confirmed_at,
              stopped_at, created_at, updated_at)
  on table public.email_addresses to authenticated;

-- The extra-address cap, for every writer: the profile row is locked, so two inserts cannot both pass.
create function private.check_email_address_cap()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_allowed integer;
begin
  if new.is_account then
    return new;
  end if;
  select pl.extra_alert_emails into v_allowed
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = new.user_id
     for no key update of p;
  if coalesce(v_allowed, 0) = 0 then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: Extra alert email addresses come with the Pro plan and higher.';
  end if;
  if (select count(*) from public.email_addresses as a where a.user_id = new.user_id and not a.is_account)
     >= v_allowed then
    raise exception using errcode = 'DW409',
      message = format('DW409: email_address_limit: At most %s extra alert email addresses.', v_allowed);
  end if;
  return new;
end
$$;
revoke all on function private.check_email_address_cap() from public, anon, authenticated, service_role;

create trigger email_addresses_cap
  before insert on public.email_addresses
  for each row execute function private.check_email_address_cap();

-- Every account's own address is a channel, on by default, on every plan.
create function private.create_account_email_channel()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.email_addresses (user_id, is_account, status, confirmed_at)
  values (new.id, true, 'active', now())
  on conflict do nothing;
  return null;
end
$$;
revoke all on function private.create_account_email_channel() from public, anon, authenticated, service_role;

create trigger profiles_create_account_email_channel
  after insert on public.profiles
  for each row execute function private.create_account_email_channel();

insert into public.email_addresses (user_id, is_account, status, confirmed_at)
select p.id, true, 'active', now() from public.profiles as p
on conflict do nothing;

-- One-click unsubscribe tokens: one per mail, stored hashed; any of them stops its address.
create table public.email_unsubscribe_tokens (
  token_hash text primary key,
  email_address_id uuid not null references public.email_addresses (id) on delete cascade,
  created_at timestamptz not null default now()
);

comment on table public.email_unsubscribe_tokens is
  'SHA-256 of each alert mail''s one-click unsubscribe token (RFC 8058), kept 180 days. service_role only.';

create index email_unsubscribe_tokens_address_idx on public.email_unsubscribe_tokens (email_address_id);
create index email_unsubscribe_tokens_created_at_idx on public.email_unsubscribe_tokens (created_at);

alter table public.email_unsubscribe_tokens enable row level security;
grant select, insert, update, delete on table public.email_unsubscribe_tokens to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Deliveries and lanes: the `email` channel, its lane `email:<address id>`
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_deliveries drop constraint alert_deliveries_channel_check;
alter table public.alert_deliveries
  add constraint alert_deliveries_channel_check check (channel in ('telegram', 'webhook', 'email')),
  add column email_address_id uuid references public.email_addresses (id) on delete set null;

comment on column public.alert_deliveries.email_address_id is
  'The email channel this delivery goes to; null for other channels, and for addresses deleted since.';

create unique index alert_deliveries_one_per_email_per_event_idx
  on public.alert_deliveries (event_id, email_address_id)
  where channel = 'email' and email_address_id is not null;

create index alert_deliveries_email_log_idx
  on public.alert_deliveries (email_address_id, created_at desc, id desc)
  where channel = 'email';

alter table public.alert_deliveries drop column lane_key;
alter table public.alert_deliveries
  add column lane_key text generated always as (
    case
      when channel = 'telegram' then 'telegram:' || user_id::text
      when channel = 'webhook' and webhook_endpoint_id is not null then 'webhook:' || webhook_endpoint_id::text
      when channel = 'email' and email_address_id is not null then 'email:' || email_address_id::text
      else 'delivery:' || id::text
    end
  ) stored;

comment on column public.alert_deliveries.lane_key is
  'The lane this delivery is sent in: webhook:<endpoint id>, telegram:<account id>, email:<address id>, or '
  'delivery:<id> when its channel was deleted. At most one send per lane is in flight.';

create index alert_deliveries_pending_lane_idx
  on public.alert_deliveries (lane_key, next_attempt_at, created_at)
  where status = 'pending';

alter table public.alert_delivery_lanes drop constraint alert_delivery_lanes_channel_check;
alter table public.alert_delivery_lanes
  add constraint alert_delivery_lanes_channel_check check (channel in ('telegram', 'webhook', 'email')),
  add column email_address_id uuid references public.email_addresses (id) on delete cascade;

create index alert_delivery_lanes_email_address_id_idx on public.alert_delivery_lanes (email_address_id);

grant select (email_address_id) on table public.alert_delivery_lanes to authenticated;

-- The telegram/webhook claim leaves email lanes to claim_email_mails (same body as 20261122000800, plus
-- `d.channel <> 'email'`).
create or replace function private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer)
returns table (
  delivery_id uuid,
  channel text,
  attempt_count integer,
  failure_count integer,
  delivery_created_at timestamptz,
  event_id text,
  event_type text,
  event_created_at timestamptz,
  domain_name text,
  unicode_name text,
  previous_status text,
  status text,
  checked_at timestamptz,
  webhook_endpoint_id uuid,
  webhook_url text,
  webhook_secret text,
  webhook_previous_secret text,
  webhook_enabled boolean,
  telegram_chat_id text,
  telegram_enabled boolean,
  lane_key text,
  probe boolean,
  webhook_kind text,
  predicted_drop_at timestamptz,
  prediction_basis text
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_candidate record;
  v_state text;
  v_ids uuid[] := '{}';
  v_probes uuid[] := '{}';
  v_until timestamptz;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_fair_alert_deliveries: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_fair_alert_deliveries: lease must be 1-3600 s.';
  end if;

  insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, d.channel, d.webhook_endpoint_id
    from public.alert_deliveries as d
   where d.status = 'pending'
     and d.channel <> 'email'
     and d.next_attempt_at <= clock_timestamp()
     and d.lane_key not like 'delivery:%'
     and not exists (select 1 from public.alert_delivery_lanes as l where l.lane_key = d.lane_key)
   order by d.lane_key
  on conflict do nothing;

  for v_candidate in
    with heads as (
      select distinct on (d.lane_key) d.lane_key, d.id, d.user_id, d.channel, d.webhook_endpoint_id,
             d.next_attempt_at, d.created_at
        from public.alert_deliveries as d
       where d.status = 'pending'
         and d.channel <> 'email'
         and d.next_attempt_at <= clock_timestamp()
         and (d.lease_until is null or d.lease_until <= clock_timestamp())
       order by d.lane_key, d.next_attempt_at, d.created_at, d.id
    ),
    free as (
      select h.*
        from heads as h
        left join public.alert_delivery_lanes as l on l.lane_key = h.lane_key
       where l.lane_key is null
          or ((l.busy_until is null or l.busy_until <= clock_timestamp())
              and (l.breaker_state <> 'open' or l.next_probe_at <= clock_timestamp()))
    )
    select f.*, row_number() over (partition by f.user_id order by f.next_attempt_at, f.created_at, f.lane_key)
             as turn
      from free as f
     order by turn, f.next_attempt_at, f.created_at, f.lane_key
     limit p_limit * 2
  loop
    exit when cardinality(v_ids) >= p_limit;
    v_until := clock_timestamp() + make_interval(secs => p_lease_seconds);
    v_state := null;

    if v_candidate.lane_key not like 'delivery:%' then
      select l.breaker_state into v_state
        from public.alert_delivery_lanes as l
       where l.lane_key = v_candidate.lane_key
         and (l.busy_until is null or l.busy_until <= clock_timestamp())
         and (l.breaker_state <> 'open' or l.next_probe_at <= clock_timestamp())
         for update skip locked;
      continue when v_state is null;
    end if;

    perform 1
       from public.alert_deliveries as d
      where d.id = v_candidate.id
        and d.status = 'pending'
        and d.next_attempt_at <= clock_timestamp()
        and (d.lease_until is null or d.lease_until <= clock_timestamp())
        for update skip locked;
    continue when not found;

    update public.alert_deliveries as d set lease_until = v_until where d.id = v_candidate.id;
    if v_state is not null then
      update public.alert_delivery_lanes as l
         set busy_delivery_id = v_candidate.id,
             busy_until = v_until,
             breaker_state = case when l.breaker_state = 'open' then 'half_open' else l.breaker_state end,
             updated_at = now()
       where l.lane_key = v_candidate.lane_key;
      if v_state <> 'closed' then
        v_probes := v_probes || v_candidate.id;
      end if;
    end if;
    v_ids := v_ids || v_candidate.id;
  end loop;

  return query
    select c.id, c.channel, c.attempt_count, c.failure_count, c.created_at,
           ev.id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status, ev.status,
           ev.checked_at,
           c.webhook_endpoint_id, w.url, w.secret,
           case when w.previous_secret_expires_at > now() then w.previous_secret end, w.enabled,
           n.telegram_chat_id, n.telegram_enabled,
           c.lane_key, c.id = any (v_probes),
           w.kind, ev.predicted_drop_at, ev.prediction_basis
      from public.alert_deliveries as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
     where c.id = any (v_ids)
     order by array_position(v_ids, c.id);
end
$$;
revoke all on function private.claim_fair_alert_deliveries(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.claim_fair_alert_deliveries(integer, integer) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Queueing: the email channels that take an event type (enabled, not stopped; pending extra addresses
-- wait for their confirmation and get nothing meanwhile).
-- ---------------------------------------------------------------------------------------------------
create view private.email_alert_channels as
  select a.id, a.user_id, a.event_types, a.expiring_days
    from public.email_addresses as a
   where a.enabled and a.status = 'active';

revoke all on table private.email_alert_channels from public, anon, authenticated, service_role;

create or replace function private.queue_domain_available_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  with events as (
    insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
    select e.user_id, 'domain.available', new.name, e.unicode_name, old.status, new.status,
           coalesce(new.last_checked_at, now())
      from public.watchlist_entries as e
     where e.domain_name = new.name
       and e.deleted_at is null
     order by e.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
      join public.notification_settings as n on n.user_id = ev.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and 'domain.available' = any (n.telegram_event_types)
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', a.id
      from events as ev
      join private.email_alert_channels as a
        on a.user_id = ev.user_id and 'domain.available' = any (a.event_types)
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', w.id
    from events as ev
    join public.profiles as p on p.id = ev.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
    join public.webhook_endpoints as w
      on w.user_id = ev.user_id and w.enabled and 'domain.available' = any (w.event_types);
  return null;
end
$$;
revoke all on function private.queue_domain_available_alerts() from public, anon, authenticated, service_role;

create or replace function private.queue_opt_in_alerts(
  p_type text,
  p_domain_name text,
  p_previous_status text,
  p_status text,
  p_checked_at timestamptz,
  p_registrar text,
  p_expires_at timestamptz
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  with watchers as (
    select e.user_id
      from public.watchlist_entries as e
     where e.domain_name = p_domain_name
       and e.deleted_at is null
  ),
  telegram_targets as (
    select w.user_id
      from watchers as w
      join public.notification_settings as n on n.user_id = w.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and p_type = any (n.telegram_event_types)
  ),
  webhook_targets as (
    select w.user_id, we.id as endpoint_id
      from watchers as w
      join public.profiles as p on p.id = w.user_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as we
        on we.user_id = w.user_id and we.enabled and p_type = any (we.event_types)
  ),
  email_targets as (
    select w.user_id, a.id as address_id
      from watchers as w
      join private.email_alert_channels as a on a.user_id = w.user_id and p_type = any (a.event_types)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, registrar, expires_at)
    select w.user_id, p_type, p_domain_name, p_previous_status, p_status, p_checked_at, p_registrar, p_expires_at
      from watchers as w
     where w.user_id in (select t.user_id from telegram_targets as t
                         union select h.user_id from webhook_targets as h
                         union select m.user_id from email_targets as m)
     order by w.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
     where ev.user_id in (select t.user_id from telegram_targets as t)
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', m.address_id
      from events as ev
      join email_targets as m on m.user_id = ev.user_id
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', h.endpoint_id
    from events as ev
    join webhook_targets as h on h.user_id = ev.user_id;
end
$$;
revoke all on function private.queue_opt_in_alerts(text, text, text, text, timestamptz, text, timestamptz)
  from public, anon, authenticated, service_role;

-- domain.expiring: the email channels join the reminder channels (endpoint_id is the channel's id: the
-- webhook endpoint's, or the email address's).
create or replace view private.expiring_reminder_channels as
  select 'telegram:' || n.user_id::text as lane_key, n.user_id, 'telegram' as channel,
         null::uuid as endpoint_id, n.telegram_expiring_days as days
    from public.notification_settings as n
   where n.telegram_chat_id is not null
     and n.telegram_enabled
     and 'domain.expiring' = any (n.telegram_event_types)
  union all
  select 'webhook:' || w.id::text, w.user_id, 'webhook', w.id, w.expiring_days
    from public.webhook_endpoints as w
    join public.profiles as p on p.id = w.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
   where w.enabled
     and 'domain.expiring' = any (w.event_types)
  union all
  select 'email:' || a.id::text, a.user_id, 'email', a.id, a.expiring_days
    from private.email_alert_channels as a
   where 'domain.expiring' = any (a.event_types);

revoke all on table private.expiring_reminder_channels from public, anon, authenticated, service_role;

create or replace function private.queue_domain_expiring_alerts(p_now timestamptz default now())
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_queued integer;
begin
  if p_now is null then
    raise exception using errcode = 'DW400', message = 'DW400: queue_domain_expiring_alerts: a time is required.';
  end if;
  perform pg_advisory_xact_lock(hashtext('private.queue_domain_expiring_alerts'));

  delete from public.domain_expiry_reminders as r where r.expires_at < p_now - interval '30 days';

  with channels as (
    select * from private.expiring_reminder_channels
  ),
  candidates as (
    select c.lane_key, c.user_id, c.channel, c.endpoint_id, d.name as domain_name, d.expires_at,
           coalesce(d.last_checked_at, p_now) as checked_at,
           (select min(t) from unnest(c.days) as u(t)
             where d.expires_at - p_now <= make_interval(days => t)) as days_before
      from channels as c
      join public.watchlist_entries as e on e.user_id = c.user_id and e.deleted_at is null
      join public.domains as d on d.name = e.domain_name
     where d.status = 'registered'
       and d.expires_at > p_now
       and d.expires_at <= p_now + make_interval(days => (select max(t) from unnest(c.days) as u(t)))
  ),
  due as materialized (
    select k.*
      from candidates as k
     where k.days_before is not null
       and not exists (
         select 1 from public.domain_expiry_reminders as r
          where r.lane_key = k.lane_key
            and r.domain_name = k.domain_name
            and r.expires_at > k.expires_at - interval '1 day'
            and r.expires_at < k.expires_at + interval '1 day'
            and r.days_before <= k.days_before)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, expires_at, days_before)
    select distinct on (q.user_id, q.domain_name, q.days_before)
           q.user_id, 'domain.expiring', q.domain_name, null, 'registered', q.checked_at, q.expires_at,
           q.days_before
      from due as q
     order by q.user_id, q.domain_name, q.days_before
    returning id, user_id, domain_name, days_before
  ),
  deliveries as (
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, email_address_id)
    select ev.id, q.user_id, q.channel,
           case when q.channel = 'webhook' then q.endpoint_id end,
           case when q.channel = 'email' then q.endpoint_id end
      from due as q
      join events as ev
        on ev.user_id = q.user_id and ev.domain_name = q.domain_name and ev.days_before = q.days_before
    returning 1
  ),
  reminders as (
    insert into public.domain_expiry_reminders (lane_key, domain_name, expires_at, days_before, event_id)
    select q.lane_key, q.domain_name, q.expires_at, q.days_before, ev.id
      from due as q
      join events as ev
        on ev.user_id = q.user_id and ev.domain_name = q.domain_name and ev.days_before = q.days_before
    on conflict do nothing
    returning 1
  )
  select count(*)::integer into v_queued from events;
  return v_queued;
end
$$;
revoke all on function private.queue_domain_expiring_alerts(timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.queue_domain_expiring_alerts(timestamptz) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Managing email channels (the signed-in account; never an assistant's token)
-- ---------------------------------------------------------------------------------------------------
insert into public.session_action_limits (action, max_requests, window_length)
values ('email-confirmation', 10, interval '1 hour'), ('email-delivery-log', 60, interval '1 minute'),
       ('email-redelivery', 10, interval '10 minutes')
on conflict (action) do nothing;

-- The owner's view of one channel (never the address itself).
create function private.email_channel_json(p_address public.email_addresses)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_address.id,
    'is_account', p_address.is_account,
    'address_masked', p_address.address_masked,
    'status', p_address.status,
    'stopped_reason', p_address.stopped_reason,
    'enabled', p_address.enabled,
    'event_types', to_jsonb(p_address.event_types),
    'expiring_days', to_jsonb(p_address.expiring_days),
    'permanent_failures', p_address.permanent_failures,
    'confirmation_sent_at', p_address.confirmation_sent_at,
    'confirmation_expires_at', p_address.confirmation_expires_at,
    'confirmed_at', p_address.confirmed_at,
    'stopped_at', p_address.stopped_at,
    'created_at', p_address.created_at
  )
$$;
revoke all on function private.email_channel_json(public.email_addresses) from public, anon, authenticated, service_role;

-- An address as saved: trimmed, one @, no spaces or control characters, a dotted domain, 3-254 characters;
-- the domain part lower-cased. Null when it is not one.
create function private.normalized_email_address(p_address text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    when v is null or char_length(v) > 254
         or v !~ '^[A-Za-z0-9.!#$%&''*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$'
      then null
    else split_part(v, '@', 1) || '@' || lower(split_part(v, '@', 2))
  end
    from (select btrim(p_address) as v) as t
$$;
revoke all on function private.normalized_email_address(text) from public, anon, authenticated, service_role;

-- The account's email channels: its own address first, then the extra ones; and the plan's allowance.
create function public.list_email_channels()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  return jsonb_build_object(
    'channels', coalesce((
      select jsonb_agg(private.email_channel_json(a) order by a.is_account desc, a.created_at, a.id)
        from public.email_addresses as a where a.user_id = v_uid), '[]'::jsonb),
    'extra_allowed', (select pl.extra_alert_emails from public.profiles as p
                        join public.plans as pl on pl.id = p.plan_id where p.id = v_uid)
  );
end
$$;
revoke all on function public.list_email_channels() from public, anon, authenticated, service_role;
grant execute on function public.list_email_channels() to authenticated;

-- Adds an extra address (Pro+; DWUPG otherwise, DW409 over the plan's number or already there): pending
-- until the confirmation link mailed to it is followed. Rate-limited with resends (email-confirmation).
create function public.add_email_address(p_address text, p_event_types text[] default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_address text := private.normalized_email_address(p_address);
  v_types text[] := coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}');
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  if v_address is null then
    raise exception using errcode = 'DW400', message = 'DW400: That is not an email address.';
  end if;
  if exists (select 1 from public.email_addresses as a
              where a.user_id = v_uid and not a.is_account and lower(a.address) = lower(v_address)) then
    raise exception using errcode = 'DW409', message = 'DW409: email_address_exists: That address is already listed.';
  end if;
  -- The cap and plan (a trigger) first; the rate limit is consumed only by an address that is added.
  insert into public.email_addresses (user_id, address, status, event_types, confirmation_mail_due_at)
  values (v_uid, v_address, 'pending', v_types, now())
  returning * into v_row;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.add_email_address(text, text[]) from public, anon, authenticated, service_role;
grant execute on function public.add_email_address(text, text[]) to authenticated;

-- Sends the confirmation link again (a pending extra address; a new link replaces the old one).
create function public.resend_email_confirmation(p_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  select * into v_row from public.email_addresses as a
   where a.id = p_id and a.user_id = v_uid and not a.is_account for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  if v_row.status <> 'pending' then
    raise exception using errcode = 'DW409', message = 'DW409: email_not_pending: This address needs no confirmation.';
  end if;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  update public.email_addresses as a
     set confirmation_mail_due_at = now(), confirmation_token_hash = null, confirmation_expires_at = null
   where a.id = p_id
  returning * into v_row;
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.resend_email_confirmation(uuid) from public, anon, authenticated, service_role;
grant execute on function public.resend_email_confirmation(uuid) to authenticated;

-- Switches a channel on or off and sets its events and reminder days (null keeps each). Switching a
-- stopped channel on starts it again: the account's own address at once, an extra address after a new
-- confirmation (its owner unsubscribed or its mails bounced; only they can say yes again).
create function public.update_email_address(
  p_id uuid,
  p_enabled boolean default null,
  p_event_types text[] default null,
  p_expiring_days integer[] default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_types text[] := private.validated_alert_event_types(p_event_types);
  v_days integer[] := private.validated_expiring_days(p_expiring_days);
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  select * into v_row from public.email_addresses as a where a.id = p_id and a.user_id = v_uid for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  if p_enabled and v_row.status = 'stopped' and not v_row.is_account then
    perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  end if;
  update public.email_addresses as a
     set enabled = coalesce(p_enabled, a.enabled),
         event_types = coalesce(v_types, a.event_types),
         expiring_days = coalesce(v_days, a.expiring_days),
         status = case when p_enabled and a.status = 'stopped'
                       then case when a.is_account then 'active' else 'pending' end
                       else a.status end,
         stopped_reason = case when p_enabled and a.status = 'stopped' then null else a.stopped_reason end,
         stopped_at = case when p_enabled and a.status = 'stopped' then null else a.stopped_at end,
         permanent_failures = case when p_enabled and a.status = 'stopped' then 0 else a.permanent_failures end,
         confirmation_mail_due_at = case when p_enabled and a.status = 'stopped' and not a.is_account
                                         then now() else a.confirmation_mail_due_at end
   where a.id = p_id
  returning * into v_row;
  if v_row.confirmation_mail_due_at is not null then
    perform private.nudge_alert_delivery();
  end if;
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.update_email_address(uuid, boolean, text[], integer[]) from public, anon, authenticated, service_role;
grant execute on function public.update_email_address(uuid, boolean, text[], integer[]) to authenticated;

-- Removes an extra address (the account's own can only be switched off).
create function public.delete_email_address(p_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  if exists (select 1 from public.email_addresses as a where a.id = p_id and a.user_id = v_uid and a.is_account) then
    raise exception using errcode = 'DW409',
      message = 'DW409: account_address: The account''s own address can be switched off, not removed.';
  end if;
  delete from public.email_addresses as a where a.id = p_id and a.user_id = v_uid and not a.is_account;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
end
$$;
revoke all on function public.delete_email_address(uuid) from public, anon, authenticated, service_role;
grant execute on function public.delete_email_address(uuid) to authenticated;

-- A test mail to one active channel (switched off or not), at most 10 test alerts per 10 minutes.
create function public.send_email_test(p_id uuid)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_event_id text;
  v_delivery_id uuid;
begin
  perform private.refuse_oauth_client_token();
  perform 1 from public.profiles as p where p.id = v_uid for no key update;
  if not exists (select 1 from public.email_addresses as a
                  where a.id = p_id and a.user_id = v_uid and a.status = 'active') then
    raise exception using errcode = 'DW404', message = 'DW404: No such confirmed email address.';
  end if;
  -- queue_test_alert's rule and event, with an email delivery.
  v_delivery_id := private.queue_test_alert(v_uid, 'email', null);
  update public.alert_deliveries as d set email_address_id = p_id where d.id = v_delivery_id;
  return v_delivery_id;
end
$$;
revoke all on function public.send_email_test(uuid) from public, anon, authenticated, service_role;
grant execute on function public.send_email_test(uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- The links in the mails (email-links, as service_role): confirmation and one-click unsubscribe
-- ---------------------------------------------------------------------------------------------------
-- 'confirmed' (also when it already was), or 'invalid' (unknown, expired or replaced).
create function private.confirm_email_address(p_token text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' then
    return 'invalid';
  end if;
  update public.email_addresses as a
     set status = 'active', confirmed_at = now(), confirmation_token_hash = null,
         confirmation_expires_at = null, confirmation_mail_due_at = null
   where a.confirmation_token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex')
     and a.confirmation_expires_at > now()
     and a.status = 'pending'
  returning a.id into v_id;
  return case when v_id is null then 'invalid' else 'confirmed' end;
end
$$;
revoke all on function private.confirm_email_address(text) from public, anon, authenticated, service_role;
grant execute on function private.confirm_email_address(text) to service_role;

-- 'unsubscribed' (also when it already was stopped), or 'invalid'. Its pending mails are not sent.
create function private.unsubscribe_email_address(p_token text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' then
    return 'invalid';
  end if;
  select t.email_address_id into v_id from public.email_unsubscribe_tokens as t
   where t.token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex');
  if v_id is null then
    return 'invalid';
  end if;
  update public.email_addresses as a
     set status = 'stopped', stopped_reason = 'unsubscribed', stopped_at = now()
   where a.id = v_id and a.status <> 'stopped';
  return 'unsubscribed';
end
$$;
revoke all on function private.unsubscribe_email_address(text) from public, anon, authenticated, service_role;
grant execute on function private.unsubscribe_email_address(text) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Sending (the delivery run, as service_role)
-- ---------------------------------------------------------------------------------------------------
-- Confirmation mails due: each gets a fresh token (returned once, stored hashed, 24 hours).
create function private.claim_email_confirmations(p_limit integer)
returns table (email_address_id uuid, address text, token text, expires_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row record;
  v_token text;
begin
  for v_row in
    select a.id, a.address from public.email_addresses as a
     where a.confirmation_mail_due_at <= now() and a.status = 'pending' and not a.is_account
     order by a.confirmation_mail_due_at
     limit greatest(coalesce(p_limit, 0), 0)
       for update skip locked
  loop
    v_token := encode(extensions.gen_random_bytes(24), 'hex');
    update public.email_addresses as a
       set confirmation_token_hash = encode(extensions.digest(v_token, 'sha256'), 'hex'),
           confirmation_expires_at = now() + interval '24 hours',
           confirmation_mail_due_at = null,
           confirmation_sent_at = now()
     where a.id = v_row.id;
    email_address_id := v_row.id;
    address := v_row.address;
    token := v_token;
    expires_at := now() + interval '24 hours';
    return next;
  end loop;
end
$$;
revoke all on function private.claim_email_confirmations(integer) from public, anon, authenticated, service_role;
grant execute on function private.claim_email_confirmations(integer) to service_role;

-- A confirmation mail that did not go: tried again at p_retry_at, or (permanent) the address stops.
create function private.email_confirmation_not_sent(p_id uuid, p_retry_at timestamptz, p_error text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.email_addresses as a
     set confirmation_mail_due_at = p_retry_at,
         confirmation_token_hash = null,
         confirmation_expires_at = null,
         last_failure = left(p_error, 500),
         status = case when p_retry_at is null then 'stopped' else a.status end,
         stopped_reason = case when p_retry_at is null then 'bounced' else a.stopped_reason end,
         stopped_at = case when p_retry_at is null then now() else a.stopped_at end
   where a.id = p_id and a.status = 'pending';
end
$$;
revoke all on function private.email_confirmation_not_sent(uuid, timestamptz, text) from public, anon, authenticated, service_role;
grant execute on function private.email_confirmation_not_sent(uuid, timestamptz, text) to service_role;

-- The alert mails due. An address's lane is due when its oldest waiting delivery (due by its retry time)
-- is p_window_seconds old; the mail takes every delivery of the lane due by then (oldest first, at most
-- p_max_events). The lane row is locked and marked busy and the deliveries locked and leased in one
-- transaction, so one mail per address is in flight and no delivery is in two mails. Each mail gets a
-- fresh unsubscribe token. One row per delivery; `mail_id` (the first delivery's id) groups a mail.
create function private.claim_email_mails(
  p_limit integer,
  p_lease_seconds integer,
  p_window_seconds integer,
  p_max_events integer
)
returns table (
  mail_id uuid,
  delivery_id uuid,
  attempt_count integer,
  failure_count integer,
  delivery_created_at timestamptz,
  event_id text,
  email_address_id uuid,
  to_address text,
  address_status text,
  address_enabled boolean,
  unsubscribe_token text
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_lane record;
  v_ids uuid[];
  v_until timestamptz;
  v_token text;
  v_mails integer := 0;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000
     or p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600
     or p_window_seconds is null or p_window_seconds < 0 or p_window_seconds > 86400
     or p_max_events is null or p_max_events < 1 or p_max_events > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_email_mails: invalid limits.';
  end if;

  insert into public.alert_delivery_lanes (lane_key, user_id, channel, email_address_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, 'email', d.email_address_id
    from public.alert_deliveries as d
   where d.status = 'pending'
     and d.channel = 'email'
     and d.email_address_id is not null
     and d.next_attempt_at <= clock_timestamp()
     and not exists (select 1 from public.alert_delivery_lanes as l where l.lane_key = d.lane_key)
   order by d.lane_key
  on conflict do nothing;

  for v_lane in
    select h.lane_key, h.email_address_id, h.id
      from (
        select distinct on (d.lane_key) d.lane_key, d.email_address_id, d.id, d.user_id, d.created_at
          from public.alert_deliveries as d
         where d.status = 'pending'
           and d.channel = 'email'
           and d.next_attempt_at <= clock_timestamp()
           and (d.lease_until is null or d.lease_until <= clock_timestamp())
         order by d.lane_key, d.created_at, d.id
      ) as h
      left join public.alert_delivery_lanes as l on l.lane_key = h.lane_key
     where h.created_at <= clock_timestamp() - make_interval(secs => p_window_seconds)
       and (l.lane_key is null or l.busy_until is null or l.busy_until <= clock_timestamp())
     order by h.created_at, h.lane_key
     limit p_limit * 2
  loop
    exit when v_mails >= p_limit;
    v_until := clock_timestamp() + make_interval(secs => p_lease_seconds);
    if v_lane.email_address_id is not null then
      perform 1 from public.alert_delivery_lanes as l
       where l.lane_key = v_lane.lane_key
         and (l.busy_until is null or l.busy_until <= clock_timestamp())
         for update skip locked;
      continue when not found;
    end if;
    select array_agg(x.id order by x.created_at, x.id) into v_ids
      from (
        select d.id, d.created_at
          from public.alert_deliveries as d
         where d.lane_key = v_lane.lane_key
           and d.status = 'pending'
           and d.next_attempt_at <= clock_timestamp()
           and (d.lease_until is null or d.lease_until <= clock_timestamp())
         order by d.created_at, d.id
         limit p_max_events
           for update skip locked
      ) as x;
    continue when v_ids is null or not (v_lane.id = any (v_ids));

    update public.alert_deliveries as d set lease_until = v_until where d.id = any (v_ids);
    update public.alert_delivery_lanes as l
       set busy_delivery_id = v_ids[1], busy_until = v_until, updated_at = now()
     where l.lane_key = v_lane.lane_key;
    v_token := null;
    if v_lane.email_address_id is not null then
      v_token := encode(extensions.gen_random_bytes(24), 'hex');
      insert into public.email_unsubscribe_tokens (token_hash, email_address_id)
      values (encode(extensions.digest(v_token, 'sha256'), 'hex'), v_lane.email_address_id);
    end if;
    v_mails := v_mails + 1;

    return query
      select v_ids[1], c.id, c.attempt_count, c.failure_count, c.created_at, c.event_id, c.email_address_id,
             case when a.is_account then
               (select u.email::text from auth.users as u
                 where u.id = a.user_id and u.email_confirmed_at is not null)
             else a.address end,
             a.status, a.enabled, v_token
        from public.alert_deliveries as c
        left join public.email_addresses as a on a.id = c.email_address_id
       where c.id = any (v_ids)
       order by array_position(v_ids, c.id);
  end loop;
end
$$;
revoke all on function private.claim_email_mails(integer, integer, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.claim_email_mails(integer, integer, integer, integer) to service_role;

-- One mail's outcome for each of its deliveries (settle_alert_delivery: attempt, state, lane), and the
-- address's bounce count in the same transaction: a permanent failure (SMTP 5xx) is final for the mail
-- and counts; 3 in a row stop the address (`bounced`); a delivered mail resets the count.
create function private.settle_email_mail(
  p_delivery_ids uuid[],
  p_outcome text,
  p_smtp_code integer,
  p_error text,
  p_duration_ms integer,
  p_next_attempt_at timestamptz,
  p_permanent boolean
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid;
  v_address uuid;
  v_status text;
begin
  if p_delivery_ids is null or cardinality(p_delivery_ids) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: settle_email_mail: no deliveries.';
  end if;
  select d.email_address_id into v_address from public.alert_deliveries as d where d.id = p_delivery_ids[1];
  foreach v_id in array p_delivery_ids loop
    perform private.settle_alert_delivery(v_id, p_outcome, p_smtp_code, p_error, p_duration_ms,
                                          case when p_permanent then null else p_next_attempt_at end,
                                          1000, 60, 3600);
  end loop;
  if p_outcome = 'delivered' then
    update public.email_addresses as a
       set permanent_failures = 0, last_failure = null
     where a.id = v_address and a.permanent_failures > 0;
  elsif p_permanent then
    update public.email_addresses as a
       set permanent_failures = a.permanent_failures + 1,
           last_failure = left(p_error, 500),
           status = case when a.permanent_failures + 1 >= 3 then 'stopped' else a.status end,
           stopped_reason = case when a.permanent_failures + 1 >= 3 then 'bounced' else a.stopped_reason end,
           stopped_at = case when a.permanent_failures + 1 >= 3 then now() else a.stopped_at end
     where a.id = v_address and a.status <> 'stopped';
  end if;
  select a.status into v_status from public.email_addresses as a where a.id = v_address;
  return v_status;
end
$$;
revoke all on function private.settle_email_mail(uuid[], text, integer, text, integer, timestamptz, boolean)
  from public, anon, authenticated, service_role;
grant execute on function private.settle_email_mail(uuid[], text, integer, text, integer, timestamptz, boolean)
  to service_role;

-- Unsubscribe tokens are kept 180 days (a mail's link works that long).
create function private.purge_email_unsubscribe_tokens()
returns integer
language sql
security definer
set search_path = ''
as $$
  with gone as (
    delete from public.email_unsubscribe_tokens as t where t.created_at < now() - interval '180 days' returning 1
  )
  select count(*)::integer from gone
$$;
revoke all on function private.purge_email_unsubscribe_tokens() from public, anon, authenticated, service_role;

select cron.schedule('email-unsubscribe-token-purge', '17 3 * * *', $$ select private.purge_email_unsubscribe_tokens() $$);

-- ---------------------------------------------------------------------------------------------------
-- The email delivery log and redelivery (as list_webhook_deliveries / redeliver_webhook_delivery)
-- ---------------------------------------------------------------------------------------------------
create function public.list_email_deliveries(
  p_address_id uuid,
  p_limit integer default 20,
  p_cursor text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
set timezone = 'UTC'
as $$
declare
  v_uid uuid := public.current_account_id();
  v_limit integer := coalesce(p_limit, 20);
  v_after_created timestamptz;
  v_after_id uuid;
  v_rows jsonb;
  v_count integer;
  v_next_cursor text;
begin
  perform private.refuse_oauth_client_token();
  if p_address_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the email address (p_address_id).';
  end if;
  if v_limit < 1 or v_limit > 100 then
    raise exception using errcode = 'DW400', message = 'DW400: p_limit must be between 1 and 100.';
  end if;
  if p_cursor is not null then
    begin
      if p_cursor !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z_[0-9a-f-]{36}$' then
        raise exception 'bad cursor';
      end if;
      v_after_created := split_part(p_cursor, '_', 1)::timestamptz;
      v_after_id := split_part(p_cursor, '_', 2)::uuid;
    exception when others then
      raise exception using errcode = 'DW400', message = 'DW400: p_cursor is not a cursor this function returned.';
    end;
  end if;
  if not exists (select 1 from public.email_addresses as a where a.id = p_address_id and a.user_id = v_uid) then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  perform private.require_session_request(v_uid, 'email-delivery-log', 'delivery log requests');

  with page as (
    select d.*
      from public.alert_deliveries as d
     where d.email_address_id = p_address_id
       and d.channel = 'email'
       and d.user_id = v_uid
       and (v_after_created is null or (d.created_at, d.id) < (v_after_created, v_after_id))
     order by d.created_at desc, d.id desc
     limit v_limit + 1
  ),
  numbered as (
    select p.*, row_number() over (order by p.created_at desc, p.id desc) as n from page as p
  )
  select coalesce(jsonb_agg(
           jsonb_build_object(
             'id', d.id,
             'event_id', d.event_id,
             'event_type', ev.type,
             'domain_name', ev.domain_name,
             'unicode_name', ev.unicode_name,
             'status', d.status,
             'created_at', d.created_at,
             'next_attempt_at', case when d.status = 'pending' then d.next_attempt_at end,
             'delivered_at', d.delivered_at,
             'failed_at', d.failed_at,
             'attempt_count', d.attempt_count,
             'redelivery_count', d.redelivery_count,
             'redelivered_at', d.redelivered_at,
             'attempts', coalesce((
               select jsonb_agg(jsonb_build_object(
                        'attempted_at', a.attempted_at,
                        'outcome', a.outcome,
                        'smtp_code', a.http_status,
                        'duration_ms', a.duration_ms,
                        'error', a.error
                      ) order by a.attempted_at desc, a.id desc)
                 from (select * from public.alert_delivery_attempts as a
                        where a.delivery_id = d.id
                        order by a.attempted_at desc, a.id desc
                        limit 20) as a
             ), '[]'::jsonb)
           ) order by d.created_at desc, d.id desc
         ) filter (where d.n <= v_limit), '[]'::jsonb),
         count(*)
    into v_rows, v_count
    from numbered as d
    join public.alert_events as ev on ev.id = d.event_id;

  if v_count > v_limit then
    select to_char(d.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || d.id::text into v_next_cursor
      from public.alert_deliveries as d
     where d.id = (v_rows -> (v_limit - 1) ->> 'id')::uuid;
  end if;

  return jsonb_build_object('deliveries', v_rows, 'has_more', v_count > v_limit, 'next_cursor', v_next_cursor);
end
$$;
comment on function public.list_email_deliveries(uuid, integer, text) is
  'The caller''s email channel''s deliveries, newest first, keyset pages as list_webhook_deliveries; each '
  'attempt with its SMTP reply code (smtp_code). Never an address. Rate-limited (email-delivery-log).';
revoke all on function public.list_email_deliveries(uuid, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_email_deliveries(uuid, integer, text) to authenticated;

create function public.redeliver_email_delivery(p_delivery_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
set timezone = 'UTC'
as $$
declare
  v_uid uuid := public.current_account_id();
  v_delivery record;
begin
  perform private.refuse_oauth_client_token();
  if p_delivery_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the delivery (p_delivery_id).';
  end if;
  perform 1 from public.profiles as p where p.id = v_uid for no key update;

  select d.id, d.status, d.created_at, a.status as address_status, a.enabled, ev.type as event_type
    into v_delivery
    from public.alert_deliveries as d
    join public.alert_events as ev on ev.id = d.event_id
    join public.email_addresses as a on a.id = d.email_address_id and a.user_id = v_uid
   where d.id = p_delivery_id
     and d.user_id = v_uid
     and d.channel = 'email'
     for update of d;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such delivery.';
  end if;

  perform private.require_session_request(v_uid, 'email-redelivery', 'redeliveries');

  if v_delivery.status = 'pending' then
    raise exception using errcode = 'DW409',
      message = 'DW409: delivery_pending: This delivery is still queued or being sent; wait for its outcome.';
  end if;
  if v_delivery.address_status <> 'active' or (not v_delivery.enabled and v_delivery.event_type <> 'test') then
    raise exception using errcode = 'DW409',
      message = 'DW409: email_not_active: The address is switched off, unconfirmed or stopped.';
  end if;
  if v_delivery.created_at < now() - interval '7 days' then
    raise exception using errcode = 'DW409',
      message = 'DW409: delivery_too_old: Only deliveries of the last 7 days can be redelivered.';
  end if;

  update public.alert_deliveries as d
     set status = 'pending',
         next_attempt_at = now(),
         lease_until = null,
         delivered_at = null,
         failed_at = null,
         redelivery_count = d.redelivery_count + 1,
         redelivered_at = now()
   where d.id = p_delivery_id;

  perform private.nudge_alert_delivery();

  return (
    select jsonb_build_object(
             'id', d.id,
             'status', d.status,
             'next_attempt_at', d.next_attempt_at,
             'redelivery_count', d.redelivery_count,
             'redelivered_at', d.redelivered_at
           )
      from public.alert_deliveries as d
     where d.id = p_delivery_id
  );
end
$$;
comment on function public.redeliver_email_delivery(uuid) is
  'Queues the caller''s finished email delivery again (one attempt, in the address''s next mail). DW404 not '
  'the caller''s, DW409 still pending / address not active / older than 7 days, DW429 (email-redelivery).';
revoke all on function public.redeliver_email_delivery(uuid) from public, anon, authenticated, service_role;
grant execute on function public.redeliver_email_delivery(uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- The account export's email channels (export-account adds them to export_account's document): settings
-- only, never an address, masked or not.
-- ---------------------------------------------------------------------------------------------------
create function private.export_email_channels(p_user_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
  select coalesce(jsonb_agg(
           jsonb_build_object(
             'is_account', a.is_account,
             'status', a.status,
             'stopped_reason', a.stopped_reason,
             'enabled', a.enabled,
             'event_types', to_jsonb(a.event_types),
             'expiring_days', to_jsonb(a.expiring_days),
             'confirmed_at', a.confirmed_at,
             'created_at', a.created_at
           ) order by a.is_account desc, a.created_at, a.id), '[]'::jsonb)
    from public.email_addresses as a
   where a.user_id = p_user_id
$$;
revoke all on function private.export_email_channels(uuid) from public, anon, authenticated, service_role;
grant execute on function private.export_email_channels(uuid) to service_role;
