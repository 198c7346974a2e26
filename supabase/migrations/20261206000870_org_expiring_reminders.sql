-- Expiry reminders on team channels (issue 42, docs/organizations.md "Team channels and alerts"): a team
-- webhook, email address or Telegram group that lists `domain.expiring` gets, for each of the organization's
-- names, one reminder at each of its `expiring_days` before the expiration date, as a personal channel does
-- (the same rule: a name first seen inside several thresholds gets one reminder, for the nearest one passed;
-- a renewal re-arms them; `domain_expiry_reminders` keyed by the channel's lane). One event per organization,
-- name and threshold (user_id the owner, naming the organization and the claimer), one delivery per channel.
-- Redefined: queue_domain_expiring_alerts (from 20261206000500, copied whole; the change: it also runs
-- private.queue_organization_expiring_alerts under the same lock and adds its count).

create function private.queue_organization_expiring_alerts(p_now timestamptz)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_queued integer;
begin
  with channels as (
    select 'webhook:' || w.id::text as lane_key, w.organization_id, 'webhook' as channel, w.id as endpoint_id,
           null::uuid as address_id, null::uuid as group_id, w.expiring_days as days
      from public.webhook_endpoints as w
      join public.profiles as p on p.id = private.org_owner(w.organization_id)
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
     where w.organization_id is not null and w.enabled and 'domain.expiring' = any (w.event_types)
    union all
    select 'email:' || a.id::text, a.organization_id, 'email', null, a.id, null, a.expiring_days
      from public.email_addresses as a
     where a.organization_id is not null and a.enabled and a.status = 'active'
       and 'domain.expiring' = any (a.event_types)
    union all
    select 'telegram-group:' || g.id::text, g.organization_id, 'telegram', null, null, g.id, g.expiring_days
      from public.organization_telegram_chats as g
     where g.enabled and 'domain.expiring' = any (g.event_types)
  ),
  candidates as (
    select c.*, d.name as domain_name, d.expires_at, coalesce(d.last_checked_at, p_now) as checked_at,
           (select min(t) from unnest(c.days) as u(t)
             where d.expires_at - p_now <= make_interval(days => t)) as days_before
      from channels as c
      join public.organization_watchlist_entries as e
        on e.organization_id = c.organization_id and e.deleted_at is null
      join public.domains as d on d.name = e.domain_name
     where d.status = 'registered'
       and d.expires_at > p_now
       and d.expires_at <= p_now + make_interval(days => (select max(t) from unnest(c.days) as u(t)))
  ),
  due as materialized (
    select k.*, private.org_owner(k.organization_id) as owner_id
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
      (user_id, organization_id, organization_name, claimed_by_name, type, domain_name, previous_status, status,
       checked_at, expires_at, days_before)
    select distinct on (q.organization_id, q.domain_name, q.days_before)
           q.owner_id, q.organization_id, org.name,
           (select private.member_label(c.claimed_by) from public.organization_claims as c
             where c.organization_id = q.organization_id and c.domain_name = q.domain_name),
           'domain.expiring', q.domain_name, null, 'registered', q.checked_at, q.expires_at, q.days_before
      from due as q
      join public.organizations as org on org.id = q.organization_id
     where q.owner_id is not null
     order by q.organization_id, q.domain_name, q.days_before
    returning id, user_id, organization_id, domain_name, days_before
  ),
  deliveries as (
    insert into public.alert_deliveries
      (event_id, user_id, channel, webhook_endpoint_id, email_address_id, telegram_group_id)
    select ev.id, ev.user_id, q.channel, q.endpoint_id, q.address_id, q.group_id
      from due as q
      join events as ev
        on ev.organization_id = q.organization_id and ev.domain_name = q.domain_name
       and ev.days_before = q.days_before
    returning 1
  ),
  reminders as (
    insert into public.domain_expiry_reminders (lane_key, domain_name, expires_at, days_before, event_id)
    select q.lane_key, q.domain_name, q.expires_at, q.days_before, ev.id
      from due as q
      join events as ev
        on ev.organization_id = q.organization_id and ev.domain_name = q.domain_name
       and ev.days_before = q.days_before
    on conflict do nothing
    returning 1
  )
  select count(*)::integer into v_queued from events;
  return v_queued;
end
$$;
revoke all on function private.queue_organization_expiring_alerts(timestamptz) from public, anon, authenticated, service_role;

-- queue_domain_expiring_alerts (20261206000500) redefined whole; the change: the team channels' reminders are
-- queued too (private.queue_organization_expiring_alerts, under the same advisory lock), counted in the total.
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
  return v_queued + private.queue_organization_expiring_alerts(p_now);
end
$$;
