-- A Telegram group as a team channel (issue 42, docs/organizations.md "Team channels and alerts",
-- docs/telegram.md "A group for an organization"). An owner or admin asks for a one-time group link
-- (`https://t.me/<bot>?startgroup=<token>`, 15 minutes, once, only its SHA-256 stored); Telegram adds the bot
-- to the group the person picks and sends `/start <token>` from it; the telegram-bot function links that group
-- to the organization (private.telegram_link_group, as service_role). One group per organization, an
-- organization per group (linking it elsewhere unlinks it there). The chat ID is write-only: no role but
-- service_role reads it, and no function returns or logs it. `/stop` in the group, or an owner or admin,
-- unlinks it. The organization's names' events reach it once per event (a `telegram` delivery whose
-- `telegram_group_id` names the group, in a lane of its own), naming the organization and the claimer.
-- Redefined: claim_fair_alert_deliveries (from 20261206000500, copied whole; the change: a team event's
-- Telegram delivery reads the group's chat, not the owner's), the alert_deliveries.lane_key column (plus the
-- `telegram-group:<id>` lane), queue_organization_alerts and export_owned_organizations (from
-- 20261206000850, copied whole, plus the group).

create table public.organization_telegram_chats (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null unique references public.organizations (id) on delete cascade,
  chat_id text not null unique check (chat_id ~ '^-[1-9][0-9]{0,19}$'),
  enabled boolean not null default true,
  event_types text[] not null default '{domain.available}'
    constraint organization_telegram_chats_event_types_check
    check (cardinality(event_types) > 0
           and event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                    'domain.registered', 'domain.restored']::text[]),
  expiring_days integer[] not null default '{30,7,1}'
    constraint organization_telegram_chats_expiring_days_check
    check (cardinality(expiring_days) between 1 and 10 and 1 <= all (expiring_days) and 365 >= all (expiring_days)),
  linked_by uuid references public.profiles (id) on delete set null,
  linked_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

comment on table public.organization_telegram_chats is
  'An organization''s Telegram group (one at most), linked through the bot with a group link. chat_id is '
  'readable by service_role only (the sender); members read the rest.';

create index organization_telegram_chats_linked_by_idx on public.organization_telegram_chats (linked_by);

create trigger organization_telegram_chats_set_updated_at
  before update on public.organization_telegram_chats
  for each row execute function private.set_updated_at();

alter table public.organization_telegram_chats enable row level security;

create policy "Members can read their organizations' Telegram group"
  on public.organization_telegram_chats for select to authenticated
  using (public.has_org_role(organization_id, array['owner', 'admin', 'member']));

create policy "Assistants' tokens cannot read organizations' Telegram groups"
  on public.organization_telegram_chats as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

grant select, insert, update, delete on table public.organization_telegram_chats to service_role;
grant select (id, organization_id, enabled, event_types, expiring_days, linked_by, linked_at, updated_at)
  on table public.organization_telegram_chats to authenticated;

create table public.organization_telegram_link_tokens (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  organization_id uuid not null references public.organizations (id) on delete cascade,
  created_by uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

comment on table public.organization_telegram_link_tokens is
  'One-time Telegram group link tokens of organizations (SHA-256 only), valid 15 minutes. service_role only.';

create index organization_telegram_link_tokens_org_idx on public.organization_telegram_link_tokens (organization_id);
create index organization_telegram_link_tokens_created_by_idx on public.organization_telegram_link_tokens (created_by);

alter table public.organization_telegram_link_tokens enable row level security;
grant select, insert, update, delete on table public.organization_telegram_link_tokens to service_role;

-- What members see of the group (never the chat ID).
create function private.org_telegram_group_json(p_group public.organization_telegram_chats)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select case when p_group.id is null then null else jsonb_build_object(
    'id', p_group.id,
    'enabled', p_group.enabled,
    'event_types', to_jsonb(p_group.event_types),
    'expiring_days', to_jsonb(p_group.expiring_days),
    'linked_by', private.member_label(p_group.linked_by),
    'linked_at', p_group.linked_at
  ) end
$$;
revoke all on function private.org_telegram_group_json(public.organization_telegram_chats)
  from public, anon, authenticated, service_role;

-- Members: the organization's group, or null when none is linked.
create function public.organization_telegram_group(p_organization_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  v_group public.organization_telegram_chats;
begin
  select * into v_group from public.organization_telegram_chats as g where g.organization_id = p_organization_id;
  if not found then
    return null;
  end if;
  return private.org_telegram_group_json(v_group);
end
$$;
revoke all on function public.organization_telegram_group(uuid) from public, anon, authenticated, service_role;
grant execute on function public.organization_telegram_group(uuid) to authenticated;

-- Owners and admins: a one-time group link, valid 15 minutes; a new link replaces the organization's unused
-- ones. DW503 when the bot's username is not configured.
create function public.create_organization_telegram_link(p_organization_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_bot text;
  v_token text := encode(extensions.gen_random_bytes(24), 'hex');
  v_expires_at timestamptz := now() + interval '15 minutes';
begin
  select s.bot_username into v_bot from public.telegram_bot_settings as s;
  if v_bot is null then
    raise exception using errcode = 'DW503',
      message = 'DW503: Telegram linking is not set up (the bot''s username is missing).';
  end if;
  perform 1 from public.organizations as o where o.id = p_organization_id for no key update;
  delete from public.organization_telegram_link_tokens as t
   where t.organization_id = p_organization_id and (t.used_at is null or t.expires_at < now() - interval '1 day');
  insert into public.organization_telegram_link_tokens (token_hash, organization_id, created_by, expires_at)
  values (encode(extensions.digest(v_token, 'sha256'), 'hex'), p_organization_id, v_uid, v_expires_at);
  return jsonb_build_object(
    'url', 'https://t.me/' || v_bot || '?startgroup=' || v_token,
    'expires_at', v_expires_at
  );
end
$$;
revoke all on function public.create_organization_telegram_link(uuid) from public, anon, authenticated, service_role;
grant execute on function public.create_organization_telegram_link(uuid) to authenticated;

-- The bot: links the group that sent "/start <token>" to the token's organization. 'linked', or 'invalid'
-- for a token that is unknown, expired, used, or whose maker is no longer an owner or admin there (one
-- answer for all). Only group IDs (negative). Logged as the token's maker; never the chat ID.
create function private.telegram_link_group(p_token text, p_chat_id text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_token public.organization_telegram_link_tokens;
  v_moved record;
  v_had boolean;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' or p_chat_id is null or p_chat_id !~ '^-[1-9][0-9]{0,19}$' then
    return 'invalid';
  end if;
  select * into v_token
    from public.organization_telegram_link_tokens as t
   where t.token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex')
     for update;
  if not found or v_token.used_at is not null or v_token.expires_at <= now()
     or not exists (select 1 from public.organization_members as m
                     where m.organization_id = v_token.organization_id and m.user_id = v_token.created_by
                       and m.role in ('owner', 'admin')) then
    return 'invalid';
  end if;
  update public.organization_telegram_link_tokens as t set used_at = now() where t.token_hash = v_token.token_hash;
  -- A group belongs to one organization: linking it here unlinks it from another.
  for v_moved in
    delete from public.organization_telegram_chats as g
     where g.chat_id = p_chat_id and g.organization_id <> v_token.organization_id
    returning g.organization_id
  loop
    perform private.log_org_activity(v_moved.organization_id, null, 'channel.removed', null, null,
                                     '{"channel": "telegram_group", "via": "linked_elsewhere"}'::jsonb);
  end loop;
  v_had := exists (select 1 from public.organization_telegram_chats as g where g.organization_id = v_token.organization_id);
  insert into public.organization_telegram_chats as g (organization_id, chat_id, linked_by, linked_at)
  values (v_token.organization_id, p_chat_id, v_token.created_by, now())
  on conflict (organization_id) do update
    set chat_id = excluded.chat_id, linked_by = excluded.linked_by, linked_at = excluded.linked_at, enabled = true;
  perform private.log_org_activity(v_token.organization_id, v_token.created_by,
                                   case when v_had then 'channel.changed' else 'channel.added' end, null, null,
                                   '{"channel": "telegram_group"}'::jsonb);
  return 'linked';
end
$$;
revoke all on function private.telegram_link_group(text, text) from public, anon, authenticated, service_role;
grant execute on function private.telegram_link_group(text, text) to service_role;

-- The bot: "/stop" in a group unlinks it. Whether it was linked.
create function private.telegram_unlink_group(p_chat_id text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_org uuid;
begin
  delete from public.organization_telegram_chats as g where g.chat_id = p_chat_id returning g.organization_id into v_org;
  if v_org is null then
    return false;
  end if;
  perform private.log_org_activity(v_org, null, 'channel.removed', null, null,
                                   '{"channel": "telegram_group", "via": "telegram"}'::jsonb);
  return true;
end
$$;
revoke all on function private.telegram_unlink_group(text) from public, anon, authenticated, service_role;
grant execute on function private.telegram_unlink_group(text) to service_role;

-- Owners and admins: unlink the group; false when none is linked.
create function public.unlink_organization_telegram_group(p_organization_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
begin
  delete from public.organization_telegram_chats as g where g.organization_id = p_organization_id;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.removed', null, null,
                                   '{"channel": "telegram_group"}'::jsonb);
  return true;
end
$$;
revoke all on function public.unlink_organization_telegram_group(uuid) from public, anon, authenticated, service_role;
grant execute on function public.unlink_organization_telegram_group(uuid) to authenticated;

-- Owners and admins: switch the group on or off, set its events and reminder days (null keeps each).
create function public.update_organization_telegram_group(
  p_organization_id uuid,
  p_enabled boolean default null,
  p_event_types text[] default null,
  p_expiring_days integer[] default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_types text[] := private.validated_alert_event_types(p_event_types);
  v_days integer[] := private.validated_expiring_days(p_expiring_days);
  v_group public.organization_telegram_chats;
begin
  update public.organization_telegram_chats as g
     set enabled = coalesce(p_enabled, g.enabled),
         event_types = coalesce(v_types, g.event_types),
         expiring_days = coalesce(v_days, g.expiring_days)
   where g.organization_id = p_organization_id
  returning * into v_group;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No Telegram group is linked to the organization.';
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.changed', null, null,
    jsonb_strip_nulls(jsonb_build_object('channel', 'telegram_group', 'enabled', p_enabled,
                                         'event_types', to_jsonb(v_types), 'expiring_days', to_jsonb(v_days))));
  return private.org_telegram_group_json(v_group);
end
$$;
revoke all on function public.update_organization_telegram_group(uuid, boolean, text[], integer[])
  from public, anon, authenticated, service_role;
grant execute on function public.update_organization_telegram_group(uuid, boolean, text[], integer[]) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- Deliveries: a team event's Telegram delivery names the group; its lane is the group's.
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_deliveries
  add column telegram_group_id uuid references public.organization_telegram_chats (id) on delete set null;

comment on column public.alert_deliveries.telegram_group_id is
  'A team Telegram delivery: the organization''s group (null for other deliveries, and for a group unlinked since).';

create index alert_deliveries_telegram_group_idx on public.alert_deliveries (telegram_group_id)
  where telegram_group_id is not null;

alter table public.alert_deliveries drop column lane_key;
alter table public.alert_deliveries
  add column lane_key text generated always as (
    case
      when channel = 'telegram' and telegram_group_id is not null then 'telegram-group:' || telegram_group_id::text
      when channel = 'telegram' then 'telegram:' || user_id::text
      when channel = 'webhook' and webhook_endpoint_id is not null then 'webhook:' || webhook_endpoint_id::text
      when channel = 'email' and email_address_id is not null then 'email:' || email_address_id::text
      else 'delivery:' || id::text
    end
  ) stored;

comment on column public.alert_deliveries.lane_key is
  'The lane this delivery is sent in: webhook:<endpoint id>, telegram:<account id>, telegram-group:<group id>, '
  'email:<address id>, or delivery:<id> when its channel was deleted. At most one send per lane is in flight.';

create index alert_deliveries_pending_lane_idx
  on public.alert_deliveries (lane_key, next_attempt_at, created_at)
  where status = 'pending';

-- claim_fair_alert_deliveries (20261206000500) redefined whole; the change: a team event's Telegram delivery
-- reads its group's chat and switch (null when the group was unlinked since: skipped), never the owner's.
create or replace function private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer)
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

  insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, d.channel, d.webhook_endpoint_id
    from public.alert_deliveries as d
   where d.status = 'pending'
     and d.channel <> 'email'
     and d.next_attempt_at <= clock_timestamp()
     and d.lane_key not like 'delivery:%'
     and not exists (select 1 from public.alert_delivery_lanes as l where l.lane_key = d.lane_key)
   order by d.lane_key
  on conflict do nothing;

  for v_candidate in
    with heads as (
      select distinct on (d.lane_key) d.lane_key, d.id, d.user_id, d.channel, d.webhook_endpoint_id,
             d.next_attempt_at, d.created_at
        from public.alert_deliveries as d
       where d.status = 'pending'
         and d.channel <> 'email'
         and d.next_attempt_at <= clock_timestamp()
         and (d.lease_until is null or d.lease_until <= clock_timestamp())
       order by d.lane_key, d.next_attempt_at, d.created_at, d.id
    ),
    free as (
      select h.*
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
           case when ev.organization_id is null then n.telegram_chat_id else g.chat_id end,
           case when ev.organization_id is null then n.telegram_enabled else g.enabled end,
           c.lane_key, c.id = any (v_probes),
           w.kind, ev.predicted_drop_at, ev.prediction_basis
      from public.alert_deliveries as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
      left join public.organization_telegram_chats as g on g.id = c.telegram_group_id and c.channel = 'telegram'
     where c.id = any (v_ids)
     order by array_position(v_ids, c.id);
end
$$;


-- queue_organization_alerts (20261206000850) redefined whole; the change: the organization's Telegram group
-- (switched on, asking for the type) is a target too, one `telegram` delivery naming the group.
create or replace function private.queue_organization_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_type text;
begin
  v_type := case
    when new.status = 'available' and old.status is distinct from 'available' then 'domain.available'
    when new.status = 'pending_delete' and old.status is distinct from 'pending_delete' then 'domain.pending_delete'
    when new.status = 'registered' and old.status = 'pending_delete' then 'domain.restored'
    when new.status = 'registered'
         and (old.status = 'available' or (old.status = 'unknown' and old.last_checked_at is not null))
      then 'domain.registered'
  end;
  if v_type is null then
    return null;
  end if;

  with lists as (
    select o.organization_id, private.org_owner(o.organization_id) as owner_id
      from public.organization_watchlist_entries as o
     where o.domain_name = new.name and o.deleted_at is null
  ),
  targets as (
    select l.organization_id, l.owner_id, 'webhook' as channel, w.id as endpoint_id, null::uuid as address_id,
           null::uuid as group_id
      from lists as l
      join public.profiles as p on p.id = l.owner_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as w
        on w.organization_id = l.organization_id and w.enabled and v_type = any (w.event_types)
    union all
    select l.organization_id, l.owner_id, 'email', null, a.id, null
      from lists as l
      join public.email_addresses as a
        on a.organization_id = l.organization_id and a.enabled and a.status = 'active'
       and v_type = any (a.event_types)
     where l.owner_id is not null
    union all
    select l.organization_id, l.owner_id, 'telegram', null, null, g.id
      from lists as l
      join public.organization_telegram_chats as g
        on g.organization_id = l.organization_id and g.enabled and v_type = any (g.event_types)
     where l.owner_id is not null
  ),
  orgs as (
    select distinct t.organization_id, t.owner_id from targets as t
  ),
  events as (
    insert into public.alert_events
      (user_id, organization_id, organization_name, claimed_by_name, type, domain_name, previous_status, status,
       checked_at, registrar, expires_at)
    select g.owner_id, g.organization_id, org.name,
           (select private.member_label(c.claimed_by) from public.organization_claims as c
             where c.organization_id = g.organization_id and c.domain_name = new.name),
           v_type, new.name, old.status, new.status, coalesce(new.last_checked_at, now()),
           case when v_type in ('domain.restored', 'domain.registered') then new.registrar end,
           case when v_type in ('domain.restored', 'domain.registered') then new.expires_at end
      from orgs as g
      join public.organizations as org on org.id = g.organization_id
     order by g.organization_id
    returning id, user_id, organization_id
  )
  insert into public.alert_deliveries
    (event_id, user_id, channel, webhook_endpoint_id, email_address_id, telegram_group_id)
  select ev.id, ev.user_id, t.channel, t.endpoint_id, t.address_id, t.group_id
    from events as ev
    join targets as t on t.organization_id = ev.organization_id;
  return null;
end
$$;


-- export_owned_organizations (20261206000850) redefined whole; the change: `telegram_group`, its settings
-- (null when none is linked), never the chat ID.
create or replace function private.export_owned_organizations(p_user_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
  select coalesce(jsonb_agg(
    jsonb_build_object(
      'id', o.id,
      'name', o.name,
      'created_at', o.created_at,
      'watchlist', (
        select coalesce(jsonb_agg(jsonb_build_object('domain_name', e.domain_name, 'unicode_name', e.unicode_name,
                                                     'status', d.status, 'added_at', e.added_at,
                                                     'added_by', private.member_label(e.added_by),
                                                     'removed_at', e.deleted_at)
                                  order by e.domain_name collate "C"), '[]'::jsonb)
          from public.organization_watchlist_entries as e
          join public.domains as d on d.name = e.domain_name
         where e.organization_id = o.id),
      'claims', (
        select coalesce(jsonb_agg(jsonb_build_object('domain_name', c.domain_name,
                                                     'claimed_by', private.member_label(c.claimed_by),
                                                     'claimed_at', c.claimed_at)
                                  order by c.domain_name collate "C"), '[]'::jsonb)
          from public.organization_claims as c where c.organization_id = o.id),
      'channels', (
        select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'kind', w.kind, 'description', w.description,
                                                     'enabled', w.enabled, 'event_types', to_jsonb(w.event_types),
                                                     'created_at', w.created_at,
                                                     'secret_configured', w.secret is not null)
                                  order by w.created_at, w.id), '[]'::jsonb)
          from public.webhook_endpoints as w where w.organization_id = o.id),
      'email_channels', (
        select coalesce(jsonb_agg(jsonb_build_object('status', a.status, 'stopped_reason', a.stopped_reason,
                                                     'enabled', a.enabled, 'event_types', to_jsonb(a.event_types),
                                                     'expiring_days', to_jsonb(a.expiring_days),
                                                     'confirmed_at', a.confirmed_at, 'created_at', a.created_at)
                                  order by a.created_at, a.id), '[]'::jsonb)
          from public.email_addresses as a where a.organization_id = o.id),
      'telegram_group', (
        select jsonb_build_object('enabled', g.enabled, 'event_types', to_jsonb(g.event_types),
                                  'expiring_days', to_jsonb(g.expiring_days), 'linked_at', g.linked_at)
          from public.organization_telegram_chats as g where g.organization_id = o.id),
      'api_keys', (
        select coalesce(jsonb_agg(jsonb_build_object('name', k.name, 'prefix', k.prefix, 'created_at', k.created_at,
                                                     'revoked_at', k.revoked_at)
                                  order by k.created_at, k.id), '[]'::jsonb)
          from public.api_keys as k where k.organization_id = o.id),
      'activity', (
        select coalesce(jsonb_agg(jsonb_build_object('at', l.created_at, 'action', l.action, 'actor', l.actor_name,
                                                     'domain_name', l.domain_name, 'subject', l.subject_name,
                                                     'detail', l.detail)
                                  order by l.created_at, l.id), '[]'::jsonb)
          from public.organization_activity as l where l.organization_id = o.id)
    ) order by o.created_at, o.id), '[]'::jsonb)
    from public.organizations as o
    join public.organization_members as m on m.organization_id = o.id and m.user_id = p_user_id and m.role = 'owner'
$$;
