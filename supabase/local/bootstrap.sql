-- Local-only stand-in for what every Supabase project already provides.
--
-- This file is NOT a migration and must never run against a real Supabase project. It makes a plain
-- PostgreSQL 15 cluster (with shared_preload_libraries = 'pg_cron' and cron.database_name = 'postgres')
-- look enough like Supabase for the migrations in supabase/migrations to apply unchanged:
--   * roles anon, authenticated, service_role (BYPASSRLS) and authenticator;
--   * Supabase's default privileges (ALL on tables, sequences and functions in public for the three API
--     roles), so that row-level security and the migrations' own revokes are what protect the data;
--   * schemas auth and extensions, auth.users, auth.uid(), auth.role(), auth.jwt();
--   * the pg_cron and pgcrypto extensions;
--   * stand-ins for pg_net (net.http_post queues into net.http_request_queue and notifies the channel
--     net_http_request; the local gateway delivers the request) and for Vault (vault.secrets,
--     vault.decrypted_secrets, vault.create_secret, vault.update_secret; stored in clear text locally).
--
-- Idempotent: safe to run any number of times. Run it as a superuser, e.g.
--   psql "$SUPABASE_DB_URL" -X -v ON_ERROR_STOP=1 -q -f supabase/local/bootstrap.sql

set client_min_messages = warning;

-- ---------------------------------------------------------------------------------------------------
-- Roles
-- ---------------------------------------------------------------------------------------------------
do $$
begin
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticator') then
    create role authenticator nologin noinherit;
  end if;
end
$$;

alter role service_role bypassrls;

grant anon, authenticated, service_role to authenticator;

-- ---------------------------------------------------------------------------------------------------
-- Schemas and Supabase's default privileges
-- ---------------------------------------------------------------------------------------------------
create schema if not exists extensions;
create schema if not exists auth;

grant usage on schema public to anon, authenticated, service_role;
grant usage on schema extensions to anon, authenticated, service_role;
grant usage on schema auth to anon, authenticated, service_role;

-- Supabase grants everything in public to the API roles; row-level security is what protects a table.
alter default privileges for role postgres in schema public
  grant all on tables to anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on sequences to anon, authenticated, service_role;
alter default privileges for role postgres in schema public
  grant all on functions to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- Extensions
-- ---------------------------------------------------------------------------------------------------
create extension if not exists pgcrypto with schema extensions;
create extension if not exists pg_cron;

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

-- ---------------------------------------------------------------------------------------------------
-- pg_net stand-in: net.http_post queues the request; the local gateway LISTENs on net_http_request,
-- reads the row and performs the HTTP call.
-- ---------------------------------------------------------------------------------------------------
create schema if not exists net;

create table if not exists net.http_request_queue (
  id bigserial primary key,
  method text not null default 'POST',
  url text not null,
  headers jsonb,
  body jsonb,
  timeout_milliseconds integer,
  created_at timestamptz not null default now()
);

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
set search_path = ''
as $$
declare
  v_url text := url;
  v_query text;
  v_id bigint;
begin
  if params is not null and params <> '{}'::jsonb then
    select string_agg(pg_catalog.format('%s=%s', p.key, p.value), '&' order by p.key)
      into v_query
      from jsonb_each_text(params) as p;
    v_url := v_url || case when pg_catalog.strpos(v_url, '?') > 0 then '&' else '?' end || v_query;
  end if;

  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', v_url, headers, body, timeout_milliseconds)
  returning id into v_id;

  perform pg_catalog.pg_notify('net_http_request', v_id::text);
  return v_id;
end
$$;

revoke all on schema net from public;
revoke all on all tables in schema net from public, anon, authenticated;
revoke all on all sequences in schema net from public, anon, authenticated;
revoke all on function net.http_post(text, jsonb, jsonb, jsonb, integer) from public, anon, authenticated;
grant usage on schema net to postgres, service_role;
grant all on all tables in schema net to postgres, service_role;
grant all on all sequences in schema net to postgres, service_role;
grant execute on function net.http_post(text, jsonb, jsonb, jsonb, integer) to postgres, service_role;

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

revoke all on schema vault from public;
revoke all on all tables in schema vault from public, anon, authenticated;
revoke all on function vault.create_secret(text, text, text, uuid) from public, anon, authenticated;
revoke all on function vault.update_secret(uuid, text, text, text, uuid) from public, anon, authenticated;
grant usage on schema vault to postgres, service_role;
grant all on all tables in schema vault to postgres, service_role;
grant execute on function vault.create_secret(text, text, text, uuid) to postgres, service_role;
grant execute on function vault.update_secret(uuid, text, text, text, uuid) to postgres, service_role;
