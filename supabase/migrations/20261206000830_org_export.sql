-- Account export (issue 42, docs/organizations.md "Leaving, removal, deletion"): the document also holds
-- the organizations the account owns (their list, open claims, team channels without URL or secret, key
-- names and prefixes, the activity log), never a channel's URL, secret, chat ID or address, nor a key's hash.
-- export_account is redefined from 20261122001000_account_export.sql with two changes: the account's own
-- webhooks leave out team webhooks (organization_id is null), and `organizations_owned` is added.

create function private.export_owned_organizations(p_user_id uuid)
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
revoke all on function private.export_owned_organizations(uuid) from public, anon, authenticated, service_role;

create or replace function private.export_account(p_user_id uuid)
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
         and w.organization_id is null
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
    ), '[]'::jsonb),
    'organizations_owned', private.export_owned_organizations(v_uid)
  );
end
$$;
