-- The poller's work queues (service_role): due domains and due deliveries are claimed with
-- FOR UPDATE SKIP LOCKED plus a lease, so parallel or crashed pollers never double-check a name nor lose
-- one; and the functions that record what a run did. The alert sender decides retries
-- (supabase/functions/_shared/alerts/retry_schedule.ts).

-- ---------------------------------------------------------------------------------------------------
-- Poller: claim due domains. Only names with at least one active watcher; each row once (SKIP LOCKED
-- while claims overlap, then the lease until the check is recorded or deferred). A crashed poller's names
-- come back when the lease ends.
-- ---------------------------------------------------------------------------------------------------
create function public.claim_due_domains(p_limit integer, p_lease_seconds integer)
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
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: lease must be 1-3600 s.';
  end if;

  return query
    with due as (
      select d.name
        from public.domains as d
       where d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       order by d.next_check_at
       limit p_limit
         for update of d skip locked
    ),
    claimed as (
      update public.domains as d
         set lease_until = now() + make_interval(secs => p_lease_seconds)
        from due
       where d.name = due.name
      returning d.name, d.status, d.expires_at, d.registrar, d.last_checked_at, d.next_check_at
    )
    select c.name::text, c.status, c.expires_at, c.registrar, c.last_checked_at
      from claimed as c
     order by c.next_check_at, c.name;
end
$$;

-- Releases a claimed name without recording a check (the registry was not asked: its host is paused or
-- the run's time is up), or pushes a recorded name's next check back (a 429's Retry-After).
create function public.defer_domain_check(p_domain_name text, p_not_before timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = greatest(d.next_check_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.name = p_domain_name
$$;

-- The denser schedule of a name in pending delete around its predicted drop (computed by the poller from
-- the RDAP dates). Applies only to the check recorded at p_checked_at, and only while still pending
-- delete; the next check stays within 1 minute and 1 day of that check.
create function public.schedule_pending_delete_check(
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
     set next_check_at = least(greatest(p_next_check_at, p_checked_at + interval '1 minute'),
                               p_checked_at + interval '1 day')
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at
$$;

revoke all on function public.claim_due_domains(integer, integer) from public, anon, authenticated, service_role;
revoke all on function public.defer_domain_check(text, timestamptz) from public, anon, authenticated, service_role;
revoke all on function public.schedule_pending_delete_check(text, timestamptz, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.claim_due_domains(integer, integer) to service_role;
grant execute on function public.defer_domain_check(text, timestamptz) to service_role;
grant execute on function public.schedule_pending_delete_check(text, timestamptz, timestamptz) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Dispatcher: claim due deliveries with what is needed to send them (secrets and chat IDs included:
-- service_role only), then record each attempt.
-- ---------------------------------------------------------------------------------------------------
create function public.claim_alert_deliveries(p_limit integer, p_lease_seconds integer)
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

-- Writes one attempt into the history and the delivery's summary columns.
create function public.record_alert_delivery_attempt(
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
end
$$;

create function public.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.record_alert_delivery_attempt(p_delivery_id, 'delivered', p_http_status, null, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'delivered', delivered_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- A failed (or rate-limited) attempt; the delivery stays pending until p_next_attempt_at.
create function public.schedule_alert_delivery_retry(
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
  perform public.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set next_attempt_at = p_next_attempt_at
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- The last attempt: the delivery is failed for good (and kept for inspection).
create function public.fail_alert_delivery(
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
  perform public.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'failed', failed_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- Gives a claimed delivery back without an attempt (Telegram paused, or the run's time is up).
create function public.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.alert_deliveries as d
     set next_attempt_at = greatest(d.next_attempt_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.id = p_delivery_id and d.status = 'pending'
$$;

revoke all on function public.claim_alert_deliveries(integer, integer) from public, anon, authenticated, service_role;
revoke all on function public.record_alert_delivery_attempt(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.mark_alert_delivery_delivered(uuid, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  from public, anon, authenticated, service_role;
revoke all on function public.fail_alert_delivery(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.defer_alert_delivery(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.claim_alert_deliveries(integer, integer) to service_role;
grant execute on function public.mark_alert_delivery_delivered(uuid, integer, integer) to service_role;
grant execute on function public.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  to service_role;
grant execute on function public.fail_alert_delivery(uuid, text, integer, text, integer) to service_role;
grant execute on function public.defer_alert_delivery(uuid, timestamptz) to service_role;
