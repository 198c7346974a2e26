-- Organisations, their members (owner / admin / member) and invitations.
--
-- Organisations are created with create_organization() (which also makes the caller the owner) and
-- joined with accept_invitation(). Invitations are created by owners and admins through row-level
-- security; their token is never readable by authenticated: owners/admins get it for a pending
-- invitation through invitation_for_sending() (send-org-invite and the copy-link).

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

revoke all on table public.organizations from anon, authenticated;
grant select, delete on table public.organizations to authenticated;
grant update (name) on table public.organizations to authenticated;

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

revoke all on table public.organization_members from anon, authenticated;
grant select, delete on table public.organization_members to authenticated;
grant update (role) on table public.organization_members to authenticated;

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

revoke all on table public.invitations from anon, authenticated;
grant select (id, organization_id, email, role, status, invited_by, created_at, expires_at, emailed_at,
              accepted_at, accepted_by)
  on table public.invitations to authenticated;
grant insert (organization_id, email, role) on table public.invitations to authenticated;
grant update (status) on table public.invitations to authenticated;

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
-- accept_invitation: once, before expiry, by the account whose address was invited.
-- ---------------------------------------------------------------------------------------------------
create function public.accept_invitation(p_token text)
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
  -- Only a confirmed address proves the caller owns the invited mailbox (an unconfirmed sign-up with the
  -- invitee's address must not be able to take the invitation).
  select u.email into v_email from auth.users as u where u.id = v_uid and u.email_confirmed_at is not null;

  select i.* into v_inv
    from public.invitations as i
   where i.token = p_token
     for update;

  -- Unknown, already used, revoked, or addressed to someone else: all look the same.
  if not found
     or v_inv.status <> 'pending'
     or v_email is null
     or lower(v_inv.email) <> lower(v_email) then
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
