-- Plans and profiles: the plans table (limits and capabilities, changeable without code), one profile per
-- Supabase Auth user (created by trigger, on the Free plan), and the conventions every later file follows.
--
-- Conventions (docs/database.md): migrations run as the non-superuser `postgres`; new objects get no
-- grants, so each table and function grants exactly the roles that use it; functions run with
-- `set search_path = ''` and schema-qualified names; errors are `DWnnn` SQLSTATEs the API maps to codes.

-- Functions no user calls (the limiter, proofs, claims, the outbox, triggers, cron entry points) live in
-- `private`, which PostgREST does not expose and where anon and authenticated have no usage: a grant added
-- there by mistake still reaches nobody. `public` keeps the tables and the functions the signed-in app calls.
create schema private;
revoke all on schema private from public;
grant usage on schema private to service_role;

-- New functions are executable by nobody until granted (PostgreSQL's own default gives EXECUTE to PUBLIC).
-- The global default, because per-schema defaults only add to it; the second line keeps anon,
-- authenticated and service_role without default grants on a project that still has Supabase's old ones.
alter default privileges for role postgres
  revoke execute on functions from public, anon, authenticated, service_role;

alter default privileges for role postgres in schema public
  revoke execute on functions from anon, authenticated, service_role;

create function private.set_updated_at()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
revoke all on function private.set_updated_at() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- The signed-in account, or DW401 when the caller is not signed in. The account functions start with
-- `v_uid uuid := public.current_account_id();` instead of repeating the auth.uid() null check.
-- ---------------------------------------------------------------------------------------------------
create function public.current_account_id()
returns uuid
language plpgsql
stable
security invoker
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if v_uid is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  return v_uid;
end
$$;
revoke all on function public.current_account_id() from public, anon, authenticated, service_role;
grant execute on function public.current_account_id() to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Assistants' OAuth tokens (docs/mcp.md, "What a connected assistant can and cannot do"). Supabase Auth's
-- OAuth 2.1 server issues access tokens that carry the `client_id` of the assistant they were issued to;
-- PostgREST and the product app's direct calls run with those claims as `authenticated`. Such a token may
-- do what the four MCP tools do (read, add and remove watchlist names) and nothing else: every function
-- that manages the account starts with `perform private.refuse_oauth_client_token();`, and the tables'
-- restrictive policies "Assistants' tokens ..." keep their reads and writes away. The one rule:
-- ---------------------------------------------------------------------------------------------------
create function public.is_oauth_client_token()
returns boolean
language sql
stable
security invoker
set search_path = ''
as $$
  select coalesce(auth.jwt() ->> 'client_id', '') <> ''
$$;
revoke all on function public.is_oauth_client_token() from public, anon, authenticated, service_role;
grant execute on function public.is_oauth_client_token() to authenticated, service_role;

-- 42501 (insufficient_privilege) for an assistant's token; the managing functions call it first.
create function private.refuse_oauth_client_token()
returns void
language plpgsql
stable
security invoker
set search_path = ''
as $$
begin
  if public.is_oauth_client_token() then
    raise exception using
      errcode = '42501',
      message = 'An assistant''s access token cannot manage the account: sign in to the app to do this.',
      hint = 'OAuth client tokens may only list, add and remove watchlist names (the MCP tools).';
  end if;
end
$$;
revoke all on function private.refuse_oauth_client_token() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- plans
-- ---------------------------------------------------------------------------------------------------
create table public.plans (
  id text primary key,
  api_access boolean not null default false,
  requests_per_day integer check (requests_per_day is null or requests_per_day >= 0),
  watchlist_quota integer not null check (watchlist_quota >= 0),
  webhooks boolean not null default false,
  sort_order integer not null default 0
);

comment on table public.plans is
  'Product plans. requests_per_day null means unlimited. Read by every signed-in account.';

insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values
  ('free', false, null, 10, false, 10),
  ('pro', true, 1000, 1000, true, 20),
  ('business', true, 5000, 10000, true, 30),
  ('enterprise', true, null, 100000, true, 40)
on conflict (id) do nothing;

alter table public.plans enable row level security;

create policy "Signed-in users can read the plans"
  on public.plans for select to authenticated
  using (true);

-- ---------------------------------------------------------------------------------------------------
-- profiles
-- ---------------------------------------------------------------------------------------------------
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  email text,
  display_name text check (display_name is null or char_length(display_name) <= 200),
  plan_id text not null default 'free' references public.plans (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

comment on table public.profiles is
  'One row per auth.users row (created by trigger). Accounts may change only display_name.';

create index profiles_plan_id_idx on public.profiles (plan_id);

create trigger profiles_set_updated_at
  before update on public.profiles
  for each row execute function private.set_updated_at();

alter table public.profiles enable row level security;

create policy "Users can read their own profile"
  on public.profiles for select to authenticated
  using (id = (select auth.uid()));

create policy "Users can update their own display name"
  on public.profiles for update to authenticated
  using (id = (select auth.uid()))
  with check (id = (select auth.uid()));

create policy "Assistants' tokens cannot read profiles"
  on public.profiles as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot rename the account"
  on public.profiles as restrictive for update to authenticated
  using (true)
  with check (not (select public.is_oauth_client_token()));

-- Create the profile when Supabase Auth creates a user (basejump style).
create function private.handle_new_user()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.profiles (id, email, display_name)
  values (
    new.id,
    new.email,
    nullif(left(btrim(coalesce(
      new.raw_user_meta_data ->> 'display_name',
      new.raw_user_meta_data ->> 'full_name',
      new.raw_user_meta_data ->> 'name',
      ''
    )), 200), '')
  )
  on conflict (id) do nothing;
  return new;
end
$$;
revoke all on function private.handle_new_user() from public, anon, authenticated, service_role;

create trigger on_auth_user_created
  after insert on auth.users
  for each row execute function private.handle_new_user();

-- Keep profiles.email in step with the account's address.
create function private.handle_user_email_change()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.profiles set email = new.email where id = new.id;
  return new;
end
$$;
revoke all on function private.handle_user_email_change() from public, anon, authenticated, service_role;

create trigger on_auth_user_email_changed
  after update of email on auth.users
  for each row
  when (old.email is distinct from new.email)
  execute function private.handle_user_email_change();

grant select, insert, update, delete on table public.plans to service_role;
grant select on table public.plans to authenticated;

grant select, insert, update, delete on table public.profiles to service_role;
grant select on table public.profiles to authenticated;
grant update (display_name) on table public.profiles to authenticated;
