-- Start times reserved ahead (docs/rate-limits.md, "Reserved starts"). With `rate_limit_acquire` every start
-- cost the previous response time plus database round trips on its critical path (the confirm polled while
-- the previous request was in flight, the release recorded the end when it reached the database, and the
-- go travelled back before the send): about half the politeness ceiling on a loaded machine.
--
-- Here a caller makes three calls, none of them timing its send:
--   1. rate_limit_reserve: the next start of the key, 1 / rate after the previous reservation (GCRA, no
--      burst) and a lead ahead of now, within the in-flight cap (a reserved slot counts as in flight);
--   2. rate_limit_settle, shortly before that start: the final start, on the database's clock — with the
--      class's `space_from_end`, 1 / rate after the END of the request before it (so it is asked once that
--      request has been released; until then: ask again in n ms);
--   3. rate_limit_release_at, after the answer: frees the slot and records the end as the caller saw it.
-- The caller sleeps locally until the settled start and sends. Spaced from the previous end, two arrivals
-- at the host are at least 1 / rate apart whatever the callers' delays (a request has arrived before its
-- answer came back), so the class's rate needs no margin for scheduling jitter, only for the error of the
-- caller's estimate of the database's clock (at most half its shortest round trip). Without
-- `space_from_end`, settle returns the reserved start, and a caller that would send more than
-- `late_start_ms` after it releases the slot and reserves again instead.

alter table public.rate_limit_classes
  -- How far ahead of now a reservation starts at the earliest (the answer's way back to the caller).
  add column reserve_lead_ms integer not null default 100 check (reserve_lead_ms between 0 and 5000),
  -- Without space_from_end: a reserved start the caller would send later than this after its time is given
  -- up (released), so two starts are at least 1 / rate − late_start_ms apart.
  add column late_start_ms integer not null default 25 check (late_start_ms between 0 and 1000);

-- With space_from_end, a request of the key that has not been released holds the next start back only for
-- in_flight_wait_ms after its planned start (a crashed caller's request stops counting then): a caller that
-- sends very late could be overtaken. So it must not send more than in_flight_wait_ms − 2 / rate after its
-- start (the next start then still comes at least 2 / rate after it, 1 / rate for the send's own delays).
-- Without space_from_end: the class's late_start_ms.
create function public.rate_limit_late_start_ms(p_class public.rate_limit_classes, p_rate double precision)
returns integer
language sql
immutable
set search_path = ''
as $$
  select case when not p_class.space_from_end then p_class.late_start_ms
              else greatest(0, p_class.in_flight_wait_ms
                               - case when p_rate > 0 then ceil(2000 / p_rate)::integer else 0 end) end
$$;
revoke all on function public.rate_limit_late_start_ms(public.rate_limit_classes, double precision)
  from public, anon, authenticated, service_role;

-- rate_limit_pause, redefined: a pause voids the starts still ahead that have not been settled. A settled
-- one stays (its caller sleeps until it and sends without asking again, so at most one request per key can
-- still go out after a pause), and keeps holding the next start back until it is released: voiding it would
-- let the next caller start at once, while the void one is being sent.
create or replace function public.rate_limit_pause(p_class text, p_key text, p_until timestamptz,
                                                   p_reason text default 'rate_limited')
returns timestamptz
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_max_pause_ms integer;
  v_until timestamptz;
begin
  if p_reason is null or p_reason not in ('rate_limited', 'backoff') then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: reason must be rate_limited or backoff.';
  end if;
  if p_until is null then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: until is required.';
  end if;
  select c.max_pause_ms into v_max_pause_ms from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: unknown class.';
  end if;
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: key must be 1-300 characters.';
  end if;
  v_until := least(p_until, v_now + make_interval(secs => v_max_pause_ms / 1000.0));

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  update public.rate_limit_keys as k
     set paused_until = v_until,
         pause_reason = p_reason,
         paused_at = v_now
   where k.class = p_class and k.key = p_key
     and (k.paused_until is null or k.paused_until < v_until);
  -- Reserved (rate_limit_reserve) and not settled, or granted by rate_limit_acquire and not confirmed: both
  -- still have no started_at.
  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.starts_at > v_now and s.started_at is null;
  return (select k.paused_until from public.rate_limit_keys as k where k.class = p_class and k.key = p_key);
end
$$;

-- RDAP hosts: a request unreleased 5 s after its start stops holding the next one (was 2 s): with 1 s between
-- starts, a caller may then send up to ~3 s late (a starved isolate) without being overtaken.
update public.rate_limit_classes set in_flight_wait_ms = 5000 where class = 'rdap_host';

-- ---------------------------------------------------------------------------------------------------
-- rate_limit_reserve: reserves the next start of (class, key), atomically, in one round trip.
--   granted: slot `token` starts at `starts_at` at the earliest (`wait_ms` after the database's `db_now`); the
--     caller settles it shortly before (rate_limit_settle), and does not send more than `late_start_ms`
--     after the settled start (rate_limit_late_start_ms).
--   refused 'rate_limited' / 'backoff': as rate_limit_acquire (a short pause within budget is waited out).
--   refused 'busy' with retry_ms: `concurrency` slots are reserved or in flight; ask again then.
--   refused 'busy' without retry_ms: the start would be later than p_max_wait_ms from now.
-- ---------------------------------------------------------------------------------------------------
create function public.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer default null)
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

  if v_active >= v_concurrency then
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

revoke all on function public.rate_limit_reserve(text, text, integer) from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_reserve(text, text, integer) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- rate_limit_settle: the final start of a reserved slot, asked shortly before its reserved start.
--   start_at set: send at start_at (database clock); the slot is in flight from then on.
--   start_at null, retry_ms set: another request of the key is (about to be) in flight: ask again then.
--   both null: the slot is void (a pause since the reservation, its expiry or release): reserve again.
-- A paused key voids the slot. With space_from_end, start_at is 1 / rate after the previous request's
-- recorded end (or now, if later), whatever the reserved time (a start given up leaves no hole); a request
-- started more than in_flight_wait_ms ago and still not released stops holding the next one (a crashed
-- caller's request, or a very slow answer: the in-flight cap still bounds the overlap).
-- ---------------------------------------------------------------------------------------------------
create function public.rate_limit_settle(p_token uuid)
returns table (start_at timestamptz, retry_ms integer, db_now timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_interval interval;
  v_other timestamptz;
  v_start timestamptz;
begin
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token and s.expires_at > v_now;
  if not found then
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  select * into v_key from public.rate_limit_keys as k
   where k.class = v_slot.class and k.key = v_slot.key for update;
  select * into v_class from public.rate_limit_classes as c where c.class = v_slot.class;
  -- A pause may have voided the slot while this caller waited for the key's lock.
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token;
  if not found then
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  v_interval := case when coalesce(v_key.rate_per_second, v_class.rate_per_second) > 0
                     then make_interval(secs => 1.0 / coalesce(v_key.rate_per_second, v_class.rate_per_second))
                     else interval '0' end;

  if v_class.space_from_end then
    -- The latest other request of the key that is settled (in flight, or about to start) and recent.
    select max(s.started_at) into v_other
      from public.rate_limit_slots as s
     where s.class = v_slot.class and s.key = v_slot.key and s.token <> p_token
       and s.started_at > v_now - make_interval(secs => v_class.in_flight_wait_ms / 1000.0);
    if v_other is not null then
      update public.rate_limit_slots as s
         set expires_at = greatest(s.expires_at,
                                   v_now + make_interval(secs => greatest(v_class.in_flight_wait_ms, 1000) / 1000.0))
       where s.token = p_token;
      return query select null::timestamptz,
        least(1000, greatest(25, ceil(extract(epoch from (v_other - v_now)) * 1000)::integer + 50)), v_now;
      return;
    end if;
  end if;

  -- A pause set since the reservation (its starts still ahead were voided then; this one's had passed).
  if v_key.paused_until > v_now then
    delete from public.rate_limit_slots as s where s.token = p_token;
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  -- Spaced from the previous end, the reserved time is only when to ask: a start given up before this one
  -- leaves no hole. Spaced from starts only, the reserved time stands.
  v_start := case when v_class.space_from_end
                  then greatest(v_now, v_key.last_finished_at + v_interval)
                  else v_slot.starts_at end;
  update public.rate_limit_slots as s
     set starts_at = v_start, started_at = v_start,
         expires_at = greatest(s.expires_at, v_start + make_interval(secs => v_class.slot_lease_ms / 1000.0))
   where s.token = p_token;
  update public.rate_limit_keys as k
     set next_start_at = greatest(k.next_start_at, v_start + v_interval),
         last_started_at = greatest(k.last_started_at, v_start)
   where k.class = v_slot.class and k.key = v_slot.key;
  return query select v_start, null::integer, v_now;
end
$$;

-- Frees a slot (the answer came back, or the request was never sent). A slot that had started records the
-- key's last end: `p_finished_at` as the caller saw it (on the database's clock), never before the slot's
-- start nor after now. Unknown tokens are ignored.
create function public.rate_limit_release_at(p_token uuid, p_finished_at timestamptz)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
begin
  delete from public.rate_limit_slots as s where s.token = p_token returning * into v_slot;
  if found and v_slot.started_at is not null and v_slot.started_at <= v_now then
    update public.rate_limit_keys as k
       set last_finished_at = greatest(k.last_finished_at,
                                       least(greatest(coalesce(p_finished_at, v_now), v_slot.started_at), v_now))
     where k.class = v_slot.class and k.key = v_slot.key;
  end if;
end
$$;

revoke all on function public.rate_limit_settle(uuid) from public, anon, authenticated, service_role;
revoke all on function public.rate_limit_release_at(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_settle(uuid) to service_role;
grant execute on function public.rate_limit_release_at(uuid, timestamptz) to service_role;
