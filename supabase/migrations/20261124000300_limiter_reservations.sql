-- Start times reserved ahead (docs/rate-limits.md, "Reserved starts"). `rate_limit_acquire` spaces each start
-- from the previous request's END and confirms a waited slot just before sending: safe however late a caller
-- is, but every start costs the response time plus a database round trip (about half the politeness
-- ceiling on a loaded machine). `rate_limit_reserve` hands out start times exactly 1 / rate apart (GCRA, no
-- burst), a little ahead of now (`reserve_lead_ms`), so the answer is back before its start and the caller
-- sleeps locally until then: no second round trip, and the spacing between two starts no longer depends on
-- how long the database took to answer. What it relies on instead: a caller that wakes more than
-- `late_start_ms` after its start does not send (it releases the slot and reserves again), so two arrivals at
-- the host are at least 1 / rate − late_start_ms apart, less the jitter of sending; the class's rate keeps a
-- margin below the host's real limit for that (docs/rate-limits.md says how much).
--
-- The in-flight cap still holds: a reserved slot counts as in flight from its grant until its release (or
-- lease end), so at most `concurrency` requests are reserved or running per key. A pause (rate_limit_pause)
-- voids every slot whose start is still ahead, as before; a caller that does not confirm may still send one
-- already reserved, which is why reservations are never further ahead than (concurrency − 1) / rate plus
-- the lead.

alter table public.rate_limit_classes
  -- How far ahead of now a reservation starts at the earliest (the answer's way back to the caller).
  add column reserve_lead_ms integer not null default 100 check (reserve_lead_ms between 0 and 5000),
  -- A reserved start the caller would send later than this after its time is given up (released).
  add column late_start_ms integer not null default 25 check (late_start_ms between 0 and 1000);

-- ---------------------------------------------------------------------------------------------------
-- rate_limit_reserve: reserves the next start of (class, key), atomically, in one round trip.
--   granted: slot `token` starts at `starts_at` (`wait_ms` after the database's `db_now`); the caller sleeps
--     until then and sends at once, or releases the slot when it wakes more than `late_start_ms` late.
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
                      v_key.last_started_at + v_interval);
  if v_start > v_now + v_max_wait then
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      'busy'::text, null::timestamptz, null::integer, v_key.consecutive_failures, v_now;
    return;
  end if;

  insert into public.rate_limit_slots as s (class, key, starts_at, expires_at)
  values (p_class, p_key, v_start, v_start + make_interval(secs => v_class.slot_lease_ms / 1000.0))
  returning s.token into v_token;
  update public.rate_limit_keys as k
     set next_start_at = v_start + v_interval,
         last_started_at = v_start
   where k.class = p_class and k.key = p_key;

  return query select true, v_token, v_start, ceil(extract(epoch from (v_start - v_now)) * 1000)::integer,
    v_class.late_start_ms, null::text, null::timestamptz, null::integer, v_key.consecutive_failures, v_now;
end
$$;

revoke all on function public.rate_limit_reserve(text, text, integer) from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_reserve(text, text, integer) to service_role;
