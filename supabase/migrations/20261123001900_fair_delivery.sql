-- Fair alert delivery with a budget of its own (issue 19).
--
-- * Lanes. Every delivery belongs to one lane: its webhook endpoint, or the account's Telegram chat (a
--   delivery whose webhook was deleted since is a lane of its own). A lane has at most one delivery in
--   flight: claiming locks the lane's row (FOR UPDATE SKIP LOCKED) and marks it busy until the attempt is
--   recorded or the lease ends.
-- * Fair claiming. claim_fair_alert_deliveries takes the head (earliest due delivery) of every free lane
--   and orders them round-robin: each account's first lane, then each account's second lane, ... so a
--   due delivery of account B goes before the second due delivery of account A.
-- * A breaker per webhook endpoint (on its lane row, readable by the owner): after N consecutive failed
--   attempts the lane is `open` until next_probe_at (exponential backoff); its due deliveries wait without
--   attempts (their retry budget is not used); one probe delivery (`half_open`) closes it on success.
-- * Telegram's limits for the whole project (about 30 messages per second, 1 per second per chat, a 429's
--   retry_after for everyone), with the counters here so every isolate shares them.
-- * Delivery runs in its own invocation (rdap-poller's POST /deliveries): a pg_cron job every minute, and
--   a wake-up right after new deliveries are written (at most one per second; the run lingers longer).

-- ---------------------------------------------------------------------------------------------------
-- Lanes
-- ---------------------------------------------------------------------------------------------------
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

revoke all on table public.alert_delivery_lanes from anon, authenticated;
grant select (lane_key, user_id, channel, webhook_endpoint_id, breaker_state, consecutive_failures,
              opened_count, opened_at, next_probe_at, updated_at)
  on table public.alert_delivery_lanes to authenticated;
grant all on table public.alert_delivery_lanes to service_role;

-- The owner's view of their webhook endpoints' breakers (RLS applies: security_invoker).
create view public.webhook_endpoint_breakers with (security_invoker = true) as
  select l.webhook_endpoint_id, l.breaker_state, l.consecutive_failures, l.opened_at, l.next_probe_at,
         l.updated_at
    from public.alert_delivery_lanes as l
   where l.channel = 'webhook';

comment on view public.webhook_endpoint_breakers is
  'Per webhook endpoint: breaker state (closed/open/half_open), consecutive failures, when it opened and '
  'when the next probe is due. Only endpoints that have had a delivery appear.';

revoke all on table public.webhook_endpoint_breakers from anon, authenticated;
grant select on table public.webhook_endpoint_breakers to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Standard Webhooks (issue 20): after a rotation the previous secret signs too, for 24 hours. Like the
-- secret, it is never readable by authenticated (no column privilege). Any other change of the secret
-- (set_webhook_secret, a direct update) drops the previous one at once.
-- ---------------------------------------------------------------------------------------------------
alter table public.webhook_endpoints
  add column previous_secret text check (previous_secret is null or char_length(previous_secret) between 1 and 256),
  add column previous_secret_expires_at timestamptz;

comment on column public.webhook_endpoints.previous_secret is
  'The secret before the last rotate_webhook_secret(); it also signs webhook-signature until '
  'previous_secret_expires_at (24 h). Never readable by authenticated.';

create function public.forget_previous_webhook_secret()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.secret is distinct from old.secret
     and new.previous_secret is not distinct from old.previous_secret
     and new.previous_secret_expires_at is not distinct from old.previous_secret_expires_at then
    new.previous_secret := null;
    new.previous_secret_expires_at := null;
  end if;
  return new;
end
$$;

revoke all on function public.forget_previous_webhook_secret() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_forget_previous_secret
  before update of secret on public.webhook_endpoints
  for each row execute function public.forget_previous_webhook_secret();

-- Redefined from 20261122000930: the new secret is 'whsec_' + base64 of 32 random bytes (the Standard
-- Webhooks form), and the one it replaces keeps signing for 24 hours.
create or replace function public.rotate_webhook_secret(p_id uuid)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_secret text := 'whsec_' || encode(extensions.gen_random_bytes(32), 'base64');
begin
  update public.webhook_endpoints as w
     set previous_secret = w.secret,
         previous_secret_expires_at = case when w.secret is null then null else now() + interval '24 hours' end,
         secret = v_secret
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  return v_secret;
end
$$;

revoke all on function public.rotate_webhook_secret(uuid) from public, anon, authenticated, service_role;
grant execute on function public.rotate_webhook_secret(uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- Fair claim. Lanes are created here on first use. A parallel claim skips lanes and deliveries another
-- claim holds (SKIP LOCKED) and re-checks them after locking, so one lane never has two in flight and no
-- delivery is claimed twice.
-- ---------------------------------------------------------------------------------------------------
create function public.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer)
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
  probe boolean
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
      select h.*, l.lane_key is null as lane_missing
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
      if v_candidate.lane_missing then
        insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
        values (v_candidate.lane_key, v_candidate.user_id, v_candidate.channel, v_candidate.webhook_endpoint_id)
        on conflict do nothing;
      end if;
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
           c.lane_key, c.id = any (v_probes)
      from public.alert_deliveries as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
     where c.id = any (v_ids)
     order by array_position(v_ids, c.id);
end
$$;

-- ---------------------------------------------------------------------------------------------------
-- Recording attempts also frees the lane (redefined from 20261122000920: one added statement).
-- ---------------------------------------------------------------------------------------------------
create or replace function public.record_alert_delivery_attempt(
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

-- Gives a claimed delivery back without an attempt, and frees its lane (redefined from 000920).
create or replace function public.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamptz)
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

-- ---------------------------------------------------------------------------------------------------
-- One attempt's result, in one transaction: the attempt row, the delivery's state (delivered; pending
-- until p_next_attempt_at; or failed when that is null), and the lane's breaker. Only `failed` attempts
-- count towards the breaker (a refused target, a skipped channel or a Telegram 429 do not).
-- ---------------------------------------------------------------------------------------------------
create function public.settle_alert_delivery(
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

  perform public.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
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
revoke all on table public.telegram_send_pace from anon, authenticated;
revoke all on table public.telegram_chat_send_pace from anon, authenticated;
grant all on table public.telegram_send_pace to service_role;
grant all on table public.telegram_chat_send_pace to service_role;

create function public.reserve_telegram_send(
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

-- A 429 from Telegram: nobody sends before p_until.
create function public.pause_telegram_sends(p_until timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.telegram_send_pace as g
     set paused_until = greatest(g.paused_until, coalesce(p_until, now()))
   where g.id = 1
$$;

-- ---------------------------------------------------------------------------------------------------
-- The delivery invocation: pg_cron every minute, and a wake-up when deliveries are written.
-- ---------------------------------------------------------------------------------------------------
-- Returns pg_net's request id, or null (nothing sent) while a Vault secret is missing.
create function public.invoke_alert_delivery()
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_project_url text;
  v_secret text;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  return net.http_post(
    url := rtrim(v_project_url, '/') || '/functions/v1/rdap-poller/deliveries',
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
    body := '{}'::jsonb,
    timeout_milliseconds := 120000
  );
end
$$;

comment on function public.invoke_alert_delivery() is
  'POSTs to <project_url>/functions/v1/rdap-poller/deliveries with the Vault secret poller_secret: one '
  'delivery run. Called by the pg_cron job alert-delivery every minute and by wake_alert_delivery().';

create table public.alert_delivery_wake (
  id smallint primary key default 1 check (id = 1),
  last_wake_at timestamptz not null default '-infinity'
);
insert into public.alert_delivery_wake (id) values (1);
alter table public.alert_delivery_wake enable row level security;
revoke all on table public.alert_delivery_wake from anon, authenticated;
grant all on table public.alert_delivery_wake to service_role;

-- At most one wake-up per second, never waiting for another transaction's (SKIP LOCKED), and never
-- failing the transaction that wrote the alerts: a missed wake-up only means the next minute's run.
create function public.wake_alert_delivery()
returns trigger
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
      perform public.invoke_alert_delivery();
    exception when others then
      raise warning 'wake_alert_delivery: %', sqlerrm;
    end;
  end if;
  return null;
end
$$;

create trigger alert_deliveries_wake_delivery
  after insert on public.alert_deliveries
  for each statement
  execute function public.wake_alert_delivery();

revoke all on function public.claim_fair_alert_deliveries(integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.settle_alert_delivery(uuid, text, integer, text, integer, timestamptz, integer, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.reserve_telegram_send(text, integer, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.pause_telegram_sends(timestamptz) from public, anon, authenticated, service_role;
revoke all on function public.invoke_alert_delivery() from public, anon, authenticated, service_role;
revoke all on function public.wake_alert_delivery() from public, anon, authenticated, service_role;
revoke all on function public.record_alert_delivery_attempt(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.defer_alert_delivery(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.claim_fair_alert_deliveries(integer, integer) to service_role;
grant execute on function public.settle_alert_delivery(uuid, text, integer, text, integer, timestamptz, integer, integer, integer)
  to service_role;
grant execute on function public.reserve_telegram_send(text, integer, integer, integer) to service_role;
grant execute on function public.pause_telegram_sends(timestamptz) to service_role;
-- A run that stopped at its time budget or delivery cap with work left hands over to a fresh invocation.
grant execute on function public.invoke_alert_delivery() to service_role;
grant execute on function public.defer_alert_delivery(uuid, timestamptz) to service_role;

select cron.schedule('alert-delivery', '* * * * *', $$ select public.invoke_alert_delivery() $$);
