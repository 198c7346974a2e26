-- Alerts that carry their evidence and follow the whole drop (docs/alerts.md): `data.evidence` on every
-- domain.available, and three more opt-in events, domain.restored, domain.registered and domain.expiring.
--
-- Replaces or alters:
--   * public.alert_event_types() (20261124000100): five types.
--   * constraints webhook_endpoints_event_types_check and notification_settings_telegram_event_types_check
--     (20261124000100): the five types.
--   * constraint alert_events_type_check (20261124000100): the new types; alert_events gains evidence,
--     registrar, expires_at and days_before.
--   * public.queue_domain_pending_delete_alerts() (20261124000100): its targeting moves to
--     public.queue_opt_in_alerts (one rule for every opt-in transition event); trigger unchanged.
--   * public.export_account(uuid) (20261124001000): each channel's expiring_days.
-- New: webhook_endpoints.expiring_days, notification_settings.telegram_expiring_days,
--   validated_expiring_days, set_webhook_expiring_days, set_telegram_expiring_days, note_check_evidence,
--   queue_opt_in_alerts, queue_domain_registration_alerts (+ triggers domains_queue_restored_alerts and
--   domains_queue_registered_alerts), domain_expiry_reminders, queue_domain_expiring_alerts (+ pg_cron job
--   domain-expiring-alerts).

-- ---------------------------------------------------------------------------------------------------
-- Event types
-- ---------------------------------------------------------------------------------------------------
create or replace function public.alert_event_types()
returns text[]
language sql
immutable
parallel safe
set search_path = ''
as $$
  select array['domain.available', 'domain.expiring', 'domain.pending_delete', 'domain.registered',
               'domain.restored']::text[]
$$;

alter table public.webhook_endpoints drop constraint webhook_endpoints_event_types_check;
alter table public.webhook_endpoints
  add constraint webhook_endpoints_event_types_check
  check (cardinality(event_types) > 0
         and event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                  'domain.registered', 'domain.restored']::text[]);

alter table public.notification_settings drop constraint notification_settings_telegram_event_types_check;
alter table public.notification_settings
  add constraint notification_settings_telegram_event_types_check
  check (cardinality(telegram_event_types) > 0
         and telegram_event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                           'domain.registered', 'domain.restored']::text[]);

-- ---------------------------------------------------------------------------------------------------
-- domain.expiring reminders: days before the expiration date, per channel (default 30, 7 and 1)
-- ---------------------------------------------------------------------------------------------------
-- A channel's reminder days as saved: 1-10 whole days of 1-365, no duplicates, sorted descending; DW400
-- otherwise. Null stays null.
create function public.validated_expiring_days(p_days integer[])
returns integer[]
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_days is null then
    return null;
  end if;
  if cardinality(p_days) = 0 or cardinality(p_days) > 10
     or exists (select 1 from unnest(p_days) as u(d) where d is null or d < 1 or d > 365) then
    raise exception using errcode = 'DW400',
      message = 'DW400: Reminder days must be 1 to 10 whole numbers of days from 1 to 365.';
  end if;
  return array(select distinct d from unnest(p_days) as u(d) order by d desc);
end
$$;

revoke all on function public.validated_expiring_days(integer[]) from public, anon, authenticated, service_role;
grant execute on function public.validated_expiring_days(integer[]) to service_role;

alter table public.webhook_endpoints
  add column expiring_days integer[] not null default '{30,7,1}'
    constraint webhook_endpoints_expiring_days_check
    check (cardinality(expiring_days) between 1 and 10 and 1 <= all (expiring_days) and 365 >= all (expiring_days));
alter table public.notification_settings
  add column telegram_expiring_days integer[] not null default '{30,7,1}'
    constraint notification_settings_telegram_expiring_days_check
    check (cardinality(telegram_expiring_days) between 1 and 10 and 1 <= all (telegram_expiring_days)
           and 365 >= all (telegram_expiring_days));

comment on column public.webhook_endpoints.expiring_days is
  'domain.expiring: the days before a watched name''s expiration date this endpoint is reminded at.';
comment on column public.notification_settings.telegram_expiring_days is
  'domain.expiring: the days before a watched name''s expiration date the Telegram chat is reminded at.';

grant select (expiring_days) on table public.webhook_endpoints to authenticated;
grant select (telegram_expiring_days) on table public.notification_settings to authenticated;

-- The endpoint's reminder days (e.g. {30,7,1}); its owner only (DW404 otherwise, as update_webhook_endpoint).
create function public.set_webhook_expiring_days(p_id uuid, p_days integer[])
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_days integer[] := public.validated_expiring_days(p_days);
begin
  if v_days is null then
    raise exception using errcode = 'DW400', message = 'DW400: Give at least one reminder day.';
  end if;
  update public.webhook_endpoints as w set expiring_days = v_days where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

-- The Telegram chat's reminder days.
create function public.set_telegram_expiring_days(p_days integer[])
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_days integer[] := public.validated_expiring_days(p_days);
begin
  if v_days is null then
    raise exception using errcode = 'DW400', message = 'DW400: Give at least one reminder day.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_expiring_days)
  values (v_uid, v_days)
  on conflict (user_id) do update set telegram_expiring_days = excluded.telegram_expiring_days;
end
$$;

revoke all on function public.set_webhook_expiring_days(uuid, integer[]) from public, anon, authenticated, service_role;
revoke all on function public.set_telegram_expiring_days(integer[]) from public, anon, authenticated, service_role;
grant execute on function public.set_webhook_expiring_days(uuid, integer[]) to authenticated;
grant execute on function public.set_telegram_expiring_days(integer[]) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- alert_events: the new types and their fields
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_events drop constraint alert_events_type_check;
alter table public.alert_events
  add constraint alert_events_type_check check (type in ('domain.available', 'domain.pending_delete',
    'domain.restored', 'domain.registered', 'domain.expiring', 'test')),
  add column evidence jsonb
    constraint alert_events_evidence_check check (evidence is null or jsonb_typeof(evidence) = 'object'),
  add column registrar text,
  add column expires_at timestamptz,
  add column days_before integer;

comment on column public.alert_events.evidence is
  'domain.available: why the check believed the name free (source, server, answer, canary_name, '
  'canary_proved_at, dns_rcode, resolver, checked_at), written by note_check_evidence in the check''s '
  'transaction.';
comment on column public.alert_events.registrar is 'domain.restored, domain.registered: the registrar, when known.';
comment on column public.alert_events.expires_at is
  'domain.restored, domain.registered, domain.expiring: the registry''s expiration date.';
comment on column public.alert_events.days_before is 'domain.expiring: which reminder (days before expires_at).';

-- The poller and the live check add the evidence to the domain.available events of the transition
-- recorded at p_checked_at, in the same transaction as the check, before any delivery can be claimed.
-- Only events still without evidence are touched, so what was sent is never rewritten.
create function public.note_check_evidence(p_domain_name text, p_checked_at timestamptz, p_evidence jsonb)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_evidence is null or jsonb_typeof(p_evidence) <> 'object'
     or p_evidence ->> 'source' is null or p_evidence ->> 'source' not in ('rdap', 'whois') then
    raise exception using errcode = 'DW400', message = 'DW400: note_check_evidence: invalid evidence.';
  end if;
  update public.alert_events as ev
     set evidence = p_evidence
   where ev.type = 'domain.available'
     and ev.domain_name = p_domain_name
     and ev.checked_at = p_checked_at
     and ev.evidence is null;
end
$$;

revoke all on function public.note_check_evidence(text, timestamptz, jsonb) from public, anon, authenticated, service_role;
grant execute on function public.note_check_evidence(text, timestamptz, jsonb) to service_role;

create index alert_events_available_idx
  on public.alert_events (domain_name, checked_at) where type = 'domain.available';

-- ---------------------------------------------------------------------------------------------------
-- Opt-in transition events: one rule for domain.pending_delete, domain.restored and domain.registered.
-- One event per watching account that has at least one channel asking for p_type, and a delivery on each
-- such channel only: the linked, enabled Telegram chat whose list has it, and each enabled endpoint whose
-- list has it on a plan with webhooks. The callers are triggers on a status change; record_domain_check
-- updates the domain row (locking it), so one transition fires them once.
-- ---------------------------------------------------------------------------------------------------
create function public.queue_opt_in_alerts(
  p_type text,
  p_domain_name text,
  p_previous_status text,
  p_status text,
  p_checked_at timestamptz,
  p_registrar text,
  p_expires_at timestamptz
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  with watchers as (
    select e.user_id
      from public.watchlist_entries as e
     where e.domain_name = p_domain_name
       and e.deleted_at is null
  ),
  telegram_targets as (
    select w.user_id
      from watchers as w
      join public.notification_settings as n on n.user_id = w.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and p_type = any (n.telegram_event_types)
  ),
  webhook_targets as (
    select w.user_id, we.id as endpoint_id
      from watchers as w
      join public.profiles as p on p.id = w.user_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as we
        on we.user_id = w.user_id and we.enabled and p_type = any (we.event_types)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, registrar, expires_at)
    select w.user_id, p_type, p_domain_name, p_previous_status, p_status, p_checked_at, p_registrar, p_expires_at
      from watchers as w
     where w.user_id in (select t.user_id from telegram_targets as t
                         union select h.user_id from webhook_targets as h)
     order by w.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
     where ev.user_id in (select t.user_id from telegram_targets as t)
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', h.endpoint_id
    from events as ev
    join webhook_targets as h on h.user_id = ev.user_id;
end
$$;

revoke all on function public.queue_opt_in_alerts(text, text, text, text, timestamptz, text, timestamptz)
  from public, anon, authenticated, service_role;

-- domain.pending_delete (trigger domains_queue_pending_delete_alerts, unchanged): the prediction is added
-- by note_drop_prediction in the check's transaction.
create or replace function public.queue_domain_pending_delete_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.queue_opt_in_alerts('domain.pending_delete', new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), null, null);
  return null;
end
$$;

-- domain.restored and domain.registered: the event type is the trigger's argument; they carry the
-- registrar and the expiration date the check recorded.
create function public.queue_domain_registration_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.queue_opt_in_alerts(tg_argv[0], new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), new.registrar, new.expires_at);
  return null;
end
$$;

revoke all on function public.queue_domain_registration_alerts() from public, anon, authenticated, service_role;

-- Left pending delete back to registered: the drop is off.
create trigger domains_queue_restored_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'registered' and old.status = 'pending_delete')
  execute function public.queue_domain_registration_alerts('domain.restored');

-- Registered after being available, or after being watched (checked at least once) without ever being
-- found registered. A name's first decided check finding it registered is not a transition: it was
-- registered when it was added.
create trigger domains_queue_registered_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'registered'
        and (old.status = 'available' or (old.status = 'unknown' and old.last_checked_at is not null)))
  execute function public.queue_domain_registration_alerts('domain.registered');

-- ---------------------------------------------------------------------------------------------------
-- domain.expiring
--   For each channel asking for it (the same channel rules as every opt-in event) and each registered name
--   its account watches with an expiration date ahead: the nearest of the channel's reminder days that has
--   been passed (expires_at - now <= days) is due unless the channel already had that reminder, or a
--   nearer one, for this expiration date. So a name first seen 6 days out gets the 7-day reminder only, and
--   a renewal (a date moved by a day or more) re-arms them all. One event per account, name, date and
--   reminder; a delivery per channel it is due on. domain_expiry_reminders remembers what each channel had.
--   Run every 10 minutes by pg_cron; p_now is the clock (tests pass their own). Runs are serialised by an
--   advisory lock, so concurrent runs queue each reminder once.
-- ---------------------------------------------------------------------------------------------------
create table public.domain_expiry_reminders (
  lane_key text not null,
  domain_name text not null,
  expires_at timestamptz not null,
  days_before integer not null,
  event_id text,
  created_at timestamptz not null default now(),
  primary key (lane_key, domain_name, expires_at, days_before)
);

comment on table public.domain_expiry_reminders is
  'domain.expiring reminders sent per channel (lane_key as alert_deliveries: telegram:<account>, '
  'webhook:<endpoint>), name and expiration date; rows for dates past by 30 days are removed.';

alter table public.domain_expiry_reminders enable row level security;
revoke all on table public.domain_expiry_reminders from anon, authenticated;
grant select, insert, update, delete on table public.domain_expiry_reminders to service_role;

create index domains_expires_at_idx on public.domains (expires_at) where status = 'registered';

create function public.queue_domain_expiring_alerts(p_now timestamptz default now())
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
  perform pg_advisory_xact_lock(hashtext('public.queue_domain_expiring_alerts'));

  delete from public.domain_expiry_reminders as r where r.expires_at < p_now - interval '30 days';

  with channels as (
    select 'telegram:' || n.user_id::text as lane_key, n.user_id, 'telegram' as channel,
           null::uuid as endpoint_id, n.telegram_expiring_days as days
      from public.notification_settings as n
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and 'domain.expiring' = any (n.telegram_event_types)
    union all
    select 'webhook:' || w.id::text, w.user_id, 'webhook', w.id, w.expiring_days
      from public.webhook_endpoints as w
      join public.profiles as p on p.id = w.user_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
     where w.enabled
       and 'domain.expiring' = any (w.event_types)
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
    -- One event per account, name and reminder (a name has one expiration date at a time).
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
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
    select ev.id, q.user_id, q.channel, q.endpoint_id
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
  return v_queued;
end
$$;

revoke all on function public.queue_domain_expiring_alerts(timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.queue_domain_expiring_alerts(timestamptz) to service_role;

select cron.schedule('domain-expiring-alerts', '*/10 * * * *', $$ select public.queue_domain_expiring_alerts() $$);

-- ---------------------------------------------------------------------------------------------------
-- The account export carries each channel's reminder days (same signature, grants and rules as before).
-- ---------------------------------------------------------------------------------------------------
create or replace function public.export_account(p_user_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
declare
  v_uid uuid := p_user_id;
  v_profile jsonb;
begin
  if v_uid is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;

  select jsonb_build_object(
           'id', p.id,
           'email', p.email,
           'display_name', p.display_name,
           'plan', p.plan_id,
           'created_at', p.created_at
         )
    into v_profile
    from public.profiles as p
   where p.id = v_uid;

  if v_profile is null then
    raise exception using errcode = 'DW404', message = 'DW404: The account has no profile.';
  end if;

  return jsonb_build_object(
    'format_version', 1,
    'exported_at', now(),
    'profile', v_profile,
    'watchlist', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'domain_name', e.domain_name,
                 'unicode_name', e.unicode_name,
                 'status', d.status,
                 'added_at', e.added_at,
                 'removed_at', e.deleted_at
               )
               order by e.domain_name collate "C"
             )
        from public.watchlist_entries as e
        join public.domains as d on d.name = e.domain_name
       where e.user_id = v_uid
    ), '[]'::jsonb),
    'notification_preferences', coalesce((
      select jsonb_build_object(
               'telegram_configured', n.telegram_chat_id is not null,
               'telegram_enabled', n.telegram_enabled,
               'telegram_event_types', to_jsonb(n.telegram_event_types),
               'telegram_expiring_days', to_jsonb(n.telegram_expiring_days)
             )
        from public.notification_settings as n
       where n.user_id = v_uid
    ), jsonb_build_object('telegram_configured', false, 'telegram_enabled', true,
                       'telegram_event_types', to_jsonb(array['domain.available']),
                       'telegram_expiring_days', to_jsonb(array[30, 7, 1]))),
    'webhooks', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', w.id,
                 'description', w.description,
                 'enabled', w.enabled,
                 'kind', w.kind,
                 'event_types', to_jsonb(w.event_types),
                 'expiring_days', to_jsonb(w.expiring_days),
                 'created_at', w.created_at,
                 'secret_configured', w.secret is not null
               )
               order by w.created_at, w.id
             )
        from public.webhook_endpoints as w
       where w.user_id = v_uid
    ), '[]'::jsonb),
    'organization_memberships', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'organization_id', m.organization_id,
                 'organization_name', o.name,
                 'role', m.role,
                 'joined_at', m.created_at
               )
               order by m.created_at, m.organization_id
             )
        from public.organization_members as m
        join public.organizations as o on o.id = m.organization_id
       where m.user_id = v_uid
    ), '[]'::jsonb),
    'invitations_sent', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', i.id,
                 'organization_id', i.organization_id,
                 'email', i.email,
                 'role', i.role,
                 'status', i.status,
                 'created_at', i.created_at,
                 'expires_at', i.expires_at,
                 'emailed_at', i.emailed_at
               )
               order by i.created_at, i.id
             )
        from public.invitations as i
       where i.invited_by = v_uid
    ), '[]'::jsonb)
  );
end
$$;

revoke all on function public.export_account(uuid) from public, anon, authenticated, service_role;
grant execute on function public.export_account(uuid) to service_role;
