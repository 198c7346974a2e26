-- Alert channels people can set up in a minute (issue 15): Slack and Discord targets, and the opt-in
-- `domain.pending_delete` event (docs/alerts.md).
--
-- * webhook_endpoints.kind: generic (the signed JSON, unchanged) | slack | discord. A slack endpoint must
--   be Slack's incoming-webhook URL (https://hooks.slack.com/services/…), a discord one Discord's
--   (https://discord.com/api/webhooks/<id>/<token>, or discordapp.com). The rule is
--   public.webhook_kind_problem, the twin of webhookKindProblem in
--   supabase/functions/_shared/net/url_policy.ts (parity test: tests/integration/url_policy_parity.test.ts),
--   enforced on every write of webhook_endpoints by a trigger, after the outbound URL judge.
-- * webhook_endpoints.event_types and notification_settings.telegram_event_types: the events a channel
--   wants, from public.alert_event_types(); default {domain.available}; never empty.
-- * domain.pending_delete: raised once when a watched name enters pending delete or redemption (a status
--   transition to pending_delete), for the accounts with at least one channel that asked for it, with a
--   delivery on exactly those channels. The poller adds the predicted drop time and how it was predicted
--   in the same transaction (note_drop_prediction).

-- ---------------------------------------------------------------------------------------------------
-- Event types
-- ---------------------------------------------------------------------------------------------------
create function public.alert_event_types()
returns text[]
language sql
immutable
parallel safe
set search_path = ''
as $$
  select array['domain.available', 'domain.pending_delete']::text[]
$$;

revoke all on function public.alert_event_types() from public, anon, authenticated, service_role;
grant execute on function public.alert_event_types() to authenticated, service_role;

-- A channel's event list as saved: known types, no duplicates, sorted; DW400 when empty or unknown.
-- Null stays null (the caller keeps the current list or uses the default).
create function public.validated_alert_event_types(p_event_types text[])
returns text[]
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_unknown text;
begin
  if p_event_types is null then
    return null;
  end if;
  if cardinality(p_event_types) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: Choose at least one event type.';
  end if;
  select t into v_unknown from unnest(p_event_types) as u(t)
   where t is null or not (t = any (public.alert_event_types())) limit 1;
  if found then
    raise exception using errcode = 'DW400',
      message = 'DW400: Unknown event type ' || coalesce('"' || left(v_unknown, 64) || '"', 'null')
        || '; the known ones are ' || array_to_string(public.alert_event_types(), ', ') || '.';
  end if;
  return array(select distinct t from unnest(p_event_types) as u(t) order by t);
end
$$;

revoke all on function public.validated_alert_event_types(text[]) from public, anon, authenticated, service_role;
grant execute on function public.validated_alert_event_types(text[]) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- webhook_endpoints: kind and event_types
-- ---------------------------------------------------------------------------------------------------
alter table public.webhook_endpoints
  add column kind text not null default 'generic'
    constraint webhook_endpoints_kind_check check (kind in ('generic', 'slack', 'discord')),
  add column event_types text[] not null default '{domain.available}'
    constraint webhook_endpoints_event_types_check
    check (cardinality(event_types) > 0 and event_types <@ array['domain.available', 'domain.pending_delete']::text[]);

comment on column public.webhook_endpoints.kind is
  'generic: the signed JSON body; slack / discord: that service''s incoming-webhook message (unsigned), '
  'only to its documented https host (webhook_kind_problem).';
comment on column public.webhook_endpoints.event_types is
  'The events this endpoint receives (alert_event_types()); test alerts always go through.';

grant select (kind, event_types) on table public.webhook_endpoints to authenticated;

-- notification_settings: the Telegram chat's opt-in.
alter table public.notification_settings
  add column telegram_event_types text[] not null default '{domain.available}'
    constraint notification_settings_telegram_event_types_check
    check (cardinality(telegram_event_types) > 0
           and telegram_event_types <@ array['domain.available', 'domain.pending_delete']::text[]);

comment on column public.notification_settings.telegram_event_types is
  'The events the linked Telegram chat receives (alert_event_types()); set with set_telegram_event_types.';

grant select (telegram_event_types) on table public.notification_settings to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- webhook_kind_problem: null when the URL fits the kind, else a sentence saying why not. Applied after
-- the outbound judge (outbound_url_problem), so the URL is already in its strict form. Mirrors
-- webhookKindProblem in url_policy.ts, with the same wording. The hosts are the documented ones even
-- on a local stack: the sender swaps them for SLACK_WEBHOOK_BASE_URL / DISCORD_WEBHOOK_BASE_URL.
-- ---------------------------------------------------------------------------------------------------
create function public.webhook_kind_problem(p_url text, p_kind text)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
declare
  v_scheme text := lower(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*)://'));
  v_rest text := substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://(.*)$');
  v_authority text;
  v_path text;
begin
  if p_kind is null or p_kind not in ('generic', 'slack', 'discord') then
    return 'The webhook kind must be generic, slack or discord.';
  end if;
  if p_kind = 'generic' then
    return null;
  end if;
  v_authority := lower(coalesce(substring(v_rest from '^[^/?#]*'), ''));
  v_path := substr(coalesce(v_rest, ''), char_length(v_authority) + 1);
  if p_kind = 'slack' then
    if v_scheme is distinct from 'https' or v_authority <> 'hooks.slack.com'
       or v_path !~ '^/services/[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$' then
      return 'A Slack webhook URL must be Slack''s incoming-webhook URL, https://hooks.slack.com/services/….';
    end if;
    return null;
  end if;
  if v_scheme is distinct from 'https' or v_authority not in ('discord.com', 'discordapp.com')
     or v_path !~ '^/api/(v[0-9]{1,2}/)?webhooks/[0-9]{1,25}/[A-Za-z0-9_-]{1,200}(\?[A-Za-z0-9_=&-]*)?$' then
    return 'A Discord webhook URL must be Discord''s webhook URL, https://discord.com/api/webhooks/<id>/<token>.';
  end if;
  return null;
end
$$;

-- The whole save-time verdict for an endpoint: the outbound judge, then the kind's host rule.
create function public.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select coalesce(public.outbound_url_problem(p_url, p_allow_private), public.webhook_kind_problem(p_url, p_kind))
$$;

revoke all on function public.webhook_kind_problem(text, text) from public, anon, authenticated, service_role;
revoke all on function public.webhook_target_problem(text, text, boolean) from public, anon, authenticated, service_role;
grant execute on function public.webhook_kind_problem(text, text) to service_role;
grant execute on function public.webhook_target_problem(text, text, boolean) to service_role;

-- Every write of url or kind is checked (after webhook_endpoints_check_url, by trigger name order).
create function public.check_webhook_endpoint_kind()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_problem text := public.webhook_kind_problem(new.url, new.kind);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  new.event_types := public.validated_alert_event_types(new.event_types);
  return new;
end
$$;

revoke all on function public.check_webhook_endpoint_kind() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_check_url_kind
  before insert or update of url, kind, event_types on public.webhook_endpoints
  for each row execute function public.check_webhook_endpoint_kind();

-- ---------------------------------------------------------------------------------------------------
-- The app's functions gain kind and event types (redefined from 20261122000930; owner and plan rules
-- unchanged). The old signatures are dropped so a positional call stays unambiguous.
-- ---------------------------------------------------------------------------------------------------
drop function public.create_webhook_endpoint(text, text, text);
drop function public.update_webhook_endpoint(uuid, text, text, boolean);

-- At most 10 webhooks per account. Returns the new webhook's id. p_kind: generic (default), slack or
-- discord; p_event_types: default {domain.available}.
create function public.create_webhook_endpoint(
  p_url text,
  p_description text default null,
  p_secret text default null,
  p_kind text default null,
  p_event_types text[] default null
)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_id uuid;
begin
  perform public.require_webhook_plan(v_uid);
  if (select count(*) from public.webhook_endpoints as w where w.user_id = v_uid) >= 10 then
    raise exception using errcode = 'DW400', message = 'DW400: An account can have at most 10 webhooks.';
  end if;
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  insert into public.webhook_endpoints (user_id, url, description, secret, kind, event_types)
  values (v_uid, public.validated_webhook_url(p_url), nullif(btrim(p_description), ''),
          public.validated_webhook_secret(p_secret), coalesce(p_kind, 'generic'),
          coalesce(public.validated_alert_event_types(p_event_types), '{domain.available}'))
  returning id into v_id;
  return v_id;
end
$$;

-- Null arguments leave a field as it is; an empty description clears it. A new kind must fit the URL
-- (saved or given).
create function public.update_webhook_endpoint(
  p_id uuid,
  p_url text default null,
  p_description text default null,
  p_enabled boolean default null,
  p_kind text default null,
  p_event_types text[] default null
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  update public.webhook_endpoints as w
     set url = case when p_url is null then w.url else public.validated_webhook_url(p_url) end,
         description = case when p_description is null then w.description else nullif(btrim(p_description), '') end,
         enabled = coalesce(p_enabled, w.enabled),
         kind = coalesce(p_kind, w.kind),
         event_types = coalesce(public.validated_alert_event_types(p_event_types), w.event_types)
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

-- The linked Telegram chat's events (e.g. {domain.available,domain.pending_delete}).
create function public.set_telegram_event_types(p_event_types text[])
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_types text[] := public.validated_alert_event_types(p_event_types);
begin
  if v_types is null then
    raise exception using errcode = 'DW400', message = 'DW400: Choose at least one event type.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_event_types)
  values (v_uid, v_types)
  on conflict (user_id) do update set telegram_event_types = excluded.telegram_event_types;
end
$$;

revoke all on function public.create_webhook_endpoint(text, text, text, text, text[])
  from public, anon, authenticated, service_role;
revoke all on function public.update_webhook_endpoint(uuid, text, text, boolean, text, text[])
  from public, anon, authenticated, service_role;
revoke all on function public.set_telegram_event_types(text[]) from public, anon, authenticated, service_role;
grant execute on function public.create_webhook_endpoint(text, text, text, text, text[]) to authenticated;
grant execute on function public.update_webhook_endpoint(uuid, text, text, boolean, text, text[]) to authenticated;
grant execute on function public.set_telegram_event_types(text[]) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- alert_events: the new type and its prediction
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_events drop constraint alert_events_type_check;
alter table public.alert_events
  add constraint alert_events_type_check check (type in ('domain.available', 'domain.pending_delete', 'test')),
  add column predicted_drop_at timestamptz,
  add column prediction_basis text
    constraint alert_events_prediction_basis_check
    check (prediction_basis in ('redemption_period', 'pending_delete_period', 'unknown'));

comment on column public.alert_events.predicted_drop_at is
  'domain.pending_delete: when the name is predicted to drop (null when it cannot be predicted).';
comment on column public.alert_events.prediction_basis is
  'domain.pending_delete: how predicted_drop_at was found: redemption_period (RDAP last change + 30 days '
  'of redemption + 5 of pending delete), pending_delete_period (last change + 5 days) or unknown.';

create index alert_events_pending_delete_idx
  on public.alert_events (domain_name, checked_at) where type = 'domain.pending_delete';

-- domain.available reaches only the channels that want it (redefined from 20261122000910).
create or replace function public.queue_domain_available_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  with events as (
    insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
    select e.user_id, 'domain.available', new.name, e.unicode_name, old.status, new.status,
           coalesce(new.last_checked_at, now())
      from public.watchlist_entries as e
     where e.domain_name = new.name
       and e.deleted_at is null
     order by e.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
      join public.notification_settings as n on n.user_id = ev.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and 'domain.available' = any (n.telegram_event_types)
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', w.id
    from events as ev
    join public.profiles as p on p.id = ev.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
    join public.webhook_endpoints as w
      on w.user_id = ev.user_id and w.enabled and 'domain.available' = any (w.event_types);
  return null;
end
$$;

-- domain.pending_delete: once per transition into pending_delete, one event per watching account that
-- has a channel asking for it, and a delivery on each such channel only. record_domain_check locks the
-- domain row, so one transition fires this once; leaving pending delete and entering it again fires it
-- again.
create function public.queue_domain_pending_delete_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  with watchers as (
    select e.user_id
      from public.watchlist_entries as e
     where e.domain_name = new.name
       and e.deleted_at is null
  ),
  telegram_targets as (
    select w.user_id
      from watchers as w
      join public.notification_settings as n on n.user_id = w.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and 'domain.pending_delete' = any (n.telegram_event_types)
  ),
  webhook_targets as (
    select w.user_id, we.id as endpoint_id
      from watchers as w
      join public.profiles as p on p.id = w.user_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as we
        on we.user_id = w.user_id and we.enabled and 'domain.pending_delete' = any (we.event_types)
  ),
  events as (
    insert into public.alert_events (user_id, type, domain_name, previous_status, status, checked_at)
    select w.user_id, 'domain.pending_delete', new.name, old.status, new.status,
           coalesce(new.last_checked_at, now())
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
  return null;
end
$$;

revoke all on function public.queue_domain_pending_delete_alerts() from public, anon, authenticated, service_role;

create trigger domains_queue_pending_delete_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'pending_delete' and old.status is distinct from 'pending_delete')
  execute function public.queue_domain_pending_delete_alerts();

-- The poller (and the live check) add the prediction to the events of the transition recorded at
-- p_checked_at, in the same transaction as the check, before any delivery can be claimed. Only events
-- still without one are touched, so a later check never rewrites what was sent.
create function public.note_drop_prediction(
  p_domain_name text,
  p_checked_at timestamptz,
  p_predicted_drop_at timestamptz,
  p_basis text
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
end
$$;

revoke all on function public.note_drop_prediction(text, timestamptz, timestamptz, text)
  from public, anon, authenticated, service_role;
grant execute on function public.note_drop_prediction(text, timestamptz, timestamptz, text) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- The delivery claim returns the endpoint's kind and the event's prediction (redefined from
-- 20261123001900: three columns added at the end; the claiming itself is unchanged).
-- ---------------------------------------------------------------------------------------------------
drop function public.claim_fair_alert_deliveries(integer, integer);

create function public.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer)
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
      select h.*, l.lane_key is null as lane_missing
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
      if v_candidate.lane_missing then
        insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
        values (v_candidate.lane_key, v_candidate.user_id, v_candidate.channel, v_candidate.webhook_endpoint_id)
        on conflict do nothing;
      end if;
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
