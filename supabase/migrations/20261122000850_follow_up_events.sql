-- Follow-up events and measured drop predictions (docs/alerts.md): `data.evidence` on every
-- domain.available (note_check_evidence), the opt-in events domain.restored, domain.registered and
-- domain.expiring (per-channel reminder days, the pg_cron job `domain-expiring-alerts`), and the record of
-- every predicted drop against the observed one, with a per-registry correction learnt from 20 observations.
-- The event types themselves are listed with the channels (alert_event_types()) and the outbox.

-- ---------------------------------------------------------------------------------------------------
-- domain.expiring reminders: days before the expiration date, per channel (default 30, 7 and 1)
-- ---------------------------------------------------------------------------------------------------
-- A channel's reminder days as saved: 1-10 whole days of 1-365, no duplicates, sorted descending; DW400
-- otherwise. Null stays null.
create function private.validated_expiring_days(p_days integer[])
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

revoke all on function private.validated_expiring_days(integer[]) from public, anon, authenticated, service_role;
grant execute on function private.validated_expiring_days(integer[]) to service_role;

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
  v_days integer[];
begin
  perform private.refuse_oauth_client_token();
  v_days := private.validated_expiring_days(p_days);
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
  v_days integer[];
begin
  perform private.refuse_oauth_client_token();
  v_days := private.validated_expiring_days(p_days);
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
alter table public.alert_events
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
-- Only events still without evidence are touched, so what was sent is never rewritten. The name's history
-- row of that transition gets it too (private.note_status_change_evidence, 20261122001270_app_reads.sql).
create function private.note_check_evidence(p_domain_name text, p_checked_at timestamptz, p_evidence jsonb)
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
  perform private.note_status_change_evidence(p_domain_name, p_checked_at, p_evidence);
end
$$;

revoke all on function private.note_check_evidence(text, timestamptz, jsonb) from public, anon, authenticated, service_role;
grant execute on function private.note_check_evidence(text, timestamptz, jsonb) to service_role;

create index alert_events_available_idx
  on public.alert_events (domain_name, checked_at) where type = 'domain.available';

-- ---------------------------------------------------------------------------------------------------
-- Opt-in transition events: one rule for domain.pending_delete, domain.restored and domain.registered.
-- One event per watching account that has at least one channel asking for p_type, and a delivery on each
-- such channel only: the linked, enabled Telegram chat whose list has it, and each enabled endpoint whose
-- list has it on a plan with webhooks. The callers are triggers on a status change; record_domain_check
-- updates the domain row (locking it), so one transition fires them once.
-- ---------------------------------------------------------------------------------------------------
create function private.queue_opt_in_alerts(
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

revoke all on function private.queue_opt_in_alerts(text, text, text, text, timestamptz, text, timestamptz)
  from public, anon, authenticated, service_role;

-- domain.restored and domain.registered: the event type is the trigger's argument; they carry the
-- registrar and the expiration date the check recorded.
create function private.queue_domain_registration_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.queue_opt_in_alerts(tg_argv[0], new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), new.registrar, new.expires_at);
  return null;
end
$$;

revoke all on function private.queue_domain_registration_alerts() from public, anon, authenticated, service_role;

-- Left pending delete back to registered: the drop is off.
create trigger domains_queue_restored_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'registered' and old.status = 'pending_delete')
  execute function private.queue_domain_registration_alerts('domain.restored');

-- Registered after being available, or after being watched (checked at least once) without ever being
-- found registered. A name's first decided check finding it registered is not a transition: it was
-- registered when it was added.
create trigger domains_queue_registered_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'registered'
        and (old.status = 'available' or (old.status = 'unknown' and old.last_checked_at is not null)))
  execute function private.queue_domain_registration_alerts('domain.registered');

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

-- The channels that ask for domain.expiring, with their reminder days: the one definition used by the
-- reminders below and by the poller's claim (which asks a name's registry ahead of its watchers' reminder
-- days, poller/dns_first.ts). A view, so each query plans it with its own filters.
create view private.expiring_reminder_channels as
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
     and 'domain.expiring' = any (w.event_types);

revoke all on table private.expiring_reminder_channels from public, anon, authenticated, service_role;

-- One account's reminder days (the poller's claim looks them up per watcher: with the account as a parameter
-- each branch of the view is an index look-up, where a join would read every channel once per name).
create function private.expiring_reminder_days(p_user_id uuid)
returns setof integer
language sql
stable
set search_path = ''
as $$
  select distinct t.days
    from private.expiring_reminder_channels as ch
   cross join lateral unnest(ch.days) as t(days)
   where ch.user_id = p_user_id
$$;
revoke all on function private.expiring_reminder_days(uuid) from public, anon, authenticated, service_role;

create function private.queue_domain_expiring_alerts(p_now timestamptz default now())
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

revoke all on function private.queue_domain_expiring_alerts(timestamptz) from public, anon, authenticated, service_role;
grant execute on function private.queue_domain_expiring_alerts(timestamptz) to service_role;

create extension if not exists pg_cron with schema pg_catalog;
select cron.schedule('domain-expiring-alerts', '*/10 * * * *', $$ select private.queue_domain_expiring_alerts() $$);


-- ---------------------------------------------------------------------------------------------------
-- The prediction in force, on the domain row
-- ---------------------------------------------------------------------------------------------------
alter table public.domains
  add column predicted_drop_at timestamptz,
  add column prediction_basis text
    constraint domains_prediction_basis_check
    check (prediction_basis in ('redemption_period', 'pending_delete_period', 'unknown')),
  add column prediction_correction_seconds integer not null default 0;

comment on column public.domains.predicted_drop_at is
  'While in pending delete: the latest predicted drop time (the poller''s, correction included), or null.';
comment on column public.domains.prediction_correction_seconds is
  'The registry correction included in predicted_drop_at (drop_prediction_corrections), 0 for none.';

-- The registry a name belongs to, for drop statistics: its top-level domain (one registry per TLD).
create function private.registry_of(p_domain_name text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select substring(p_domain_name from '[^.]+$')
$$;

revoke all on function private.registry_of(text) from public, anon, authenticated, service_role;
grant execute on function private.registry_of(text) to service_role;

-- Entering pending delete starts without a prediction: the check that records the transition adds its own
-- (note_drop_prediction, same transaction), so a prediction from an earlier cycle is never measured.
create function private.reset_drop_prediction()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.predicted_drop_at := null;
  new.prediction_basis := null;
  new.prediction_correction_seconds := 0;
  return new;
end
$$;

revoke all on function private.reset_drop_prediction() from public, anon, authenticated, service_role;

create trigger domains_reset_drop_prediction
  before update of status on public.domains
  for each row
  when (new.status = 'pending_delete' and old.status is distinct from 'pending_delete')
  execute function private.reset_drop_prediction();

-- p_correction_seconds: the registry correction included in p_predicted_drop_at. The events of the
-- transition recorded at p_checked_at get the prediction (only those still without one, so what was sent
-- is never rewritten); the domain row keeps the latest, when this check is the row's latest.
create function private.note_drop_prediction(
  p_domain_name text,
  p_checked_at timestamptz,
  p_predicted_drop_at timestamptz,
  p_basis text,
  p_correction_seconds integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_basis is null or p_basis not in ('redemption_period', 'pending_delete_period', 'unknown') then
    raise exception using errcode = 'DW400', message = 'DW400: note_drop_prediction: invalid basis.';
  end if;
  update public.alert_events as ev
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis
   where ev.type = 'domain.pending_delete'
     and ev.domain_name = p_domain_name
     and ev.checked_at = p_checked_at
     and ev.prediction_basis is null;
  update public.domains as d
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis,
         prediction_correction_seconds = case when p_basis = 'unknown' then 0
                                              else coalesce(p_correction_seconds, 0) end
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at;
end
$$;

revoke all on function private.note_drop_prediction(text, timestamptz, timestamptz, text, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.note_drop_prediction(text, timestamptz, timestamptz, text, integer)
  to service_role;


-- ---------------------------------------------------------------------------------------------------
-- drop_observations: one row per drop that had a prediction. Not tied to the watchlist or the domain row
-- (no foreign key): kept when nobody watches the name any more.
--   observed_at: the check that first saw the name available; last_pending_at: the check before it, the
--   last that saw it in pending delete (the drop happened between the two).
--   raw = predicted_drop_at - correction_seconds: the prediction before any correction (what a
--   correction is learnt from).
-- ---------------------------------------------------------------------------------------------------
create table public.drop_observations (
  id bigint generated always as identity primary key,
  domain_name text not null,
  registry text not null,
  basis text not null check (basis in ('redemption_period', 'pending_delete_period')),
  predicted_drop_at timestamptz not null,
  correction_seconds integer not null default 0,
  last_pending_at timestamptz,
  observed_at timestamptz not null,
  created_at timestamptz not null default now()
);

comment on table public.drop_observations is
  'Each drop that had a prediction: the prediction in force (correction included), its basis, the registry '
  '(TLD) and when the drop was observed. Kept when nobody watches the name any more.';

create index drop_observations_registry_idx on public.drop_observations (registry, basis, observed_at desc);

alter table public.drop_observations enable row level security;
revoke all on table public.drop_observations from anon, authenticated;
grant select, insert, update, delete on table public.drop_observations to service_role;
grant usage, select on sequence public.drop_observations_id_seq to service_role;

-- ---------------------------------------------------------------------------------------------------
-- drop_prediction_corrections: per registry and basis, the offset new predictions add. Data with its source:
-- `measured` rows are learnt from at least 20 observations (refresh_drop_prediction_correction, after each
-- one); an operator may add or edit a row (measured = false, source saying where the figure comes from),
-- which measurement then leaves alone.
-- ---------------------------------------------------------------------------------------------------
create table public.drop_prediction_corrections (
  registry text not null,
  basis text not null check (basis in ('redemption_period', 'pending_delete_period')),
  offset_seconds integer not null check (offset_seconds between -604800 and 604800),
  observations integer not null default 0,
  measured boolean not null default false,
  source text not null check (char_length(source) between 1 and 500),
  updated_at timestamptz not null default now(),
  primary key (registry, basis)
);

comment on table public.drop_prediction_corrections is
  'Per registry (TLD) and basis: seconds added to new drop predictions. measured rows: the median offset '
  'of the latest (up to 100) observed drops, from 20 on; operator rows (measured = false) are never '
  'overwritten. source says where the figure comes from.';

alter table public.drop_prediction_corrections enable row level security;
revoke all on table public.drop_prediction_corrections from anon, authenticated;
grant select, insert, update, delete on table public.drop_prediction_corrections to service_role;

-- The measured correction of one registry and basis: the median of (observed - raw prediction) over its
-- latest 100 observations, once there are at least 20.
create function private.refresh_drop_prediction_correction(p_registry text, p_basis text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
  v_offset double precision;
  v_first timestamptz;
  v_last timestamptz;
begin
  select count(*)::integer,
         percentile_cont(0.5) within group (
           order by extract(epoch from o.observed_at - (o.predicted_drop_at
                                                         - make_interval(secs => o.correction_seconds)))),
         min(o.observed_at), max(o.observed_at)
    into v_count, v_offset, v_first, v_last
    from (select * from public.drop_observations as x
           where x.registry = p_registry and x.basis = p_basis
           order by x.observed_at desc limit 100) as o;
  if v_count < 20 then
    return;
  end if;
  insert into public.drop_prediction_corrections as c
    (registry, basis, offset_seconds, observations, measured, source, updated_at)
  values (p_registry, p_basis, greatest(-604800, least(604800, round(v_offset)::integer)), v_count, true,
          format('measured: median of (observed - predicted) over %s observed drops, %s to %s (drop_observations)',
                 v_count, to_char(v_first at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"'),
                 to_char(v_last at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"')),
          now())
  on conflict (registry, basis) do update
    set offset_seconds = excluded.offset_seconds,
        observations = excluded.observations,
        source = excluded.source,
        updated_at = excluded.updated_at
    where c.measured;
end
$$;

revoke all on function private.refresh_drop_prediction_correction(text, text) from public, anon, authenticated, service_role;
grant execute on function private.refresh_drop_prediction_correction(text, text) to service_role;

-- A name in pending delete with a prediction became available: keep the observation, learn from it.
create function private.record_drop_observation()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.drop_observations
    (domain_name, registry, basis, predicted_drop_at, correction_seconds, last_pending_at, observed_at)
  values (new.name, private.registry_of(new.name), old.prediction_basis, old.predicted_drop_at,
          old.prediction_correction_seconds, old.last_checked_at, coalesce(new.last_checked_at, now()));
  perform private.refresh_drop_prediction_correction(private.registry_of(new.name), old.prediction_basis);
  return null;
end
$$;

revoke all on function private.record_drop_observation() from public, anon, authenticated, service_role;

create trigger domains_record_drop_observation
  after update of status on public.domains
  for each row
  when (new.status = 'available' and old.status = 'pending_delete' and old.predicted_drop_at is not null
        and old.prediction_basis in ('redemption_period', 'pending_delete_period'))
  execute function private.record_drop_observation();

-- ---------------------------------------------------------------------------------------------------
-- The accuracy report: per registry and basis, the count, the median and p90 of (observed - predicted) in
-- seconds (the prediction as it was made, correction included), how many drops came before their
-- prediction, and the correction in force.
-- ---------------------------------------------------------------------------------------------------
create function private.drop_accuracy_report()
returns table (
  registry text,
  basis text,
  observations integer,
  median_seconds integer,
  p90_seconds integer,
  early integer,
  correction_seconds integer,
  correction_source text
)
language sql
stable
security definer
set search_path = ''
as $$
  select o.registry, o.basis, count(*)::integer,
         round(percentile_cont(0.5) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         round(percentile_cont(0.9) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         (count(*) filter (where o.observed_at < o.predicted_drop_at))::integer,
         c.offset_seconds, c.source
    from public.drop_observations as o
    left join public.drop_prediction_corrections as c on c.registry = o.registry and c.basis = o.basis
   group by o.registry, o.basis, c.offset_seconds, c.source
   order by o.registry, o.basis
$$;

revoke all on function private.drop_accuracy_report() from public, anon, authenticated, service_role;
grant execute on function private.drop_accuracy_report() to service_role;
