-- Alerts: the outbox (alert_events and one alert_deliveries row per channel, written in the transaction that
-- records the status change), fair claiming by lanes with breakers, the Telegram pace, the delivery log and
-- redelivery, and how delivery runs are woken (pg_cron job `alert-delivery` and a trigger through pg_net).

create table public.alert_events (
  id text primary key default ('evt_' || replace(gen_random_uuid()::text, '-', '')),
  user_id uuid not null references public.profiles (id) on delete cascade,
  type text not null constraint alert_events_type_check check (type in ('domain.available',
    'domain.pending_delete', 'domain.restored', 'domain.registered', 'domain.expiring', 'test')),
  domain_name text not null,
  unicode_name text,
  previous_status text,
  status text not null,
  checked_at timestamptz not null,
  created_at timestamptz not null default now()
);

comment on table public.alert_events is
  'One row per watching account for each transition of a domain into available (type domain.available), '
  'or per test the account asked for (type test). Written by the outbox trigger and the test functions.';

create index alert_events_user_id_created_at_idx on public.alert_events (user_id, created_at desc);

alter table public.alert_events enable row level security;

create policy "Users can read their own alert events"
  on public.alert_events for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read alert events"
  on public.alert_events as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

-- ---------------------------------------------------------------------------------------------------
-- alert_deliveries: one row per event and channel (per endpoint for webhooks). Its id is the webhook's
-- X-Service-Delivery header, the same on every retry. No secrets and no chat IDs are stored here.
-- ---------------------------------------------------------------------------------------------------
create table public.alert_deliveries (
  id uuid primary key default gen_random_uuid(),
  event_id text not null references public.alert_events (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  channel text not null check (channel in ('telegram', 'webhook')),
  webhook_endpoint_id uuid references public.webhook_endpoints (id) on delete set null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempt_count integer not null default 0,
  failure_count integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_http_status integer,
  last_error text,
  delivered_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz not null default now()
);

comment on column public.alert_deliveries.webhook_endpoint_id is
  'The webhook this delivery goes to; null for Telegram, and for webhooks deleted since.';

comment on column public.alert_deliveries.failure_count is
  'Failed attempts that count towards the retry schedule (a Telegram 429 does not).';

create unique index alert_deliveries_one_telegram_per_event_idx
  on public.alert_deliveries (event_id) where channel = 'telegram';

create unique index alert_deliveries_one_per_webhook_per_event_idx
  on public.alert_deliveries (event_id, webhook_endpoint_id)
  where channel = 'webhook' and webhook_endpoint_id is not null;

create index alert_deliveries_due_idx on public.alert_deliveries (next_attempt_at) where status = 'pending';

create index alert_deliveries_user_id_created_at_idx on public.alert_deliveries (user_id, created_at desc);

create index alert_deliveries_webhook_endpoint_id_idx on public.alert_deliveries (webhook_endpoint_id);

alter table public.alert_deliveries enable row level security;

create policy "Users can read their own alert deliveries"
  on public.alert_deliveries for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read alert deliveries"
  on public.alert_deliveries as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

-- ---------------------------------------------------------------------------------------------------
-- alert_delivery_attempts: the history of every attempt (kept; never contains secrets or chat IDs).
--   outcome: delivered | failed (counts towards the schedule) | rate_limited (Telegram 429) |
--            refused (webhook target not allowed) | skipped (channel removed or switched off).
-- ---------------------------------------------------------------------------------------------------
create table public.alert_delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references public.alert_deliveries (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  attempted_at timestamptz not null default now(),
  outcome text not null check (outcome in ('delivered', 'failed', 'rate_limited', 'refused', 'skipped')),
  http_status integer,
  error text check (error is null or char_length(error) <= 500),
  duration_ms integer
);

create index alert_delivery_attempts_delivery_id_idx on public.alert_delivery_attempts (delivery_id, attempted_at);

create index alert_delivery_attempts_user_id_idx on public.alert_delivery_attempts (user_id);

alter table public.alert_delivery_attempts enable row level security;

create policy "Users can read the attempts of their own deliveries"
  on public.alert_delivery_attempts for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read alert delivery attempts"
  on public.alert_delivery_attempts as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

-- ---------------------------------------------------------------------------------------------------
-- Dispatcher: claim due deliveries with what is needed to send them (secrets and chat IDs included:
-- service_role only), then record each attempt.
-- ---------------------------------------------------------------------------------------------------
create function private.claim_alert_deliveries(p_limit integer, p_lease_seconds integer)
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
  webhook_enabled boolean,
  telegram_chat_id text,
  telegram_enabled boolean
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_alert_deliveries: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_alert_deliveries: lease must be 1-3600 s.';
  end if;

  return query
    with due as (
      select dl.id
        from public.alert_deliveries as dl
       where dl.status = 'pending'
         and dl.next_attempt_at <= now()
         and (dl.lease_until is null or dl.lease_until <= now())
       order by dl.next_attempt_at
       limit p_limit
         for update of dl skip locked
    ),
    claimed as (
      update public.alert_deliveries as dl
         set lease_until = now() + make_interval(secs => p_lease_seconds)
        from due
       where dl.id = due.id
      returning dl.*
    )
    select c.id, c.channel, c.attempt_count, c.failure_count, c.created_at,
           ev.id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status, ev.status,
           ev.checked_at,
           c.webhook_endpoint_id, w.url, w.secret, w.enabled,
           n.telegram_chat_id, n.telegram_enabled
      from claimed as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
     order by c.next_attempt_at;
end
$$;
revoke all on function private.claim_alert_deliveries(integer, integer) from public, anon, authenticated, service_role;
grant execute on function private.claim_alert_deliveries(integer, integer) to service_role;

create function private.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.record_alert_delivery_attempt(p_delivery_id, 'delivered', p_http_status, null, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'delivered', delivered_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;
revoke all on function private.mark_alert_delivery_delivered(uuid, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.mark_alert_delivery_delivered(uuid, integer, integer) to service_role;

-- A failed (or rate-limited) attempt; the delivery stays pending until p_next_attempt_at.
create function private.schedule_alert_delivery_retry(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer,
  p_next_attempt_at timestamptz
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_outcome not in ('failed', 'rate_limited') then
    raise exception using errcode = 'DW400', message = 'DW400: only failed or rate_limited attempts are retried.';
  end if;
  if p_next_attempt_at is null then
    raise exception using errcode = 'DW400', message = 'DW400: a retry needs its time.';
  end if;
  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set next_attempt_at = p_next_attempt_at
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;
revoke all on function private.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function private.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  to service_role;

-- The last attempt: the delivery is failed for good (and kept for inspection).
create function private.fail_alert_delivery(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'failed', failed_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;
revoke all on function private.fail_alert_delivery(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.fail_alert_delivery(uuid, text, integer, text, integer) to service_role;

grant select, insert, update, delete on table public.alert_events to service_role;
grant select on table public.alert_events to authenticated;

grant select, insert, update, delete on table public.alert_deliveries to service_role;
grant select on table public.alert_deliveries to authenticated;

grant select, insert, update, delete on table public.alert_delivery_attempts to service_role;
grant select on table public.alert_delivery_attempts to authenticated;

grant select, usage on sequence public.alert_delivery_attempts_id_seq to service_role;

create trigger alert_events_derive_unicode_name
  before insert or update of domain_name, unicode_name on public.alert_events
  for each row execute function private.derive_unicode_name();

update public.alert_events set unicode_name = null where unicode_name is not null;

alter table public.alert_deliveries
  add column lane_key text generated always as (
    case
      when channel = 'telegram' then 'telegram:' || user_id::text
      when webhook_endpoint_id is not null then 'webhook:' || webhook_endpoint_id::text
      else 'delivery:' || id::text
    end
  ) stored;

comment on column public.alert_deliveries.lane_key is
  'The lane this delivery is sent in: webhook:<endpoint id>, telegram:<account id>, or delivery:<id> when '
  'its webhook was deleted. At most one delivery per lane is in flight.';

create index alert_deliveries_pending_lane_idx
  on public.alert_deliveries (lane_key, next_attempt_at, created_at)
  where status = 'pending';

create table public.alert_delivery_lanes (
  lane_key text primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  channel text not null check (channel in ('telegram', 'webhook')),
  webhook_endpoint_id uuid references public.webhook_endpoints (id) on delete cascade,
  breaker_state text not null default 'closed' check (breaker_state in ('closed', 'open', 'half_open')),
  consecutive_failures integer not null default 0,
  opened_count integer not null default 0,
  opened_at timestamptz,
  next_probe_at timestamptz,
  busy_delivery_id uuid,
  busy_until timestamptz,
  updated_at timestamptz not null default now()
);

comment on table public.alert_delivery_lanes is
  'One row per delivery lane (webhook endpoint, or an account''s Telegram chat): the in-flight marker and '
  'the breaker. breaker_state closed | open (no attempt before next_probe_at) | half_open (one probe in '
  'flight or due). Readable by the owner.';

comment on column public.alert_delivery_lanes.opened_count is
  'Times the breaker opened without a success in between: the exponent of its backoff.';

create index alert_delivery_lanes_user_id_idx on public.alert_delivery_lanes (user_id);

create index alert_delivery_lanes_webhook_endpoint_id_idx on public.alert_delivery_lanes (webhook_endpoint_id);

alter table public.alert_delivery_lanes enable row level security;

create policy "Users can read their own delivery lanes"
  on public.alert_delivery_lanes for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read alert delivery lanes"
  on public.alert_delivery_lanes as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

grant all on table public.alert_delivery_lanes to service_role;
grant select (breaker_state, channel, consecutive_failures, lane_key, next_probe_at, opened_at, opened_count, updated_at, user_id, webhook_endpoint_id)
  on table public.alert_delivery_lanes to authenticated;

-- The owner's view of their webhook endpoints' breakers (RLS applies: security_invoker).
create view public.webhook_endpoint_breakers with (security_invoker = true) as
  select l.webhook_endpoint_id, l.breaker_state, l.consecutive_failures, l.opened_at, l.next_probe_at,
         l.updated_at
    from public.alert_delivery_lanes as l
   where l.channel = 'webhook';

comment on view public.webhook_endpoint_breakers is
  'Per webhook endpoint: breaker state (closed/open/half_open), consecutive failures, when it opened and '
  'when the next probe is due. Only endpoints that have had a delivery appear.';

grant select on table public.webhook_endpoint_breakers to service_role;
grant select on table public.webhook_endpoint_breakers to authenticated;

create trigger webhook_endpoints_forget_previous_secret
  before update of secret on public.webhook_endpoints
  for each row execute function private.forget_previous_webhook_secret();

-- Writes one attempt into the history and the delivery's summary columns.
create or replace function private.record_alert_delivery_attempt(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_outcome is null or p_outcome not in ('delivered', 'failed', 'rate_limited', 'refused', 'skipped') then
    raise exception using errcode = 'DW400', message = 'DW400: invalid delivery outcome.';
  end if;
  insert into public.alert_delivery_attempts (delivery_id, user_id, outcome, http_status, error, duration_ms)
  select d.id, d.user_id, p_outcome, p_http_status, left(p_error, 500), p_duration_ms
    from public.alert_deliveries as d
   where d.id = p_delivery_id;
  update public.alert_deliveries as d
     set attempt_count = d.attempt_count + 1,
         failure_count = d.failure_count + case when p_outcome = 'failed' then 1 else 0 end,
         last_attempt_at = now(),
         last_http_status = p_http_status,
         last_error = left(p_error, 500),
         lease_until = null
   where d.id = p_delivery_id;
  update public.alert_delivery_lanes as l
     set busy_delivery_id = null, busy_until = null, updated_at = now()
   where l.busy_delivery_id = p_delivery_id;
end
$$;
revoke all on function private.record_alert_delivery_attempt(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function private.record_alert_delivery_attempt(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;

-- Gives a claimed delivery back without an attempt (Telegram paused, or the run's time is up).
create or replace function private.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamptz)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.alert_deliveries as d
     set next_attempt_at = greatest(d.next_attempt_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.id = p_delivery_id and d.status = 'pending';
  update public.alert_delivery_lanes as l
     set busy_delivery_id = null, busy_until = null,
         -- a probe given back unsent leaves the breaker half open: the next claim probes again
         updated_at = now()
   where l.busy_delivery_id = p_delivery_id;
end
$$;
revoke all on function private.defer_alert_delivery(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.defer_alert_delivery(uuid, timestamptz) to service_role;
revoke all on function private.defer_alert_delivery(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.defer_alert_delivery(uuid, timestamptz) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- One attempt's result, in one transaction: the attempt row, the delivery's state (delivered; pending
-- until p_next_attempt_at; or failed when that is null), and the lane's breaker. Only `failed` attempts
-- count towards the breaker (a refused target, a skipped channel or a Telegram 429 do not).
-- ---------------------------------------------------------------------------------------------------
create function private.settle_alert_delivery(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer,
  p_next_attempt_at timestamptz,
  p_breaker_threshold integer,
  p_breaker_base_seconds integer,
  p_breaker_max_seconds integer
)
returns table (breaker_state text, next_probe_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_lane_key text;
begin
  if p_breaker_threshold is null or p_breaker_threshold < 1
     or p_breaker_base_seconds is null or p_breaker_base_seconds < 1
     or p_breaker_max_seconds is null or p_breaker_max_seconds < p_breaker_base_seconds then
    raise exception using errcode = 'DW400', message = 'DW400: settle_alert_delivery: invalid breaker settings.';
  end if;
  select d.lane_key into v_lane_key from public.alert_deliveries as d where d.id = p_delivery_id;

  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  if p_outcome = 'delivered' then
    update public.alert_deliveries as d
       set status = 'delivered', delivered_at = now()
     where d.id = p_delivery_id and d.status = 'pending';
  elsif p_next_attempt_at is not null then
    update public.alert_deliveries as d
       set next_attempt_at = p_next_attempt_at
     where d.id = p_delivery_id and d.status = 'pending';
  else
    update public.alert_deliveries as d
       set status = 'failed', failed_at = now()
     where d.id = p_delivery_id and d.status = 'pending';
  end if;

  if p_outcome = 'delivered' then
    update public.alert_delivery_lanes as l
       set breaker_state = 'closed', consecutive_failures = 0, opened_count = 0, opened_at = null,
           next_probe_at = null, updated_at = now()
     where l.lane_key = v_lane_key;
  elsif p_outcome = 'failed' then
    update public.alert_delivery_lanes as l
       set consecutive_failures = l.consecutive_failures + 1,
           breaker_state = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then 'open' else l.breaker_state end,
           opened_count = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then l.opened_count + 1 else l.opened_count end,
           opened_at = case
             when l.channel = 'webhook' and l.breaker_state = 'closed'
                  and l.consecutive_failures + 1 >= p_breaker_threshold
               then now() else l.opened_at end,
           next_probe_at = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then now() + make_interval(secs => least(
                      p_breaker_max_seconds::double precision,
                      p_breaker_base_seconds * power(2::double precision, least(l.opened_count, 30))))
             else l.next_probe_at end,
           updated_at = now()
     where l.lane_key = v_lane_key;
  end if;

  return query
    select l.breaker_state, l.next_probe_at from public.alert_delivery_lanes as l where l.lane_key = v_lane_key;
end
$$;
revoke all on function private.settle_alert_delivery(uuid, text, integer, text, integer, timestamptz, integer, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.settle_alert_delivery(uuid, text, integer, text, integer, timestamptz, integer, integer, integer)
  to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Telegram's limits for the whole project. Sends are paced: each reservation takes the next free slot
-- (globally every 1/rate s, per chat every p_chat_interval_ms, never before a 429's pause ends). A slot
-- further away than p_max_wait_ms is not taken: the caller gives the delivery back until then. Chats are
-- keyed by the SHA-256 of the chat ID (no chat IDs stored here).
-- ---------------------------------------------------------------------------------------------------
create table public.telegram_send_pace (
  id smallint primary key default 1 check (id = 1),
  next_free_at timestamptz not null default '-infinity',
  paused_until timestamptz not null default '-infinity'
);

insert into public.telegram_send_pace (id) values (1);

create table public.telegram_chat_send_pace (
  chat_key text primary key,
  next_free_at timestamptz not null
);

alter table public.telegram_send_pace enable row level security;

alter table public.telegram_chat_send_pace enable row level security;

grant all on table public.telegram_send_pace to service_role;

grant all on table public.telegram_chat_send_pace to service_role;

create function private.reserve_telegram_send(
  p_chat_id text,
  p_messages_per_second integer,
  p_chat_interval_ms integer,
  p_max_wait_ms integer
)
returns table (granted boolean, send_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_key text := encode(pg_catalog.sha256(convert_to(coalesce(p_chat_id, ''), 'UTF8')), 'hex');
  v_now timestamptz := clock_timestamp();
  v_global public.telegram_send_pace;
  v_chat_free timestamptz;
  v_at timestamptz;
begin
  if p_messages_per_second is null or p_messages_per_second < 1 or p_messages_per_second > 1000
     or p_chat_interval_ms is null or p_chat_interval_ms < 0
     or p_max_wait_ms is null or p_max_wait_ms < 0 then
    raise exception using errcode = 'DW400', message = 'DW400: reserve_telegram_send: invalid limits.';
  end if;
  select * into v_global from public.telegram_send_pace as g where g.id = 1 for update;
  insert into public.telegram_chat_send_pace (chat_key, next_free_at) values (v_key, '-infinity')
  on conflict do nothing;
  select c.next_free_at into v_chat_free from public.telegram_chat_send_pace as c
   where c.chat_key = v_key for update;

  v_at := greatest(v_now, v_global.next_free_at, v_global.paused_until, v_chat_free);
  if v_at > v_now + make_interval(secs => p_max_wait_ms / 1000.0) then
    return query select false, v_at;
    return;
  end if;
  update public.telegram_send_pace as g
     set next_free_at = v_at + make_interval(secs => 1.0 / p_messages_per_second)
   where g.id = 1;
  update public.telegram_chat_send_pace as c
     set next_free_at = v_at + make_interval(secs => p_chat_interval_ms / 1000.0)
   where c.chat_key = v_key;
  return query select true, v_at;
end
$$;
revoke all on function private.reserve_telegram_send(text, integer, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.reserve_telegram_send(text, integer, integer, integer) to service_role;

-- A 429 from Telegram: nobody sends before p_until.
create function private.pause_telegram_sends(p_until timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.telegram_send_pace as g
     set paused_until = greatest(g.paused_until, coalesce(p_until, now()))
   where g.id = 1
$$;
revoke all on function private.pause_telegram_sends(timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.pause_telegram_sends(timestamptz) to service_role;

create table public.alert_delivery_wake (
  id smallint primary key default 1 check (id = 1),
  last_wake_at timestamptz not null default '-infinity'
);

insert into public.alert_delivery_wake (id) values (1);

alter table public.alert_delivery_wake enable row level security;

grant all on table public.alert_delivery_wake to service_role;

create trigger webhook_endpoints_check_url_kind
  before insert or update of url, kind, event_types on public.webhook_endpoints
  for each row execute function private.check_webhook_endpoint_kind();

-- ---------------------------------------------------------------------------------------------------
-- alert_events: the new type and its prediction
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_events
  add column predicted_drop_at timestamptz,
  add column prediction_basis text
    constraint alert_events_prediction_basis_check
    check (prediction_basis in ('redemption_period', 'pending_delete_period', 'unknown'));

comment on column public.alert_events.predicted_drop_at is
  'domain.pending_delete: when the name is predicted to drop (null when it cannot be predicted).';

comment on column public.alert_events.prediction_basis is
  'domain.pending_delete: how predicted_drop_at was found: redemption_period (RDAP last change + 30 days '
  'of redemption + 5 of pending delete), pending_delete_period (last change + 5 days) or unknown.';

create index alert_events_pending_delete_idx
  on public.alert_events (domain_name, checked_at) where type = 'domain.pending_delete';

-- ---------------------------------------------------------------------------------------------------
-- The outbox: a transition of a domain into `available` (from any other status) writes, in the same
-- transaction, one event per account actively watching the name, a Telegram delivery for accounts with a
-- chat ID and Telegram switched on, and a webhook delivery per enabled endpoint of accounts whose plan has
-- webhooks. record_domain_check locks the row, so one transition fires this once.
-- ---------------------------------------------------------------------------------------------------
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

create trigger domains_queue_available_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'available' and old.status is distinct from 'available')
  execute function private.queue_domain_available_alerts();

-- domain.pending_delete: once per transition into pending_delete, one event per watching account that
-- has a channel asking for it, and a delivery on each such channel only. record_domain_check locks the
-- domain row, so one transition fires this once; leaving pending delete and entering it again fires it
-- again.
create function private.queue_domain_pending_delete_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.queue_opt_in_alerts('domain.pending_delete', new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), null, null);
  return null;
end
$$;
revoke all on function private.queue_domain_pending_delete_alerts() from public, anon, authenticated, service_role;

create trigger domains_queue_pending_delete_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'pending_delete' and old.status is distinct from 'pending_delete')
  execute function private.queue_domain_pending_delete_alerts();


-- ---------------------------------------------------------------------------------------------------
-- Redelivery bookkeeping, and the log's keyset index
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_deliveries
  add column redelivery_count integer not null default 0 check (redelivery_count >= 0),
  add column redelivered_at timestamptz;

comment on column public.alert_deliveries.redelivery_count is
  'Times the owner queued this delivery again (redeliver_webhook_delivery); same id, same body.';

comment on column public.alert_deliveries.redelivered_at is
  'When the owner last queued it again. A redelivery is one attempt: a failure after it is final.';

create index alert_deliveries_webhook_log_idx
  on public.alert_deliveries (webhook_endpoint_id, created_at desc, id desc)
  where channel = 'webhook';

-- A redelivery is one attempt, as GitHub's is: when an attempt made after the last redelivery request
-- would schedule a retry (settle_alert_delivery moves next_attempt_at of a pending delivery), the delivery
-- fails for good instead. Deliveries never redelivered are untouched; so is the redelivery's own update.
create function private.finish_failed_redelivery()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.status = 'pending'
     and new.redelivered_at is not null
     and new.redelivered_at is not distinct from old.redelivered_at
     and new.last_attempt_at is not null
     and new.last_attempt_at >= new.redelivered_at
     and new.next_attempt_at > old.next_attempt_at then
    new.status := 'failed';
    new.failed_at := now();
    new.next_attempt_at := old.next_attempt_at;
  end if;
  return new;
end
$$;
revoke all on function private.finish_failed_redelivery() from public, anon, authenticated, service_role;

create trigger alert_deliveries_finish_failed_redelivery
  before update of next_attempt_at on public.alert_deliveries
  for each row
  when (new.redelivered_at is not null)
  execute function private.finish_failed_redelivery();

-- ---------------------------------------------------------------------------------------------------
-- Waking a delivery run: one rule (at most one wake-up per second, never waiting, never failing the
-- caller), used by the insert trigger (wake_alert_delivery) and by redelivery.
-- ---------------------------------------------------------------------------------------------------
create function private.nudge_alert_delivery()
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform 1 from public.alert_delivery_wake as w
   where w.id = 1 and w.last_wake_at <= clock_timestamp() - interval '1 second'
     for update skip locked;
  if found then
    update public.alert_delivery_wake as w set last_wake_at = clock_timestamp() where w.id = 1;
    begin
      perform private.invoke_alert_delivery();
    exception when others then
      raise warning 'wake_alert_delivery: %', sqlerrm;
    end;
  end if;
end
$$;
revoke all on function private.nudge_alert_delivery() from public, anon, authenticated, service_role;

-- At most one wake-up per second, never waiting for another transaction's (SKIP LOCKED), and never
-- failing the transaction that wrote the alerts: a missed wake-up only means the next minute's run.
create or replace function private.wake_alert_delivery()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.nudge_alert_delivery();
  return null;
end
$$;
revoke all on function private.wake_alert_delivery() from public, anon, authenticated, service_role;
revoke all on function private.wake_alert_delivery() from public, anon, authenticated, service_role;

create trigger alert_deliveries_wake_delivery
  after insert on public.alert_deliveries
  for each statement
  execute function private.wake_alert_delivery();

-- ---------------------------------------------------------------------------------------------------
-- The log. Cursor: the `next_cursor` of the previous page (opaque to the app).
-- ---------------------------------------------------------------------------------------------------
create function public.list_webhook_deliveries(
  p_endpoint_id uuid,
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
  if p_endpoint_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the webhook (p_endpoint_id).';
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
  if not exists (
    select 1 from public.webhook_endpoints as w where w.id = p_endpoint_id and w.user_id = v_uid
  ) then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  perform private.require_session_request(v_uid, 'webhook-delivery-log', 'delivery log requests');

  with page as (
    select d.*
      from public.alert_deliveries as d
     where d.webhook_endpoint_id = p_endpoint_id
       and d.channel = 'webhook'
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
                        'http_status', a.http_status,
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

  -- The last row of this page: the next page starts after it.
  if v_count > v_limit then
    select to_char(d.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || d.id::text into v_next_cursor
      from public.alert_deliveries as d
     where d.id = (v_rows -> (v_limit - 1) ->> 'id')::uuid;
  end if;

  return jsonb_build_object('deliveries', v_rows, 'has_more', v_count > v_limit, 'next_cursor', v_next_cursor);
end
$$;
comment on function public.list_webhook_deliveries(uuid, integer, text) is
  'The caller''s webhook''s deliveries, newest first (created_at, id), p_limit 1-100 (default 20), keyset '
  'p_cursor = the previous page''s next_cursor; each with its newest 20 attempts (outcome, http_status, '
  'duration_ms, attempted_at, error). No URL, secret or chat ID. Rate-limited (webhook-delivery-log).';
revoke all on function public.list_webhook_deliveries(uuid, integer, text) from public, anon, authenticated, service_role;
grant execute on function public.list_webhook_deliveries(uuid, integer, text) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- Redelivery
-- ---------------------------------------------------------------------------------------------------
create function public.redeliver_webhook_delivery(p_delivery_id uuid)
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
  -- Plan check; also locks the profile row, so one account's redeliveries are serialised.
  perform private.require_webhook_plan(v_uid);

  select d.id, d.status, d.created_at, ev.type as event_type, w.enabled
    into v_delivery
    from public.alert_deliveries as d
    join public.alert_events as ev on ev.id = d.event_id
    join public.webhook_endpoints as w on w.id = d.webhook_endpoint_id and w.user_id = v_uid
   where d.id = p_delivery_id
     and d.user_id = v_uid
     and d.channel = 'webhook'
     for update of d;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such delivery.';
  end if;

  perform private.require_session_request(v_uid, 'webhook-redelivery', 'redeliveries');

  if v_delivery.status = 'pending' then
    raise exception using errcode = 'DW409',
      message = 'DW409: delivery_pending: This delivery is still queued or being sent; wait for its outcome.';
  end if;
  if not v_delivery.enabled and v_delivery.event_type <> 'test' then
    raise exception using errcode = 'DW409',
      message = 'DW409: webhook_disabled: The webhook is switched off; switch it on to redeliver.';
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
comment on function public.redeliver_webhook_delivery(uuid) is
  'Queues the caller''s finished webhook delivery again under the same id (one attempt, same body, fresh '
  'signature timestamp, current secret), through the normal queue, and wakes a delivery run. DW404 not the '
  'caller''s (or its webhook was deleted), DWUPG plan without webhooks, DW409 still pending / webhook '
  'switched off / older than 7 days, DW429 rate limited (webhook-redelivery).';
revoke all on function public.redeliver_webhook_delivery(uuid) from public, anon, authenticated, service_role;
grant execute on function public.redeliver_webhook_delivery(uuid) to authenticated;

-- pg_net and pg_cron: a new Supabase project has neither until something creates them (docs/database.md,
-- "A new project's database"). pg_net in schema extensions (its objects are in schema net), as the dashboard
-- enables it.
create extension if not exists pg_net with schema extensions;
create extension if not exists pg_cron with schema pg_catalog;

-- The Vault read and the pg_net POST of invoke_rdap_poller() and invoke_alert_delivery(). POSTs `{}`
-- `p_times` times to <Vault project_url>/functions/v1/<p_path> with the Vault secret poller_secret as bearer
-- token; returns the first pg_net request id, or null (nothing sent) while a secret is missing or `p_times`
-- < 1. Security invoker, no grants: only its two callers run it, as their owner (pg_cron's job as postgres;
-- invoke_alert_delivery() as a security definer).
create function private.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_project_url text;
  v_secret text;
  v_first bigint;
  v_id bigint;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  for i in 1 .. coalesce(p_times, 0) loop
    v_id := net.http_post(
      url := rtrim(v_project_url, '/') || '/functions/v1/' || p_path,
      headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
      body := '{}'::jsonb,
      timeout_milliseconds := p_timeout_milliseconds
    );
    v_first := coalesce(v_first, v_id);
  end loop;
  return v_first;
end
$$;
comment on function private.post_to_edge_function(text, integer, integer) is
  'POSTs {} p_times times to <Vault project_url>/functions/v1/<p_path> with the Vault secret poller_secret '
  'as bearer token; the first pg_net request id, or null while a secret is missing. For invoke_rdap_poller() '
  'and invoke_alert_delivery() only (no grants).';

-- ---------------------------------------------------------------------------------------------------
-- The delivery invocation: pg_cron every minute, and a wake-up when deliveries are written.
-- ---------------------------------------------------------------------------------------------------
-- Returns pg_net's request id, or null (nothing sent) while a Vault secret is missing.
create or replace function private.invoke_alert_delivery()
returns bigint
language sql
security definer
set search_path = ''
as $$
  select private.post_to_edge_function('rdap-poller/deliveries', 120000, 1)
$$;
comment on function private.invoke_alert_delivery() is
  'POSTs to <project_url>/functions/v1/rdap-poller/deliveries with the Vault secret poller_secret: one '
  'delivery run. Called by the pg_cron job alert-delivery every minute and by wake_alert_delivery().';
revoke all on function private.invoke_alert_delivery() from public, anon, authenticated, service_role;
-- A run that stopped at its time budget or delivery cap with work left hands over to a fresh invocation.
grant execute on function private.invoke_alert_delivery() to service_role;

select cron.schedule('alert-delivery', '* * * * *', $$ select private.invoke_alert_delivery() $$);

-- ---------------------------------------------------------------------------------------------------
-- Fair claim. Lanes are created here on first use. A parallel claim skips lanes and deliveries another
-- claim holds (SKIP LOCKED) and re-checks them after locking, so one lane never has two in flight and no
-- delivery is claimed twice.
-- ---------------------------------------------------------------------------------------------------
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

  -- The lanes of every due delivery exist before any is claimed, created in lane_key order (see above).
  insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, d.channel, d.webhook_endpoint_id
    from public.alert_deliveries as d
   where d.status = 'pending'
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
revoke all on function private.claim_fair_alert_deliveries(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.claim_fair_alert_deliveries(integer, integer) to service_role;
