-- Delivery log and redelivery for the app (issue 15). docs/webhooks.md, "Delivery log and redelivery".
--
--   * list_webhook_deliveries(endpoint, limit, cursor): an endpoint's deliveries, newest first (keyset
--     pages of at most 100), each with its attempts (outcome, HTTP status, duration, time, error). Never a
--     URL, a secret or a chat ID.
--   * redeliver_webhook_delivery(delivery): queues one finished (delivered or failed) webhook delivery
--     again under the same id (X-Service-Delivery / webhook-id), like GitHub's "Redeliver": the same
--     event, so the same body; a fresh webhook-timestamp and the endpoint's current secret(s) at send time;
--     through the normal queue (lanes, fairness, breaker) and woken at once. One attempt, no retries.
--   * Both: only the account that owns the webhook (anything else is DW404, like a delivery that does not
--     exist); rate-limited per account with session_action_limits / consume_session_request.
--
-- Errors: DW400 bad input, DW401 not signed in, DWUPG plan without webhooks (redelivery only), DW404 not
-- found, DW409 not redeliverable now (still pending or in flight, webhook switched off, too old), DW429
-- rate limited (DETAIL: {"retry_after_seconds", "reset_at"}).

-- ---------------------------------------------------------------------------------------------------
-- Limits (operator data; callers never choose them)
-- ---------------------------------------------------------------------------------------------------
insert into public.session_action_limits (action, max_requests, window_length)
values ('webhook-delivery-log', 60, interval '1 minute'), ('webhook-redelivery', 10, interval '10 minutes')
on conflict (action) do nothing;

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
create function public.finish_failed_redelivery()
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

revoke all on function public.finish_failed_redelivery() from public, anon, authenticated, service_role;

create trigger alert_deliveries_finish_failed_redelivery
  before update of next_attempt_at on public.alert_deliveries
  for each row
  when (new.redelivered_at is not null)
  execute function public.finish_failed_redelivery();

-- ---------------------------------------------------------------------------------------------------
-- Waking a delivery run: one rule (at most one wake-up per second, never waiting, never failing the
-- caller), used by the insert trigger and by redelivery. wake_alert_delivery() is redefined from
-- 20261123001900 to call it (same behaviour).
-- ---------------------------------------------------------------------------------------------------
create function public.nudge_alert_delivery()
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
      perform public.invoke_alert_delivery();
    exception when others then
      raise warning 'wake_alert_delivery: %', sqlerrm;
    end;
  end if;
end
$$;

revoke all on function public.nudge_alert_delivery() from public, anon, authenticated, service_role;

create or replace function public.wake_alert_delivery()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.nudge_alert_delivery();
  return null;
end
$$;

revoke all on function public.wake_alert_delivery() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- The rate limit of an app action: consumes one request of the account, or raises DW429 with the wait.
-- Called after the ownership check, so a call about someone else's (or no) webhook never counts; a call
-- that fails later rolls back with its transaction and does not count either.
-- ---------------------------------------------------------------------------------------------------
create function public.require_session_request(p_user_id uuid, p_action text, p_what text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_limit record;
  v_wait integer;
begin
  select * into v_limit from public.consume_session_request(p_user_id, p_action);
  if not v_limit.allowed then
    v_wait := greatest(1, ceil(extract(epoch from v_limit.reset_at - now()))::integer);
    raise exception using
      errcode = 'DW429',
      message = format('DW429: At most %s %s per %s seconds; try again in %s s.',
                       v_limit.request_limit, p_what, v_limit.window_seconds, v_wait),
      detail = jsonb_build_object('retry_after_seconds', v_wait, 'reset_at', v_limit.reset_at)::text;
  end if;
end
$$;

revoke all on function public.require_session_request(uuid, text, text) from public, anon, authenticated, service_role;

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
  perform public.require_session_request(v_uid, 'webhook-delivery-log', 'delivery log requests');

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
  if p_delivery_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the delivery (p_delivery_id).';
  end if;
  -- Plan check; also locks the profile row, so one account's redeliveries are serialised.
  perform public.require_webhook_plan(v_uid);

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

  perform public.require_session_request(v_uid, 'webhook-redelivery', 'redeliveries');

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

  perform public.nudge_alert_delivery();

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

revoke all on function public.list_webhook_deliveries(uuid, integer, text) from public, anon, authenticated, service_role;
revoke all on function public.redeliver_webhook_delivery(uuid) from public, anon, authenticated, service_role;
grant execute on function public.list_webhook_deliveries(uuid, integer, text) to authenticated;
grant execute on function public.redeliver_webhook_delivery(uuid) to authenticated;
