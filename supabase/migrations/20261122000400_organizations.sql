-- Organisations: members with roles (owner, admin, member), invitations by email or copy-link, and the
-- invite-mail caps (per account per day, project-wide per hour, one account at most a third of the hour).

create table public.organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(btrim(name)) between 1 and 200),
  created_by uuid references public.profiles (id) on delete set null,
  created_at timestamptz not null default now()
);

create table public.organization_members (
  organization_id uuid not null references public.organizations (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);

create index organization_members_user_id_idx on public.organization_members (user_id);

create table public.invitations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references public.organizations (id) on delete cascade,
  email text not null check (char_length(email) between 3 and 320 and strpos(email, '@') > 1),
  role text not null default 'member' check (role in ('admin', 'member')),
  token text not null unique default encode(extensions.gen_random_bytes(24), 'hex'),
  status text not null default 'pending' check (status in ('pending', 'accepted', 'revoked')),
  invited_by uuid default auth.uid() references public.profiles (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '7 days',
  emailed_at timestamptz,
  accepted_at timestamptz,
  accepted_by uuid references public.profiles (id) on delete set null
);

comment on column public.invitations.token is
  'Secret of the invitation link. Never readable by authenticated (no column privilege).';

create index invitations_organization_id_idx on public.invitations (organization_id);

create index invitations_invited_by_idx on public.invitations (invited_by);

-- ---------------------------------------------------------------------------------------------------
-- Helpers used by the policies (security definer, so policies do not recurse through RLS).
-- ---------------------------------------------------------------------------------------------------
create function public.has_org_role(org uuid, roles text[])
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1
      from public.organization_members as m
     where m.organization_id = org
       and m.user_id = (select auth.uid())
       and m.role = any (roles)
  )
$$;
revoke all on function public.has_org_role(uuid, text[]) from public, anon, authenticated, service_role;
grant execute on function public.has_org_role(uuid, text[]) to authenticated, service_role;

create function public.shares_organization_with(p_user_id uuid)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1
      from public.organization_members as mine
      join public.organization_members as theirs on theirs.organization_id = mine.organization_id
     where mine.user_id = (select auth.uid())
       and theirs.user_id = p_user_id
  )
$$;
revoke all on function public.shares_organization_with(uuid) from public, anon, authenticated, service_role;
grant execute on function public.shares_organization_with(uuid) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------------
alter table public.organizations enable row level security;

alter table public.organization_members enable row level security;

alter table public.invitations enable row level security;

create policy "Members can read their organizations"
  on public.organizations for select to authenticated
  using (public.has_org_role(id, array['owner', 'admin', 'member']));

create policy "Owners can rename their organizations"
  on public.organizations for update to authenticated
  using (public.has_org_role(id, array['owner']))
  with check (public.has_org_role(id, array['owner']));

create policy "Owners can delete their organizations"
  on public.organizations for delete to authenticated
  using (public.has_org_role(id, array['owner']));

create policy "Assistants' tokens cannot read organizations"
  on public.organizations as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot change organizations"
  on public.organizations as restrictive for update to authenticated
  using (true)
  with check (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot delete organizations"
  on public.organizations as restrictive for delete to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Members can read the members of their organizations"
  on public.organization_members for select to authenticated
  using (public.has_org_role(organization_id, array['owner', 'admin', 'member']));

create policy "Owners can change the roles of other members"
  on public.organization_members for update to authenticated
  using (public.has_org_role(organization_id, array['owner']) and user_id <> (select auth.uid()))
  with check (public.has_org_role(organization_id, array['owner']) and user_id <> (select auth.uid()));

create policy "Owners and admins can remove members, and members can leave"
  on public.organization_members for delete to authenticated
  using (
    (user_id = (select auth.uid()) and role <> 'owner')
    or (public.has_org_role(organization_id, array['owner']) and user_id <> (select auth.uid()))
    or (public.has_org_role(organization_id, array['admin']) and role = 'member')
  );

create policy "Assistants' tokens cannot read organization members"
  on public.organization_members as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot change organization members"
  on public.organization_members as restrictive for update to authenticated
  using (true)
  with check (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot delete organization members"
  on public.organization_members as restrictive for delete to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Owners, admins and the inviter can read invitations"
  on public.invitations for select to authenticated
  using (
    invited_by = (select auth.uid())
    or public.has_org_role(organization_id, array['owner', 'admin'])
  );

create policy "Owners and admins can invite people"
  on public.invitations for insert to authenticated
  with check (
    public.has_org_role(organization_id, array['owner', 'admin'])
    and invited_by = (select auth.uid())
    and status = 'pending'
  );

create policy "Owners and admins can revoke pending invitations"
  on public.invitations for update to authenticated
  using (public.has_org_role(organization_id, array['owner', 'admin']) and status = 'pending')
  with check (public.has_org_role(organization_id, array['owner', 'admin']) and status = 'revoked');

create policy "Assistants' tokens cannot read invitations"
  on public.invitations as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot add invitations"
  on public.invitations as restrictive for insert to authenticated
  with check (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot change invitations"
  on public.invitations as restrictive for update to authenticated
  using (true)
  with check (not (select public.is_oauth_client_token()));

-- Members of a shared organisation see each other's profile (email and name).
create policy "Members can read the profiles of people in their organizations"
  on public.profiles for select to authenticated
  using (public.shares_organization_with(id));

-- ---------------------------------------------------------------------------------------------------
-- create_organization: the caller becomes its owner.
-- ---------------------------------------------------------------------------------------------------
create function public.create_organization(p_name text)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_name text := btrim(coalesce(p_name, ''));
  v_id uuid;
begin
  perform private.refuse_oauth_client_token();
  if char_length(v_name) < 1 or char_length(v_name) > 200 then
    raise exception using errcode = 'DW400',
      message = 'DW400: An organization needs a name of 1 to 200 characters.';
  end if;

  insert into public.organizations (name, created_by) values (v_name, v_uid) returning id into v_id;
  insert into public.organization_members (organization_id, user_id, role) values (v_id, v_uid, 'owner');
  return v_id;
end
$$;
revoke all on function public.create_organization(text) from public, anon, authenticated, service_role;
grant execute on function public.create_organization(text) to authenticated;

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
  perform private.refuse_oauth_client_token();
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

-- invitations, organization_members, organizations, profiles: the grants stay exactly these (restated so
-- an earlier blanket grant cannot widen them); their rules are the policies, the check constraints and
-- the triggers of this migration.
grant select, insert, update, delete on table public.invitations to service_role;
grant select (accepted_at, accepted_by, created_at, email, emailed_at, expires_at, id, invited_by, organization_id, role, status)
  on table public.invitations to authenticated;
grant insert (email, organization_id, role) on table public.invitations to authenticated;
grant update (status) on table public.invitations to authenticated;

grant select, insert, update, delete on table public.organization_members to service_role;
grant select, delete on table public.organization_members to authenticated;
grant update (role) on table public.organization_members to authenticated;

grant select, insert, update, delete on table public.organizations to service_role;
grant select, delete on table public.organizations to authenticated;
grant update (name) on table public.organizations to authenticated;

-- ===================================================================================================
-- 4. Invitations
-- ===================================================================================================

-- Leaving an organisation, being removed, or losing owner/admin revokes that person's pending invitations
-- of that organisation (for every writer: the policies, the functions, service_role).
create function private.revoke_invitations_of_former_inviter()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' or new.role not in ('owner', 'admin') then
    update public.invitations as i
       set status = 'revoked'
     where i.organization_id = old.organization_id
       and i.invited_by = old.user_id
       and i.status = 'pending';
  end if;
  return null;
end
$$;
revoke all on function private.revoke_invitations_of_former_inviter() from public, anon, authenticated, service_role;

create trigger organization_members_revoke_invitations
  after delete or update of role on public.organization_members
  for each row
  when (old.role in ('owner', 'admin'))
  execute function private.revoke_invitations_of_former_inviter();

-- accept_invitation: as before, and only while the inviter is still an owner or admin of the organisation
-- (the roles that may grant admin and member).
create or replace function public.accept_invitation(p_token text)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_email text;
  v_inv public.invitations%rowtype;
begin
  perform private.refuse_oauth_client_token();
  -- Only a confirmed address proves the caller owns the invited mailbox (an unconfirmed sign-up with the
  -- invitee's address must not be able to take the invitation).
  select u.email into v_email from auth.users as u where u.id = v_uid and u.email_confirmed_at is not null;

  select i.* into v_inv
    from public.invitations as i
   where i.token = p_token
     for update;

  -- Unknown, already used, revoked, addressed to someone else, or from an inviter who may no longer grant
  -- the role: all look the same.
  if not found
     or v_inv.status <> 'pending'
     or v_email is null
     or lower(v_inv.email) <> lower(v_email)
     or not exists (
       select 1
         from public.organization_members as m
        where m.organization_id = v_inv.organization_id
          and m.user_id = v_inv.invited_by
          and m.role in ('owner', 'admin')
     ) then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;

  if v_inv.expires_at <= now() then
    raise exception using errcode = 'DW400', message = 'DW400: invitation_expired: The invitation has expired.';
  end if;

  -- An existing member keeps the role they already have.
  insert into public.organization_members (organization_id, user_id, role)
  values (v_inv.organization_id, v_uid, v_inv.role)
  on conflict (organization_id, user_id) do nothing;

  update public.invitations as i
     set status = 'accepted',
         accepted_at = now(),
         accepted_by = v_uid
   where i.id = v_inv.id;

  return v_inv.organization_id;
end
$$;
revoke all on function public.accept_invitation(text) from public, anon, authenticated, service_role;
grant execute on function public.accept_invitation(text) to authenticated;
revoke all on function public.accept_invitation(text) from public, anon, authenticated, service_role;
grant execute on function public.accept_invitation(text) to authenticated;

-- Invite-mail caps (settings, one row): per inviting account per rolling day, and project-wide per rolling
-- hour. The project-wide default stays well under Supabase Auth's own email limit (30/hour with custom
-- SMTP), so invitations can never use up the mail that sign-up and password reset need.
create table public.invite_mail_limits (
  id boolean primary key default true constraint invite_mail_limits_single_row check (id),
  per_account_per_day integer not null default 10 check (per_account_per_day >= 0),
  project_per_hour integer not null default 10 check (project_per_hour >= 0),
  updated_at timestamptz not null default now()
);

comment on table public.invite_mail_limits is
  'One row: invite mails per inviting account per rolling 24 hours, and for the whole project per rolling '
  'hour. Operator data (service_role only).';

insert into public.invite_mail_limits (id) values (true) on conflict (id) do nothing;

create trigger invite_mail_limits_set_updated_at
  before update on public.invite_mail_limits
  for each row execute function private.set_updated_at();

alter table public.invite_mail_limits enable row level security;

grant select, update on table public.invite_mail_limits to service_role;

-- One row per invite mail handed to Auth. user_id is set null when the account is deleted, so deleting
-- accounts does not free project-wide slots.
create table public.invite_mail_log (
  id bigint generated by default as identity primary key,
  user_id uuid references public.profiles (id) on delete set null,
  invitation_id uuid references public.invitations (id) on delete set null,
  sent_at timestamptz not null default now()
);

create index invite_mail_log_user_sent_idx on public.invite_mail_log (user_id, sent_at);

create index invite_mail_log_sent_idx on public.invite_mail_log (sent_at);

alter table public.invite_mail_log enable row level security;

grant select, insert, update, delete on table public.invite_mail_log to service_role;

grant select, usage on sequence public.invite_mail_log_id_seq to service_role;

create function private.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in to send an invitation.';
  end if;

  update public.invitations as i
     set emailed_at = now()
   where i.id = p_invitation_id
     and i.status = 'pending'
     and i.expires_at > now()
     and exists (
       select 1 from public.organization_members as m
        where m.organization_id = i.organization_id
          and m.user_id = p_user_id
          and m.role in ('owner', 'admin')
     );

  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;
end
$$;
revoke all on function private.mark_invitation_emailed(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function private.mark_invitation_emailed(uuid, uuid) to service_role;

-- pg_cron: a new Supabase project does not have it until something creates it (docs/database.md, "A new
-- project's database"); every migration that schedules a job creates it first.
create extension if not exists pg_cron with schema pg_catalog;

do $do$
begin
  perform cron.schedule(
    'dwl-prune-invite-mail-log',
    '27 3 * * *',
    $job$ delete from public.invite_mail_log where sent_at < now() - interval '2 days'; $job$
  );
end
$do$;

comment on table public.invite_mail_limits is
  'One row: the invite-mail caps, operator settings (service_role only). per_account_per_day: mails per '
  'inviting account per rolling 24 hours. project_per_hour: mails for the whole project per rolling hour; one '
  'account may use at most a third of it (rounded down, at least 1) in any rolling hour.';

comment on column public.invite_mail_limits.per_account_per_day is
  'Invite mails one account may send per rolling 24 hours.';

comment on column public.invite_mail_limits.project_per_hour is
  'Invite mails the whole project may send per rolling hour; one account gets at most a third of it.';

-- Reserves one invite mail for the account, or returns false when a cap is reached: the account's daily
-- cap, its fair share of the hour (a third of the project-wide hourly cap, rounded down, at least 1), or the
-- project-wide hourly cap. Project-wide serialised (advisory lock), so every cap is exact under concurrency.
-- send-org-invite calls it after invitation_for_sending allowed the send and before it calls Auth.
create or replace function private.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_limits public.invite_mail_limits%rowtype;
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('invite_mail', 0));
  select l.* into v_limits from public.invite_mail_limits as l;
  if not found then
    return false;
  end if;
  if (select count(*) from public.invite_mail_log as g
       where g.user_id = p_user_id and g.sent_at > now() - interval '1 day') >= v_limits.per_account_per_day
     or (select count(*) from public.invite_mail_log as g
          where g.user_id = p_user_id and g.sent_at > now() - interval '1 hour')
          >= greatest(v_limits.project_per_hour / 3, 1)
     or (select count(*) from public.invite_mail_log as g
          where g.sent_at > now() - interval '1 hour') >= v_limits.project_per_hour then
    return false;
  end if;
  insert into public.invite_mail_log (user_id, invitation_id) values (p_user_id, p_invitation_id);
  return true;
end
$$;
revoke all on function private.reserve_invite_mail(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function private.reserve_invite_mail(uuid, uuid) to service_role;
revoke all on function private.reserve_invite_mail(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function private.reserve_invite_mail(uuid, uuid) to service_role;
