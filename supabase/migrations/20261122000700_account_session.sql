-- Data work of the account session endpoints (export-account, send-org-invite).
-- Their rate limits are consume_session_request (20261122000600_request_limits.sql).

-- ---------------------------------------------------------------------------------------------------
-- export_account: the account's data without any secret.
--
-- Never included: API keys (nor their hashes or prefixes), webhook URLs and secrets, Telegram chat IDs,
-- invitation tokens. The watchlist includes removed (soft-deleted) entries, with removed_at set; active
-- entries have removed_at null. Timestamps are ISO 8601 in UTC.
-- ---------------------------------------------------------------------------------------------------
create function public.export_account()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
declare
  v_uid uuid := public.current_account_id();
  v_profile jsonb;
begin
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
               'telegram_enabled', n.telegram_enabled
             )
        from public.notification_settings as n
       where n.user_id = v_uid
    ), jsonb_build_object('telegram_configured', false, 'telegram_enabled', true)),
    'webhooks', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', w.id,
                 'description', w.description,
                 'enabled', w.enabled,
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

revoke all on function public.export_account() from public, anon, authenticated, service_role;
grant execute on function public.export_account() to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- invitation_for_sending / mark_invitation_emailed: owners and admins, pending and unexpired only.
-- A plain member of the invitation's organisation gets DW403 (they know the organisation already);
-- anything else is DW404, so an outsider learns nothing about invitations it may not send.
-- ---------------------------------------------------------------------------------------------------
create function public.invitation_for_sending(p_invitation_id uuid)
returns table (
  id uuid,
  organization_id uuid,
  organization_name text,
  email text,
  role text,
  token text,
  expires_at timestamptz
)
language plpgsql
stable
security definer
set search_path = ''
as $$
#variable_conflict use_column
begin
  if auth.uid() is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in to send an invitation.';
  end if;

  if exists (
    select 1
      from public.invitations as i
     where i.id = p_invitation_id
       and public.has_org_role(i.organization_id, array['member'])
  ) then
    raise exception using errcode = 'DW403',
      message = 'DW403: Only owners and admins of the organization can send its invitations.';
  end if;

  return query
    select i.id, i.organization_id, o.name, i.email, i.role, i.token, i.expires_at
      from public.invitations as i
      join public.organizations as o on o.id = i.organization_id
     where i.id = p_invitation_id
       and i.status = 'pending'
       and i.expires_at > now()
       and public.has_org_role(i.organization_id, array['owner', 'admin']);

  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;
end
$$;

revoke all on function public.invitation_for_sending(uuid) from public, anon, authenticated, service_role;
grant execute on function public.invitation_for_sending(uuid) to authenticated;

create function public.mark_invitation_emailed(p_invitation_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in to send an invitation.';
  end if;

  update public.invitations as i
     set emailed_at = now()
   where i.id = p_invitation_id
     and i.status = 'pending'
     and i.expires_at > now()
     and public.has_org_role(i.organization_id, array['owner', 'admin']);

  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;
end
$$;

revoke all on function public.mark_invitation_emailed(uuid) from public, anon, authenticated, service_role;
grant execute on function public.mark_invitation_emailed(uuid) to authenticated;
