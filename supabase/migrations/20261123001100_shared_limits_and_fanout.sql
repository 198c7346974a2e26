-- One rate limiter for the whole project, in the database, so every isolate of every function shares it
-- (docs/rate-limits.md describes the interface). A limiter is a (class, key) pair: the class holds the
-- parameters (request starts per second, requests in flight, short-pause threshold, failure back-off), the
-- key is what is limited (an RDAP host `host:port`; later a Telegram bot, ...). A key may override its
-- class's rate and concurrency. The state of each key (next allowed start, pause, consecutive failures)
-- and its in-flight slots are rows here, changed only by the functions below, each atomic (the key's row
-- is locked), each one round trip.

create table public.rate_limit_classes (
  class text primary key check (class ~ '^[a-z][a-z0-9_]{0,62}$'),
  -- Request starts per second per key; 0 turns the spacing off.
  rate_per_second double precision not null check (rate_per_second >= 0 and rate_per_second <= 10000),
  -- Requests in flight per key (a slot is held from the grant until release, or until it expires).
  concurrency integer not null check (concurrency between 1 and 1000),
  -- A pause up to this long is waited out by a caller whose budget allows it; a longer one refuses at once.
  short_pause_ms integer not null default 5000 check (short_pause_ms between 0 and 3600000),
  -- From this many consecutive failures on, the key is backed off: base doubling, capped.
  failure_threshold integer not null default 3 check (failure_threshold between 1 and 1000),
  backoff_base_ms integer not null default 15000 check (backoff_base_ms between 0 and 86400000),
  backoff_cap_ms integer not null default 900000 check (backoff_cap_ms between 0 and 86400000),
  -- An in-flight slot not released by then is freed (a crashed isolate cannot hold a key forever).
  slot_lease_ms integer not null default 30000 check (slot_lease_ms between 1000 and 3600000),
  -- Longest pause a caller may set (a wrong Retry-After must not silence a key for days).
  max_pause_ms integer not null default 3600000 check (max_pause_ms between 0 and 604800000),
  -- Also space each start 1 / rate after the previous request's END (its release). The database only sees
  -- decisions, not arrivals: a caller slowed between its go and its send could otherwise land closer than
  -- 1 / rate to the next one. A released request has arrived, so this spacing holds whatever the callers'
  -- delays (for responses faster than 1 / rate; a slower one is spaced from its start only).
  space_from_end boolean not null default true,
  -- With space_from_end: while another request of the key that started less than this long ago is still in
  -- flight, the next one waits for its end (a crashed caller's request stops counting after this).
  in_flight_wait_ms integer not null default 2000 check (in_flight_wait_ms between 0 and 60000)
);

comment on table public.rate_limit_classes is
  'Parameters of each shared rate limiter class (docs/rate-limits.md). Edited by the operator in SQL.';

insert into public.rate_limit_classes (class, rate_per_second, concurrency)
values ('rdap_host', 1, 2);

create table public.rate_limit_keys (
  class text not null references public.rate_limit_classes (class) on delete cascade,
  key text not null check (char_length(key) between 1 and 300),
  -- Per-key overrides of the class's rate and concurrency (null: the class's).
  rate_per_second double precision check (rate_per_second >= 0 and rate_per_second <= 10000),
  concurrency integer check (concurrency between 1 and 1000),
  -- The earliest start the next grant may be given (grants reserve starts 1 / rate apart).
  next_start_at timestamptz not null default '-infinity',
  -- When the last request actually started (a grant without wait, or a confirm): starts are never closer
  -- than 1 / rate even when a waiting caller wakes late and the next one on time.
  last_started_at timestamptz,
  -- When the last started request was released (space_from_end).
  last_finished_at timestamptz,
  paused_until timestamptz,
  pause_reason text check (pause_reason in ('rate_limited', 'backoff')),
  -- When the pause was last set: slots reserved before it and not started yet are void.
  paused_at timestamptz,
  consecutive_failures integer not null default 0,
  primary key (class, key)
);

comment on table public.rate_limit_keys is
  'State of each shared rate limiter key (next start, pause, failures) and optional per-key overrides.';

create table public.rate_limit_slots (
  token uuid primary key default gen_random_uuid(),
  class text not null,
  key text not null,
  starts_at timestamptz not null,
  -- Set when the request actually starts (granted without wait, or confirmed).
  started_at timestamptz,
  expires_at timestamptz not null,
  foreign key (class, key) references public.rate_limit_keys (class, key) on delete cascade
);

comment on table public.rate_limit_slots is
  'In-flight (or about to start) requests of each shared rate limiter key; freed on release or expiry.';

create index rate_limit_slots_key_idx on public.rate_limit_slots (class, key, expires_at);

alter table public.rate_limit_classes enable row level security;
alter table public.rate_limit_keys enable row level security;
alter table public.rate_limit_slots enable row level security;
revoke all on table public.rate_limit_classes, public.rate_limit_keys, public.rate_limit_slots
  from public, anon, authenticated, service_role;
grant select, insert, update, delete on table public.rate_limit_classes, public.rate_limit_keys
  to service_role;
grant select on table public.rate_limit_slots to service_role;

-- ---------------------------------------------------------------------------------------------------
-- rate_limit_acquire: decides one request start for (class, key), atomically.
--   granted: a slot is held (token); start in wait_ms (0 = now). When wait_ms > 0 the caller may confirm
--     the slot just before starting (rate_limit_confirm) to learn whether a pause voided it meanwhile.
--   refused 'paused': the key is paused until `until` (reason rate_limited or backoff) beyond the short-
--     pause threshold or the caller's budget; a shorter pause within the budget schedules the start after it.
--   refused 'busy' with retry_ms: all slots are held; try again in retry_ms.
--   refused 'busy' without retry_ms: the start would be later than p_max_wait_ms from now.
-- p_max_wait_ms null: no bound (capped at one hour).
-- ---------------------------------------------------------------------------------------------------
create function public.rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer default null)
returns table (
  granted boolean,
  token uuid,
  wait_ms integer,
  reason text,
  paused_until timestamptz,
  retry_ms integer,
  consecutive_failures integer
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
  v_concurrency integer;
  v_max_wait interval;
  v_active integer;
  v_earliest timestamptz;
  v_start timestamptz;
  v_token uuid;
begin
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_acquire: key must be 1-300 characters.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_acquire: unknown class.';
  end if;
  v_max_wait := make_interval(secs => least(greatest(coalesce(p_max_wait_ms, 3600000), 0), 3600000) / 1000.0);

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  select * into v_key from public.rate_limit_keys as k where k.class = p_class and k.key = p_key for update;
  v_rate := coalesce(v_key.rate_per_second, v_class.rate_per_second);
  v_concurrency := coalesce(v_key.concurrency, v_class.concurrency);

  if v_key.paused_until > v_now
     and (v_key.paused_until - v_now > make_interval(secs => v_class.short_pause_ms / 1000.0)
          or v_key.paused_until > v_now + v_max_wait) then
    return query select false, null::uuid, null::integer, v_key.pause_reason, v_key.paused_until, null::integer,
      v_key.consecutive_failures;
    return;
  end if;

  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.expires_at <= v_now;
  select count(*), min(s.starts_at) into v_active, v_earliest
    from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key;

  if v_active >= v_concurrency then
    -- A slot frees once its request (started, or starting at v_earliest) is done; a grant then starts no
    -- earlier than next_start_at. Look again in about a share of that time (the callers spread themselves).
    return query select false, null::uuid, null::integer, 'busy'::text, null::timestamptz,
      least(1000, greatest(25, ceil(greatest(extract(epoch from (v_earliest - v_now)),
                                             extract(epoch from (v_key.next_start_at - v_now)) / v_concurrency)
                                    * 1000)::integer + 25)),
      v_key.consecutive_failures;
    return;
  end if;

  v_start := greatest(v_now, v_key.next_start_at, coalesce(v_key.paused_until, v_now),
                      case when v_rate > 0 then v_key.last_started_at + make_interval(secs => 1.0 / v_rate) end);
  if v_class.space_from_end then
    v_start := greatest(v_start,
                        case when v_rate > 0 then v_key.last_finished_at + make_interval(secs => 1.0 / v_rate) end);
    if exists (select 1 from public.rate_limit_slots as s
                where s.class = p_class and s.key = p_key
                  and s.started_at > v_now - make_interval(secs => v_class.in_flight_wait_ms / 1000.0)) then
      -- A recent request is in flight: this one confirms (and waits for its end) before starting.
      v_start := greatest(v_start, v_now + interval '1 millisecond');
    end if;
  end if;
  if v_start > v_now + v_max_wait then
    return query select false, null::uuid, null::integer, 'busy'::text, null::timestamptz, null::integer,
      v_key.consecutive_failures;
    return;
  end if;

  insert into public.rate_limit_slots as s (class, key, starts_at, started_at, expires_at)
  values (p_class, p_key, v_start, case when v_start = v_now then v_now end,
          v_start + make_interval(secs => v_class.slot_lease_ms / 1000.0))
  returning s.token into v_token;
  update public.rate_limit_keys as k
     set next_start_at = case when v_rate > 0 then v_start + make_interval(secs => 1.0 / v_rate)
                              else v_start end,
         last_started_at = case when v_start = v_now then v_now else k.last_started_at end
   where k.class = p_class and k.key = p_key;

  return query select true, v_token, ceil(extract(epoch from (v_start - v_now)) * 1000)::integer,
    null::text, null::timestamptz, null::integer, v_key.consecutive_failures;
end
$$;

-- The start gate of a slot granted with a wait, called just before the request: 0 = start now (recorded as
-- the key's last start); n > 0 = wait n ms more and confirm again (the previous start was later than
-- planned); -1 = the slot is void (a pause since the grant, expiry or release): ask rate_limit_acquire
-- again.
create function public.rate_limit_confirm(p_token uuid)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
  v_rate double precision;
  v_last timestamptz;
  v_finished timestamptz;
  v_from_end boolean;
  v_in_flight_wait_ms integer;
  v_next timestamptz;
begin
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token and s.expires_at > v_now;
  if not found then
    return -1;
  end if;
  select coalesce(k.rate_per_second, c.rate_per_second), k.last_started_at, k.last_finished_at, c.space_from_end,
         c.in_flight_wait_ms
    into v_rate, v_last, v_finished, v_from_end, v_in_flight_wait_ms
    from public.rate_limit_keys as k
    join public.rate_limit_classes as c on c.class = k.class
   where k.class = v_slot.class and k.key = v_slot.key
     for update of k;
  -- A pause may have voided the slot while this caller waited for the key's lock.
  if not exists (select 1 from public.rate_limit_slots as s where s.token = p_token) then
    return -1;
  end if;
  if v_from_end and exists (select 1 from public.rate_limit_slots as s
                             where s.class = v_slot.class and s.key = v_slot.key and s.token <> p_token
                               and s.started_at > v_now - make_interval(secs => v_in_flight_wait_ms / 1000.0)) then
    return 25;  -- a recent request is still in flight: look again shortly
  end if;
  v_next := greatest(v_slot.starts_at,
                     case when v_rate > 0 then v_last + make_interval(secs => 1.0 / v_rate) end,
                     case when v_rate > 0 and v_from_end then v_finished + make_interval(secs => 1.0 / v_rate) end);
  if v_next > v_now then
    return greatest(1, ceil(extract(epoch from (v_next - v_now)) * 1000)::integer);
  end if;
  update public.rate_limit_slots as s set started_at = v_now where s.token = p_token;
  update public.rate_limit_keys as k set last_started_at = v_now
   where k.class = v_slot.class and k.key = v_slot.key;
  return 0;
end
$$;

-- Frees a slot (the request finished, or was never sent); a started one records the key's last finish.
-- Unknown tokens are ignored.
create function public.rate_limit_release(p_token uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_slot public.rate_limit_slots%rowtype;
begin
  delete from public.rate_limit_slots as s where s.token = p_token returning * into v_slot;
  if found and v_slot.started_at is not null then
    update public.rate_limit_keys as k
       set last_finished_at = greatest(k.last_finished_at, clock_timestamp())
     where k.class = v_slot.class and k.key = v_slot.key;
  end if;
end
$$;

-- Pauses the key until p_until (at most the class's max_pause_ms from now; an earlier pause never shortens
-- a later one), and voids every slot reserved but not started yet. Returns the key's pause end.
create function public.rate_limit_pause(p_class text, p_key text, p_until timestamptz, p_reason text default 'rate_limited')
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
  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.starts_at > v_now;
  return (select k.paused_until from public.rate_limit_keys as k where k.class = p_class and k.key = p_key);
end
$$;

-- Reports how a request went. Success resets the failure count; a failure counts, and from the class's
-- failure_threshold consecutive failures on backs the key off (base doubling per further failure, capped)
-- the way rate_limit_pause does. Returns the key's pause end (null when not paused).
create function public.rate_limit_report(p_class text, p_key text, p_succeeded boolean)
returns timestamptz
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_class public.rate_limit_classes%rowtype;
  v_failures integer;
  v_beyond integer;
  v_until timestamptz;
begin
  if p_succeeded is null then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: succeeded is required.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: unknown class.';
  end if;
  if p_succeeded then
    update public.rate_limit_keys as k set consecutive_failures = 0
     where k.class = p_class and k.key = p_key and k.consecutive_failures <> 0;
    return (select k.paused_until from public.rate_limit_keys as k
             where k.class = p_class and k.key = p_key and k.paused_until > v_now);
  end if;

  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: key must be 1-300 characters.';
  end if;
  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  update public.rate_limit_keys as k set consecutive_failures = k.consecutive_failures + 1
   where k.class = p_class and k.key = p_key
  returning k.consecutive_failures into v_failures;
  v_beyond := v_failures - v_class.failure_threshold;
  if v_beyond >= 0 then
    return public.rate_limit_pause(
      p_class, p_key,
      v_now + make_interval(secs => least(v_class.backoff_base_ms * power(2, least(v_beyond, 30)),
                                          v_class.backoff_cap_ms) / 1000.0),
      'backoff');
  end if;
  return (select k.paused_until from public.rate_limit_keys as k
           where k.class = p_class and k.key = p_key and k.paused_until > v_now);
end
$$;

revoke all on function public.rate_limit_acquire(text, text, integer) from public, anon, authenticated, service_role;
revoke all on function public.rate_limit_confirm(uuid) from public, anon, authenticated, service_role;
revoke all on function public.rate_limit_release(uuid) from public, anon, authenticated, service_role;
revoke all on function public.rate_limit_pause(text, text, timestamptz, text)
  from public, anon, authenticated, service_role;
revoke all on function public.rate_limit_report(text, text, boolean) from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_acquire(text, text, integer) to service_role;
grant execute on function public.rate_limit_confirm(uuid) to service_role;
grant execute on function public.rate_limit_release(uuid) to service_role;
grant execute on function public.rate_limit_pause(text, text, timestamptz, text) to service_role;
grant execute on function public.rate_limit_report(text, text, boolean) to service_role;

-- ===================================================================================================
-- Poller fan-out: the minute's pg_cron tick starts as many rdap-poller invocations as the due backlog
-- needs (one per `checks_per_invocation` due names, at least one, at most `max_invocations`). Each
-- invocation claims with FOR UPDATE SKIP LOCKED and a lease (claim_due_domains), so parallel runs never
-- check a name twice.
-- ===================================================================================================
create table public.poller_settings (
  id boolean primary key default true check (id),
  -- Names one invocation checks at most: keep equal to the function's POLLER_MAX_CHECKS_PER_RUN.
  checks_per_invocation integer not null default 1000 check (checks_per_invocation between 1 and 100000),
  -- Invocations one tick starts at most (the fan-out cap).
  max_invocations integer not null default 8 check (max_invocations between 1 and 100)
);

comment on table public.poller_settings is
  'The poller fan-out (one row): names per invocation and the cap on invocations per pg_cron tick.';

insert into public.poller_settings default values;

alter table public.poller_settings enable row level security;
revoke all on table public.poller_settings from public, anon, authenticated, service_role;
grant select, update on table public.poller_settings to service_role;

-- How many poller invocations this tick should start: ceil(due backlog / checks_per_invocation), at least
-- 1, at most max_invocations. The backlog counts due, unleased, watched names (counting stops at the cap).
create function public.poller_invocations_needed()
returns integer
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_settings public.poller_settings%rowtype;
  v_due bigint;
begin
  select * into v_settings from public.poller_settings where id;
  select count(*) into v_due
    from (
      select 1
        from public.domains as d
       where d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       limit v_settings.checks_per_invocation::bigint * v_settings.max_invocations
    ) as due;
  return least(v_settings.max_invocations,
               greatest(1, ceil(v_due::numeric / v_settings.checks_per_invocation)::integer));
end
$$;

revoke all on function public.poller_invocations_needed() from public, anon, authenticated, service_role;
grant execute on function public.poller_invocations_needed() to service_role;

-- Redefined (was 20261122001000_poller_schedule.sql): starts poller_invocations_needed() requests instead
-- of one. Returns the first pg_net request id, or null (and does nothing) while a Vault secret is missing.
create or replace function public.invoke_rdap_poller()
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_project_url text;
  v_secret text;
  v_count integer;
  v_first bigint;
  v_id bigint;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  v_count := public.poller_invocations_needed();
  for i in 1 .. v_count loop
    v_id := net.http_post(
      url := rtrim(v_project_url, '/') || '/functions/v1/rdap-poller',
      headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
      body := '{}'::jsonb,
      timeout_milliseconds := 60000
    );
    v_first := coalesce(v_first, v_id);
  end loop;
  return v_first;
end
$$;

comment on function public.invoke_rdap_poller() is
  'Called every minute by the pg_cron job rdap-poller: POSTs poller_invocations_needed() times to '
  '<project_url>/functions/v1/rdap-poller with the Vault secret poller_secret as bearer token. Returns the '
  'first pg_net request id; null (nothing sent) while a secret is missing.';

revoke all on function public.invoke_rdap_poller() from public, anon, authenticated, service_role;

-- ===================================================================================================
-- Redefined (was 20261122000920_poller_queues.sql): names in pending delete are claimed first, so a
-- backlog of other names never delays the checks around a predicted drop. Same signature, same lease and
-- SKIP LOCKED rules.
-- ===================================================================================================
create index domains_pending_delete_next_check_idx on public.domains (next_check_at)
  where status = 'pending_delete';

create or replace function public.claim_due_domains(p_limit integer, p_lease_seconds integer)
returns table (
  domain_name text,
  status text,
  expires_at timestamptz,
  registrar text,
  last_checked_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_names text[];
  v_more text[];
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: lease must be 1-3600 s.';
  end if;

  select coalesce(array_agg(due.name), '{}') into v_names
    from (
      select d.name
        from public.domains as d
       where d.status = 'pending_delete'
         and d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       order by d.next_check_at
       limit p_limit
         for update of d skip locked
    ) as due;

  if cardinality(v_names) < p_limit then
    select coalesce(array_agg(due.name), '{}') into v_more
      from (
        select d.name
          from public.domains as d
         where d.next_check_at <= now()
           and (d.lease_until is null or d.lease_until <= now())
           and d.name <> all (v_names)
           and exists (
             select 1 from public.watchlist_entries as e
              where e.domain_name = d.name and e.deleted_at is null
           )
         order by d.next_check_at
         limit p_limit - cardinality(v_names)
           for update of d skip locked
      ) as due;
    v_names := v_names || v_more;
  end if;

  return query
    with claimed as (
      update public.domains as d
         set lease_until = now() + make_interval(secs => p_lease_seconds)
       where d.name = any (v_names)
      returning d.name, d.status, d.expires_at, d.registrar, d.last_checked_at, d.next_check_at
    )
    select c.name::text, c.status, c.expires_at, c.registrar, c.last_checked_at
      from claimed as c
     order by c.status <> 'pending_delete', c.next_check_at, c.name;
end
$$;

revoke all on function public.claim_due_domains(integer, integer) from public, anon, authenticated, service_role;
grant execute on function public.claim_due_domains(integer, integer) to service_role;
