-- Email addresses as team channels (issue 42, docs/organizations.md "Team channels and alerts",
-- docs/alerts.md "Email"). An organization's email address is an `email_addresses` row with
-- `organization_id` set (null: the account's own), the same way a team webhook is a `webhook_endpoints` row:
--   * `user_id` is the organization's owner (its plan decides: at most `plans.extra_alert_emails` team
--     addresses, counted for the organization alone; its delivery lanes are the owner's), and only an owner
--     or admin adds, changes or removes one through the organization functions below (each logged).
--   * It is confirmed by the mailed link as a personal extra address is (pending until then), gets one-click
--     unsubscribe, digests, bounces, the delivery log rows and lanes of 20261206000500 unchanged: every one of
--     those works on an address row by its id.
--   * Members read it masked (`address_masked`); nobody reads the address through the Data API.
--   * The organization's names' events reach it once per event (queue_organization_alerts, redefined from
--     20261206000810 with an email branch); the mail names the organization and the claimer.
-- Redefined from 20261206000500 (copied whole; the only change is `organization_id is null`, so the owner's
-- personal email functions, policy, fan-out view and export never see or touch the team's addresses):
-- check_email_address_cap (plus a team branch), list_email_channels, add_email_address,
-- resend_email_confirmation, update_email_address, delete_email_address, send_email_test,
-- list_email_deliveries, redeliver_email_delivery, export_email_channels, the email_alert_channels view.
-- Redefined from 20261206000830: export_owned_organizations (adds `email_channels`, settings only).

alter table public.email_addresses
  add column organization_id uuid references public.organizations (id) on delete cascade,
  add constraint email_addresses_team_check check (organization_id is null or not is_account);

comment on column public.email_addresses.organization_id is
  'A team channel of this organization (null: the account''s own). user_id is then the organization''s owner.';

create index email_addresses_organization_id_idx on public.email_addresses (organization_id)
  where organization_id is not null;

drop index public.email_addresses_unique_extra_idx;
create unique index email_addresses_unique_extra_idx on public.email_addresses (user_id, lower(address))
  where not is_account and organization_id is null;
create unique index email_addresses_unique_team_idx on public.email_addresses (organization_id, lower(address))
  where organization_id is not null;

grant select (organization_id) on table public.email_addresses to authenticated;

drop policy "Users can read their own email channels" on public.email_addresses;
create policy "Users can read their own email channels"
  on public.email_addresses for select to authenticated
  using (user_id = (select auth.uid()) and organization_id is null);

create policy "Members can read their organizations' email channels"
  on public.email_addresses for select to authenticated
  using (organization_id is not null and public.has_org_role(organization_id, array['owner', 'admin', 'member']));

-- The personal fan-out's email channels: the account's own, never a team's.
create or replace view private.email_alert_channels as
  select a.id, a.user_id, a.event_types, a.expiring_days
    from public.email_addresses as a
   where a.enabled and a.status = 'active' and a.organization_id is null;

-- The team cap: the owner's plan's extra_alert_emails, counted over the organization's addresses alone;
-- the organization's row is locked, so two adds cannot both pass.
create function private.check_org_email_address_cap(p_new public.email_addresses)
returns public.email_addresses
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_allowed integer;
begin
  perform 1 from public.organizations as o where o.id = p_new.organization_id for no key update;
  select pl.extra_alert_emails into v_allowed
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = private.org_owner(p_new.organization_id);
  if coalesce(v_allowed, 0) = 0 then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: Team email addresses come with the owner''s Pro plan and higher.';
  end if;
  if (select count(*) from public.email_addresses as a where a.organization_id = p_new.organization_id)
     >= v_allowed then
    raise exception using errcode = 'DW409',
      message = format('DW409: email_address_limit: At most %s team email addresses.', v_allowed);
  end if;
  return p_new;
end
$$;
revoke all on function private.check_org_email_address_cap(public.email_addresses)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- 20261206000500's functions, redefined whole with `organization_id is null` (see the header)
-- ---------------------------------------------------------------------------------------------------

create or replace function private.check_email_address_cap()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_allowed integer;
begin
  if new.is_account then
    return new;
  end if;
  if new.organization_id is not null then
    return private.check_org_email_address_cap(new);
  end if;
  select pl.extra_alert_emails into v_allowed
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = new.user_id
     for no key update of p;
  if coalesce(v_allowed, 0) = 0 then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: Extra alert email addresses come with the Pro plan and higher.';
  end if;
  if (select count(*) from public.email_addresses as a where a.user_id = new.user_id and not a.is_account
                                                     and a.organization_id is null)
     >= v_allowed then
    raise exception using errcode = 'DW409',
      message = format('DW409: email_address_limit: At most %s extra alert email addresses.', v_allowed);
  end if;
  return new;
end
$$;

create or replace function public.list_email_channels()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  return jsonb_build_object(
    'channels', coalesce((
      select jsonb_agg(private.email_channel_json(a) order by a.is_account desc, a.created_at, a.id)
        from public.email_addresses as a where a.user_id = v_uid and a.organization_id is null), '[]'::jsonb),
    'extra_allowed', (select pl.extra_alert_emails from public.profiles as p
                        join public.plans as pl on pl.id = p.plan_id where p.id = v_uid)
  );
end
$$;

create or replace function public.add_email_address(p_address text, p_event_types text[] default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_address text := private.normalized_email_address(p_address);
  v_types text[] := coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}');
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  if v_address is null then
    raise exception using errcode = 'DW400', message = 'DW400: That is not an email address.';
  end if;
  if exists (select 1 from public.email_addresses as a
              where a.user_id = v_uid and not a.is_account and a.organization_id is null
                and lower(a.address) = lower(v_address)) then
    raise exception using errcode = 'DW409', message = 'DW409: email_address_exists: That address is already listed.';
  end if;
  -- The cap and plan (a trigger) first; the rate limit is consumed only by an address that is added.
  insert into public.email_addresses (user_id, address, status, event_types, confirmation_mail_due_at)
  values (v_uid, v_address, 'pending', v_types, now())
  returning * into v_row;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;

create or replace function public.resend_email_confirmation(p_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  select * into v_row from public.email_addresses as a
   where a.id = p_id and a.user_id = v_uid and not a.is_account and a.organization_id is null for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  if v_row.status <> 'pending' then
    raise exception using errcode = 'DW409', message = 'DW409: email_not_pending: This address needs no confirmation.';
  end if;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  update public.email_addresses as a
     set confirmation_mail_due_at = now(), confirmation_token_hash = null, confirmation_expires_at = null
   where a.id = p_id
  returning * into v_row;
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;

create or replace function public.update_email_address(
  p_id uuid,
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
  v_uid uuid := public.current_account_id();
  v_types text[] := private.validated_alert_event_types(p_event_types);
  v_days integer[] := private.validated_expiring_days(p_expiring_days);
  v_row public.email_addresses;
begin
  perform private.refuse_oauth_client_token();
  select * into v_row from public.email_addresses as a where a.id = p_id and a.user_id = v_uid and a.organization_id is null for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  if p_enabled and v_row.status = 'stopped' and not v_row.is_account then
    perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  end if;
  update public.email_addresses as a
     set enabled = coalesce(p_enabled, a.enabled),
         event_types = coalesce(v_types, a.event_types),
         expiring_days = coalesce(v_days, a.expiring_days),
         status = case when p_enabled and a.status = 'stopped'
                       then case when a.is_account then 'active' else 'pending' end
                       else a.status end,
         stopped_reason = case when p_enabled and a.status = 'stopped' then null else a.stopped_reason end,
         stopped_at = case when p_enabled and a.status = 'stopped' then null else a.stopped_at end,
         permanent_failures = case when p_enabled and a.status = 'stopped' then 0 else a.permanent_failures end,
         confirmation_mail_due_at = case when p_enabled and a.status = 'stopped' and not a.is_account
                                         then now() else a.confirmation_mail_due_at end
   where a.id = p_id
  returning * into v_row;
  if v_row.confirmation_mail_due_at is not null then
    perform private.nudge_alert_delivery();
  end if;
  return private.email_channel_json(v_row);
end
$$;

create or replace function public.delete_email_address(p_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  if exists (select 1 from public.email_addresses as a where a.id = p_id and a.user_id = v_uid and a.is_account) then
    raise exception using errcode = 'DW409',
      message = 'DW409: account_address: The account''s own address can be switched off, not removed.';
  end if;
  delete from public.email_addresses as a
   where a.id = p_id and a.user_id = v_uid and not a.is_account and a.organization_id is null;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
end
$$;

create or replace function public.send_email_test(p_id uuid)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_event_id text;
  v_delivery_id uuid;
begin
  perform private.refuse_oauth_client_token();
  perform 1 from public.profiles as p where p.id = v_uid for no key update;
  if not exists (select 1 from public.email_addresses as a
                  where a.id = p_id and a.user_id = v_uid and a.organization_id is null
                    and a.status = 'active') then
    raise exception using errcode = 'DW404', message = 'DW404: No such confirmed email address.';
  end if;
  -- queue_test_alert's rule and event, with an email delivery.
  v_delivery_id := private.queue_test_alert(v_uid, 'email', null);
  update public.alert_deliveries as d set email_address_id = p_id where d.id = v_delivery_id;
  return v_delivery_id;
end
$$;

create or replace function public.list_email_deliveries(
  p_address_id uuid,
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
  perform private.refuse_oauth_client_token();
  if p_address_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the email address (p_address_id).';
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
  if not exists (select 1 from public.email_addresses as a where a.id = p_address_id and a.user_id = v_uid
                                                       and a.organization_id is null) then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  perform private.require_session_request(v_uid, 'email-delivery-log', 'delivery log requests');

  with page as (
    select d.*
      from public.alert_deliveries as d
     where d.email_address_id = p_address_id
       and d.channel = 'email'
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
                        'smtp_code', a.http_status,
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

  if v_count > v_limit then
    select to_char(d.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || d.id::text into v_next_cursor
      from public.alert_deliveries as d
     where d.id = (v_rows -> (v_limit - 1) ->> 'id')::uuid;
  end if;

  return jsonb_build_object('deliveries', v_rows, 'has_more', v_count > v_limit, 'next_cursor', v_next_cursor);
end
$$;

create or replace function public.redeliver_email_delivery(p_delivery_id uuid)
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
  perform private.refuse_oauth_client_token();
  if p_delivery_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the delivery (p_delivery_id).';
  end if;
  perform 1 from public.profiles as p where p.id = v_uid for no key update;

  select d.id, d.status, d.created_at, a.status as address_status, a.enabled, ev.type as event_type
    into v_delivery
    from public.alert_deliveries as d
    join public.alert_events as ev on ev.id = d.event_id
    join public.email_addresses as a
      on a.id = d.email_address_id and a.user_id = v_uid and a.organization_id is null
   where d.id = p_delivery_id
     and d.user_id = v_uid
     and d.channel = 'email'
     for update of d;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such delivery.';
  end if;

  perform private.require_session_request(v_uid, 'email-redelivery', 'redeliveries');

  if v_delivery.status = 'pending' then
    raise exception using errcode = 'DW409',
      message = 'DW409: delivery_pending: This delivery is still queued or being sent; wait for its outcome.';
  end if;
  if v_delivery.address_status <> 'active' or (not v_delivery.enabled and v_delivery.event_type <> 'test') then
    raise exception using errcode = 'DW409',
      message = 'DW409: email_not_active: The address is switched off, unconfirmed or stopped.';
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

  perform private.nudge_alert_delivery();

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

create or replace function private.export_email_channels(p_user_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
  select coalesce(jsonb_agg(
           jsonb_build_object(
             'is_account', a.is_account,
             'status', a.status,
             'stopped_reason', a.stopped_reason,
             'enabled', a.enabled,
             'event_types', to_jsonb(a.event_types),
             'expiring_days', to_jsonb(a.expiring_days),
             'confirmed_at', a.confirmed_at,
             'created_at', a.created_at
           ) order by a.is_account desc, a.created_at, a.id), '[]'::jsonb)
    from public.email_addresses as a
   where a.user_id = p_user_id and a.organization_id is null
$$;

-- ---------------------------------------------------------------------------------------------------
-- Managing the organization's email addresses: owners and admins (members: DW403; strangers, removed
-- members: DW404; assistants' tokens: 42501). Members read them (list_organization_email_addresses, or the
-- table through RLS), masked.
-- ---------------------------------------------------------------------------------------------------
create function public.list_organization_email_addresses(p_organization_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  return jsonb_build_object(
    'channels', coalesce((
      select jsonb_agg(private.email_channel_json(a) order by a.created_at, a.id)
        from public.email_addresses as a where a.organization_id = p_organization_id), '[]'::jsonb),
    'allowed', coalesce((select pl.extra_alert_emails from public.profiles as p
                           join public.plans as pl on pl.id = p.plan_id
                          where p.id = private.org_owner(p_organization_id)), 0)
  );
end
$$;
revoke all on function public.list_organization_email_addresses(uuid) from public, anon, authenticated, service_role;
grant execute on function public.list_organization_email_addresses(uuid) to authenticated;

-- Adds an address (pending until its mailed link is followed). DWUPG without the owner's plan, DW409 over
-- its number or already listed; rate-limited with resends (the caller's email-confirmation allowance).
create function public.add_organization_email_address(
  p_organization_id uuid,
  p_address text,
  p_event_types text[] default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_address text := private.normalized_email_address(p_address);
  v_types text[] := coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}');
  v_owner uuid := private.org_owner(p_organization_id);
  v_row public.email_addresses;
begin
  if v_address is null then
    raise exception using errcode = 'DW400', message = 'DW400: That is not an email address.';
  end if;
  if v_owner is null then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: Team email addresses come with the owner''s Pro plan and higher.';
  end if;
  if exists (select 1 from public.email_addresses as a
              where a.organization_id = p_organization_id and lower(a.address) = lower(v_address)) then
    raise exception using errcode = 'DW409', message = 'DW409: email_address_exists: That address is already listed.';
  end if;
  insert into public.email_addresses (user_id, organization_id, address, status, event_types, confirmation_mail_due_at)
  values (v_owner, p_organization_id, v_address, 'pending', v_types, now())
  returning * into v_row;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.added', null, null,
                                   jsonb_build_object('channel', 'email', 'channel_id', v_row.id));
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.add_organization_email_address(uuid, text, text[]) from public, anon, authenticated, service_role;
grant execute on function public.add_organization_email_address(uuid, text, text[]) to authenticated;

-- Sends a pending address's confirmation link again (a new link replaces the old one).
create function public.resend_organization_email_confirmation(p_organization_id uuid, p_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_row public.email_addresses;
begin
  select * into v_row from public.email_addresses as a
   where a.id = p_id and a.organization_id = p_organization_id for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  if v_row.status <> 'pending' then
    raise exception using errcode = 'DW409', message = 'DW409: email_not_pending: This address needs no confirmation.';
  end if;
  perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  update public.email_addresses as a
     set confirmation_mail_due_at = now(), confirmation_token_hash = null, confirmation_expires_at = null
   where a.id = p_id
  returning * into v_row;
  perform private.nudge_alert_delivery();
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.resend_organization_email_confirmation(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.resend_organization_email_confirmation(uuid, uuid) to authenticated;

-- Switches an address on or off and sets its events and reminder days (null keeps each), as
-- update_email_address does; a stopped address switched on needs a new confirmation (its reader
-- unsubscribed or its mails bounced; only they can say yes again).
create function public.update_organization_email_address(
  p_organization_id uuid,
  p_id uuid,
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
  v_row public.email_addresses;
  v_restart boolean;
begin
  select * into v_row from public.email_addresses as a
   where a.id = p_id and a.organization_id = p_organization_id for update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such email address.';
  end if;
  v_restart := coalesce(p_enabled, false) and v_row.status = 'stopped';
  if v_restart then
    perform private.require_session_request(v_uid, 'email-confirmation', 'confirmation mails');
  end if;
  update public.email_addresses as a
     set enabled = coalesce(p_enabled, a.enabled),
         event_types = coalesce(v_types, a.event_types),
         expiring_days = coalesce(v_days, a.expiring_days),
         status = case when v_restart then 'pending' else a.status end,
         stopped_reason = case when v_restart then null else a.stopped_reason end,
         stopped_at = case when v_restart then null else a.stopped_at end,
         permanent_failures = case when v_restart then 0 else a.permanent_failures end,
         confirmation_mail_due_at = case when v_restart then now() else a.confirmation_mail_due_at end
   where a.id = p_id
  returning * into v_row;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.changed', null, null,
    jsonb_strip_nulls(jsonb_build_object('channel', 'email', 'channel_id', p_id, 'enabled', p_enabled,
                                         'event_types', to_jsonb(v_types), 'expiring_days', to_jsonb(v_days))));
  if v_restart then
    perform private.nudge_alert_delivery();
  end if;
  return private.email_channel_json(v_row);
end
$$;
revoke all on function public.update_organization_email_address(uuid, uuid, boolean, text[], integer[])
  from public, anon, authenticated, service_role;
grant execute on function public.update_organization_email_address(uuid, uuid, boolean, text[], integer[])
  to authenticated;

-- Removes an address; false when it is not the organization's.
create function public.delete_organization_email_address(p_organization_id uuid, p_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
begin
  delete from public.email_addresses as a where a.id = p_id and a.organization_id = p_organization_id;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.removed', null, null,
                                   jsonb_build_object('channel', 'email', 'channel_id', p_id));
  return true;
end
$$;
revoke all on function public.delete_organization_email_address(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.delete_organization_email_address(uuid, uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- Team alerts: queue_organization_alerts (20261206000810) redefined whole; the changes: the targets are the
-- team webhooks (on an owner's plan with webhooks, the plan check moved here from `orgs`) and the team's
-- active, switched-on email addresses asking for the type; one event per organization with any target; one
-- delivery per target (channel `email` for an address).
-- ---------------------------------------------------------------------------------------------------
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
    select l.organization_id, l.owner_id, 'webhook' as channel, w.id as endpoint_id, null::uuid as address_id
      from lists as l
      join public.profiles as p on p.id = l.owner_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as w
        on w.organization_id = l.organization_id and w.enabled and v_type = any (w.event_types)
    union all
    select l.organization_id, l.owner_id, 'email', null, a.id
      from lists as l
      join public.email_addresses as a
        on a.organization_id = l.organization_id and a.enabled and a.status = 'active'
       and v_type = any (a.event_types)
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
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, email_address_id)
  select ev.id, ev.user_id, t.channel, t.endpoint_id, t.address_id
    from events as ev
    join targets as t on t.organization_id = ev.organization_id;
  return null;
end
$$;
revoke all on function private.queue_organization_alerts() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- export_owned_organizations (20261206000830) redefined whole; the change: `email_channels`, each team
-- address's settings (status, events, reminder days, dates), never the address, masked or not.
-- ---------------------------------------------------------------------------------------------------
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
