-- Local-only stand-in for what a NEW hosted Supabase project's database has before its first migration, and
-- nothing more (docs/database.md, "A new project's database", lists it with its sources;
-- tests/e2e/fresh_project.test.ts holds a fresh cluster to that list and applies every migration to it).
--
-- This file is NOT a migration and must never run against a real Supabase project. It makes a plain
-- PostgreSQL 15 cluster (shared_preload_libraries = 'pg_stat_statements, pg_cron', cron.database_name =
-- 'postgres', as hosted) look like a new project, with the privileges the migrations get there:
--   * the superuser is supabase_admin; `postgres` (the role migrations, the seed, the tests and
--     SUPABASE_DB_URL use) is NOT a superuser: NOSUPERUSER CREATEDB CREATEROLE LOGIN REPLICATION
--     BYPASSRLS, a member of anon, authenticated and service_role, owner of the database (so of schema
--     public), with all privileges on schemas auth and extensions (supabase/postgres: demote-postgres,
--     grant_auth_roles_to_postgres, grant_predefined_roles_to_postgres); search_path "$user", public,
--     extensions (post-setup);
--   * roles anon, authenticated, service_role (BYPASSRLS), authenticator and Supabase's service roles
--     (supabase_auth_admin, supabase_storage_admin, dashboard_user, pgbouncer, …), which no migration here uses;
--   * NO default privileges in public: since 2026-05-30 for new projects and 2026-10-30 for all, Supabase
--     no longer grants new tables, sequences and functions to anon, authenticated and service_role, so
--     every migration grants explicitly what each role needs (PostgreSQL's own default, EXECUTE on new
--     functions to PUBLIC, still applies: migrations revoke it);
--   * schemas auth (GoTrue's tables, auth.uid(), auth.role(), auth.jwt(), auth.email()), extensions,
--     storage, realtime, graphql, graphql_public, pgbouncer (empty here) and vault;
--   * the extensions a new project has enabled: plpgsql, pgcrypto, uuid-ossp and pg_stat_statements (in
--     schema extensions) and supabase_vault (a stand-in, platform/postgres/extensions/; Vault is granted to
--     postgres only). NOT pg_cron, NOT pg_net, NOT pgTAP: a new project has none of them, so the migrations
--     create pg_cron and pg_net themselves, and the pgTAP tests create pgtap (platform/postgres/extensions.ts
--     lets postgres create them, as supautils does on hosted);
--   * the event triggers that give postgres its rights when pg_cron or pg_net is created
--     (extensions.grant_pg_cron_access, extensions.grant_pg_net_access; SECURITY DEFINER here, see below).
--
-- Idempotent: safe to run any number of times, also on clusters made by earlier versions of this file (it
-- then leaves their pg_cron, net and pgTAP as they are). Run it as the superuser, e.g.
--   psql "postgresql://supabase_admin@127.0.0.1:54322/postgres" -X -v ON_ERROR_STOP=1 -q -f platform/postgres/bootstrap.sql

set client_min_messages = warning;

-- ---------------------------------------------------------------------------------------------------
-- Roles
-- ---------------------------------------------------------------------------------------------------
do $$
begin
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'anon') then
    create role anon nologin;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated') then
    create role authenticated nologin;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'service_role') then
    create role service_role nologin bypassrls;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticator') then
    create role authenticator nologin noinherit;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'postgres') then
    create role postgres login password 'postgres';
  end if;
end
$$;

-- Supabase's own service roles (supabase/postgres init-scripts and migrations). Nothing here logs in as them.
do $$
declare
  v_role record;
begin
  for v_role in
    select * from (values
      ('supabase_auth_admin', 'noinherit createrole login'),
      ('supabase_storage_admin', 'noinherit createrole login'),
      ('supabase_realtime_admin', 'noinherit nologin'),
      ('supabase_replication_admin', 'login replication'),
      ('supabase_etl_admin', 'login replication'),
      ('supabase_read_only_user', 'login bypassrls'),
      ('dashboard_user', 'nosuperuser createdb createrole replication'),
      ('pgbouncer', 'login')
    ) as r (name, options)
  loop
    if not exists (select 1 from pg_catalog.pg_roles where rolname = v_role.name) then
      execute format('create role %I %s', v_role.name, v_role.options);
    end if;
  end loop;
end
$$;
grant pg_read_all_data to supabase_read_only_user;

alter role anon inherit;
alter role authenticated inherit;
alter role service_role inherit bypassrls;
alter role postgres nosuperuser createdb createrole login replication bypassrls password 'postgres';

grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to postgres;
grant pg_read_all_data, pg_signal_backend to postgres;
alter role postgres set search_path to "$user", public, extensions;

-- ---------------------------------------------------------------------------------------------------
-- Database and schemas. postgres owns the database, hence schema public (owned by pg_database_owner).
-- ---------------------------------------------------------------------------------------------------
alter database postgres owner to postgres;

create schema if not exists extensions;
create schema if not exists auth;
-- Schemas a new project has that no migration here uses (Storage, Realtime, GraphQL, the pooler's); empty here.
create schema if not exists storage;
create schema if not exists realtime;
create schema if not exists graphql;
create schema if not exists graphql_public;
create schema if not exists pgbouncer;
grant usage on schema storage to postgres, anon, authenticated, service_role;
grant usage on schema graphql_public to postgres, anon, authenticated, service_role;

grant usage on schema public to anon, authenticated, service_role;
grant usage on schema extensions to anon, authenticated, service_role;
grant usage on schema auth to anon, authenticated, service_role;
grant all on schema auth to postgres;
grant all on schema extensions to postgres;

-- No `alter default privileges ... in schema public`: on Supabase today new objects get no grants.
-- Remove the old defaults from clusters bootstrapped before this rule.
alter default privileges for role postgres in schema public
  revoke all on tables from anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  revoke all on sequences from anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  revoke all on functions from anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Extensions a new project has enabled (pg_graphql no longer: off by default for new projects since
-- 2026-04, supabase/postgres pg_graphql-off-by-default).
-- ---------------------------------------------------------------------------------------------------
create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pg_stat_statements with schema extensions;

grant all on all tables in schema extensions to postgres;
grant all on all sequences in schema extensions to postgres;
grant all on all routines in schema extensions to postgres;

-- The event triggers through which Supabase gives postgres its rights on pg_cron and pg_net when either is
-- created (supabase/postgres: post-setup, revoke_writes_on_cron_job_from_postgres,
-- revoke_trigger_on_cron_tables_from_postgres, pg_net_perms_fix; and supautils' after-create script for
-- pg_cron, which grants its functions). On hosted they run as the superuser because supautils runs the whole
-- CREATE EXTENSION as the superuser; here CREATE EXTENSION of a trusted extension returns to postgres before
-- ddl_command_end, so the functions are SECURITY DEFINER (owned by supabase_admin). An event trigger function
-- cannot be called but as an event trigger.
-- Local only: on hosted, supautils runs CREATE EXTENSION of pg_cron and pg_net as the superuser, so the
-- superuser owns them; a trusted extension here is owned by its creator (postgres). pg_cron acts as its
-- extension's owner when it writes cron.job (cron.schedule), so ownership goes to supabase_admin, the bootstrap
-- superuser (whose ownerships PostgreSQL does not record in pg_shdepend).
create or replace function extensions.hand_extension_to_supabase_admin(p_extname name)
returns void
language sql
security definer
set search_path = ''
as $$
  delete from pg_catalog.pg_shdepend as d
   using pg_catalog.pg_extension as e
   where e.extname = p_extname and d.classid = 'pg_catalog.pg_extension'::pg_catalog.regclass
     and d.objid = e.oid and d.deptype = 'o';
  update pg_catalog.pg_extension set extowner = 'supabase_admin'::pg_catalog.regrole where extname = p_extname;
$$;
revoke all on function extensions.hand_extension_to_supabase_admin(name) from public, postgres;

create or replace function extensions.grant_pg_cron_access()
returns event_trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (
    select 1 from pg_catalog.pg_event_trigger_ddl_commands() as ev
      join pg_catalog.pg_extension as ext on ev.objid = ext.oid
     where ext.extname = 'pg_cron'
  ) then
    perform extensions.hand_extension_to_supabase_admin('pg_cron');
    grant usage on schema cron to postgres with grant option;
    alter default privileges in schema cron grant all on tables to postgres with grant option;
    alter default privileges in schema cron grant all on functions to postgres with grant option;
    alter default privileges in schema cron grant all on sequences to postgres with grant option;
    grant all on all functions in schema cron to postgres with grant option;
    grant all on all sequences in schema cron to postgres with grant option;
    grant all privileges on all tables in schema cron to postgres with grant option;
    -- Jobs are written only through cron.schedule/unschedule.
    revoke all on table cron.job from postgres;
    grant select on table cron.job to postgres with grant option;
    revoke trigger on cron.job_run_details from postgres;
  end if;
end
$$;
comment on function extensions.grant_pg_cron_access() is 'Grants access to pg_cron';

create or replace function extensions.grant_pg_net_access()
returns event_trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (
    select 1 from pg_catalog.pg_event_trigger_ddl_commands() as ev
      join pg_catalog.pg_extension as ext on ev.objid = ext.oid
     where ext.extname = 'pg_net'
  ) then
    perform extensions.hand_extension_to_supabase_admin('pg_net');
    if not exists (select 1 from pg_catalog.pg_roles where rolname = 'supabase_functions_admin') then
      create user supabase_functions_admin noinherit createrole login noreplication;
    end if;
    -- pg_net >= 0.12 needs nothing else: its functions run as their caller and PUBLIC may execute them.
    grant usage on schema net to supabase_functions_admin, postgres, anon, authenticated, service_role;
  end if;
end
$$;
comment on function extensions.grant_pg_net_access() is 'Grants access to pg_net';

revoke all on function extensions.grant_pg_cron_access() from public, postgres;
revoke all on function extensions.grant_pg_net_access() from public, postgres;

do $$
begin
  if not exists (select 1 from pg_catalog.pg_event_trigger where evtname = 'issue_pg_cron_access') then
    create event trigger issue_pg_cron_access on ddl_command_end when tag in ('CREATE EXTENSION')
      execute function extensions.grant_pg_cron_access();
  end if;
  if not exists (select 1 from pg_catalog.pg_event_trigger where evtname = 'issue_pg_net_access') then
    create event trigger issue_pg_net_access on ddl_command_end when tag in ('CREATE EXTENSION')
      execute function extensions.grant_pg_net_access();
  end if;
end
$$;

-- ---------------------------------------------------------------------------------------------------
-- auth.users and the JWT helpers
-- ---------------------------------------------------------------------------------------------------
create table if not exists auth.users (
  id uuid primary key default gen_random_uuid(),
  aud text default 'authenticated',
  role text default 'authenticated',
  email text unique,
  encrypted_password text,
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb default '{}'::jsonb,
  raw_user_meta_data jsonb default '{}'::jsonb,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  deleted_at timestamptz
);

-- The rest of the columns GoTrue keeps on auth.users (supabase/auth migrations), for the local Auth
-- stand-in (platform/auth/): tokens of the mails it sends, phone, bans, anonymous users.
alter table auth.users add column if not exists phone text;
alter table auth.users add column if not exists phone_confirmed_at timestamptz;
alter table auth.users add column if not exists confirmation_token varchar(255) default '';
alter table auth.users add column if not exists recovery_token varchar(255) default '';
alter table auth.users add column if not exists recovery_sent_at timestamptz;
alter table auth.users add column if not exists email_change varchar(255) default '';
alter table auth.users add column if not exists email_change_token_new varchar(255) default '';
alter table auth.users add column if not exists email_change_sent_at timestamptz;
alter table auth.users add column if not exists email_change_token_current varchar(255) default '';
alter table auth.users add column if not exists email_change_confirm_status smallint default 0;
alter table auth.users add column if not exists banned_until timestamptz;
alter table auth.users add column if not exists is_sso_user boolean not null default false;
alter table auth.users add column if not exists is_anonymous boolean not null default false;
alter table auth.users add column if not exists confirmed_at timestamptz
  generated always as (least(email_confirmed_at, phone_confirmed_at)) stored;

-- Sessions, refresh tokens (rotated: a used token is revoked and is the parent of the next one), one-time
-- tokens of mails, identities and PKCE flow states, shaped as GoTrue keeps them (fewer columns).
create table if not exists auth.identities (
  id uuid primary key default gen_random_uuid(),
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  email text generated always as (lower(identity_data ->> 'email')) stored,
  unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);

create table if not exists auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  aal text not null default 'aal1',
  amr jsonb not null default '[]'::jsonb,
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

create table if not exists auth.refresh_tokens (
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean default false,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);

create table if not exists auth.one_time_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type text not null
    check (token_type in ('confirmation_token', 'reauthentication_token', 'recovery_token',
                          'email_change_token_new', 'email_change_token_current', 'phone_change_token')),
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  unique (user_id, token_type)
);
create index if not exists one_time_tokens_token_hash_idx on auth.one_time_tokens using hash (token_hash);

create table if not exists auth.flow_state (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  auth_code text not null,
  code_challenge_method text not null check (code_challenge_method in ('s256', 'plain')),
  code_challenge text not null,
  provider_type text not null,
  authentication_method text not null,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  auth_code_issued_at timestamptz
);
create index if not exists flow_state_auth_code_idx on auth.flow_state (auth_code);

-- MFA factors and challenges, reauthentication nonces, and the OAuth client of a session, as GoTrue keeps
-- them (supabase/auth migrations: mfa_factors, mfa_challenges, users.reauthentication_token,
-- sessions.oauth_client_id), for the local Auth stand-in's MFA (platform/auth/mfa.ts), reauthentication
-- (platform/auth/reauthenticate.ts) and OAuth sessions (platform/auth/oauth/tokens.ts).
create table if not exists auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type text not null check (factor_type in ('totp', 'webauthn', 'phone')),
  status text not null check (status in ('unverified', 'verified')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  secret text,
  phone text,
  last_challenged_at timestamptz
);
create index if not exists mfa_factors_user_id_idx on auth.mfa_factors (user_id);
create unique index if not exists mfa_factors_user_friendly_name_unique
  on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> '';

create table if not exists auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null default now(),
  verified_at timestamptz,
  ip_address inet
);

-- The OAuth 2.1 server's clients and the users' consents to them, as GoTrue keeps them (redirect URIs and grant
-- types comma-separated, scopes space-separated; a revoked consent keeps its row with revoked_at).
create table if not exists auth.oauth_clients (
  id uuid primary key,
  client_secret_hash text,
  registration_type text not null check (registration_type in ('dynamic', 'manual')),
  redirect_uris text not null,
  grant_types text not null,
  client_name text,
  client_uri text,
  logo_uri text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type text not null default 'confidential' check (client_type in ('public', 'confidential')),
  token_endpoint_auth_method text not null
);
create table if not exists auth.oauth_consents (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null,
  granted_at timestamptz not null default now(),
  revoked_at timestamptz,
  unique (user_id, client_id)
);

alter table auth.users add column if not exists reauthentication_token varchar(255) default '';
alter table auth.users add column if not exists reauthentication_sent_at timestamptz;
alter table auth.sessions add column if not exists oauth_client_id uuid;
alter table auth.sessions add column if not exists scopes text;
create index if not exists sessions_oauth_client_id_idx on auth.sessions (oauth_client_id);

-- Same reading order as Supabase's own helpers: the PostgREST >= 9 setting request.jwt.claims (a JSON
-- document), falling back to the legacy per-claim settings request.jwt.claim.<name>.
create or replace function auth.jwt()
returns jsonb
language sql
stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claims', true), ''),
    nullif(current_setting('request.jwt.claim', true), '')
  )::jsonb
$$;

create or replace function auth.uid()
returns uuid
language sql
stable
as $$
  select coalesce(
    nullif(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub', ''),
    nullif(current_setting('request.jwt.claim.sub', true), '')
  )::uuid
$$;

create or replace function auth.role()
returns text
language sql
stable
as $$
  select coalesce(
    nullif(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', ''),
    nullif(current_setting('request.jwt.claim.role', true), '')
  )::text
$$;

create or replace function auth.email()
returns text
language sql
stable
as $$
  select coalesce(
    nullif(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email', ''),
    nullif(current_setting('request.jwt.claim.email', true), '')
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email()
  to anon, authenticated, service_role;

-- postgres may read and write auth's tables (and create triggers on auth.users), as on Supabase.
grant all on all tables in schema auth to postgres;
grant all on all sequences in schema auth to postgres;
grant all on all routines in schema auth to postgres;

-- ---------------------------------------------------------------------------------------------------
-- Supabase Vault, enabled on every new project (stand-in extension: platform/postgres/extensions/).
-- Supabase grants Vault to postgres (with grant option) and to nobody else, so service_role and the API roles
-- reach secrets only through functions postgres owns.
-- ---------------------------------------------------------------------------------------------------
create schema if not exists vault;
create extension if not exists supabase_vault with schema vault;

revoke all on schema vault from public, anon, authenticated, service_role;
revoke all on all tables in schema vault from public, anon, authenticated, service_role;
revoke all on function vault.create_secret(text, text, text, uuid) from public, anon, authenticated, service_role;
revoke all on function vault.update_secret(uuid, text, text, text, uuid)
  from public, anon, authenticated, service_role;
grant usage on schema vault to postgres with grant option;
grant select, insert, update, delete on all tables in schema vault to postgres with grant option;
grant execute on function vault.create_secret(text, text, text, uuid) to postgres with grant option;
grant execute on function vault.update_secret(uuid, text, text, text, uuid) to postgres with grant option;
