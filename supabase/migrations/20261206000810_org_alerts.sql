-- Organizations' team channels and alerts (issue 42, docs/organizations.md "Team channels and alerts").
--
-- * A channel is owned by an account OR an organization: `webhook_endpoints.organization_id` (null: the
--   account's own). A team webhook (generic, Slack, Discord) keeps `user_id` = the organization's owner at
--   creation (its plan decides, its delivery lanes and breakers are the owner's), and only an owner or admin
--   makes, changes or deletes it through the organization functions below. Members read it (masked URL,
--   never the URL or secret). Another channel kind (an email address, a Telegram group) takes the same
--   column on its own table.
-- * An organization's names alert on its team channels once per event: the trigger below writes one
--   `alert_events` row per organization (user_id = the owner, organization_id, its name and the claimer's
--   name when the name is claimed) and one delivery per team channel asking for the event type.
-- * Personal channels: the watchers of a name are `private.alert_watchers(name)`, the accounts with it on
--   their personal list and the members who opted in (`organization_members.personal_alerts`, off by
--   default) for an organization that lists it, each account once. So an account gets one event per
--   transition on its channels however many of its lists hold the name: exactly one delivery per channel.
--   queue_domain_available_alerts and queue_opt_in_alerts are redefined for that (their watchers) and to
--   leave team webhooks out of personal fan-out (`organization_id is null`); so is the
--   expiring_reminder_channels view (team channels get no expiry reminders yet).

-- ---------------------------------------------------------------------------------------------------
-- Channels owned by an organization
-- ---------------------------------------------------------------------------------------------------
alter table public.webhook_endpoints
  add column organization_id uuid references public.organizations (id) on delete cascade;

comment on column public.webhook_endpoints.organization_id is
  'A team channel of this organization (null: the account''s own). user_id is then the organization''s owner.';

create index webhook_endpoints_organization_id_idx on public.webhook_endpoints (organization_id)
  where organization_id is not null;

grant select (organization_id) on table public.webhook_endpoints to authenticated;

drop policy "Users can read their own webhooks" on public.webhook_endpoints;
create policy "Users can read their own webhooks"
  on public.webhook_endpoints for select to authenticated
  using (user_id = (select auth.uid()) and organization_id is null);

drop policy "Users can delete their own webhooks" on public.webhook_endpoints;
create policy "Users can delete their own webhooks"
  on public.webhook_endpoints for delete to authenticated
  using (user_id = (select auth.uid()) and organization_id is null);

create policy "Members can read their organizations' team webhooks"
  on public.webhook_endpoints for select to authenticated
  using (organization_id is not null and public.has_org_role(organization_id, array['owner', 'admin', 'member']));

-- The organization's owner (null when it has none).
create function private.org_owner(p_organization_id uuid)
returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select m.user_id from public.organization_members as m
   where m.organization_id = p_organization_id and m.role = 'owner'
   limit 1
$$;
revoke all on function private.org_owner(uuid) from public, anon, authenticated, service_role;

-- Owners and admins add a team webhook (the owner's plan must have webhooks: DWUPG). The same URL, kind,
-- event and secret rules as a personal webhook; it counts in the owner's 10 webhooks.
create function public.create_organization_webhook(
  p_organization_id uuid,
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
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_owner uuid := private.org_owner(p_organization_id);
  v_id uuid;
begin
  perform private.require_webhook_plan(v_owner);
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  insert into public.webhook_endpoints (user_id, organization_id, url, description, secret, kind, event_types)
  values (v_owner, p_organization_id, private.validated_webhook_url(p_url), nullif(btrim(p_description), ''),
          private.validated_webhook_secret(p_secret), coalesce(p_kind, 'generic'),
          coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}'))
  returning id into v_id;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.added', null, null,
                                   jsonb_build_object('channel', 'webhook', 'kind', coalesce(p_kind, 'generic'),
                                                      'channel_id', v_id));
  return v_id;
end
$$;
revoke all on function public.create_organization_webhook(uuid, text, text, text, text, text[])
  from public, anon, authenticated, service_role;
grant execute on function public.create_organization_webhook(uuid, text, text, text, text, text[]) to authenticated;

-- Owners and admins switch a team webhook on or off; false when it is not the organization's.
create function public.set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
begin
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  update public.webhook_endpoints as w
     set enabled = p_enabled
   where w.id = p_webhook_id and w.organization_id = p_organization_id and w.enabled is distinct from p_enabled;
  if not found then
    return exists (select 1 from public.webhook_endpoints as w
                    where w.id = p_webhook_id and w.organization_id = p_organization_id);
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.changed', null, null,
                                   jsonb_build_object('channel', 'webhook', 'channel_id', p_webhook_id,
                                                      'enabled', p_enabled));
  return true;
end
$$;
revoke all on function public.set_organization_webhook_enabled(uuid, uuid, boolean)
  from public, anon, authenticated, service_role;
grant execute on function public.set_organization_webhook_enabled(uuid, uuid, boolean) to authenticated;

-- Owners and admins delete a team webhook; false when it is not the organization's.
create function public.delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_kind text;
begin
  delete from public.webhook_endpoints as w
   where w.id = p_webhook_id and w.organization_id = p_organization_id
  returning w.kind into v_kind;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.removed', null, null,
                                   jsonb_build_object('channel', 'webhook', 'kind', v_kind,
                                                      'channel_id', p_webhook_id));
  return true;
end
$$;
revoke all on function public.delete_organization_webhook(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.delete_organization_webhook(uuid, uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- A member's opt-in: the organization's names alert on the member's own channels too (off by default).
-- ---------------------------------------------------------------------------------------------------
alter table public.organization_members
  add column personal_alerts boolean not null default false;

comment on column public.organization_members.personal_alerts is
  'The member gets the organization''s names'' events on their own channels too (off by default); set only '
  'by the member through set_organization_personal_alerts.';

create index organization_members_personal_alerts_idx on public.organization_members (organization_id)
  where personal_alerts;

create function public.set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  update public.organization_members as m
     set personal_alerts = p_enabled
   where m.organization_id = p_organization_id and m.user_id = v_uid;
  return p_enabled;
end
$$;
revoke all on function public.set_organization_personal_alerts(uuid, boolean) from public, anon, authenticated, service_role;
grant execute on function public.set_organization_personal_alerts(uuid, boolean) to authenticated;

-- The accounts whose own channels hear about a name: its personal watchers and the opted-in members of the
-- organizations that list it, each once. The one rule for personal fan-out.
create function private.alert_watchers(p_domain_name text)
returns table (user_id uuid)
language sql
stable
security definer
set search_path = ''
as $$
  select e.user_id
    from public.watchlist_entries as e
   where e.domain_name = p_domain_name and e.deleted_at is null
  union
  select m.user_id
    from public.organization_watchlist_entries as o
    join public.organization_members as m on m.organization_id = o.organization_id and m.personal_alerts
   where o.domain_name = p_domain_name and o.deleted_at is null
$$;
revoke all on function private.alert_watchers(text) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Personal fan-out, redefined: watchers from alert_watchers; team webhooks left out; the email channels of
-- 20261206000500_email_alerts.sql kept.
-- ---------------------------------------------------------------------------------------------------
create or replace function private.queue_domain_available_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  with events as (
    insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
    select w.user_id, 'domain.available', new.name, private.domain_unicode_name(new.name), old.status, new.status,
           coalesce(new.last_checked_at, now())
      from private.alert_watchers(new.name) as w
     order by w.user_id
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
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', a.id
      from events as ev
      join private.email_alert_channels as a
        on a.user_id = ev.user_id and 'domain.available' = any (a.event_types)
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', w.id
    from events as ev
    join public.profiles as p on p.id = ev.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
    join public.webhook_endpoints as w
      on w.user_id = ev.user_id and w.organization_id is null and w.enabled
     and 'domain.available' = any (w.event_types);
  return null;
end
$$;

create or replace function private.queue_opt_in_alerts(
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
    select w.user_id from private.alert_watchers(p_domain_name) as w
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
        on we.user_id = w.user_id and we.organization_id is null and we.enabled and p_type = any (we.event_types)
  ),
  email_targets as (
    select w.user_id, a.id as address_id
      from watchers as w
      join private.email_alert_channels as a on a.user_id = w.user_id and p_type = any (a.event_types)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, registrar, expires_at)
    select w.user_id, p_type, p_domain_name, p_previous_status, p_status, p_checked_at, p_registrar, p_expires_at
      from watchers as w
     where w.user_id in (select t.user_id from telegram_targets as t
                         union select h.user_id from webhook_targets as h
                         union select m.user_id from email_targets as m)
     order by w.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
     where ev.user_id in (select t.user_id from telegram_targets as t)
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', m.address_id
      from events as ev
      join email_targets as m on m.user_id = ev.user_id
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', h.endpoint_id
    from events as ev
    join webhook_targets as h on h.user_id = ev.user_id;
end
$$;

create or replace view private.expiring_reminder_channels as
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
     and w.organization_id is null
     and 'domain.expiring' = any (w.event_types)
  union all
  select 'email:' || a.id::text, a.user_id, 'email', a.id, a.expiring_days
    from private.email_alert_channels as a
   where 'domain.expiring' = any (a.event_types);

-- ---------------------------------------------------------------------------------------------------
-- Team alerts
-- ---------------------------------------------------------------------------------------------------
alter table public.alert_events
  add column organization_id uuid references public.organizations (id) on delete cascade,
  add column organization_name text,
  add column claimed_by_name text;

comment on column public.alert_events.organization_id is
  'A team alert: the organization whose list holds the name (user_id is then its owner); null: personal.';
comment on column public.alert_events.claimed_by_name is
  'A team alert of a claimed name: the claimer as the members see them (display name or address before @).';

create index alert_events_organization_idx on public.alert_events (organization_id, created_at desc)
  where organization_id is not null;

create policy "Members can read their organizations' alert events"
  on public.alert_events for select to authenticated
  using (organization_id is not null and public.has_org_role(organization_id, array['owner', 'admin', 'member']));

-- One event per organization listing the name with a team channel asking for the type (on an owner's plan
-- with webhooks), and one delivery per such channel. The same transitions as the personal triggers.
create function private.queue_organization_alerts()
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

  with targets as (
    select o.organization_id, w.id as endpoint_id, private.org_owner(o.organization_id) as owner_id
      from public.organization_watchlist_entries as o
      join public.webhook_endpoints as w
        on w.organization_id = o.organization_id and w.enabled and v_type = any (w.event_types)
     where o.domain_name = new.name and o.deleted_at is null
  ),
  orgs as (
    select distinct t.organization_id, t.owner_id
      from targets as t
      join public.profiles as p on p.id = t.owner_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
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
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', t.endpoint_id
    from events as ev
    join targets as t on t.organization_id = ev.organization_id;
  return null;
end
$$;
revoke all on function private.queue_organization_alerts() from public, anon, authenticated, service_role;

create trigger domains_queue_organization_alerts
  after update of status on public.domains
  for each row
  when (new.status is distinct from old.status)
  execute function private.queue_organization_alerts();
