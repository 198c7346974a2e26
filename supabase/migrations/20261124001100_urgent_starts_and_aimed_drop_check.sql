-- Urgent starts and the aimed drop check (issue 11, docs/rate-limits.md "Urgent starts", docs/decisions.md).
--
-- 1. rate_limit_reserve takes p_urgent. The in-flight cap counts reserved starts too, so with routine callers of
--    every poller asking, the cap was always taken and an urgent caller (a name in pending delete around its
--    predicted drop) raced them for each freed slot: the bench showed names due at their drop waiting a whole
--    25 s run without a start. An urgent caller may now hold one reservation beyond the cap (where starts are
--    spaced from the previous end, so never one more request in flight): it waits for the starts already
--    reserved (at most `concurrency` of them), not for a race.
-- 2. schedule_pending_delete_check keeps the next check at least 5 s after the check (was 1 minute): the check
--    aimed a second after the predicted drop may now follow a check made less than a minute before the drop
--    (drop_schedule.ts); before, that check was pushed a minute past the drop.

drop function public.rate_limit_reserve(text, text, integer);

create function public.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer default null,
                                          p_urgent boolean default false)
returns table (
  granted boolean,
  token uuid,
  starts_at timestamptz,
  wait_ms integer,
  late_start_ms integer,
  reason text,
  paused_until timestamptz,
  retry_ms integer,
  consecutive_failures integer,
  db_now timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_rate double precision;
  v_interval interval;
  v_concurrency integer;
  v_max_wait interval;
  v_active integer;
  v_latest timestamptz;
  v_start timestamptz;
  v_token uuid;
begin
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_reserve: key must be 1-300 characters.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_reserve: unknown class.';
  end if;
  v_max_wait := make_interval(secs => least(greatest(coalesce(p_max_wait_ms, 3600000), 0), 3600000) / 1000.0);

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  select * into v_key from public.rate_limit_keys as k where k.class = p_class and k.key = p_key for update;
  v_rate := coalesce(v_key.rate_per_second, v_class.rate_per_second);
  v_interval := case when v_rate > 0 then make_interval(secs => 1.0 / v_rate) else interval '0' end;
  v_concurrency := coalesce(v_key.concurrency, v_class.concurrency);

  if v_key.paused_until > v_now
     and (v_key.paused_until - v_now > make_interval(secs => v_class.short_pause_ms / 1000.0)
          or v_key.paused_until > v_now + v_max_wait) then
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      v_key.pause_reason, v_key.paused_until, null::integer, v_key.consecutive_failures, v_now;
    return;
  end if;

  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.expires_at <= v_now;
  select count(*), max(s.starts_at) into v_active, v_latest
    from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key;

  -- An urgent caller (a name in pending delete around its predicted drop) may hold one reservation beyond
  -- the cap, so routine reservations never make it wait for a slot to free. Only where starts are spaced
  -- from the previous end: rate_limit_settle then starts one request of the key at a time, so the extra
  -- reservation deepens the queue by one start and never adds a request in flight.
  if v_active >= v_concurrency + (case when p_urgent and v_class.space_from_end then 1 else 0 end) then
    -- Once the latest reserved start has gone out, the request before it has (normally) finished and freed
    -- its slot; a new reservation would not start before then + 1 / rate anyway.
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      'busy'::text, null::timestamptz,
      least(1000, greatest(25, ceil(extract(epoch from (v_latest - v_now)) * 1000)::integer + 25)),
      v_key.consecutive_failures, v_now;
    return;
  end if;

  v_start := greatest(v_now + make_interval(secs => v_class.reserve_lead_ms / 1000.0),
                      v_key.next_start_at,
                      coalesce(v_key.paused_until, v_now),
                      v_key.last_started_at + v_interval,
                      case when v_class.space_from_end then v_key.last_finished_at + v_interval end);
  if v_start > v_now + v_max_wait then
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      'busy'::text, null::timestamptz, null::integer, v_key.consecutive_failures, v_now;
    return;
  end if;

  -- Not settled, a reservation lapses in_flight_wait_ms after its start (each "ask again" extends it): a
  -- caller that died before settling holds a slot of the in-flight cap for seconds, not a whole lease.
  insert into public.rate_limit_slots as s (class, key, starts_at, expires_at)
  values (p_class, p_key, v_start,
          v_start + make_interval(secs => least(v_class.slot_lease_ms, greatest(v_class.in_flight_wait_ms, 1000))
                                          / 1000.0))
  returning s.token into v_token;
  update public.rate_limit_keys as k
     set next_start_at = v_start + v_interval,
         last_started_at = v_start
   where k.class = p_class and k.key = p_key;

  return query select true, v_token, v_start, ceil(extract(epoch from (v_start - v_now)) * 1000)::integer,
    public.rate_limit_late_start_ms(v_class, v_rate), null::text, null::timestamptz,
    null::integer, v_key.consecutive_failures, v_now;
end
$$;

revoke all on function public.rate_limit_reserve(text, text, integer, boolean)
  from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_reserve(text, text, integer, boolean) to service_role;

create or replace function public.schedule_pending_delete_check(
  p_domain_name text,
  p_checked_at timestamptz,
  p_next_check_at timestamptz
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = least(greatest(p_next_check_at, p_checked_at + interval '5 seconds'),
                               p_checked_at + interval '1 day')
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at
$$;
