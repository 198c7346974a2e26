-- Local-only stand-in for what every Supabase project already provides.
--
-- This file is NOT a migration and must never run against a real Supabase project. It makes a plain
-- PostgreSQL 15 cluster (with shared_preload_libraries = 'pg_cron' and cron.database_name = 'postgres')
-- look enough like hosted Supabase today for the migrations in supabase/migrations to apply unchanged,
-- with the same privileges they get there:
--   * the superuser is supabase_admin; `postgres` (the role migrations, the seed, the tests and
--     SUPABASE_DB_URL use) is NOT a superuser: NOSUPERUSER CREATEDB CREATEROLE LOGIN REPLICATION
--     BYPASSRLS, a member of anon, authenticated and service_role, owner of the database (so of schema
--     public), with all privileges on schemas auth and extensions (supabase/postgres: demote-postgres,
--     grant_auth_roles_to_postgres, grant_predefined_roles_to_postgres);
--   * roles anon, authenticated, service_role (BYPASSRLS) and authenticator;
--   * NO default privileges in public: since 2026-05-30 for new projects and 2026-10-30 for all, Supabase
--     no longer grants new tables, sequences and functions to anon, authenticated and service_role, so
--     every migration grants explicitly what each role needs (PostgreSQL's own default, EXECUTE on new
--     functions to PUBLIC, still applies: migrations revoke it);
--   * schemas auth and extensions, auth.users, auth.uid(), auth.role(), auth.jwt();
--   * pgcrypto, pg_cron (granted to postgres as Supabase does: cron.schedule/unschedule, select on
--     cron.job, all on cron.job_run_details) and pgTAP (in extensions, for the pgTAP tests);
--   * stand-ins for pg_net (shape and grants of the real extension; net.http_post queues into
--     net.http_request_queue and notifies the channel net_http_request; platform/pg_net/worker.ts
--     takes the row out of the queue, sends it and records the outcome in net._http_response) and for
--     Vault (vault.secrets, vault.decrypted_secrets, vault.create_secret, vault.update_secret; stored in
--     clear text locally; granted to postgres only).
--
-- Idempotent: safe to run any number of times. Run it as the superuser, e.g.
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

alter role anon inherit;
alter role authenticated inherit;
alter role service_role inherit bypassrls;
alter role postgres nosuperuser createdb createrole login replication bypassrls password 'postgres';

grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to postgres;
grant pg_read_all_data, pg_signal_backend to postgres;

-- ---------------------------------------------------------------------------------------------------
-- Database and schemas. postgres owns the database, hence schema public (owned by pg_database_owner).
-- ---------------------------------------------------------------------------------------------------
alter database postgres owner to postgres;

create schema if not exists extensions;
create schema if not exists auth;

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
-- Extensions
-- ---------------------------------------------------------------------------------------------------
create extension if not exists pgcrypto with schema extensions;
create extension if not exists pg_cron;

-- pg_cron as Supabase grants it to postgres (supabase/postgres: grant_pg_cron_access and
-- revoke_writes_on_cron_job_from_postgres): jobs are written only through cron.schedule/unschedule.
grant usage on schema cron to postgres with grant option;
grant all on all functions in schema cron to postgres with grant option;
grant all privileges on all tables in schema cron to postgres with grant option;
grant all on all sequences in schema cron to postgres with grant option;
revoke all on table cron.job from postgres;
grant select on table cron.job to postgres with grant option;

-- pgTAP for the tests in supabase/tests/database (Supabase lets postgres create it; here the superuser
-- does, since a non-superuser cannot create an untrusted extension).
do $$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pgtap') then
    create extension if not exists pgtap with schema extensions;
  end if;
end
$$;

grant all on all tables in schema extensions to postgres;
grant all on all sequences in schema extensions to postgres;
grant all on all routines in schema extensions to postgres;

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
-- pg_net stand-in, shaped and granted like the real extension (github.com/supabase/pg_net,
-- sql/pg_net.sql) as Supabase installs it (supabase/postgres, pg_cron-pg_net-temp-perms-fix):
--   * net.http_post queues the request (body as UTF-8 bytes, Content-Type must be JSON) and notifies
--     net_http_request; the worker (platform/pg_net/worker.ts) DELETES the row from
--     net.http_request_queue when it takes it, as pg_net's worker does, and writes the outcome to
--     net._http_response, whose rows live pg_net.ttl (6 hours). Only the transaction that queued a
--     request can read it back (the worker sees committed rows only): nothing may rely on a queued row
--     staying in the queue.
--   * grants: schema net and its tables to PUBLIC (the extension's own script); net.http_post is
--     SECURITY DEFINER and executable by postgres, anon, authenticated and service_role, not PUBLIC
--     (Supabase). So any role that reaches a function calling net.http_post can send requests: guard the
--     callers, not pg_net.
-- ---------------------------------------------------------------------------------------------------
create schema if not exists net;

do $$
begin
  if not exists (
    select 1 from pg_catalog.pg_type
     where typname = 'http_method' and typnamespace = 'net'::regnamespace
  ) then
    create domain net.http_method as text
      check (value ilike 'get' or value ilike 'post' or value ilike 'delete');
  end if;
  -- Clusters bootstrapped with the earlier stand-in had a jsonb body and a created_at column.
  if exists (
    select 1 from information_schema.columns
     where table_schema = 'net' and table_name = 'http_request_queue' and column_name = 'created_at'
  ) then
    drop table net.http_request_queue cascade;
  end if;
end
$$;

create unlogged table if not exists net.http_request_queue (
  id bigserial,
  method net.http_method not null,
  url text not null,
  headers jsonb,
  body bytea,
  timeout_milliseconds integer not null
);

create unlogged table if not exists net._http_response (
  id bigint,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out boolean,
  error_msg text,
  created timestamptz not null default now()
);
create index if not exists _http_response_created_idx on net._http_response (created);

create or replace function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer default 5000
)
returns bigint
language plpgsql
security definer
set search_path = net
as $$
declare
  v_url text := url;
  v_headers jsonb := coalesce(headers, '{}'::jsonb);
  v_content_type text;
  v_query text;
  v_id bigint;
begin
  select h.value into v_content_type
    from pg_catalog.jsonb_each_text(v_headers) as h
   where pg_catalog.lower(h.key) = 'content-type'
   limit 1;
  if v_content_type is null then
    v_headers := v_headers || '{"Content-Type": "application/json"}'::jsonb;
  elsif v_content_type <> 'application/json' then
    raise exception 'Content-Type header must be "application/json"';
  end if;

  if params is not null and params <> '{}'::jsonb then
    select pg_catalog.string_agg(pg_catalog.format('%s=%s', p.key, p.value), '&' order by p.key)
      into v_query
      from pg_catalog.jsonb_each_text(params) as p;
    v_url := v_url || case when pg_catalog.strpos(v_url, '?') > 0 then '&' else '?' end || v_query;
  end if;

  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', v_url, v_headers, pg_catalog.convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into v_id;

  perform pg_catalog.pg_notify('net_http_request', v_id::text);
  return v_id;
end
$$;

grant usage on schema net to public;
grant all on all tables in schema net to public;
grant all on all sequences in schema net to public;
revoke all on function net.http_post(text, jsonb, jsonb, jsonb, integer) from public;
grant execute on function net.http_post(text, jsonb, jsonb, jsonb, integer)
  to postgres, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Vault stand-in (clear text locally; Supabase Vault encrypts at rest). Parameter names follow
-- Supabase Vault (new_secret, new_name, new_description), so positional and named calls both port.
-- ---------------------------------------------------------------------------------------------------
create schema if not exists vault;

create table if not exists vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text unique,
  description text not null default '',
  secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret, s.secret as decrypted_secret, s.created_at, s.updated_at
  from vault.secrets as s;

create or replace function vault.create_secret(
  new_secret text,
  new_name text default null,
  new_description text default '',
  new_key_id uuid default null
)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into vault.secrets (secret, name, description)
  values (new_secret, new_name, coalesce(new_description, ''))
  returning id into v_id;
  return v_id;
end
$$;

create or replace function vault.update_secret(
  secret_id uuid,
  new_secret text default null,
  new_name text default null,
  new_description text default null,
  new_key_id uuid default null
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  update vault.secrets as s
     set secret = coalesce(new_secret, s.secret),
         name = coalesce(new_name, s.name),
         description = coalesce(new_description, s.description),
         updated_at = now()
   where s.id = secret_id;
end
$$;

-- supabase_vault revokes its functions from PUBLIC; Supabase grants Vault to postgres (with grant option)
-- and to nobody else, so service_role and the API roles reach secrets only through functions postgres owns.
revoke all on schema vault from public, anon, authenticated, service_role;
revoke all on all tables in schema vault from public, anon, authenticated, service_role;
revoke all on function vault.create_secret(text, text, text, uuid) from public, anon, authenticated, service_role;
revoke all on function vault.update_secret(uuid, text, text, text, uuid)
  from public, anon, authenticated, service_role;
grant usage on schema vault to postgres with grant option;
grant select, insert, update, delete on all tables in schema vault to postgres with grant option;
grant execute on function vault.create_secret(text, text, text, uuid) to postgres with grant option;
grant execute on function vault.update_secret(uuid, text, text, text, uuid) to postgres with grant option;
