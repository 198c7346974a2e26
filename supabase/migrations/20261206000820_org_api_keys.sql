-- Organizations' API keys (issue 42, docs/organizations.md "API and MCP", docs/api.md): an owner or admin
-- makes a key for the organization (the owner's plan must have API access: Pro and higher). It reads and
-- changes only the organization's watchlist through the same REST endpoints and MCP tools, with the owner's
-- plan's daily limit counted for the organization alone (its own counter). A personal key keeps the
-- personal list only.
--
-- * `api_keys.organization_id` (null: a personal key). The raw key starts `dwo_` (a personal one `dwl_`),
--   so the API knows before the look-up which list a request is about; the look-up confirms it.
-- * `user_id` is the member who made it; the request runs as that member (RLS, `auth.uid()`) with the
--   claim `organization_id`, and calls the organization functions, which check membership on every
--   statement. When that member leaves, is removed or is no longer owner/admin, their organization keys
--   are revoked (trigger), as their pending invitations are.
-- * `private.authorize_api_request` is redefined with one more output column, `organization_id`.

alter table public.api_keys
  add column organization_id uuid references public.organizations (id) on delete cascade;

comment on column public.api_keys.organization_id is
  'An organization''s key (null: the account''s own). Reads and changes only that organization''s watchlist.';

create index api_keys_organization_id_idx on public.api_keys (organization_id) where organization_id is not null;

grant select (organization_id) on table public.api_keys to authenticated;

drop policy "Users can read their own API keys" on public.api_keys;
create policy "Users can read their own API keys"
  on public.api_keys for select to authenticated
  using (user_id = (select auth.uid()) and organization_id is null);

create policy "Owners and admins can read their organizations' API keys"
  on public.api_keys for select to authenticated
  using (organization_id is not null and public.has_org_role(organization_id, array['owner', 'admin']));

-- ---------------------------------------------------------------------------------------------------
-- Making and revoking
-- ---------------------------------------------------------------------------------------------------
create function public.create_organization_api_key(p_organization_id uuid, p_name text)
returns table (id uuid, name text, prefix text, api_key text)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_name text := btrim(coalesce(p_name, ''));
  v_raw text;
  v_id uuid;
begin
  if char_length(v_name) < 1 or char_length(v_name) > 100 then
    raise exception using errcode = 'DW400', message = 'DW400: An API key needs a name of 1 to 100 characters.';
  end if;
  if not coalesce((select pl.api_access from public.profiles as p join public.plans as pl on pl.id = p.plan_id
                    where p.id = private.org_owner(p_organization_id)), false) then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: An organization''s API keys need its owner''s plan to be Pro or higher.';
  end if;
  v_raw := 'dwo_' || encode(extensions.gen_random_bytes(24), 'hex');
  insert into public.api_keys as k (user_id, organization_id, name, prefix, key_hash)
  values (v_uid, p_organization_id, v_name, left(v_raw, 12), encode(extensions.digest(v_raw, 'sha256'), 'hex'))
  returning k.id into v_id;
  perform private.log_org_activity(p_organization_id, v_uid, 'api_key.created', null, null,
                                   jsonb_build_object('key_id', v_id, 'name', v_name, 'prefix', left(v_raw, 12)));
  return query select v_id, v_name, left(v_raw, 12), v_raw;
end
$$;
revoke all on function public.create_organization_api_key(uuid, text) from public, anon, authenticated, service_role;
grant execute on function public.create_organization_api_key(uuid, text) to authenticated;

create function public.revoke_organization_api_key(p_organization_id uuid, p_key_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_prefix text;
begin
  update public.api_keys as k
     set revoked_at = now()
   where k.id = p_key_id and k.organization_id = p_organization_id and k.revoked_at is null
  returning k.prefix into v_prefix;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'api_key.revoked', null, null,
                                   jsonb_build_object('key_id', p_key_id, 'prefix', v_prefix));
  return true;
end
$$;
revoke all on function public.revoke_organization_api_key(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.revoke_organization_api_key(uuid, uuid) to authenticated;

-- A member who leaves, is removed or is no longer owner/admin: their keys of that organization stop.
create function private.revoke_org_keys_of_former_admin()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' or new.role not in ('owner', 'admin') then
    update public.api_keys as k
       set revoked_at = now()
     where k.organization_id = old.organization_id and k.user_id = old.user_id and k.revoked_at is null;
  end if;
  return null;
end
$$;
revoke all on function private.revoke_org_keys_of_former_admin() from public, anon, authenticated, service_role;

create trigger organization_members_revoke_api_keys
  after delete or update of role on public.organization_members
  for each row
  when (old.role in ('owner', 'admin'))
  execute function private.revoke_org_keys_of_former_admin();

-- ---------------------------------------------------------------------------------------------------
-- The organization's own daily count (the owner's plan's requests_per_day, per UTC day, all its keys)
-- ---------------------------------------------------------------------------------------------------
create table public.organization_api_request_counters (
  organization_id uuid not null references public.organizations (id) on delete cascade,
  day date not null,
  request_count integer not null default 0 check (request_count >= 0),
  primary key (organization_id, day)
);

comment on table public.organization_api_request_counters is
  'Counted API requests of an organization''s keys per UTC day (service_role only).';

alter table public.organization_api_request_counters enable row level security;
grant select, insert, update, delete on table public.organization_api_request_counters to service_role;

-- The owner's plan of an organization: (api_access, requests_per_day, plan id).
create function private.org_plan(p_organization_id uuid)
returns table (plan_id text, api_access boolean, requests_per_day integer)
language sql
stable
security definer
set search_path = ''
as $$
  select pl.id, pl.api_access, pl.requests_per_day
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = private.org_owner(p_organization_id)
$$;
revoke all on function private.org_plan(uuid) from public, anon, authenticated, service_role;

-- count_api_request's rule on the organization's counter.
create function private.count_org_api_request(p_organization_id uuid, p_limit integer, p_count boolean)
returns table (allowed boolean, request_limit integer, remaining integer, reset_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_day date := (now() at time zone 'UTC')::date;
  v_reset_at timestamptz := ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC';
  v_count integer;
begin
  if p_limit is null then
    return query select true, null::integer, null::integer, v_reset_at;
    return;
  end if;
  if not p_count then
    select c.request_count into v_count from public.organization_api_request_counters as c
     where c.organization_id = p_organization_id and c.day = v_day;
    return query select coalesce(v_count, 0) < p_limit, p_limit, greatest(p_limit - coalesce(v_count, 0), 0),
                        v_reset_at;
    return;
  end if;
  if p_limit > 0 then
    perform set_config('synchronous_commit', 'off', true);
    insert into public.organization_api_request_counters as c (organization_id, day, request_count)
    values (p_organization_id, v_day, 1)
    on conflict (organization_id, day) do update
       set request_count = c.request_count + 1
     where c.request_count < p_limit
    returning c.request_count into v_count;
    if found then
      return query select true, p_limit, p_limit - v_count, v_reset_at;
      return;
    end if;
  end if;
  return query select false, p_limit, 0, v_reset_at;
end
$$;
revoke all on function private.count_org_api_request(uuid, integer, boolean) from public, anon, authenticated, service_role;

-- One more MCP tool call of an organization key's request (consume_api_request's twin).
create function private.consume_org_api_request(p_organization_id uuid)
returns table (allowed boolean, request_limit integer, remaining integer, reset_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_plan record;
begin
  select * into v_plan from private.org_plan(p_organization_id);
  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: Unknown organization.';
  end if;
  if not v_plan.api_access then
    raise exception using errcode = 'DWUPG', message = 'DWUPG: API access needs the Pro plan or higher.';
  end if;
  return query select * from private.count_org_api_request(p_organization_id, v_plan.requests_per_day, true);
end
$$;
revoke all on function private.consume_org_api_request(uuid) from public, anon, authenticated, service_role;
grant execute on function private.consume_org_api_request(uuid) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- authorize_api_request, redefined: the same for a personal key; for an organization's key the account is
-- the member who made it, the plan its owner's and the count the organization's; `organization_id` says
-- which (null: personal).
-- ---------------------------------------------------------------------------------------------------
drop function private.authorize_api_request(text, boolean);
create function private.authorize_api_request(p_key_hash text, p_count boolean default true)
returns table (
  outcome text,
  user_id uuid,
  plan_id text,
  allowed boolean,
  request_limit integer,
  remaining integer,
  reset_at timestamptz,
  organization_id uuid
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_key_id uuid;
  v_user_id uuid;
  v_org uuid;
  v_last_used_at timestamptz;
  v_plan_id text;
  v_api_access boolean;
  v_requests_per_day integer;
begin
  if p_key_hash is null or p_key_hash = '' then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz, null::uuid;
    return;
  end if;

  select k.id, k.user_id, k.organization_id, k.last_used_at, p.plan_id, pl.api_access, pl.requests_per_day
    into v_key_id, v_user_id, v_org, v_last_used_at, v_plan_id, v_api_access, v_requests_per_day
    from public.api_keys as k
    join public.profiles as p on p.id = k.user_id
    join public.plans as pl on pl.id = p.plan_id
   where k.key_hash = p_key_hash
     and k.revoked_at is null;

  if not found then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz, null::uuid;
    return;
  end if;

  if v_last_used_at is null or v_last_used_at < now() - interval '1 minute' then
    perform set_config('synchronous_commit', 'off', true);
    update public.api_keys as k
       set last_used_at = now()
     where k.id in (
       select k2.id
         from public.api_keys as k2
        where k2.id = v_key_id
          and (k2.last_used_at is null or k2.last_used_at < now() - interval '1 minute')
          for update skip locked
     );
  end if;

  if v_org is null then
    return query select a.*, null::uuid
                   from private.admit_api_request(v_user_id, v_plan_id, v_api_access, v_requests_per_day, p_count) as a;
    return;
  end if;

  -- An organization's key: the owner's plan and the organization's own count.
  select o.plan_id, o.api_access, o.requests_per_day into v_plan_id, v_api_access, v_requests_per_day
    from private.org_plan(v_org) as o;
  if not coalesce(v_api_access, false) then
    return query select 'upgrade_required'::text, v_user_id, v_plan_id, false, v_requests_per_day,
                        null::integer, null::timestamptz, v_org;
    return;
  end if;
  return query select 'ok'::text, v_user_id, v_plan_id, c.allowed, c.request_limit, c.remaining, c.reset_at, v_org
                 from private.count_org_api_request(v_org, v_requests_per_day, p_count) as c;
end
$$;
revoke all on function private.authorize_api_request(text, boolean) from public, anon, authenticated, service_role;
grant execute on function private.authorize_api_request(text, boolean) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- The organization's list as the REST API and MCP page it (list_watchlist's shape and rules), for its
-- members (an organization key's request runs as the member who made it).
-- ---------------------------------------------------------------------------------------------------
create function public.list_organization_watchlist(
  p_organization_id uuid,
  p_limit integer,
  p_offset integer default null,
  p_cursor text default null
)
returns table (
  domain_name text,
  unicode_name text,
  status text,
  added_at timestamptz,
  last_checked_at timestamptz,
  status_changed_at timestamptz,
  expires_at timestamptz,
  registrar text
)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  perform private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  return query select * from private.list_org_watchlist(p_organization_id, p_limit, p_offset, p_cursor);
end
$$;
revoke all on function public.list_organization_watchlist(uuid, integer, integer, text)
  from public, anon, authenticated, service_role;
grant execute on function public.list_organization_watchlist(uuid, integer, integer, text) to authenticated;

-- The organization functions tell the log when an organization's key acted (the claim the API sets from
-- the verified key; a session token never has it).
create or replace function public.add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[])
returns table (added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  return query select * from private.org_add_domains(p_organization_id, v_uid, p_domain_names,
    case when auth.jwt() ->> 'organization_id' is not null then '{"via": "api_key"}'::jsonb else '{}'::jsonb end);
end
$$;

create or replace function public.remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  return private.org_remove_domain(p_organization_id, v_uid, p_domain_name,
    case when auth.jwt() ->> 'organization_id' is not null then '{"via": "api_key"}'::jsonb else '{}'::jsonb end);
end
$$;
