-- A delivery claim creates the missing lanes of its due deliveries first, in lane order, in one statement.
-- Replaces public.claim_fair_alert_deliveries(integer, integer) (last defined in 20261124000100).
--
-- Before, the claim created a missing lane inside its loop, one candidate at a time, in the order of the
-- round-robin turns. Two parallel claims saw different turns (their snapshots differ in what is pending or
-- leased), so each could hold one new lane's uncommitted insert and wait for the other's: a deadlock, and a
-- claim that failed (found by tests/database/fair_delivery.test.ts under load). Inserts in lane_key order
-- cannot wait in a cycle, and nothing else in the claim waits (rows are taken with SKIP LOCKED).
create or replace function public.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer)
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

revoke all on function public.claim_fair_alert_deliveries(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.claim_fair_alert_deliveries(integer, integer) to service_role;
