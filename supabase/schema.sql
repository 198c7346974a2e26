-- The current schema, generated from supabase/migrations by `deno task schema` (do not edit).
-- CI fails when it is out of date; docs/database.md, "The current schema".
--
-- PostgreSQL database dump
--

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: private; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA private;

ALTER SCHEMA private OWNER TO postgres;

--
-- Name: public; Type: SCHEMA; Schema: -; Owner: pg_database_owner
--

CREATE SCHEMA public;

ALTER SCHEMA public OWNER TO pg_database_owner;

--
-- Name: SCHEMA public; Type: COMMENT; Schema: -; Owner: pg_database_owner
--

COMMENT ON SCHEMA public IS 'standard public schema';

--
-- Name: admit_api_request(uuid, text, boolean, integer, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.admit_api_request(p_user_id uuid, p_plan_id text, p_api_access boolean, p_requests_per_day integer, p_count boolean) RETURNS TABLE(outcome text, user_id uuid, plan_id text, allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
begin
  if not p_api_access then
    return query select 'upgrade_required'::text, p_user_id, p_plan_id, false, p_requests_per_day,
                        null::integer, null::timestamptz;
    return;
  end if;

  if p_count then
    return query select 'ok'::text, p_user_id, p_plan_id, c.allowed, c.request_limit, c.remaining, c.reset_at
                   from private.count_api_request(p_user_id, p_requests_per_day) as c;
  else
    return query select 'ok'::text, p_user_id, p_plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at
                   from private.api_request_allowance(p_user_id) as a;
  end if;
end
$$;

ALTER FUNCTION private.admit_api_request(p_user_id uuid, p_plan_id text, p_api_access boolean, p_requests_per_day integer, p_count boolean) OWNER TO postgres;

--
-- Name: alert_watchers(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.alert_watchers(p_domain_name text) RETURNS TABLE(user_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select e.user_id
    from public.watchlist_entries as e
   where e.domain_name = p_domain_name and e.deleted_at is null
  union
  select m.user_id
    from public.organization_watchlist_entries as o
    join public.organization_members as m on m.organization_id = o.organization_id and m.personal_alerts
   where o.domain_name = p_domain_name and o.deleted_at is null
$$;

ALTER FUNCTION private.alert_watchers(p_domain_name text) OWNER TO postgres;

--
-- Name: api_request_allowance(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.api_request_allowance(p_user_id uuid) RETURNS TABLE(allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select coalesce(pl.requests_per_day - coalesce(c.request_count, 0) > 0, true),
         pl.requests_per_day,
         greatest(pl.requests_per_day - coalesce(c.request_count, 0), 0),
         ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC'
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
    left join public.api_request_counters as c
      on c.user_id = p.id and c.day = (now() at time zone 'UTC')::date
   where p.id = p_user_id
$$;

ALTER FUNCTION private.api_request_allowance(p_user_id uuid) OWNER TO postgres;

--
-- Name: api_watchlist_page(text, uuid, integer, integer, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.api_watchlist_page(p_key_hash text DEFAULT NULL::text, p_account uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 50, p_offset integer DEFAULT NULL::integer, p_cursor text DEFAULT NULL::text) RETURNS TABLE(admission json, domain_name text, unicode_name text, status text, added_at text, last_checked_at text, status_changed_at text, expires_at text, registrar text, tags text[], note text)
    LANGUAGE plpgsql
    SET search_path TO ''
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_memoize TO 'off'
    AS $$
declare
  v_admission record;
begin
  if (p_key_hash is null) = (p_account is null) then
    raise exception 'api_watchlist_page: give exactly one of p_key_hash and p_account';
  end if;
  if p_key_hash is not null then
    select a.outcome, a.user_id, a.plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at,
           a.organization_id
      into v_admission
      from private.authorize_api_request(p_key_hash, true) as a;
  else
    select a.outcome, a.user_id, a.plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at,
           null::uuid as organization_id
      into v_admission
      from private.authorize_account_request(p_account, true) as a;
  end if;

  -- The admission: one column of the first row, so that the page's rows carry only their own columns.
  return query select json_build_object('outcome', v_admission.outcome, 'user_id', v_admission.user_id,
                                        'plan_id', v_admission.plan_id, 'allowed', v_admission.allowed,
                                        'request_limit', v_admission.request_limit,
                                        'remaining', v_admission.remaining, 'reset_at', v_admission.reset_at,
                                        'organization_id', v_admission.organization_id),
                      null::text, null::text, null::text, null::text, null::text, null::text, null::text,
                      null::text, null::text[], null::text;
  -- The page only for a request admitted on a personal list (anything unknown reads as not admitted).
  if (v_admission.outcome = 'ok' and v_admission.allowed and v_admission.organization_id is null) is not true
  then
    return;
  end if;

  -- The page, its moments as the API writes them; no tags is null rather than an empty array, which the
  -- API reads alike (and need not parse).
  if coalesce(p_offset, 0) = 0 then
    return query select null::json, w.domain_name, w.unicode_name, w.status,
                        private.iso_timestamp(w.added_at), private.iso_timestamp(w.last_checked_at),
                        private.iso_timestamp(w.status_changed_at), private.iso_timestamp(w.expires_at),
                        w.registrar, nullif(w.tags, '{}'), w.note
                   from private.list_watchlist_keyset(v_admission.user_id, p_limit, p_cursor) as w;
  else
    return query select null::json, w.domain_name, w.unicode_name, w.status,
                        private.iso_timestamp(w.added_at), private.iso_timestamp(w.last_checked_at),
                        private.iso_timestamp(w.status_changed_at), private.iso_timestamp(w.expires_at),
                        w.registrar, nullif(w.tags, '{}'), w.note
                   from private.list_watchlist_offset(v_admission.user_id, p_limit, p_offset) as w;
  end if;
end
$$;

ALTER FUNCTION private.api_watchlist_page(p_key_hash text, p_account uuid, p_limit integer, p_offset integer, p_cursor text) OWNER TO postgres;

--
-- Name: FUNCTION api_watchlist_page(p_key_hash text, p_account uuid, p_limit integer, p_offset integer, p_cursor text); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.api_watchlist_page(p_key_hash text, p_account uuid, p_limit integer, p_offset integer, p_cursor text) IS 'The API''s page read (GET /domains, MCP list_watchlist) for a personal key or an OAuth token''s account: the admission and count as the first row, then the page when admitted. Plans kept per connection. Owner only.';

--
-- Name: authenticate_api_key(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.authenticate_api_key(p_key_hash text) RETURNS TABLE(outcome text, user_id uuid, plan_id text, requests_per_day integer)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select a.outcome,
         a.user_id,
         a.plan_id,
         case when a.outcome = 'unauthorized' then null else a.request_limit end
    from private.authorize_api_request(p_key_hash, false) as a
$$;

ALTER FUNCTION private.authenticate_api_key(p_key_hash text) OWNER TO postgres;

--
-- Name: authorize_account_request(uuid, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.authorize_account_request(p_user_id uuid, p_count boolean DEFAULT true) RETURNS TABLE(outcome text, user_id uuid, plan_id text, allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_plan_id text;
  v_api_access boolean;
  v_requests_per_day integer;
begin
  select p.plan_id, pl.api_access, pl.requests_per_day
    into v_plan_id, v_api_access, v_requests_per_day
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = p_user_id;

  if not found then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz;
    return;
  end if;

  return query select * from private.admit_api_request(p_user_id, v_plan_id, v_api_access, v_requests_per_day,
                                                      p_count);
end
$$;

ALTER FUNCTION private.authorize_account_request(p_user_id uuid, p_count boolean) OWNER TO postgres;

--
-- Name: authorize_api_request(text, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.authorize_api_request(p_key_hash text, p_count boolean DEFAULT true) RETURNS TABLE(outcome text, user_id uuid, plan_id text, allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone, organization_id uuid)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.authorize_api_request(p_key_hash text, p_count boolean) OWNER TO postgres;

--
-- Name: calendar_feed_document(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.calendar_feed_document(p_token_hash text) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select jsonb_build_object(
           'reminder_days', to_jsonb(f.reminder_days),
           'names', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'domain_name', w.domain_name,
                      'unicode_name', w.unicode_name,
                      'status', d.status,
                      'expires_at', d.expires_at,
                      'predicted_drop_at', d.predicted_drop_at
                    ) order by w.domain_name)
               from public.watchlist_entries as w
               join public.domains as d on d.name = w.domain_name
              where w.user_id = f.user_id and w.deleted_at is null
           ), '[]'::jsonb)
         )
    from public.calendar_feeds as f
   where f.token_hash = p_token_hash
$$;

ALTER FUNCTION private.calendar_feed_document(p_token_hash text) OWNER TO postgres;

--
-- Name: FUNCTION calendar_feed_document(p_token_hash text); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.calendar_feed_document(p_token_hash text) IS 'The calendar feed of the token whose SHA-256 hex is p_token_hash: reminder_days and the account''s own watched names (domain_name, unicode_name, status, expires_at, predicted_drop_at); null when unknown or revoked.';

--
-- Name: check_email_address_cap(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_email_address_cap() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.check_email_address_cap() OWNER TO postgres;

--
-- Name: mask_email(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.mask_email(p_address text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
  select case
    when p_address is null then null
    when position('@' in p_address) < 2 then '•••'
    else left(p_address, 1) || '•••' || substr(p_address, position('@' in p_address))
  end
$$;

ALTER FUNCTION public.mask_email(p_address text) OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: email_addresses; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.email_addresses (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    is_account boolean DEFAULT false NOT NULL,
    address text,
    address_masked text GENERATED ALWAYS AS (public.mask_email(address)) STORED,
    status text DEFAULT 'pending'::text NOT NULL,
    stopped_reason text,
    enabled boolean DEFAULT true NOT NULL,
    event_types text[] DEFAULT '{domain.available}'::text[] NOT NULL,
    expiring_days integer[] DEFAULT '{30,7,1}'::integer[] NOT NULL,
    permanent_failures integer DEFAULT 0 NOT NULL,
    last_failure text,
    confirmation_token_hash text,
    confirmation_expires_at timestamp with time zone,
    confirmation_mail_due_at timestamp with time zone,
    confirmation_sent_at timestamp with time zone,
    confirmed_at timestamp with time zone,
    stopped_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    organization_id uuid,
    CONSTRAINT email_addresses_address_check CHECK (((address IS NULL) OR ((char_length(address) >= 3) AND (char_length(address) <= 254)))),
    CONSTRAINT email_addresses_event_types_check CHECK (((cardinality(event_types) > 0) AND (event_types <@ ARRAY['domain.available'::text, 'domain.expiring'::text, 'domain.pending_delete'::text, 'domain.registered'::text, 'domain.restored'::text]))),
    CONSTRAINT email_addresses_expiring_days_check CHECK ((((cardinality(expiring_days) >= 1) AND (cardinality(expiring_days) <= 10)) AND (1 <= ALL (expiring_days)) AND (365 >= ALL (expiring_days)))),
    CONSTRAINT email_addresses_kind_check CHECK ((is_account = (address IS NULL))),
    CONSTRAINT email_addresses_last_failure_check CHECK (((last_failure IS NULL) OR (char_length(last_failure) <= 500))),
    CONSTRAINT email_addresses_permanent_failures_check CHECK ((permanent_failures >= 0)),
    CONSTRAINT email_addresses_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'active'::text, 'stopped'::text]))),
    CONSTRAINT email_addresses_stopped_check CHECK (((status = 'stopped'::text) = (stopped_reason IS NOT NULL))),
    CONSTRAINT email_addresses_stopped_reason_check CHECK (((stopped_reason IS NULL) OR (stopped_reason = ANY (ARRAY['unsubscribed'::text, 'bounced'::text])))),
    CONSTRAINT email_addresses_team_check CHECK (((organization_id IS NULL) OR (NOT is_account)))
);

ALTER TABLE public.email_addresses OWNER TO postgres;

--
-- Name: TABLE email_addresses; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.email_addresses IS 'Alert email channels: the account''s own address (is_account, address null: read from auth.users when sending) and extra addresses (Pro+, confirmed by a mailed link). address is never readable by the account (address_masked is); status pending | active | stopped (stopped_reason unsubscribed | bounced).';

--
-- Name: COLUMN email_addresses.organization_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.email_addresses.organization_id IS 'A team channel of this organization (null: the account''s own). user_id is then the organization''s owner.';

--
-- Name: check_org_email_address_cap(public.email_addresses); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_org_email_address_cap(p_new public.email_addresses) RETURNS public.email_addresses
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.check_org_email_address_cap(p_new public.email_addresses) OWNER TO postgres;

--
-- Name: check_webhook_endpoint_cap(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_webhook_endpoint_cap() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform 1 from public.profiles as p where p.id = new.user_id for no key update;
  if (select count(*) from public.webhook_endpoints as w where w.user_id = new.user_id and w.id <> new.id) >= 10 then
    raise exception using errcode = 'DW400', message = 'DW400: An account can have at most 10 webhooks.';
  end if;
  return new;
end
$$;

ALTER FUNCTION private.check_webhook_endpoint_cap() OWNER TO postgres;

--
-- Name: check_webhook_endpoint_kind(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_webhook_endpoint_kind() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_problem text := private.webhook_kind_problem(new.url, new.kind);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  new.event_types := private.validated_alert_event_types(new.event_types);
  return new;
end
$$;

ALTER FUNCTION private.check_webhook_endpoint_kind() OWNER TO postgres;

--
-- Name: check_webhook_endpoint_secret(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_webhook_endpoint_secret() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_problem text := private.webhook_secret_problem(new.secret);
begin
  if v_problem is not null then
    raise exception using errcode = 'check_violation', message = v_problem,
      constraint = 'webhook_endpoints_check_secret';
  end if;
  return new;
end
$$;

ALTER FUNCTION private.check_webhook_endpoint_secret() OWNER TO postgres;

--
-- Name: check_webhook_endpoint_url(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.check_webhook_endpoint_url() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_problem text;
begin
  if new.url ~* '^https?://' then
    v_problem := public.webhook_url_problem(new.url);
    if v_problem is not null then
      raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
    end if;
  end if;
  return new;
end
$$;

ALTER FUNCTION private.check_webhook_endpoint_url() OWNER TO postgres;

--
-- Name: claim_alert_deliveries(integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_alert_deliveries(p_limit integer, p_lease_seconds integer) RETURNS TABLE(delivery_id uuid, channel text, attempt_count integer, failure_count integer, delivery_created_at timestamp with time zone, event_id text, event_type text, event_created_at timestamp with time zone, domain_name text, unicode_name text, previous_status text, status text, checked_at timestamp with time zone, webhook_endpoint_id uuid, webhook_url text, webhook_secret text, webhook_enabled boolean, telegram_chat_id text, telegram_enabled boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_alert_deliveries: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_alert_deliveries: lease must be 1-3600 s.';
  end if;

  return query
    with due as (
      select dl.id
        from public.alert_deliveries as dl
       where dl.status = 'pending'
         and dl.next_attempt_at <= now()
         and (dl.lease_until is null or dl.lease_until <= now())
       order by dl.next_attempt_at
       limit p_limit
         for update of dl skip locked
    ),
    claimed as (
      update public.alert_deliveries as dl
         set lease_until = now() + make_interval(secs => p_lease_seconds)
        from due
       where dl.id = due.id
      returning dl.*
    )
    select c.id, c.channel, c.attempt_count, c.failure_count, c.created_at,
           ev.id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status, ev.status,
           ev.checked_at,
           c.webhook_endpoint_id, w.url, w.secret, w.enabled,
           n.telegram_chat_id, n.telegram_enabled
      from claimed as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
     order by c.next_attempt_at;
end
$$;

ALTER FUNCTION private.claim_alert_deliveries(p_limit integer, p_lease_seconds integer) OWNER TO postgres;

--
-- Name: claim_due_domains(integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_due_domains(p_limit integer, p_lease_seconds integer) RETURNS TABLE(domain_name text, status text, expires_at timestamp with time zone, registrar text, last_checked_at timestamp with time zone, registry_asked_at timestamp with time zone, reminder_days integer[])
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_names text[];
  v_more text[];
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: lease must be 1-3600 s.';
  end if;

  select coalesce(array_agg(due.name), '{}') into v_names
    from (
      select d.name
        from public.domains as d
       where d.status = 'pending_delete'
         and d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and (exists (select 1 from public.watchlist_entries as e
                       where e.domain_name = d.name and e.deleted_at is null)
              or exists (select 1 from public.organization_watchlist_entries as o
                          where o.domain_name = d.name and o.deleted_at is null))
       order by d.next_check_at
       limit p_limit
         for update of d skip locked
    ) as due;

  if cardinality(v_names) < p_limit then
    select coalesce(array_agg(due.name), '{}') into v_more
      from (
        select d.name
          from public.domains as d
         where d.next_check_at <= now()
           and (d.lease_until is null or d.lease_until <= now())
           and d.name <> all (v_names)
           and (exists (select 1 from public.watchlist_entries as e
                         where e.domain_name = d.name and e.deleted_at is null)
                or exists (select 1 from public.organization_watchlist_entries as o
                            where o.domain_name = d.name and o.deleted_at is null))
         order by d.next_check_at
         limit p_limit - cardinality(v_names)
           for update of d skip locked
      ) as due;
    v_names := v_names || v_more;
  end if;

  return query
    with claimed as (
      update public.domains as d
         set lease_until = now() + make_interval(secs => p_lease_seconds)
       where d.name = any (v_names)
      returning d.name, d.status, d.expires_at, d.registrar, d.last_checked_at, d.next_check_at,
                d.registry_asked_at
    )
    select c.name::text, c.status, c.expires_at, c.registrar, c.last_checked_at, c.registry_asked_at,
           (select coalesce(array_agg(distinct r.days order by r.days), '{}')
              from public.watchlist_entries as e
              cross join lateral private.expiring_reminder_days(e.user_id) as r(days)
             where e.domain_name = c.name and e.deleted_at is null)
      from claimed as c
     order by c.status <> 'pending_delete', c.next_check_at, c.name;
end
$$;

ALTER FUNCTION private.claim_due_domains(p_limit integer, p_lease_seconds integer) OWNER TO postgres;

--
-- Name: claim_email_confirmations(integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_email_confirmations(p_limit integer) RETURNS TABLE(email_address_id uuid, address text, token text, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_row record;
  v_token text;
begin
  for v_row in
    select a.id, a.address from public.email_addresses as a
     where a.confirmation_mail_due_at <= now() and a.status = 'pending' and not a.is_account
     order by a.confirmation_mail_due_at
     limit greatest(coalesce(p_limit, 0), 0)
       for update skip locked
  loop
    v_token := encode(extensions.gen_random_bytes(24), 'hex');
    update public.email_addresses as a
       set confirmation_token_hash = encode(extensions.digest(v_token, 'sha256'), 'hex'),
           confirmation_expires_at = now() + interval '24 hours',
           confirmation_mail_due_at = null,
           confirmation_sent_at = now()
     where a.id = v_row.id;
    email_address_id := v_row.id;
    address := v_row.address;
    token := v_token;
    expires_at := now() + interval '24 hours';
    return next;
  end loop;
end
$$;

ALTER FUNCTION private.claim_email_confirmations(p_limit integer) OWNER TO postgres;

--
-- Name: claim_email_mails(integer, integer, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_email_mails(p_limit integer, p_lease_seconds integer, p_window_seconds integer, p_max_events integer) RETURNS TABLE(mail_id uuid, delivery_id uuid, attempt_count integer, failure_count integer, delivery_created_at timestamp with time zone, event_id text, email_address_id uuid, to_address text, address_status text, address_enabled boolean, unsubscribe_token text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_lane record;
  v_ids uuid[];
  v_until timestamptz;
  v_token text;
  v_mails integer := 0;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000
     or p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600
     or p_window_seconds is null or p_window_seconds < 0 or p_window_seconds > 86400
     or p_max_events is null or p_max_events < 1 or p_max_events > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_email_mails: invalid limits.';
  end if;

  insert into public.alert_delivery_lanes (lane_key, user_id, channel, email_address_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, 'email', d.email_address_id
    from public.alert_deliveries as d
   where d.status = 'pending'
     and d.channel = 'email'
     and d.email_address_id is not null
     and d.next_attempt_at <= clock_timestamp()
     and not exists (select 1 from public.alert_delivery_lanes as l where l.lane_key = d.lane_key)
   order by d.lane_key
  on conflict do nothing;

  for v_lane in
    select h.lane_key, h.email_address_id, h.id
      from (
        select distinct on (d.lane_key) d.lane_key, d.email_address_id, d.id, d.user_id, d.created_at
          from public.alert_deliveries as d
         where d.status = 'pending'
           and d.channel = 'email'
           and d.next_attempt_at <= clock_timestamp()
           and (d.lease_until is null or d.lease_until <= clock_timestamp())
         order by d.lane_key, d.created_at, d.id
      ) as h
      left join public.alert_delivery_lanes as l on l.lane_key = h.lane_key
     where h.created_at <= clock_timestamp() - make_interval(secs => p_window_seconds)
       and (l.lane_key is null or l.busy_until is null or l.busy_until <= clock_timestamp())
     order by h.created_at, h.lane_key
     limit p_limit * 2
  loop
    exit when v_mails >= p_limit;
    v_until := clock_timestamp() + make_interval(secs => p_lease_seconds);
    if v_lane.email_address_id is not null then
      perform 1 from public.alert_delivery_lanes as l
       where l.lane_key = v_lane.lane_key
         and (l.busy_until is null or l.busy_until <= clock_timestamp())
         for update skip locked;
      continue when not found;
    end if;
    select array_agg(x.id order by x.created_at, x.id) into v_ids
      from (
        select d.id, d.created_at
          from public.alert_deliveries as d
         where d.lane_key = v_lane.lane_key
           and d.status = 'pending'
           and d.next_attempt_at <= clock_timestamp()
           and (d.lease_until is null or d.lease_until <= clock_timestamp())
         order by d.created_at, d.id
         limit p_max_events
           for update skip locked
      ) as x;
    continue when v_ids is null or not (v_lane.id = any (v_ids));

    update public.alert_deliveries as d set lease_until = v_until where d.id = any (v_ids);
    update public.alert_delivery_lanes as l
       set busy_delivery_id = v_ids[1], busy_until = v_until, updated_at = now()
     where l.lane_key = v_lane.lane_key;
    v_token := null;
    if v_lane.email_address_id is not null then
      v_token := encode(extensions.gen_random_bytes(24), 'hex');
      insert into public.email_unsubscribe_tokens (token_hash, email_address_id)
      values (encode(extensions.digest(v_token, 'sha256'), 'hex'), v_lane.email_address_id);
    end if;
    v_mails := v_mails + 1;

    return query
      select v_ids[1], c.id, c.attempt_count, c.failure_count, c.created_at, c.event_id, c.email_address_id,
             case when a.is_account then
               (select u.email::text from auth.users as u
                 where u.id = a.user_id and u.email_confirmed_at is not null)
             else a.address end,
             a.status, a.enabled, v_token
        from public.alert_deliveries as c
        left join public.email_addresses as a on a.id = c.email_address_id
       where c.id = any (v_ids)
       order by array_position(v_ids, c.id);
  end loop;
end
$$;

ALTER FUNCTION private.claim_email_mails(p_limit integer, p_lease_seconds integer, p_window_seconds integer, p_max_events integer) OWNER TO postgres;

--
-- Name: claim_fair_alert_deliveries(integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer) RETURNS TABLE(delivery_id uuid, channel text, attempt_count integer, failure_count integer, delivery_created_at timestamp with time zone, event_id text, event_type text, event_created_at timestamp with time zone, domain_name text, unicode_name text, previous_status text, status text, checked_at timestamp with time zone, webhook_endpoint_id uuid, webhook_url text, webhook_secret text, webhook_previous_secret text, webhook_enabled boolean, telegram_chat_id text, telegram_enabled boolean, lane_key text, probe boolean, webhook_kind text, predicted_drop_at timestamp with time zone, prediction_basis text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_candidate record;
  v_state text;
  v_ids uuid[] := '{}';
  v_probes uuid[] := '{}';
  v_until timestamptz;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_fair_alert_deliveries: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_fair_alert_deliveries: lease must be 1-3600 s.';
  end if;

  insert into public.alert_delivery_lanes (lane_key, user_id, channel, webhook_endpoint_id)
  select distinct on (d.lane_key) d.lane_key, d.user_id, d.channel, d.webhook_endpoint_id
    from public.alert_deliveries as d
   where d.status = 'pending'
     and d.channel <> 'email'
     and d.next_attempt_at <= clock_timestamp()
     and d.lane_key not like 'delivery:%'
     and not exists (select 1 from public.alert_delivery_lanes as l where l.lane_key = d.lane_key)
   order by d.lane_key
  on conflict do nothing;

  for v_candidate in
    with heads as (
      select distinct on (d.lane_key) d.lane_key, d.id, d.user_id, d.channel, d.webhook_endpoint_id,
             d.next_attempt_at, d.created_at
        from public.alert_deliveries as d
       where d.status = 'pending'
         and d.channel <> 'email'
         and d.next_attempt_at <= clock_timestamp()
         and (d.lease_until is null or d.lease_until <= clock_timestamp())
       order by d.lane_key, d.next_attempt_at, d.created_at, d.id
    ),
    free as (
      select h.*
        from heads as h
        left join public.alert_delivery_lanes as l on l.lane_key = h.lane_key
       where l.lane_key is null
          or ((l.busy_until is null or l.busy_until <= clock_timestamp())
              and (l.breaker_state <> 'open' or l.next_probe_at <= clock_timestamp()))
    )
    select f.*, row_number() over (partition by f.user_id order by f.next_attempt_at, f.created_at, f.lane_key)
             as turn
      from free as f
     order by turn, f.next_attempt_at, f.created_at, f.lane_key
     limit p_limit * 2
  loop
    exit when cardinality(v_ids) >= p_limit;
    v_until := clock_timestamp() + make_interval(secs => p_lease_seconds);
    v_state := null;

    if v_candidate.lane_key not like 'delivery:%' then
      select l.breaker_state into v_state
        from public.alert_delivery_lanes as l
       where l.lane_key = v_candidate.lane_key
         and (l.busy_until is null or l.busy_until <= clock_timestamp())
         and (l.breaker_state <> 'open' or l.next_probe_at <= clock_timestamp())
         for update skip locked;
      continue when v_state is null;
    end if;

    perform 1
       from public.alert_deliveries as d
      where d.id = v_candidate.id
        and d.status = 'pending'
        and d.next_attempt_at <= clock_timestamp()
        and (d.lease_until is null or d.lease_until <= clock_timestamp())
        for update skip locked;
    continue when not found;

    update public.alert_deliveries as d set lease_until = v_until where d.id = v_candidate.id;
    if v_state is not null then
      update public.alert_delivery_lanes as l
         set busy_delivery_id = v_candidate.id,
             busy_until = v_until,
             breaker_state = case when l.breaker_state = 'open' then 'half_open' else l.breaker_state end,
             updated_at = now()
       where l.lane_key = v_candidate.lane_key;
      if v_state <> 'closed' then
        v_probes := v_probes || v_candidate.id;
      end if;
    end if;
    v_ids := v_ids || v_candidate.id;
  end loop;

  return query
    select c.id, c.channel, c.attempt_count, c.failure_count, c.created_at,
           ev.id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status, ev.status,
           ev.checked_at,
           c.webhook_endpoint_id, w.url, w.secret,
           case when w.previous_secret_expires_at > now() then w.previous_secret end, w.enabled,
           case when ev.organization_id is null then n.telegram_chat_id else g.chat_id end,
           case when ev.organization_id is null then n.telegram_enabled else g.enabled end,
           c.lane_key, c.id = any (v_probes),
           w.kind, ev.predicted_drop_at, ev.prediction_basis
      from public.alert_deliveries as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
      left join public.organization_telegram_chats as g on g.id = c.telegram_group_id and c.channel = 'telegram'
     where c.id = any (v_ids)
     order by array_position(v_ids, c.id);
end
$$;

ALTER FUNCTION private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer) OWNER TO postgres;

--
-- Name: claim_rdap_server_proof(text, text, text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.claim_rdap_server_proof(p_server_url text, p_suffix text, p_canary_name text, p_lease_seconds integer) RETURNS TABLE(claim_id uuid, proven boolean, claimed_elsewhere boolean)
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_claim uuid;
begin
  if p_server_url is null or p_suffix is null or p_canary_name is null
     or p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_rdap_server_proof: server, suffix, canary and a lease of 1-3600 s are required.';
  end if;

  insert into public.rdap_server_proofs (server_url, suffix, canary_name)
  values (p_server_url, p_suffix, p_canary_name)
  on conflict (server_url, suffix) do nothing;

  -- The row lock makes a concurrent caller wait here and then see the claim (READ COMMITTED re-checks
  -- the condition on the updated row), so only one caller gets a claim per renewal.
  update public.rdap_server_proofs as p
     set claim_id = gen_random_uuid(),
         claimed_until = now() + make_interval(secs => p_lease_seconds),
         updated_at = now()
   where p.server_url = p_server_url
     and p.suffix = p_suffix
     and (p.renew_after <= now() or p.canary_name is distinct from p_canary_name)
     and (p.claimed_until is null or p.claimed_until <= now() or p.updated_at < pg_postmaster_start_time())
  returning p.claim_id into v_claim;

  return query
    select v_claim,
           (p.state = 'verified' and p.valid_until > now() and p.canary_name = p_canary_name),
           (v_claim is null and p.claimed_until is not null and p.claimed_until > now()
            and p.updated_at >= pg_postmaster_start_time())
      from public.rdap_server_proofs as p
     where p.server_url = p_server_url and p.suffix = p_suffix;
end
$$;

ALTER FUNCTION private.claim_rdap_server_proof(p_server_url text, p_suffix text, p_canary_name text, p_lease_seconds integer) OWNER TO postgres;

--
-- Name: cleaned_tags(text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.cleaned_tags(p_tags text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
  select coalesce(array_agg(t.tag order by t.first), '{}')
    from (
      select btrim(u.tag) as tag, min(u.ord) as first
        from unnest(p_tags) with ordinality as u (tag, ord)
       where u.tag is not null and btrim(u.tag) <> ''
       group by btrim(u.tag)
    ) as t
$$;

ALTER FUNCTION private.cleaned_tags(p_tags text[]) OWNER TO postgres;

--
-- Name: confirm_email_address(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.confirm_email_address(p_token text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
declare
  v_id uuid;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' then
    return 'invalid';
  end if;
  update public.email_addresses as a
     set status = 'active', confirmed_at = now(), confirmation_token_hash = null,
         confirmation_expires_at = null, confirmation_mail_due_at = null
   where a.confirmation_token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex')
     and a.confirmation_expires_at > now()
     and a.status = 'pending'
  returning a.id into v_id;
  return case when v_id is null then 'invalid' else 'confirmed' end;
end
$_$;

ALTER FUNCTION private.confirm_email_address(p_token text) OWNER TO postgres;

--
-- Name: consume_api_request(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.consume_api_request(p_user_id uuid) RETURNS TABLE(allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_api_access boolean;
  v_limit integer;
begin
  select pl.api_access, pl.requests_per_day
    into v_api_access, v_limit
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = p_user_id;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: Unknown account.';
  end if;

  if not v_api_access then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: API access needs the Pro plan or higher.';
  end if;

  return query select c.allowed, c.request_limit, c.remaining, c.reset_at
                 from private.count_api_request(p_user_id, v_limit) as c;
end
$$;

ALTER FUNCTION private.consume_api_request(p_user_id uuid) OWNER TO postgres;

--
-- Name: consume_app_check(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.consume_app_check(p_user_id uuid) RETURNS TABLE(allowed boolean, check_limit integer, remaining integer, reset_at timestamp with time zone, shared_with_api boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_day date := (now() at time zone 'UTC')::date;
  v_reset_at timestamptz := ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC';
  v_own integer;
  v_api_access boolean;
  v_api_limit integer;
  v_count integer;
begin
  select pl.app_checks_per_day, pl.api_access, pl.requests_per_day
    into v_own, v_api_access, v_api_limit
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = p_user_id;
  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: Unknown account.';
  end if;

  if v_own is null then
    if not v_api_access then
      return query select false, 0, 0, v_reset_at, false;
      return;
    end if;
    return query select c.allowed, c.request_limit, c.remaining, c.reset_at, true
                   from private.count_api_request(p_user_id, v_api_limit) as c;
    return;
  end if;

  if v_own > 0 then
    insert into public.app_check_counters as c (user_id, day, check_count)
    values (p_user_id, v_day, 1)
    on conflict (user_id, day) do update
       set check_count = c.check_count + 1
     where c.check_count < v_own
    returning c.check_count into v_count;
    if found then
      return query select true, v_own, v_own - v_count, v_reset_at, false;
      return;
    end if;
  end if;
  return query select false, v_own, 0, v_reset_at, false;
end
$$;

ALTER FUNCTION private.consume_app_check(p_user_id uuid) OWNER TO postgres;

--
-- Name: consume_org_api_request(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.consume_org_api_request(p_organization_id uuid) RETURNS TABLE(allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.consume_org_api_request(p_organization_id uuid) OWNER TO postgres;

--
-- Name: consume_session_request(uuid, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.consume_session_request(p_user_id uuid, p_action text) RETURNS TABLE(allowed boolean, remaining integer, reset_at timestamp with time zone, request_limit integer, window_seconds integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_now timestamptz := now();
  v_max integer;
  v_window interval;
  v_count integer;
  v_oldest timestamptz;
  v_freeing timestamptz;
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  select l.max_requests, l.window_length into v_max, v_window
    from public.session_action_limits as l
   where l.action = p_action;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: Unknown rate-limited action.';
  end if;

  -- One decision at a time per account and action.
  perform pg_catalog.pg_advisory_xact_lock(
    pg_catalog.hashtextextended('session_request:' || p_user_id::text || ':' || p_action, 0)
  );

  delete from public.session_request_log as l
   where l.user_id = p_user_id
     and l.action = p_action
     and l.requested_at <= v_now - v_window;

  select count(*)::integer, min(l.requested_at)
    into v_count, v_oldest
    from public.session_request_log as l
   where l.user_id = p_user_id
     and l.action = p_action
     and l.requested_at > v_now - v_window;

  if v_count >= v_max then
    -- A slot frees when the row that keeps the window full leaves it.
    select l.requested_at into v_freeing
      from public.session_request_log as l
     where l.user_id = p_user_id
       and l.action = p_action
       and l.requested_at > v_now - v_window
     order by l.requested_at
    offset v_count - v_max
     limit 1;
    return query select false, 0, v_freeing + v_window, v_max, extract(epoch from v_window)::integer;
    return;
  end if;

  insert into public.session_request_log (user_id, action, requested_at) values (p_user_id, p_action, v_now);
  v_count := v_count + 1;

  if v_count >= v_max then
    return query select true, 0, coalesce(v_oldest, v_now) + v_window, v_max, extract(epoch from v_window)::integer;
  else
    return query select true, v_max - v_count, v_now + v_window, v_max, extract(epoch from v_window)::integer;
  end if;
end
$$;

ALTER FUNCTION private.consume_session_request(p_user_id uuid, p_action text) OWNER TO postgres;

--
-- Name: count_api_request(uuid, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.count_api_request(p_user_id uuid, p_limit integer) RETURNS TABLE(allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_day date := (now() at time zone 'UTC')::date;
  v_reset_at timestamptz := ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC';
  v_count integer;
begin
  -- Unlimited plans are always allowed and not counted (no hot counter row).
  if p_limit is null then
    return query select true, null::integer, null::integer, v_reset_at;
    return;
  end if;

  if p_limit > 0 then
    -- The commit of a counted request need not wait for its WAL flush: a database crash can lose at most
    -- the last fraction of a second of increments, which only lets that many requests through again. It
    -- never refuses one wrongly, and visibility and row locks (and so exactness under concurrency) are
    -- unaffected. Local to the calling transaction (the API calls this in a single-statement transaction).
    perform set_config('synchronous_commit', 'off', true);
    -- Concurrent callers queue on the row lock and re-check the condition against the latest count.
    insert into public.api_request_counters as c (user_id, day, request_count)
    values (p_user_id, v_day, 1)
    on conflict (user_id, day) do update
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

ALTER FUNCTION private.count_api_request(p_user_id uuid, p_limit integer) OWNER TO postgres;

--
-- Name: count_org_api_request(uuid, integer, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.count_org_api_request(p_organization_id uuid, p_limit integer, p_count boolean) RETURNS TABLE(allowed boolean, request_limit integer, remaining integer, reset_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.count_org_api_request(p_organization_id uuid, p_limit integer, p_count boolean) OWNER TO postgres;

--
-- Name: create_account_email_channel(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.create_account_email_channel() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  insert into public.email_addresses (user_id, is_account, status, confirmed_at)
  values (new.id, true, 'active', now())
  on conflict do nothing;
  return null;
end
$$;

ALTER FUNCTION private.create_account_email_channel() OWNER TO postgres;

--
-- Name: defer_alert_delivery(uuid, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamp with time zone) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  update public.alert_deliveries as d
     set next_attempt_at = greatest(d.next_attempt_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.id = p_delivery_id and d.status = 'pending';
  update public.alert_delivery_lanes as l
     set busy_delivery_id = null, busy_until = null,
         -- a probe given back unsent leaves the breaker half open: the next claim probes again
         updated_at = now()
   where l.busy_delivery_id = p_delivery_id;
end
$$;

ALTER FUNCTION private.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamp with time zone) OWNER TO postgres;

--
-- Name: defer_domain_check(text, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.defer_domain_check(p_domain_name text, p_not_before timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domains as d
     set next_check_at = greatest(d.next_check_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.name = p_domain_name
$$;

ALTER FUNCTION private.defer_domain_check(p_domain_name text, p_not_before timestamp with time zone) OWNER TO postgres;

--
-- Name: derive_unicode_name(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.derive_unicode_name() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  new.unicode_name := private.domain_unicode_name(new.domain_name);
  return new;
end
$$;

ALTER FUNCTION private.derive_unicode_name() OWNER TO postgres;

--
-- Name: domain_name_problems(text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.domain_name_problems(p_names text[]) RETURNS TABLE(ord bigint, name text, problem text)
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $_$
  with input as (
    select n.name, n.ord, string_to_array(n.name, '.') as labels
      from unnest(p_names) with ordinality as n (name, ord)
  ),
  shape as (
    select i.name, i.ord, i.labels,
           case
             when i.name is null or i.name = '' then 'is empty'
             when i.name ~ '\.$' then 'ends with a dot; send the name without it'
             when i.name !~ '^[a-z0-9.-]+$' then
               'is not in normalized form (lower-case letters, digits, hyphens and dots; Unicode as A-labels)'
             when length(i.name) > 253 then 'is longer than 253 characters'
             when cardinality(i.labels) < 2 then 'is a bare top-level domain, not a registrable name'
             -- Each label 1-63 characters, no hyphen at either end (the characters are checked above). Two
             -- cheap tests instead of one pattern with bounded repeats, which PostgreSQL's regex engine
             -- expands into a large automaton (40 µs a name).
             when i.name ~ '(^|\.)(-|\.|$)|-(\.|$)'
                  or exists (select 1 from unnest(i.labels) as x (label) where length(x.label) > 63) then
               'has a label that is empty, too long, or uses characters other than letters, digits and hyphens'
             -- Every A-label must decode (RFC 3492) to a plausible Unicode label, as UTS #46 asks.
             when i.name ~ '(^|\.)xn--' and private.domain_unicode_name(i.name) is null then
               'is not a valid domain name'
             when i.name ~ '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' then 'is an IP address, not a domain name'
           end as problem
      from input as i
  ),
  candidates as (
    -- For the k rightmost labels (each suffix built once): the suffix itself, its exception rule
    -- (`!www.ck`), and the wildcard rule over its parent (`*.ck` makes any x.ck a suffix).
    select s.ord, k.k, c.rule
      from shape as s
     cross join lateral generate_series(1, cardinality(s.labels)) as k (k)
     cross join lateral (select array_to_string(s.labels[cardinality(s.labels) - k.k + 1:], '.') as suffix) as x
     cross join lateral unnest(array[
       x.suffix,
       '!' || x.suffix,
       case when k.k > 1 then '*.' || substr(x.suffix, strpos(x.suffix, '.') + 1) end
     ]) as c (rule)
     where s.problem is null
  ),
  matched as (
    -- The PSL algorithm: an exception rule wins and drops its leftmost label; else the longest match.
    select c.ord,
           coalesce(max(c.k) filter (where c.rule like '!%') - 1, max(c.k) filter (where c.rule not like '!%'))
             as suffix_labels
      from candidates as c
      join private.public_suffixes as r on r.rule = c.rule
     group by c.ord
  ),
  measured as (
    select s.name, s.ord, s.labels, s.problem,
           coalesce(
             m.suffix_labels,
             -- Made-up TLDs ending in `test` count as one-label suffixes only where the local seed allows.
             case when s.labels[cardinality(s.labels)] ~ 'test$'
                       and (select d.local_test_tlds from private.domain_name_rules as d) then 1 else 0 end
           ) as suffix_labels
      from shape as s
      left join matched as m on m.ord = s.ord
  )
  select m.ord, m.name,
         coalesce(m.problem, case
           when m.suffix_labels = 0 then 'does not end in a known top-level domain'
           when m.suffix_labels >= cardinality(m.labels) then
             'is a public suffix (' || m.name || '), not a registrable name'
           when m.suffix_labels < cardinality(m.labels) - 1 then
             'is a subdomain; only registrable names can be watched (try '
               || array_to_string(m.labels[cardinality(m.labels) - m.suffix_labels:], '.') || ')'
         end)
    from measured as m
$_$;

ALTER FUNCTION private.domain_name_problems(p_names text[]) OWNER TO postgres;

--
-- Name: domain_unicode_name(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.domain_unicode_name(p_domain_name text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
declare
  v_label text;
  v_points integer[];
  v_cp integer;
  v_labels text[] := '{}';
  v_decoded_any boolean := false;
begin
  if p_domain_name is null or char_length(p_domain_name) > 253 or p_domain_name !~ '^[a-z0-9.-]+$' then
    return null;
  end if;
  foreach v_label in array string_to_array(p_domain_name, '.') loop
    if v_label like 'xn--%' then
      v_points := private.punycode_decode(substr(v_label, 5));
      if v_points is null or cardinality(v_points) = 0 then
        return null;
      end if;
      foreach v_cp in array v_points loop
        if (v_cp < 128 and not (v_cp between 97 and 122 or v_cp between 48 and 57 or v_cp = 45))
           or v_cp between 128 and 160
           or v_cp in (173, 847, 1564, 12288, 12289, 12290, 65279, 8725, 10741)
           or v_cp between 4447 and 4448
           or v_cp between 6068 and 6069
           or v_cp between 6155 and 6159
           or v_cp between 8192 and 8303      -- general punctuation: spaces, zero-width, bidi controls, ...
           or v_cp between 11776 and 11903    -- supplemental punctuation
           or v_cp between 57344 and 63743    -- private use
           or v_cp between 65024 and 65039    -- variation selectors
           or v_cp between 65040 and 65135    -- vertical and small form punctuation
           or v_cp between 65280 and 65519    -- full- and half-width forms (IDNA maps them away)
           or v_cp between 65520 and 65535    -- specials
           or v_cp between 917504 and 921599  -- tags, variation selectors supplement
           or v_cp >= 983040                  -- supplementary private use
        then
          return null;
        end if;
      end loop;
      if not exists (select 1 from unnest(v_points) as p (cp) where p.cp >= 128) then
        return null;
      end if;
      v_labels := v_labels || (select string_agg(chr(p.cp), '' order by p.ord)
                                 from unnest(v_points) with ordinality as p (cp, ord));
      v_decoded_any := true;
    else
      v_labels := v_labels || v_label;
    end if;
  end loop;
  if not v_decoded_any then
    return null;
  end if;
  return array_to_string(v_labels, '.');
end
$_$;

ALTER FUNCTION private.domain_unicode_name(p_domain_name text) OWNER TO postgres;

--
-- Name: domains_refuse_unsupported_zone(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.domains_refuse_unsupported_zone() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_name text;
  v_zone text;
begin
  -- Each new name's WHOIS row (the longest enabled suffix of whole labels, as whois_row_suffix), by
  -- primary key; refused when that row is a zone without a server.
  select n.name, r.suffix
    into v_name, v_zone
    from new_domains as n
   cross join lateral (
     select w.suffix, w.host
       from generate_series(1, cardinality(string_to_array(n.name, '.')) - 1) as k (k)
       join public.whois_servers as w
         on w.suffix = array_to_string((string_to_array(n.name, '.'))[
              cardinality(string_to_array(n.name, '.')) - k.k + 1:], '.')
      where w.enabled
      order by k.k desc
      limit 1
   ) as r
   where r.host is null
     and strpos(r.suffix, '.') > 0
   order by n.name
   limit 1;
  if v_zone is not null then
    raise exception using errcode = 'DW400',
      message = format('DW400: %s is under %s, a zone with its own WHOIS server that this service cannot read '
        '(unsupported_zone); it cannot be watched.', v_name, v_zone);
  end if;
  return null;
end;
$$;

ALTER FUNCTION private.domains_refuse_unsupported_zone() OWNER TO postgres;

--
-- Name: drop_accuracy_report(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.drop_accuracy_report() RETURNS TABLE(registry text, basis text, observations integer, median_seconds integer, p90_seconds integer, early integer, correction_seconds integer, correction_source text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select o.registry, o.basis, count(*)::integer,
         round(percentile_cont(0.5) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         round(percentile_cont(0.9) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         (count(*) filter (where o.observed_at < o.predicted_drop_at))::integer,
         c.offset_seconds, c.source
    from public.drop_observations as o
    left join public.drop_prediction_corrections as c on c.registry = o.registry and c.basis = o.basis
   group by o.registry, o.basis, c.offset_seconds, c.source
   order by o.registry, o.basis
$$;

ALTER FUNCTION private.drop_accuracy_report() OWNER TO postgres;

--
-- Name: email_channel_json(public.email_addresses); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.email_channel_json(p_address public.email_addresses) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
  select jsonb_build_object(
    'id', p_address.id,
    'is_account', p_address.is_account,
    'address_masked', p_address.address_masked,
    'status', p_address.status,
    'stopped_reason', p_address.stopped_reason,
    'enabled', p_address.enabled,
    'event_types', to_jsonb(p_address.event_types),
    'expiring_days', to_jsonb(p_address.expiring_days),
    'permanent_failures', p_address.permanent_failures,
    'confirmation_sent_at', p_address.confirmation_sent_at,
    'confirmation_expires_at', p_address.confirmation_expires_at,
    'confirmed_at', p_address.confirmed_at,
    'stopped_at', p_address.stopped_at,
    'created_at', p_address.created_at
  )
$$;

ALTER FUNCTION private.email_channel_json(p_address public.email_addresses) OWNER TO postgres;

--
-- Name: email_confirmation_not_sent(uuid, timestamp with time zone, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.email_confirmation_not_sent(p_id uuid, p_retry_at timestamp with time zone, p_error text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  update public.email_addresses as a
     set confirmation_mail_due_at = p_retry_at,
         confirmation_token_hash = null,
         confirmation_expires_at = null,
         last_failure = left(p_error, 500),
         status = case when p_retry_at is null then 'stopped' else a.status end,
         stopped_reason = case when p_retry_at is null then 'bounced' else a.stopped_reason end,
         stopped_at = case when p_retry_at is null then now() else a.stopped_at end
   where a.id = p_id and a.status = 'pending';
end
$$;

ALTER FUNCTION private.email_confirmation_not_sent(p_id uuid, p_retry_at timestamp with time zone, p_error text) OWNER TO postgres;

--
-- Name: expiring_reminder_days(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.expiring_reminder_days(p_user_id uuid) RETURNS SETOF integer
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
  select distinct t.days
    from private.expiring_reminder_channels as ch
   cross join lateral unnest(ch.days) as t(days)
   where ch.user_id = p_user_id
$$;

ALTER FUNCTION private.expiring_reminder_days(p_user_id uuid) OWNER TO postgres;

--
-- Name: export_account(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.export_account(p_user_id uuid) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $$
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

ALTER FUNCTION private.export_account(p_user_id uuid) OWNER TO postgres;

--
-- Name: export_email_channels(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.export_email_channels(p_user_id uuid) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $$
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

ALTER FUNCTION private.export_email_channels(p_user_id uuid) OWNER TO postgres;

--
-- Name: export_owned_organizations(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.export_owned_organizations(p_user_id uuid) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $$
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
      'telegram_group', (
        select jsonb_build_object('enabled', g.enabled, 'event_types', to_jsonb(g.event_types),
                                  'expiring_days', to_jsonb(g.expiring_days), 'linked_at', g.linked_at)
          from public.organization_telegram_chats as g where g.organization_id = o.id),
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

ALTER FUNCTION private.export_owned_organizations(p_user_id uuid) OWNER TO postgres;

--
-- Name: fail_alert_delivery(uuid, text, integer, text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.fail_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'failed', failed_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

ALTER FUNCTION private.fail_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) OWNER TO postgres;

--
-- Name: finish_failed_redelivery(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.finish_failed_redelivery() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  if new.status = 'pending'
     and new.redelivered_at is not null
     and new.redelivered_at is not distinct from old.redelivered_at
     and new.last_attempt_at is not null
     and new.last_attempt_at >= new.redelivered_at
     and new.next_attempt_at > old.next_attempt_at then
    new.status := 'failed';
    new.failed_at := now();
    new.next_attempt_at := old.next_attempt_at;
  end if;
  return new;
end
$$;

ALTER FUNCTION private.finish_failed_redelivery() OWNER TO postgres;

--
-- Name: forget_previous_webhook_secret(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.forget_previous_webhook_secret() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  if new.secret is distinct from old.secret
     and new.previous_secret is not distinct from old.previous_secret
     and new.previous_secret_expires_at is not distinct from old.previous_secret_expires_at then
    new.previous_secret := null;
    new.previous_secret_expires_at := null;
  end if;
  return new;
end
$$;

ALTER FUNCTION private.forget_previous_webhook_secret() OWNER TO postgres;

--
-- Name: handle_new_user(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.handle_new_user() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.handle_new_user() OWNER TO postgres;

--
-- Name: handle_user_email_change(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.handle_user_email_change() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  update public.profiles set email = new.email where id = new.id;
  return new;
end
$$;

ALTER FUNCTION private.handle_user_email_change() OWNER TO postgres;

--
-- Name: invoke_alert_delivery(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.invoke_alert_delivery() RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select private.post_to_edge_function('rdap-poller/deliveries', 120000, 1)
$$;

ALTER FUNCTION private.invoke_alert_delivery() OWNER TO postgres;

--
-- Name: FUNCTION invoke_alert_delivery(); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.invoke_alert_delivery() IS 'POSTs to <project_url>/functions/v1/rdap-poller/deliveries with the Vault secret poller_secret: one delivery run. Called by the pg_cron job alert-delivery every minute and by wake_alert_delivery().';

--
-- Name: invoke_rdap_poller(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.invoke_rdap_poller() RETURNS bigint
    LANGUAGE sql
    SET search_path TO ''
    AS $$
  select private.post_to_edge_function('rdap-poller', 60000, private.poller_invocations_needed())
$$;

ALTER FUNCTION private.invoke_rdap_poller() OWNER TO postgres;

--
-- Name: FUNCTION invoke_rdap_poller(); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.invoke_rdap_poller() IS 'Called every minute by the pg_cron job rdap-poller: POSTs poller_invocations_needed() times to <project_url>/functions/v1/rdap-poller with the Vault secret poller_secret as bearer token. Returns the first pg_net request id; null (nothing sent) while a secret is missing.';

--
-- Name: iso_timestamp(timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.iso_timestamp(p_at timestamp with time zone) RETURNS text
    LANGUAGE sql STABLE
    AS $$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

ALTER FUNCTION private.iso_timestamp(p_at timestamp with time zone) OWNER TO postgres;

--
-- Name: list_org_watchlist(uuid, integer, integer, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.list_org_watchlist(p_organization_id uuid, p_limit integer, p_offset integer DEFAULT NULL::integer, p_cursor text DEFAULT NULL::text) RETURNS TABLE(domain_name text, unicode_name text, status text, added_at timestamp with time zone, last_checked_at timestamp with time zone, status_changed_at timestamp with time zone, expires_at timestamp with time zone, registrar text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
begin
  if p_cursor is not null and p_offset is not null then
    raise exception using errcode = 'DW400', message = 'DW400: Send either cursor or offset, not both.';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: limit must be between 1 and 1000.';
  end if;
  if p_offset is not null and p_offset < 0 then
    raise exception using errcode = 'DW400', message = 'DW400: offset must not be negative.';
  end if;
  return query
    select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
           d.status_changed_at, d.expires_at, d.registrar
      from public.organization_watchlist_entries as e
      join public.domains as d on d.name = e.domain_name
     where e.organization_id = p_organization_id
       and e.deleted_at is null
       and e.domain_name collate "C" > coalesce(p_cursor, '') collate "C"
     order by e.domain_name collate "C"
     limit p_limit + 1 offset coalesce(p_offset, 0);
end
$$;

ALTER FUNCTION private.list_org_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) OWNER TO postgres;

--
-- Name: list_watchlist_keyset(uuid, integer, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text) RETURNS TABLE(domain_name text, unicode_name text, status text, added_at timestamp with time zone, last_checked_at timestamp with time zone, status_changed_at timestamp with time zone, expires_at timestamp with time zone, registrar text, tags text[], note text)
    LANGUAGE sql STABLE
    AS $$
  select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
         d.status_changed_at, d.expires_at, d.registrar, e.tags, e.note
    from public.watchlist_entries as e
    join public.domains as d on d.name = e.domain_name
   where e.user_id = p_user_id
     and e.deleted_at is null
     and e.domain_name collate "C" > coalesce(p_cursor, '') collate "C"
   order by e.domain_name collate "C"
   limit p_limit + 1
$$;

ALTER FUNCTION private.list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text) OWNER TO postgres;

--
-- Name: FUNCTION list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text) IS 'Keyset page of an account''s watchlist (limit + 1 rows after the cursor). Inlinable: list_watchlist and the API''s one-statement page (issue 43) share it. Owner only.';

--
-- Name: list_watchlist_offset(uuid, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer) RETURNS TABLE(domain_name text, unicode_name text, status text, added_at timestamp with time zone, last_checked_at timestamp with time zone, status_changed_at timestamp with time zone, expires_at timestamp with time zone, registrar text, tags text[], note text)
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $_$
begin
  return query execute
    'with page as (
       select s.domain_name
         from public.watchlist_entries as s
        where s.user_id = $1
          and s.deleted_at is null
        order by s.domain_name collate "C"
        limit $2 + 1
       offset $3
     )
     select e.domain_name::text, e.unicode_name, d.status, e.added_at, d.last_checked_at,
            d.status_changed_at, d.expires_at, d.registrar, e.tags, e.note
       from page
       join public.watchlist_entries as e
         on e.user_id = $1 and e.domain_name = page.domain_name and e.deleted_at is null
       join public.domains as d on d.name = e.domain_name
      order by e.domain_name collate "C"'
    using p_user_id, p_limit, p_offset;
end
$_$;

ALTER FUNCTION private.list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer) OWNER TO postgres;

--
-- Name: FUNCTION list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer) IS 'Offset page of an account''s watchlist (limit + 1 rows), planned per call. list_watchlist and the API share it. Owner only.';

--
-- Name: log_org_activity(uuid, uuid, text, text, uuid, jsonb); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.log_org_activity(p_organization_id uuid, p_actor_id uuid, p_action text, p_domain_name text DEFAULT NULL::text, p_subject_id uuid DEFAULT NULL::uuid, p_detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  insert into public.organization_activity
    (organization_id, actor_id, actor_name, action, domain_name, subject_id, subject_name, detail)
  select o.id, p_actor_id, private.member_label(p_actor_id), p_action, p_domain_name,
         p_subject_id, private.member_label(p_subject_id), coalesce(p_detail, '{}'::jsonb)
    from public.organizations as o
   where o.id = p_organization_id;
end
$$;

ALTER FUNCTION private.log_org_activity(p_organization_id uuid, p_actor_id uuid, p_action text, p_domain_name text, p_subject_id uuid, p_detail jsonb) OWNER TO postgres;

--
-- Name: log_org_claim(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.log_org_claim() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if tg_op = 'INSERT' then
    perform private.log_org_activity(new.organization_id, new.claimed_by, 'claim.taken', new.domain_name,
                                     new.claimed_by);
  else
    perform private.log_org_activity(old.organization_id, auth.uid(), 'claim.released', old.domain_name,
                                     old.claimed_by);
  end if;
  return null;
end
$$;

ALTER FUNCTION private.log_org_claim() OWNER TO postgres;

--
-- Name: mark_alert_delivery_delivered(uuid, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.record_alert_delivery_attempt(p_delivery_id, 'delivered', p_http_status, null, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'delivered', delivered_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

ALTER FUNCTION private.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer) OWNER TO postgres;

--
-- Name: mark_invitation_emailed(uuid, uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid) OWNER TO postgres;

--
-- Name: member_label(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.member_label(p_user_id uuid) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select coalesce(nullif(btrim(p.display_name), ''), split_part(p.email, '@', 1))
    from public.profiles as p
   where p.id = p_user_id
$$;

ALTER FUNCTION private.member_label(p_user_id uuid) OWNER TO postgres;

--
-- Name: next_check_delay(text, timestamp with time zone, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.next_check_delay(status text, expires_at timestamp with time zone, consecutive_failures integer) RETURNS interval
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
  select case
    when status = 'pending_delete' then interval '5 minutes'
    when status = 'available' then interval '1 hour'
    when status = 'registered' then
      case
        when expires_at is not null and expires_at <= now() + interval '7 days' then interval '1 hour'
        when expires_at is not null and expires_at <= now() + interval '45 days' then interval '1 day'
        else interval '7 days'
      end
    else least(
      interval '6 hours',
      interval '5 minutes' * power(2, least(greatest(coalesce(consecutive_failures, 0) - 1, 0), 16))
    )
  end
$$;

ALTER FUNCTION private.next_check_delay(status text, expires_at timestamp with time zone, consecutive_failures integer) OWNER TO postgres;

--
-- Name: normalized_email_address(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.normalized_email_address(p_address text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $_$
  select case
    when v is null or char_length(v) > 254
         or v !~ '^[A-Za-z0-9.!#$%&''*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$'
      then null
    else split_part(v, '@', 1) || '@' || lower(split_part(v, '@', 2))
  end
    from (select btrim(p_address) as v) as t
$_$;

ALTER FUNCTION private.normalized_email_address(p_address text) OWNER TO postgres;

--
-- Name: note_check_evidence(text, timestamp with time zone, jsonb); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_check_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if p_evidence is null or jsonb_typeof(p_evidence) <> 'object'
     or p_evidence ->> 'source' is null or p_evidence ->> 'source' not in ('rdap', 'whois') then
    raise exception using errcode = 'DW400', message = 'DW400: note_check_evidence: invalid evidence.';
  end if;
  update public.alert_events as ev
     set evidence = p_evidence
   where ev.type = 'domain.available'
     and ev.domain_name = p_domain_name
     and ev.checked_at = p_checked_at
     and ev.evidence is null;
  perform private.note_status_change_evidence(p_domain_name, p_checked_at, p_evidence);
end
$$;

ALTER FUNCTION private.note_check_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) OWNER TO postgres;

--
-- Name: note_drop_prediction(text, timestamp with time zone, timestamp with time zone, text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_drop_prediction(p_domain_name text, p_checked_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_basis text, p_correction_seconds integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if p_basis is null or p_basis not in ('redemption_period', 'pending_delete_period', 'unknown') then
    raise exception using errcode = 'DW400', message = 'DW400: note_drop_prediction: invalid basis.';
  end if;
  update public.alert_events as ev
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis
   where ev.type = 'domain.pending_delete'
     and ev.domain_name = p_domain_name
     and ev.checked_at = p_checked_at
     and ev.prediction_basis is null;
  update public.domains as d
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis,
         prediction_correction_seconds = case when p_basis = 'unknown' then 0
                                              else coalesce(p_correction_seconds, 0) end
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at;
end
$$;

ALTER FUNCTION private.note_drop_prediction(p_domain_name text, p_checked_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_basis text, p_correction_seconds integer) OWNER TO postgres;

--
-- Name: note_live_change_account(text, timestamp with time zone, uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_live_change_account(p_domain_name text, p_checked_at timestamp with time zone, p_account uuid) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domain_status_changes as h
     set caused_by = p_account
   where h.domain_id = (select d.id from public.domains as d where d.name = p_domain_name)
     and h.changed_at = p_checked_at
     and h.source = 'live'
     and h.caused_by is null
$$;

ALTER FUNCTION private.note_live_change_account(p_domain_name text, p_checked_at timestamp with time zone, p_account uuid) OWNER TO postgres;

--
-- Name: note_registry_reading(text, timestamp with time zone, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_registry_reading(p_domain_name text, p_checked_at timestamp with time zone, p_unreadable boolean) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domains as d
     set registry_unreadable_at = case when p_unreadable then p_checked_at end
   where d.name = p_domain_name
     and p_checked_at is not null
     and p_unreadable is not null
     and (d.last_checked_at is null or d.last_checked_at <= p_checked_at)
     and d.registry_unreadable_at is distinct from (case when p_unreadable then p_checked_at end)
$$;

ALTER FUNCTION private.note_registry_reading(p_domain_name text, p_checked_at timestamp with time zone, p_unreadable boolean) OWNER TO postgres;

--
-- Name: note_status_change(text, text, text, timestamp with time zone, text, text, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_status_change(p_domain_name text, p_previous_status text, p_status text, p_changed_at timestamp with time zone, p_source text, p_registrar text, p_expires_at timestamp with time zone) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_domain_id bigint;
  v_first boolean;
begin
  if p_previous_status is not distinct from p_status then
    return;
  end if;
  select d.id into v_domain_id from public.domains as d where d.name = p_domain_name;
  if v_domain_id is null then
    return;
  end if;
  v_first := not exists (select 1 from public.domain_status_changes as h where h.domain_id = v_domain_id);
  if v_first and p_status = 'unknown' then
    return;
  end if;
  insert into public.domain_status_changes
    (domain_id, domain_name, previous_status, status, changed_at, source, registrar, expires_at)
  values (v_domain_id, p_domain_name, case when v_first then null else p_previous_status end, p_status,
          p_changed_at, p_source, p_registrar, p_expires_at);
end
$$;

ALTER FUNCTION private.note_status_change(p_domain_name text, p_previous_status text, p_status text, p_changed_at timestamp with time zone, p_source text, p_registrar text, p_expires_at timestamp with time zone) OWNER TO postgres;

--
-- Name: note_status_change_evidence(text, timestamp with time zone, jsonb); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_status_change_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domain_status_changes as h
     set evidence = p_evidence
   where h.domain_id = (select d.id from public.domains as d where d.name = p_domain_name)
     and h.changed_at = p_checked_at
     and h.status = 'available'
     and h.evidence is null
$$;

ALTER FUNCTION private.note_status_change_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) OWNER TO postgres;

--
-- Name: note_unknown_reason(text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.note_unknown_reason(p_domain_name text, p_reason text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
  update public.domains as d
     set unknown_reason = p_reason
   where d.name = p_domain_name
     and d.unknown_reason is distinct from p_reason
     and p_reason ~ '^[a-z0-9_]{1,64}$'
$_$;

ALTER FUNCTION private.note_unknown_reason(p_domain_name text, p_reason text) OWNER TO postgres;

--
-- Name: nudge_alert_delivery(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.nudge_alert_delivery() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform 1 from public.alert_delivery_wake as w
   where w.id = 1 and w.last_wake_at <= clock_timestamp() - interval '1 second'
     for update skip locked;
  if found then
    update public.alert_delivery_wake as w set last_wake_at = clock_timestamp() where w.id = 1;
    begin
      perform private.invoke_alert_delivery();
    exception when others then
      raise warning 'wake_alert_delivery: %', sqlerrm;
    end;
  end if;
end
$$;

ALTER FUNCTION private.nudge_alert_delivery() OWNER TO postgres;

--
-- Name: on_org_member_change(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.on_org_member_change() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if tg_op = 'INSERT' then
    perform private.log_org_activity(new.organization_id, coalesce(auth.uid(), new.user_id), 'member.joined',
                                     null, new.user_id, jsonb_build_object('role', new.role));
  elsif tg_op = 'UPDATE' then
    perform private.log_org_activity(new.organization_id, auth.uid(), 'member.role_changed', null,
                                     new.user_id, jsonb_build_object('from', old.role, 'to', new.role));
  else
    delete from public.organization_claims as c
     where c.organization_id = old.organization_id and c.claimed_by = old.user_id;
    perform private.log_org_activity(old.organization_id, auth.uid(),
                                     case when auth.uid() = old.user_id then 'member.left' else 'member.removed' end,
                                     null, old.user_id, jsonb_build_object('role', old.role));
  end if;
  return null;
end
$$;

ALTER FUNCTION private.on_org_member_change() OWNER TO postgres;

--
-- Name: org_add_domains(uuid, uuid, text[], jsonb); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_add_domains(p_organization_id uuid, p_actor_id uuid, p_domain_names text[], p_detail jsonb DEFAULT '{}'::jsonb) RETURNS TABLE(added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_count integer;
  v_quota integer;
  v_active integer;
  v_room integer;
  v_dups integer;
  v_added text[];
begin
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1 then
    raise exception using errcode = 'DW400', message = 'DW400: domains must be a list of domain names.';
  end if;
  v_count := coalesce(cardinality(p_domain_names), 0);
  if v_count > 10000 then
    raise exception using errcode = 'DW400', message = 'DW400: Too many domains in one request.';
  end if;

  -- The personal add's rule and wording, one set-based statement for the batch.
  perform private.refuse_invalid_domain_names(p_domain_names);

  -- Serialise every quota decision of this organization (whichever member or key adds): concurrent calls
  -- queue on the organization's row and count only after the previous call committed (READ COMMITTED).
  perform 1 from public.organizations as o where o.id = p_organization_id for no key update;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: The organization was not found.';
  end if;
  v_quota := private.org_watchlist_quota(p_organization_id);

  select count(*)::integer into v_active
    from public.organization_watchlist_entries as e
   where e.organization_id = p_organization_id and e.deleted_at is null;
  v_room := greatest(v_quota - v_active, 0);

  with input as (
    select n.name as domain_name, n.ord,
           row_number() over (partition by n.name order by n.ord) as occurrence
      from unnest(p_domain_names) with ordinality as n (name, ord)
  ),
  classified as (
    select i.domain_name, i.ord,
           (i.occurrence > 1 or exists (
              select 1 from public.organization_watchlist_entries as e
               where e.organization_id = p_organization_id and e.domain_name = i.domain_name
                 and e.deleted_at is null
           )) as duplicate
      from input as i
  ),
  to_add as (
    select c.domain_name, c.ord
      from (select c.*, row_number() over (order by c.ord) as rank from classified as c where not c.duplicate) as c
     where c.rank <= v_room
  ),
  new_domains as (
    insert into public.domains (name)
    select a.domain_name from to_add as a order by a.domain_name
    on conflict (name) do nothing
    returning 1
  ),
  upserted as (
    insert into public.organization_watchlist_entries as e (organization_id, domain_name, added_by)
    select p_organization_id, a.domain_name, p_actor_id from to_add as a order by a.ord
    on conflict (organization_id, domain_name) do update
       set deleted_at = null, added_at = now(), added_by = excluded.added_by
     where e.deleted_at is not null
    returning e.domain_name
  )
  select coalesce((select array_agg(u.domain_name) from upserted as u), '{}'),
         (select count(*) from classified as c where c.duplicate)::integer
    into v_added, v_dups;

  insert into public.organization_activity
    (organization_id, actor_id, actor_name, action, domain_name, detail)
  select p_organization_id, p_actor_id, l.label, 'name.added', a.name, coalesce(p_detail, '{}'::jsonb)
    from unnest(v_added) as a (name)
   cross join (select private.member_label(p_actor_id) as label) as l;

  return query select cardinality(v_added), v_dups, v_count - v_dups - cardinality(v_added),
                      greatest(v_quota - (v_active + cardinality(v_added)), 0);
end
$$;

ALTER FUNCTION private.org_add_domains(p_organization_id uuid, p_actor_id uuid, p_domain_names text[], p_detail jsonb) OWNER TO postgres;

--
-- Name: org_owner(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_owner(p_organization_id uuid) RETURNS uuid
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select m.user_id from public.organization_members as m
   where m.organization_id = p_organization_id and m.role = 'owner'
   limit 1
$$;

ALTER FUNCTION private.org_owner(p_organization_id uuid) OWNER TO postgres;

--
-- Name: org_plan(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_plan(p_organization_id uuid) RETURNS TABLE(plan_id text, api_access boolean, requests_per_day integer)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select pl.id, pl.api_access, pl.requests_per_day
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = private.org_owner(p_organization_id)
$$;

ALTER FUNCTION private.org_plan(p_organization_id uuid) OWNER TO postgres;

--
-- Name: org_remove_domain(uuid, uuid, text, jsonb); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_remove_domain(p_organization_id uuid, p_actor_id uuid, p_domain_name text, p_detail jsonb DEFAULT '{}'::jsonb) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_name text := lower(p_domain_name);
begin
  update public.organization_watchlist_entries as e
     set deleted_at = now()
   where e.organization_id = p_organization_id and e.domain_name = v_name and e.deleted_at is null;
  if not found then
    if private.registrable_domain_problem(v_name) is not null then
      raise exception using errcode = 'DW400',
        message = 'DW400: ' || coalesce(p_domain_name, '(null)') || ' '
          || private.registrable_domain_problem(v_name) || '.';
    end if;
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, p_actor_id, 'name.removed', v_name, null, p_detail);
  delete from public.organization_claims as c
   where c.organization_id = p_organization_id and c.domain_name = v_name;
  return true;
end
$$;

ALTER FUNCTION private.org_remove_domain(p_organization_id uuid, p_actor_id uuid, p_domain_name text, p_detail jsonb) OWNER TO postgres;

--
-- Name: organization_telegram_chats; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_telegram_chats (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    chat_id text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    event_types text[] DEFAULT '{domain.available}'::text[] NOT NULL,
    expiring_days integer[] DEFAULT '{30,7,1}'::integer[] NOT NULL,
    linked_by uuid,
    linked_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT organization_telegram_chats_chat_id_check CHECK ((chat_id ~ '^-[1-9][0-9]{0,19}$'::text)),
    CONSTRAINT organization_telegram_chats_event_types_check CHECK (((cardinality(event_types) > 0) AND (event_types <@ ARRAY['domain.available'::text, 'domain.expiring'::text, 'domain.pending_delete'::text, 'domain.registered'::text, 'domain.restored'::text]))),
    CONSTRAINT organization_telegram_chats_expiring_days_check CHECK ((((cardinality(expiring_days) >= 1) AND (cardinality(expiring_days) <= 10)) AND (1 <= ALL (expiring_days)) AND (365 >= ALL (expiring_days))))
);

ALTER TABLE public.organization_telegram_chats OWNER TO postgres;

--
-- Name: TABLE organization_telegram_chats; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_telegram_chats IS 'An organization''s Telegram group (one at most), linked through the bot with a group link. chat_id is readable by service_role only (the sender); members read the rest.';

--
-- Name: org_telegram_group_json(public.organization_telegram_chats); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_telegram_group_json(p_group public.organization_telegram_chats) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select case when p_group.id is null then null else jsonb_build_object(
    'id', p_group.id,
    'enabled', p_group.enabled,
    'event_types', to_jsonb(p_group.event_types),
    'expiring_days', to_jsonb(p_group.expiring_days),
    'linked_by', private.member_label(p_group.linked_by),
    'linked_at', p_group.linked_at
  ) end
$$;

ALTER FUNCTION private.org_telegram_group_json(p_group public.organization_telegram_chats) OWNER TO postgres;

--
-- Name: org_watchlist_quota(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.org_watchlist_quota(p_organization_id uuid) RETURNS integer
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select coalesce((
    select pl.watchlist_quota
      from public.organization_members as m
      join public.profiles as p on p.id = m.user_id
      join public.plans as pl on pl.id = p.plan_id
     where m.organization_id = p_organization_id and m.role = 'owner'
     limit 1), 0)
$$;

ALTER FUNCTION private.org_watchlist_quota(p_organization_id uuid) OWNER TO postgres;

--
-- Name: outbound_address_class(inet); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.outbound_address_class(p_address inet) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
declare
  v_v4 inet;
  v_groups text[];
begin
  if family(p_address) = 6 then
    p_address := set_masklen(p_address, 128);
    if p_address = '::'::inet then
      return 'non_public';
    elsif p_address = '::1'::inet then
      return 'loopback';
    elsif p_address <<= '::/96'::inet or p_address <<= '::ffff:0:0/96'::inet
       or p_address <<= '64:ff9b::/96'::inet then
      v_v4 := '0.0.0.0'::inet + (p_address - network(set_masklen(p_address, 96)));
    elsif p_address <<= '2002::/16'::inet then
      -- 2002:AABB:CCDD::/48 carries AA.BB.CC.DD; the /48 network prints as 2002[:g2[:g3]]::.
      v_groups := string_to_array(regexp_replace(host(network(set_masklen(p_address, 48))), '::$', ''), ':');
      v_v4 := '0.0.0.0'::inet
        + (('x' || lpad(coalesce(nullif(v_groups[2], ''), '0'), 4, '0')
              || lpad(coalesce(nullif(v_groups[3], ''), '0'), 4, '0'))::bit(32)::bigint);
    elsif p_address <<= any (array[
      '::ffff:0:0:0/96', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:10::/28', '2001:db8::/32',
      '3fff::/20', '5f00::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'
    ]::inet[]) then
      return 'non_public';
    else
      return 'public';
    end if;
  else
    v_v4 := set_masklen(p_address, 32);
  end if;

  if v_v4 <<= '127.0.0.0/8'::inet then
    return 'loopback';
  end if;
  if v_v4 <<= any (array[
    '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
    '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24',
    '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4'
  ]::inet[]) then
    return 'non_public';
  end if;
  return 'public';
end
$_$;

ALTER FUNCTION private.outbound_address_class(p_address inet) OWNER TO postgres;

--
-- Name: outbound_url_problem(text, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.outbound_url_problem(p_url text, p_allow_private boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
declare
  v_dotted_quad constant text :=
    '^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$';
  v_scheme text;
  v_authority text;
  v_parts text[];
  v_host text;
  v_address text;
  v_tail text;
  v_inet inet;
  v_labels text[];
  v_class text;
begin
  v_scheme := lower(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*)://'));
  if v_scheme is null then
    return 'The URL must be an absolute https:// URL.';
  end if;
  if char_length(p_url) > 2048 then
    return 'The URL must be at most 2048 characters.';
  end if;
  if v_scheme <> 'https' and not (v_scheme = 'http' and coalesce(p_allow_private, false)) then
    return 'URLs must use https.';
  end if;
  if p_url ~ '[\u0001-\u0020\u007f\\]' then
    return 'The URL must not contain spaces, control characters or backslashes.';
  end if;
  v_authority := substring(substr(p_url, char_length(v_scheme) + 4) from '^[^/?#]*');
  if strpos(v_authority, '@') > 0 then
    return 'The URL must not contain a user name or password.';
  end if;

  v_parts := regexp_match(v_authority, '^(\[[0-9A-Fa-f:.]*\]|[A-Za-z0-9.-]*)(?::([0-9]*))?$');
  if v_parts is null or v_parts[1] = '' then
    return 'Write the URL''s host in ASCII letters, digits, dots and hyphens, without percent-encoding.';
  end if;
  if v_parts[2] is not null and v_parts[2] <> '' then
    -- Two steps: the cast runs only on at most 5 digits.
    if char_length(v_parts[2]) > 5 then
      return 'The URL''s port is not valid.';
    elsif v_parts[2]::integer > 65535 then
      return 'The URL''s port is not valid.';
    end if;
  end if;
  v_host := lower(v_parts[1]);

  if v_host like '[%' then
    v_address := substr(v_host, 2, char_length(v_host) - 2);
    v_tail := substring(v_address from '[^:]*$');
    if v_address !~ '^[0-9a-f:]*:([0-9a-f]*|[0-9.]*)$' or (strpos(v_tail, '.') > 0 and v_tail !~ v_dotted_quad) then
      return 'The URL''s IPv6 address is not valid.';
    end if;
    begin
      v_inet := v_address::inet;
    exception when invalid_text_representation then
      return 'The URL''s IPv6 address is not valid.';
    end;
    if family(v_inet) <> 6 then
      return 'The URL''s IPv6 address is not valid.';
    end if;
  else
    if v_host like '%.' then
      return 'Write the URL''s host without a trailing dot.';
    end if;
    v_labels := string_to_array(v_host, '.');
    if char_length(v_host) > 253 or exists (
      select 1 from unnest(v_labels) as l(label) where l.label = '' or char_length(l.label) > 63
    ) then
      return 'The URL''s host is not a valid DNS name.';
    end if;
    if exists (select 1 from unnest(v_labels) as l(label) where l.label like 'xn--%') then
      return 'Write the URL''s host without xn-- (internationalised) labels.';
    end if;
    if v_labels[array_length(v_labels, 1)] ~ '^([0-9]+|0x[0-9a-f]*)$' then
      -- The WHATWG parser reads a host whose last label is a number as IPv4 (2130706433, 0x7f.1, 127.1).
      if v_host !~ v_dotted_quad then
        return 'Write the URL''s host as a DNS name or a plain dotted IPv4 address.';
      end if;
      v_inet := v_host::inet;
    elsif v_host = 'localhost' or v_host like '%.localhost' then
      if coalesce(p_allow_private, false) then
        return null;
      end if;
      return 'URLs must not point at this machine (localhost).';
    elsif array_length(v_labels, 1) < 2
       or v_host in ('metadata.google.internal', 'metadata.goog', 'instance-data.ec2.internal')
       or v_host ~ '\.(internal|local|localdomain|home\.arpa|lan|intranet|corp)$' then
      return 'The URL''s host must be a public DNS name.';
    else
      return null;
    end if;
  end if;

  v_class := private.outbound_address_class(v_inet);
  if v_class = 'public' or (v_class = 'loopback' and coalesce(p_allow_private, false)) then
    return null;
  end if;
  if v_class = 'loopback' then
    return 'URLs must not point at a loopback address.';
  end if;
  return 'URLs must not point at a private, link-local or reserved address.';
end
$_$;

ALTER FUNCTION private.outbound_url_problem(p_url text, p_allow_private boolean) OWNER TO postgres;

--
-- Name: pause_telegram_sends(timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.pause_telegram_sends(p_until timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.telegram_send_pace as g
     set paused_until = greatest(g.paused_until, coalesce(p_until, now()))
   where g.id = 1
$$;

ALTER FUNCTION private.pause_telegram_sends(p_until timestamp with time zone) OWNER TO postgres;

--
-- Name: poller_invocations_needed(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.poller_invocations_needed() RETURNS integer
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_settings public.poller_settings%rowtype;
  v_due bigint;
begin
  select * into v_settings from public.poller_settings where id;
  select count(*) into v_due
    from (
      select 1
        from public.domains as d
       where d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and (exists (select 1 from public.watchlist_entries as e
                       where e.domain_name = d.name and e.deleted_at is null)
              or exists (select 1 from public.organization_watchlist_entries as o
                          where o.domain_name = d.name and o.deleted_at is null))
       limit v_settings.checks_per_invocation::bigint * v_settings.max_invocations
    ) as due;
  return least(v_settings.max_invocations,
               greatest(1, ceil(v_due::numeric / v_settings.checks_per_invocation)::integer));
end
$$;

ALTER FUNCTION private.poller_invocations_needed() OWNER TO postgres;

--
-- Name: post_to_edge_function(text, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_project_url text;
  v_secret text;
  v_first bigint;
  v_id bigint;
begin
  select s.decrypted_secret into v_project_url from vault.decrypted_secrets as s where s.name = 'project_url';
  select s.decrypted_secret into v_secret from vault.decrypted_secrets as s where s.name = 'poller_secret';
  if coalesce(v_project_url, '') = '' or coalesce(v_secret, '') = '' then
    return null;
  end if;
  for i in 1 .. coalesce(p_times, 0) loop
    v_id := net.http_post(
      url := rtrim(v_project_url, '/') || '/functions/v1/' || p_path,
      headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
      body := '{}'::jsonb,
      timeout_milliseconds := p_timeout_milliseconds
    );
    v_first := coalesce(v_first, v_id);
  end loop;
  return v_first;
end
$$;

ALTER FUNCTION private.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer) OWNER TO postgres;

--
-- Name: FUNCTION post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer) IS 'POSTs {} p_times times to <Vault project_url>/functions/v1/<p_path> with the Vault secret poller_secret as bearer token; the first pg_net request id, or null while a secret is missing. For invoke_rdap_poller() and invoke_alert_delivery() only (no grants).';

--
-- Name: punycode_decode(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.punycode_decode(p_input text) RETURNS integer[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO ''
    AS $_$
declare
  c_base constant integer := 36;
  c_tmin constant integer := 1;
  c_tmax constant integer := 26;
  v_len integer := char_length(p_input);
  v_out integer[] := '{}';
  v_n bigint := 128;
  v_i bigint := 0;
  v_bias bigint := 72;
  v_basic integer;
  v_pos integer;
  v_oldi bigint;
  v_w bigint;
  v_k bigint;
  v_t bigint;
  v_digit integer;
  v_cp integer;
  v_delta bigint;
  v_points integer;
begin
  if v_len = 0 or v_len > 59 or p_input !~ '^[a-z0-9-]+$' then
    return null;
  end if;
  v_basic := char_length(p_input) - strpos(reverse(p_input), '-') + 1;
  if strpos(p_input, '-') = 0 then
    v_basic := 0;
  end if;
  if v_basic > 0 then
    for v_pos in 1 .. v_basic - 1 loop
      v_out := v_out || ascii(substr(p_input, v_pos, 1));
    end loop;
  end if;
  v_pos := case when v_basic > 0 then v_basic + 1 else 1 end;

  while v_pos <= v_len loop
    v_oldi := v_i;
    v_w := 1;
    v_k := c_base;
    loop
      if v_pos > v_len then
        return null;
      end if;
      v_cp := ascii(substr(p_input, v_pos, 1));
      v_pos := v_pos + 1;
      v_digit := case when v_cp between 97 and 122 then v_cp - 97
                      when v_cp between 48 and 57 then v_cp - 22
                      else c_base end;
      if v_digit >= c_base then
        return null;
      end if;
      v_i := v_i + v_digit * v_w;
      if v_i > 2147483647 then
        return null;
      end if;
      v_t := case when v_k <= v_bias then c_tmin
                  when v_k >= v_bias + c_tmax then c_tmax
                  else v_k - v_bias end;
      exit when v_digit < v_t;
      v_w := v_w * (c_base - v_t);
      if v_w > 2147483647 then
        return null;
      end if;
      v_k := v_k + c_base;
    end loop;

    -- Bias adaptation (RFC 3492 section 6.1).
    v_points := coalesce(cardinality(v_out), 0) + 1;
    v_delta := case when v_oldi = 0 then (v_i - v_oldi) / 700 else (v_i - v_oldi) / 2 end;
    v_delta := v_delta + v_delta / v_points;
    v_k := 0;
    while v_delta > ((c_base - c_tmin) * c_tmax) / 2 loop
      v_delta := v_delta / (c_base - c_tmin);
      v_k := v_k + c_base;
    end loop;
    v_bias := v_k + ((c_base - c_tmin + 1) * v_delta) / (v_delta + 38);

    v_n := v_n + v_i / v_points;
    v_i := v_i % v_points;
    if v_n > 1114111 or v_n between 55296 and 57343 then
      return null;
    end if;
    v_out := v_out[1:v_i] || v_n::integer || v_out[v_i + 1:];
    v_i := v_i + 1;
  end loop;
  return v_out;
end
$_$;

ALTER FUNCTION private.punycode_decode(p_input text) OWNER TO postgres;

--
-- Name: purge_email_unsubscribe_tokens(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.purge_email_unsubscribe_tokens() RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  with gone as (
    delete from public.email_unsubscribe_tokens as t where t.created_at < now() - interval '180 days' returning 1
  )
  select count(*)::integer from gone
$$;

ALTER FUNCTION private.purge_email_unsubscribe_tokens() OWNER TO postgres;

--
-- Name: purge_expired_rows(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.purge_expired_rows() RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
declare
  v_settings public.retention_settings;
  v_attempts bigint;
  v_events bigint;
  v_cache bigint;
  v_counters bigint;
  v_sessions bigint;
  v_cron bigint;
  v_activity bigint;
begin
  select * into strict v_settings from public.retention_settings;

  delete from public.alert_delivery_attempts as a
   where a.attempted_at < now() - make_interval(days => v_settings.delivery_attempts_days);
  get diagnostics v_attempts = row_count;

  delete from public.alert_events as e
   where e.created_at < now() - make_interval(days => v_settings.alert_events_days)
     and not exists (
       select 1 from public.alert_deliveries as d where d.event_id = e.id and d.status = 'pending'
     );
  get diagnostics v_events = row_count;

  delete from public.live_check_cache as c
   where c.expires_at < now() - make_interval(hours => v_settings.live_check_cache_hours);
  get diagnostics v_cache = row_count;

  delete from public.api_request_counters as r
   where r.day < (now() at time zone 'utc')::date - v_settings.request_counters_days;
  get diagnostics v_counters = row_count;

  delete from public.session_request_log as s
   where s.requested_at < now() - make_interval(days => v_settings.session_request_log_days);
  get diagnostics v_sessions = row_count;

  delete from cron.job_run_details as j
   where coalesce(j.end_time, j.start_time) < now() - make_interval(days => v_settings.cron_run_details_days);
  get diagnostics v_cron = row_count;

  delete from public.organization_activity as l
   where l.created_at < now() - make_interval(days => v_settings.organization_activity_days);
  get diagnostics v_activity = row_count;

  return jsonb_build_object(
    'alert_delivery_attempts', v_attempts,
    'alert_events', v_events,
    'live_check_cache', v_cache,
    'api_request_counters', v_counters,
    'session_request_log', v_sessions,
    'cron_job_run_details', v_cron,
    'organization_activity', v_activity
  );
end
$$;

ALTER FUNCTION private.purge_expired_rows() OWNER TO postgres;

--
-- Name: FUNCTION purge_expired_rows(); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.purge_expired_rows() IS 'Daily pg_cron job purge-expired-rows: deletes rows older than the periods in public.retention_settings.';

--
-- Name: queue_domain_available_alerts(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_domain_available_alerts() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  with events as (
    insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
    select w.user_id, 'domain.available', new.name, private.domain_unicode_name(new.name), old.status, new.status,
           coalesce(new.last_checked_at, now())
      from private.alert_watchers(new.name) as w
     order by w.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
      join public.notification_settings as n on n.user_id = ev.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and 'domain.available' = any (n.telegram_event_types)
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', a.id
      from events as ev
      join private.email_alert_channels as a
        on a.user_id = ev.user_id and 'domain.available' = any (a.event_types)
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', w.id
    from events as ev
    join public.profiles as p on p.id = ev.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
    join public.webhook_endpoints as w
      on w.user_id = ev.user_id and w.organization_id is null and w.enabled
     and 'domain.available' = any (w.event_types);
  return null;
end
$$;

ALTER FUNCTION private.queue_domain_available_alerts() OWNER TO postgres;

--
-- Name: queue_domain_expiring_alerts(timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_domain_expiring_alerts(p_now timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_queued integer;
begin
  if p_now is null then
    raise exception using errcode = 'DW400', message = 'DW400: queue_domain_expiring_alerts: a time is required.';
  end if;
  perform pg_advisory_xact_lock(hashtext('private.queue_domain_expiring_alerts'));

  delete from public.domain_expiry_reminders as r where r.expires_at < p_now - interval '30 days';

  with channels as (
    select * from private.expiring_reminder_channels
  ),
  candidates as (
    select c.lane_key, c.user_id, c.channel, c.endpoint_id, d.name as domain_name, d.expires_at,
           coalesce(d.last_checked_at, p_now) as checked_at,
           (select min(t) from unnest(c.days) as u(t)
             where d.expires_at - p_now <= make_interval(days => t)) as days_before
      from channels as c
      join public.watchlist_entries as e on e.user_id = c.user_id and e.deleted_at is null
      join public.domains as d on d.name = e.domain_name
     where d.status = 'registered'
       and d.expires_at > p_now
       and d.expires_at <= p_now + make_interval(days => (select max(t) from unnest(c.days) as u(t)))
  ),
  due as materialized (
    select k.*
      from candidates as k
     where k.days_before is not null
       and not exists (
         select 1 from public.domain_expiry_reminders as r
          where r.lane_key = k.lane_key
            and r.domain_name = k.domain_name
            and r.expires_at > k.expires_at - interval '1 day'
            and r.expires_at < k.expires_at + interval '1 day'
            and r.days_before <= k.days_before)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, expires_at, days_before)
    select distinct on (q.user_id, q.domain_name, q.days_before)
           q.user_id, 'domain.expiring', q.domain_name, null, 'registered', q.checked_at, q.expires_at,
           q.days_before
      from due as q
     order by q.user_id, q.domain_name, q.days_before
    returning id, user_id, domain_name, days_before
  ),
  deliveries as (
    insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id, email_address_id)
    select ev.id, q.user_id, q.channel,
           case when q.channel = 'webhook' then q.endpoint_id end,
           case when q.channel = 'email' then q.endpoint_id end
      from due as q
      join events as ev
        on ev.user_id = q.user_id and ev.domain_name = q.domain_name and ev.days_before = q.days_before
    returning 1
  ),
  reminders as (
    insert into public.domain_expiry_reminders (lane_key, domain_name, expires_at, days_before, event_id)
    select q.lane_key, q.domain_name, q.expires_at, q.days_before, ev.id
      from due as q
      join events as ev
        on ev.user_id = q.user_id and ev.domain_name = q.domain_name and ev.days_before = q.days_before
    on conflict do nothing
    returning 1
  )
  select count(*)::integer into v_queued from events;
  return v_queued + private.queue_organization_expiring_alerts(p_now);
end
$$;

ALTER FUNCTION private.queue_domain_expiring_alerts(p_now timestamp with time zone) OWNER TO postgres;

--
-- Name: queue_domain_pending_delete_alerts(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_domain_pending_delete_alerts() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.queue_opt_in_alerts('domain.pending_delete', new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), null, null);
  return null;
end
$$;

ALTER FUNCTION private.queue_domain_pending_delete_alerts() OWNER TO postgres;

--
-- Name: queue_domain_registration_alerts(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_domain_registration_alerts() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.queue_opt_in_alerts(tg_argv[0], new.name, old.status, new.status,
                                     coalesce(new.last_checked_at, now()), new.registrar, new.expires_at);
  return null;
end
$$;

ALTER FUNCTION private.queue_domain_registration_alerts() OWNER TO postgres;

--
-- Name: queue_opt_in_alerts(text, text, text, text, timestamp with time zone, text, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_opt_in_alerts(p_type text, p_domain_name text, p_previous_status text, p_status text, p_checked_at timestamp with time zone, p_registrar text, p_expires_at timestamp with time zone) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  with watchers as (
    select w.user_id from private.alert_watchers(p_domain_name) as w
  ),
  telegram_targets as (
    select w.user_id
      from watchers as w
      join public.notification_settings as n on n.user_id = w.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
       and p_type = any (n.telegram_event_types)
  ),
  webhook_targets as (
    select w.user_id, we.id as endpoint_id
      from watchers as w
      join public.profiles as p on p.id = w.user_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as we
        on we.user_id = w.user_id and we.organization_id is null and we.enabled and p_type = any (we.event_types)
  ),
  email_targets as (
    select w.user_id, a.id as address_id
      from watchers as w
      join private.email_alert_channels as a on a.user_id = w.user_id and p_type = any (a.event_types)
  ),
  events as (
    insert into public.alert_events
      (user_id, type, domain_name, previous_status, status, checked_at, registrar, expires_at)
    select w.user_id, p_type, p_domain_name, p_previous_status, p_status, p_checked_at, p_registrar, p_expires_at
      from watchers as w
     where w.user_id in (select t.user_id from telegram_targets as t
                         union select h.user_id from webhook_targets as h
                         union select m.user_id from email_targets as m)
     order by w.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
     where ev.user_id in (select t.user_id from telegram_targets as t)
  ),
  email as (
    insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
    select ev.id, ev.user_id, 'email', m.address_id
      from events as ev
      join email_targets as m on m.user_id = ev.user_id
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', h.endpoint_id
    from events as ev
    join webhook_targets as h on h.user_id = ev.user_id;
end
$$;

ALTER FUNCTION private.queue_opt_in_alerts(p_type text, p_domain_name text, p_previous_status text, p_status text, p_checked_at timestamp with time zone, p_registrar text, p_expires_at timestamp with time zone) OWNER TO postgres;

--
-- Name: queue_organization_alerts(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_organization_alerts() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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
    select l.organization_id, l.owner_id, 'webhook' as channel, w.id as endpoint_id, null::uuid as address_id,
           null::uuid as group_id
      from lists as l
      join public.profiles as p on p.id = l.owner_id
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
      join public.webhook_endpoints as w
        on w.organization_id = l.organization_id and w.enabled and v_type = any (w.event_types)
    union all
    select l.organization_id, l.owner_id, 'email', null, a.id, null
      from lists as l
      join public.email_addresses as a
        on a.organization_id = l.organization_id and a.enabled and a.status = 'active'
       and v_type = any (a.event_types)
     where l.owner_id is not null
    union all
    select l.organization_id, l.owner_id, 'telegram', null, null, g.id
      from lists as l
      join public.organization_telegram_chats as g
        on g.organization_id = l.organization_id and g.enabled and v_type = any (g.event_types)
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
  insert into public.alert_deliveries
    (event_id, user_id, channel, webhook_endpoint_id, email_address_id, telegram_group_id)
  select ev.id, ev.user_id, t.channel, t.endpoint_id, t.address_id, t.group_id
    from events as ev
    join targets as t on t.organization_id = ev.organization_id;
  return null;
end
$$;

ALTER FUNCTION private.queue_organization_alerts() OWNER TO postgres;

--
-- Name: queue_organization_expiring_alerts(timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_organization_expiring_alerts(p_now timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_queued integer;
begin
  with channels as (
    select 'webhook:' || w.id::text as lane_key, w.organization_id, 'webhook' as channel, w.id as endpoint_id,
           null::uuid as address_id, null::uuid as group_id, w.expiring_days as days
      from public.webhook_endpoints as w
      join public.profiles as p on p.id = private.org_owner(w.organization_id)
      join public.plans as pl on pl.id = p.plan_id and pl.webhooks
     where w.organization_id is not null and w.enabled and 'domain.expiring' = any (w.event_types)
    union all
    select 'email:' || a.id::text, a.organization_id, 'email', null, a.id, null, a.expiring_days
      from public.email_addresses as a
     where a.organization_id is not null and a.enabled and a.status = 'active'
       and 'domain.expiring' = any (a.event_types)
    union all
    select 'telegram-group:' || g.id::text, g.organization_id, 'telegram', null, null, g.id, g.expiring_days
      from public.organization_telegram_chats as g
     where g.enabled and 'domain.expiring' = any (g.event_types)
  ),
  candidates as (
    select c.*, d.name as domain_name, d.expires_at, coalesce(d.last_checked_at, p_now) as checked_at,
           (select min(t) from unnest(c.days) as u(t)
             where d.expires_at - p_now <= make_interval(days => t)) as days_before
      from channels as c
      join public.organization_watchlist_entries as e
        on e.organization_id = c.organization_id and e.deleted_at is null
      join public.domains as d on d.name = e.domain_name
     where d.status = 'registered'
       and d.expires_at > p_now
       and d.expires_at <= p_now + make_interval(days => (select max(t) from unnest(c.days) as u(t)))
  ),
  due as materialized (
    select k.*, private.org_owner(k.organization_id) as owner_id
      from candidates as k
     where k.days_before is not null
       and not exists (
         select 1 from public.domain_expiry_reminders as r
          where r.lane_key = k.lane_key
            and r.domain_name = k.domain_name
            and r.expires_at > k.expires_at - interval '1 day'
            and r.expires_at < k.expires_at + interval '1 day'
            and r.days_before <= k.days_before)
  ),
  events as (
    insert into public.alert_events
      (user_id, organization_id, organization_name, claimed_by_name, type, domain_name, previous_status, status,
       checked_at, expires_at, days_before)
    select distinct on (q.organization_id, q.domain_name, q.days_before)
           q.owner_id, q.organization_id, org.name,
           (select private.member_label(c.claimed_by) from public.organization_claims as c
             where c.organization_id = q.organization_id and c.domain_name = q.domain_name),
           'domain.expiring', q.domain_name, null, 'registered', q.checked_at, q.expires_at, q.days_before
      from due as q
      join public.organizations as org on org.id = q.organization_id
     where q.owner_id is not null
     order by q.organization_id, q.domain_name, q.days_before
    returning id, user_id, organization_id, domain_name, days_before
  ),
  deliveries as (
    insert into public.alert_deliveries
      (event_id, user_id, channel, webhook_endpoint_id, email_address_id, telegram_group_id)
    select ev.id, ev.user_id, q.channel, q.endpoint_id, q.address_id, q.group_id
      from due as q
      join events as ev
        on ev.organization_id = q.organization_id and ev.domain_name = q.domain_name
       and ev.days_before = q.days_before
    returning 1
  ),
  reminders as (
    insert into public.domain_expiry_reminders (lane_key, domain_name, expires_at, days_before, event_id)
    select q.lane_key, q.domain_name, q.expires_at, q.days_before, ev.id
      from due as q
      join events as ev
        on ev.organization_id = q.organization_id and ev.domain_name = q.domain_name
       and ev.days_before = q.days_before
    on conflict do nothing
    returning 1
  )
  select count(*)::integer into v_queued from events;
  return v_queued;
end
$$;

ALTER FUNCTION private.queue_organization_expiring_alerts(p_now timestamp with time zone) OWNER TO postgres;

--
-- Name: queue_test_alert(uuid, text, uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_event_id text;
  v_delivery_id uuid;
begin
  if (select count(*) from public.alert_events as ev
       where ev.user_id = p_user_id and ev.type = 'test' and ev.created_at > now() - interval '10 minutes') >= 10 then
    raise exception using errcode = 'DW429', message = 'DW429: At most 10 test alerts per 10 minutes.';
  end if;
  insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
  values (p_user_id, 'test', 'example.com', null, 'pending_delete', 'available', now())
  returning id into v_event_id;
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  values (v_event_id, p_user_id, p_channel, p_webhook_endpoint_id)
  returning id into v_delivery_id;
  return v_delivery_id;
end
$$;

ALTER FUNCTION private.queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid) OWNER TO postgres;

--
-- Name: radar_key(text, text, timestamp with time zone, timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.radar_key(p_order text, p_status text, p_expires_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_added_at timestamp with time zone, p_now timestamp with time zone) RETURNS numeric
    LANGUAGE sql STABLE
    AS $$
  select case p_order
    when 'urgency' then
      case when p_status = 'pending_delete' then coalesce(extract(epoch from p_predicted_drop_at), 1e12)
           when p_status = 'registered' and p_expires_at < p_now + interval '30 days'
             then extract(epoch from p_expires_at)
           else 0 end
    when 'expiry' then coalesce(extract(epoch from p_expires_at), 0)
    when 'added' then -extract(epoch from p_added_at)
    else 0
  end
$$;

ALTER FUNCTION private.radar_key(p_order text, p_status text, p_expires_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_added_at timestamp with time zone, p_now timestamp with time zone) OWNER TO postgres;

--
-- Name: radar_rank(text, text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.radar_rank(p_order text, p_status text, p_expires_at timestamp with time zone, p_now timestamp with time zone) RETURNS integer
    LANGUAGE sql STABLE
    AS $$
  select case p_order
    when 'urgency' then
      case when p_status = 'available' then 0
           when p_status = 'pending_delete' then 1
           when p_status = 'registered' and p_expires_at < p_now + interval '30 days' then 2
           when p_status = 'unknown' then 3
           else 4 end
    when 'expiry' then case when p_expires_at is null then 1 else 0 end
    else 0
  end
$$;

ALTER FUNCTION private.radar_rank(p_order text, p_status text, p_expires_at timestamp with time zone, p_now timestamp with time zone) OWNER TO postgres;

--
-- Name: rate_limit_acquire(text, text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer DEFAULT NULL::integer) RETURNS TABLE(granted boolean, token uuid, wait_ms integer, reason text, paused_until timestamp with time zone, retry_ms integer, consecutive_failures integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_rate double precision;
  v_concurrency integer;
  v_max_wait interval;
  v_active integer;
  v_earliest timestamptz;
  v_start timestamptz;
  v_token uuid;
begin
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_acquire: key must be 1-300 characters.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_acquire: unknown class.';
  end if;
  v_max_wait := make_interval(secs => least(greatest(coalesce(p_max_wait_ms, 3600000), 0), 3600000) / 1000.0);

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  select * into v_key from public.rate_limit_keys as k where k.class = p_class and k.key = p_key for update;
  v_rate := coalesce(v_key.rate_per_second, v_class.rate_per_second);
  v_concurrency := coalesce(v_key.concurrency, v_class.concurrency);

  if v_key.paused_until > v_now
     and (v_key.paused_until - v_now > make_interval(secs => v_class.short_pause_ms / 1000.0)
          or v_key.paused_until > v_now + v_max_wait) then
    return query select false, null::uuid, null::integer, v_key.pause_reason, v_key.paused_until, null::integer,
      v_key.consecutive_failures;
    return;
  end if;

  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.expires_at <= v_now;
  select count(*), min(s.starts_at) into v_active, v_earliest
    from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key;

  if v_active >= v_concurrency then
    -- A slot frees once its request (started, or starting at v_earliest) is done; a grant then starts no
    -- earlier than next_start_at. Look again in about a share of that time (the callers spread themselves).
    return query select false, null::uuid, null::integer, 'busy'::text, null::timestamptz,
      least(1000, greatest(25, ceil(greatest(extract(epoch from (v_earliest - v_now)),
                                             extract(epoch from (v_key.next_start_at - v_now)) / v_concurrency)
                                    * 1000)::integer + 25)),
      v_key.consecutive_failures;
    return;
  end if;

  v_start := greatest(v_now, v_key.next_start_at, coalesce(v_key.paused_until, v_now),
                      case when v_rate > 0 then v_key.last_started_at + make_interval(secs => 1.0 / v_rate) end);
  if v_class.space_from_end then
    v_start := greatest(v_start,
                        case when v_rate > 0 then v_key.last_finished_at + make_interval(secs => 1.0 / v_rate) end);
    if exists (select 1 from public.rate_limit_slots as s
                where s.class = p_class and s.key = p_key
                  and s.started_at > v_now - make_interval(secs => v_class.in_flight_wait_ms / 1000.0)) then
      -- A recent request is in flight: this one confirms (and waits for its end) before starting.
      v_start := greatest(v_start, v_now + interval '1 millisecond');
    end if;
  end if;
  if v_start > v_now + v_max_wait then
    return query select false, null::uuid, null::integer, 'busy'::text, null::timestamptz, null::integer,
      v_key.consecutive_failures;
    return;
  end if;

  insert into public.rate_limit_slots as s (class, key, starts_at, started_at, expires_at)
  values (p_class, p_key, v_start, case when v_start = v_now then v_now end,
          v_start + make_interval(secs => v_class.slot_lease_ms / 1000.0))
  returning s.token into v_token;
  update public.rate_limit_keys as k
     set next_start_at = case when v_rate > 0 then v_start + make_interval(secs => 1.0 / v_rate)
                              else v_start end,
         last_started_at = case when v_start = v_now then v_now else k.last_started_at end
   where k.class = p_class and k.key = p_key;

  return query select true, v_token, ceil(extract(epoch from (v_start - v_now)) * 1000)::integer,
    null::text, null::timestamptz, null::integer, v_key.consecutive_failures;
end
$$;

ALTER FUNCTION private.rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer) OWNER TO postgres;

--
-- Name: rate_limit_confirm(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_confirm(p_token uuid) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
  v_rate double precision;
  v_last timestamptz;
  v_finished timestamptz;
  v_from_end boolean;
  v_in_flight_wait_ms integer;
  v_next timestamptz;
begin
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token and s.expires_at > v_now;
  if not found then
    return -1;
  end if;
  select coalesce(k.rate_per_second, c.rate_per_second), k.last_started_at, k.last_finished_at, c.space_from_end,
         c.in_flight_wait_ms
    into v_rate, v_last, v_finished, v_from_end, v_in_flight_wait_ms
    from public.rate_limit_keys as k
    join public.rate_limit_classes as c on c.class = k.class
   where k.class = v_slot.class and k.key = v_slot.key
     for update of k;
  -- A pause may have voided the slot while this caller waited for the key's lock.
  if not exists (select 1 from public.rate_limit_slots as s where s.token = p_token) then
    return -1;
  end if;
  if v_from_end and exists (select 1 from public.rate_limit_slots as s
                             where s.class = v_slot.class and s.key = v_slot.key and s.token <> p_token
                               and s.started_at > v_now - make_interval(secs => v_in_flight_wait_ms / 1000.0)) then
    return 25;  -- a recent request is still in flight: look again shortly
  end if;
  v_next := greatest(v_slot.starts_at,
                     case when v_rate > 0 then v_last + make_interval(secs => 1.0 / v_rate) end,
                     case when v_rate > 0 and v_from_end then v_finished + make_interval(secs => 1.0 / v_rate) end);
  if v_next > v_now then
    return greatest(1, ceil(extract(epoch from (v_next - v_now)) * 1000)::integer);
  end if;
  update public.rate_limit_slots as s set started_at = v_now where s.token = p_token;
  update public.rate_limit_keys as k set last_started_at = v_now
   where k.class = v_slot.class and k.key = v_slot.key;
  return 0;
end
$$;

ALTER FUNCTION private.rate_limit_confirm(p_token uuid) OWNER TO postgres;

--
-- Name: rate_limit_classes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rate_limit_classes (
    class text NOT NULL,
    rate_per_second double precision NOT NULL,
    concurrency integer NOT NULL,
    short_pause_ms integer DEFAULT 5000 NOT NULL,
    failure_threshold integer DEFAULT 3 NOT NULL,
    backoff_base_ms integer DEFAULT 15000 NOT NULL,
    backoff_cap_ms integer DEFAULT 900000 NOT NULL,
    slot_lease_ms integer DEFAULT 30000 NOT NULL,
    max_pause_ms integer DEFAULT 3600000 NOT NULL,
    space_from_end boolean DEFAULT true NOT NULL,
    in_flight_wait_ms integer DEFAULT 2000 NOT NULL,
    reserve_lead_ms integer DEFAULT 100 NOT NULL,
    late_start_ms integer DEFAULT 25 NOT NULL,
    live_share double precision DEFAULT 0.5 NOT NULL,
    live_account_share double precision DEFAULT 0.25 NOT NULL,
    live_account_window_ms integer DEFAULT 600000 NOT NULL,
    CONSTRAINT rate_limit_classes_backoff_base_ms_check CHECK (((backoff_base_ms >= 0) AND (backoff_base_ms <= 86400000))),
    CONSTRAINT rate_limit_classes_backoff_cap_ms_check CHECK (((backoff_cap_ms >= 0) AND (backoff_cap_ms <= 86400000))),
    CONSTRAINT rate_limit_classes_class_check CHECK ((class ~ '^[a-z][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT rate_limit_classes_concurrency_check CHECK (((concurrency >= 1) AND (concurrency <= 1000))),
    CONSTRAINT rate_limit_classes_failure_threshold_check CHECK (((failure_threshold >= 1) AND (failure_threshold <= 1000))),
    CONSTRAINT rate_limit_classes_in_flight_wait_ms_check CHECK (((in_flight_wait_ms >= 0) AND (in_flight_wait_ms <= 60000))),
    CONSTRAINT rate_limit_classes_late_start_ms_check CHECK (((late_start_ms >= 0) AND (late_start_ms <= 1000))),
    CONSTRAINT rate_limit_classes_live_account_share_check CHECK (((live_account_share > (0)::double precision) AND (live_account_share <= (1)::double precision))),
    CONSTRAINT rate_limit_classes_live_account_window_ms_check CHECK (((live_account_window_ms >= 1000) AND (live_account_window_ms <= 86400000))),
    CONSTRAINT rate_limit_classes_live_share_check CHECK (((live_share > (0)::double precision) AND (live_share <= (1)::double precision))),
    CONSTRAINT rate_limit_classes_max_pause_ms_check CHECK (((max_pause_ms >= 0) AND (max_pause_ms <= 604800000))),
    CONSTRAINT rate_limit_classes_rate_per_second_check CHECK (((rate_per_second >= (0)::double precision) AND (rate_per_second <= (10000)::double precision))),
    CONSTRAINT rate_limit_classes_reserve_lead_ms_check CHECK (((reserve_lead_ms >= 0) AND (reserve_lead_ms <= 5000))),
    CONSTRAINT rate_limit_classes_short_pause_ms_check CHECK (((short_pause_ms >= 0) AND (short_pause_ms <= 3600000))),
    CONSTRAINT rate_limit_classes_slot_lease_ms_check CHECK (((slot_lease_ms >= 1000) AND (slot_lease_ms <= 3600000)))
);

ALTER TABLE public.rate_limit_classes OWNER TO postgres;

--
-- Name: TABLE rate_limit_classes; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rate_limit_classes IS 'Parameters of each shared rate limiter class (docs/rate-limits.md). Edited by the operator in SQL.';

--
-- Name: rate_limit_late_start_ms(public.rate_limit_classes, double precision); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_late_start_ms(p_class public.rate_limit_classes, p_rate double precision) RETURNS integer
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
  select case when not p_class.space_from_end then p_class.late_start_ms
              else greatest(0, p_class.in_flight_wait_ms
                               - case when p_rate > 0 then ceil(2000 / p_rate)::integer else 0 end) end
$$;

ALTER FUNCTION private.rate_limit_late_start_ms(p_class public.rate_limit_classes, p_rate double precision) OWNER TO postgres;

--
-- Name: rate_limit_pause(text, text, timestamp with time zone, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_pause(p_class text, p_key text, p_until timestamp with time zone, p_reason text DEFAULT 'rate_limited'::text) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_max_pause_ms integer;
  v_until timestamptz;
begin
  if p_reason is null or p_reason not in ('rate_limited', 'backoff') then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: reason must be rate_limited or backoff.';
  end if;
  if p_until is null then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: until is required.';
  end if;
  select c.max_pause_ms into v_max_pause_ms from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: unknown class.';
  end if;
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_pause: key must be 1-300 characters.';
  end if;
  v_until := least(p_until, v_now + make_interval(secs => v_max_pause_ms / 1000.0));

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  update public.rate_limit_keys as k
     set paused_until = v_until,
         pause_reason = p_reason,
         paused_at = v_now
   where k.class = p_class and k.key = p_key
     and (k.paused_until is null or k.paused_until < v_until);
  -- Reserved (rate_limit_reserve) and not settled, or granted by rate_limit_acquire and not confirmed: both
  -- still have no started_at.
  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.starts_at > v_now and s.started_at is null;
  return (select k.paused_until from public.rate_limit_keys as k where k.class = p_class and k.key = p_key);
end
$$;

ALTER FUNCTION private.rate_limit_pause(p_class text, p_key text, p_until timestamp with time zone, p_reason text) OWNER TO postgres;

--
-- Name: rate_limit_release(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_release(p_token uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_slot public.rate_limit_slots%rowtype;
begin
  delete from public.rate_limit_slots as s where s.token = p_token returning * into v_slot;
  if found and v_slot.started_at is not null then
    update public.rate_limit_keys as k
       set last_finished_at = greatest(k.last_finished_at, clock_timestamp())
     where k.class = v_slot.class and k.key = v_slot.key;
  end if;
end
$$;

ALTER FUNCTION private.rate_limit_release(p_token uuid) OWNER TO postgres;

--
-- Name: rate_limit_release_at(uuid, timestamp with time zone, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_release_at(p_token uuid, p_finished_at timestamp with time zone, p_sent boolean DEFAULT true) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_rate double precision;
  v_interval interval;
  v_reserved timestamptz;
  v_started timestamptz;
begin
  delete from public.rate_limit_slots as s where s.token = p_token returning * into v_slot;
  if not found then
    return;
  end if;
  if coalesce(p_sent, true) then
    if v_slot.started_at is not null and v_slot.started_at <= v_now then
      update public.rate_limit_keys as k
         set last_finished_at = greatest(k.last_finished_at,
                                         least(greatest(coalesce(p_finished_at, v_now), v_slot.started_at), v_now))
       where k.class = v_slot.class and k.key = v_slot.key;
    end if;
    return;
  end if;

  select * into v_class from public.rate_limit_classes as c where c.class = v_slot.class;
  select * into v_key from public.rate_limit_keys as k
   where k.class = v_slot.class and k.key = v_slot.key for update;
  v_rate := coalesce(v_key.rate_per_second, v_class.rate_per_second);
  if not found or not v_class.space_from_end or v_rate <= 0 then
    return;
  end if;
  v_interval := make_interval(secs => 1.0 / v_rate);
  -- What is left: the slots still reserved or in flight, and the last recorded end (every sent request that
  -- has been released ended by then; rate_limit_settle spaces the real start from it anyway).
  select max(s.starts_at), max(s.started_at) into v_reserved, v_started
    from public.rate_limit_slots as s
   where s.class = v_slot.class and s.key = v_slot.key;
  update public.rate_limit_keys as k
     set next_start_at = least(k.next_start_at,
                               greatest(coalesce(v_reserved + v_interval, '-infinity'),
                                        coalesce(k.last_finished_at + v_interval, '-infinity'))),
         last_started_at = case when greatest(v_started, k.last_finished_at) is null then null
                                else least(k.last_started_at, greatest(v_started, k.last_finished_at)) end,
         live_next_start_at = case
           when v_slot.live_start is not null and v_class.live_share > 0
                and k.live_next_start_at = v_slot.live_start + make_interval(secs => 1.0 / (v_rate * v_class.live_share))
           then v_slot.live_start
           else k.live_next_start_at end
   where k.class = v_slot.class and k.key = v_slot.key;
  if v_slot.live_account is not null then
    update public.rate_limit_live_accounts as a
       set tat = a.tat - make_interval(secs => 1.0 / (v_rate * v_class.live_share * v_class.live_account_share))
     where a.class = v_slot.class and a.key = v_slot.key and a.account = v_slot.live_account;
  end if;
end
$$;

ALTER FUNCTION private.rate_limit_release_at(p_token uuid, p_finished_at timestamp with time zone, p_sent boolean) OWNER TO postgres;

--
-- Name: rate_limit_report(text, text, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_report(p_class text, p_key text, p_succeeded boolean) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_class public.rate_limit_classes%rowtype;
  v_failures integer;
  v_beyond integer;
  v_until timestamptz;
begin
  if p_succeeded is null then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: succeeded is required.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: unknown class.';
  end if;
  if p_succeeded then
    update public.rate_limit_keys as k set consecutive_failures = 0
     where k.class = p_class and k.key = p_key and k.consecutive_failures <> 0;
    return (select k.paused_until from public.rate_limit_keys as k
             where k.class = p_class and k.key = p_key and k.paused_until > v_now);
  end if;

  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_report: key must be 1-300 characters.';
  end if;
  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  update public.rate_limit_keys as k set consecutive_failures = k.consecutive_failures + 1
   where k.class = p_class and k.key = p_key
  returning k.consecutive_failures into v_failures;
  v_beyond := v_failures - v_class.failure_threshold;
  if v_beyond >= 0 then
    return private.rate_limit_pause(
      p_class, p_key,
      v_now + make_interval(secs => least(v_class.backoff_base_ms * power(2, least(v_beyond, 30)),
                                          v_class.backoff_cap_ms) / 1000.0),
      'backoff');
  end if;
  return (select k.paused_until from public.rate_limit_keys as k
           where k.class = p_class and k.key = p_key and k.paused_until > v_now);
end
$$;

ALTER FUNCTION private.rate_limit_report(p_class text, p_key text, p_succeeded boolean) OWNER TO postgres;

--
-- Name: rate_limit_reserve(text, text, integer, boolean, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer DEFAULT NULL::integer, p_urgent boolean DEFAULT false, p_live_account text DEFAULT NULL::text) RETURNS TABLE(granted boolean, token uuid, starts_at timestamp with time zone, wait_ms integer, late_start_ms integer, reason text, paused_until timestamp with time zone, retry_ms integer, consecutive_failures integer, db_now timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_rate double precision;
  v_interval interval;
  v_concurrency integer;
  v_max_wait interval;
  v_active integer;
  v_latest timestamptz;
  v_start timestamptz;
  v_token uuid;
  v_live boolean;
  v_live_interval interval;
  v_account_interval interval;
  v_account_tat timestamptz;
  v_live_at timestamptz;
begin
  if p_key is null or char_length(p_key) not between 1 and 300 then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_reserve: key must be 1-300 characters.';
  end if;
  if p_live_account is not null and char_length(p_live_account) not between 1 and 100 then
    raise exception using errcode = 'DW400',
      message = 'DW400: rate_limit_reserve: live account must be 1-100 characters.';
  end if;
  select * into v_class from public.rate_limit_classes as c where c.class = p_class;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: rate_limit_reserve: unknown class.';
  end if;
  v_max_wait := make_interval(secs => least(greatest(coalesce(p_max_wait_ms, 3600000), 0), 3600000) / 1000.0);

  insert into public.rate_limit_keys as k (class, key) values (p_class, p_key) on conflict do nothing;
  select * into v_key from public.rate_limit_keys as k where k.class = p_class and k.key = p_key for update;
  v_rate := coalesce(v_key.rate_per_second, v_class.rate_per_second);
  v_interval := case when v_rate > 0 then make_interval(secs => 1.0 / v_rate) else interval '0' end;
  v_concurrency := coalesce(v_key.concurrency, v_class.concurrency);
  -- A key without spacing (rate 0) has no share to keep.
  v_live := p_live_account is not null and v_rate > 0;

  if v_key.paused_until > v_now
     and (v_key.paused_until - v_now > make_interval(secs => v_class.short_pause_ms / 1000.0)
          or v_key.paused_until > v_now + v_max_wait) then
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      v_key.pause_reason, v_key.paused_until, null::integer, v_key.consecutive_failures, v_now;
    return;
  end if;

  delete from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key and s.expires_at <= v_now;
  select count(*), max(s.starts_at) into v_active, v_latest
    from public.rate_limit_slots as s
   where s.class = p_class and s.key = p_key;

  -- An urgent caller (a name in pending delete around its predicted drop) may hold one reservation beyond
  -- the cap, so routine reservations never make it wait for a slot to free. Only where starts are spaced
  -- from the previous end: rate_limit_settle then starts one request of the key at a time, so the extra
  -- reservation deepens the queue by one start and never adds a request in flight.
  if v_active >= v_concurrency + (case when p_urgent and v_class.space_from_end then 1 else 0 end) then
    -- Once the latest reserved start has gone out, the request before it has (normally) finished and freed
    -- its slot; a new reservation would not start before then + 1 / rate anyway.
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      'busy'::text, null::timestamptz,
      least(1000, greatest(25, ceil(extract(epoch from (v_latest - v_now)) * 1000)::integer + 25)),
      v_key.consecutive_failures, v_now;
    return;
  end if;

  v_start := greatest(v_now + make_interval(secs => v_class.reserve_lead_ms / 1000.0),
                      v_key.next_start_at,
                      coalesce(v_key.paused_until, v_now),
                      v_key.last_started_at + v_interval,
                      case when v_class.space_from_end then v_key.last_finished_at + v_interval end);
  if v_live then
    -- Live checks together: every other start at most (live_share 0.5), never a burst. One account: on
    -- average live_account_share of that, with a burst of live_account_window_ms' worth (GCRA).
    v_live_interval := make_interval(secs => 1.0 / (v_rate * v_class.live_share));
    v_account_interval := make_interval(secs => 1.0 / (v_rate * v_class.live_share * v_class.live_account_share));
    delete from public.rate_limit_live_accounts as a
     where a.class = p_class and a.key = p_key and a.tat <= v_now;
    select a.tat into v_account_tat from public.rate_limit_live_accounts as a
     where a.class = p_class and a.key = p_key and a.account = p_live_account;
    v_live_at := greatest(v_key.live_next_start_at,
                          v_account_tat - greatest(make_interval(secs => v_class.live_account_window_ms / 1000.0)
                                                   - v_account_interval, interval '0'));
    if v_live_at > v_start and v_live_at <= v_now + v_max_wait then
      -- Not yet the live share's turn: ask again then, without holding a slot meanwhile (a reservation
      -- held ahead would keep the poller's starts back).
      return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
        'busy'::text, null::timestamptz,
        greatest(25, ceil(extract(epoch from (v_live_at - v_now)) * 1000)::integer),
        v_key.consecutive_failures, v_now;
      return;
    end if;
    v_start := greatest(v_start, v_live_at);
  end if;
  if v_start > v_now + v_max_wait then
    return query select false, null::uuid, null::timestamptz, null::integer, v_class.late_start_ms,
      'busy'::text, null::timestamptz, null::integer, v_key.consecutive_failures, v_now;
    return;
  end if;

  -- Not settled, a reservation lapses in_flight_wait_ms after its start (each "ask again" extends it): a
  -- caller that died before settling holds a slot of the in-flight cap for seconds, not a whole lease.
  insert into public.rate_limit_slots as s (class, key, starts_at, expires_at, live_account, live_start)
  values (p_class, p_key, v_start,
          v_start + make_interval(secs => least(v_class.slot_lease_ms, greatest(v_class.in_flight_wait_ms, 1000))
                                          / 1000.0),
          case when v_live then p_live_account end, case when v_live then v_start end)
  returning s.token into v_token;
  update public.rate_limit_keys as k
     set next_start_at = v_start + v_interval,
         last_started_at = v_start,
         live_next_start_at = case when v_live then v_start + v_live_interval else k.live_next_start_at end
   where k.class = p_class and k.key = p_key;
  if v_live then
    insert into public.rate_limit_live_accounts as a (class, key, account, tat)
    values (p_class, p_key, p_live_account, v_start + v_account_interval)
    on conflict (class, key, account) do update set tat = greatest(a.tat, v_start) + v_account_interval;
  end if;

  return query select true, v_token, v_start, ceil(extract(epoch from (v_start - v_now)) * 1000)::integer,
    private.rate_limit_late_start_ms(v_class, v_rate), null::text, null::timestamptz,
    null::integer, v_key.consecutive_failures, v_now;
end
$$;

ALTER FUNCTION private.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer, p_urgent boolean, p_live_account text) OWNER TO postgres;

--
-- Name: rate_limit_settle(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.rate_limit_settle(p_token uuid) RETURNS TABLE(start_at timestamp with time zone, retry_ms integer, db_now timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_now timestamptz := clock_timestamp();
  v_slot public.rate_limit_slots%rowtype;
  v_class public.rate_limit_classes%rowtype;
  v_key public.rate_limit_keys%rowtype;
  v_interval interval;
  v_other timestamptz;
  v_start timestamptz;
begin
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token and s.expires_at > v_now;
  if not found then
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  select * into v_key from public.rate_limit_keys as k
   where k.class = v_slot.class and k.key = v_slot.key for update;
  select * into v_class from public.rate_limit_classes as c where c.class = v_slot.class;
  -- A pause may have voided the slot while this caller waited for the key's lock.
  select * into v_slot from public.rate_limit_slots as s where s.token = p_token;
  if not found then
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  v_interval := case when coalesce(v_key.rate_per_second, v_class.rate_per_second) > 0
                     then make_interval(secs => 1.0 / coalesce(v_key.rate_per_second, v_class.rate_per_second))
                     else interval '0' end;

  if v_class.space_from_end then
    -- The latest other request of the key that is settled (in flight, or about to start) and recent.
    select max(s.started_at) into v_other
      from public.rate_limit_slots as s
     where s.class = v_slot.class and s.key = v_slot.key and s.token <> p_token
       and s.started_at > v_now - make_interval(secs => v_class.in_flight_wait_ms / 1000.0);
    if v_other is not null then
      update public.rate_limit_slots as s
         set expires_at = greatest(s.expires_at,
                                   v_now + make_interval(secs => greatest(v_class.in_flight_wait_ms, 1000) / 1000.0))
       where s.token = p_token;
      return query select null::timestamptz,
        least(1000, greatest(25, ceil(extract(epoch from (v_other - v_now)) * 1000)::integer + 50)), v_now;
      return;
    end if;
  end if;

  -- A pause set since the reservation (its starts still ahead were voided then; this one's had passed).
  if v_key.paused_until > v_now then
    delete from public.rate_limit_slots as s where s.token = p_token;
    return query select null::timestamptz, null::integer, v_now;
    return;
  end if;
  -- Spaced from the previous end, the reserved time is only when to ask: a start given up before this one
  -- leaves no hole. Spaced from starts only, the reserved time stands. A live check's start is never before
  -- its reserved one (the live checks' share is kept between reserved starts).
  v_start := case when v_class.space_from_end
                  then greatest(v_now, v_key.last_finished_at + v_interval, v_slot.live_start)
                  else v_slot.starts_at end;
  update public.rate_limit_slots as s
     set starts_at = v_start, started_at = v_start,
         expires_at = greatest(s.expires_at, v_start + make_interval(secs => v_class.slot_lease_ms / 1000.0))
   where s.token = p_token;
  update public.rate_limit_keys as k
     set next_start_at = greatest(k.next_start_at, v_start + v_interval),
         last_started_at = greatest(k.last_started_at, v_start)
   where k.class = v_slot.class and k.key = v_slot.key;
  return query select v_start, null::integer, v_now;
end
$$;

ALTER FUNCTION private.rate_limit_settle(p_token uuid) OWNER TO postgres;

--
-- Name: record_alert_delivery_attempt(uuid, text, integer, text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.record_alert_delivery_attempt(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if p_outcome is null or p_outcome not in ('delivered', 'failed', 'rate_limited', 'refused', 'skipped') then
    raise exception using errcode = 'DW400', message = 'DW400: invalid delivery outcome.';
  end if;
  insert into public.alert_delivery_attempts (delivery_id, user_id, outcome, http_status, error, duration_ms)
  select d.id, d.user_id, p_outcome, p_http_status, left(p_error, 500), p_duration_ms
    from public.alert_deliveries as d
   where d.id = p_delivery_id;
  update public.alert_deliveries as d
     set attempt_count = d.attempt_count + 1,
         failure_count = d.failure_count + case when p_outcome = 'failed' then 1 else 0 end,
         last_attempt_at = now(),
         last_http_status = p_http_status,
         last_error = left(p_error, 500),
         lease_until = null
   where d.id = p_delivery_id;
  update public.alert_delivery_lanes as l
     set busy_delivery_id = null, busy_until = null, updated_at = now()
   where l.busy_delivery_id = p_delivery_id;
end
$$;

ALTER FUNCTION private.record_alert_delivery_attempt(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) OWNER TO postgres;

--
-- Name: record_domain_check(text, text, timestamp with time zone, timestamp with time zone, text, boolean, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.record_domain_check(p_domain_name text, p_status text, p_checked_at timestamp with time zone, p_expires_at timestamp with time zone, p_registrar text, p_succeeded boolean, p_source text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_last_checked_at timestamptz;
  v_failures integer;
  v_previous_status text;
  v_decided boolean;
begin
  if p_status is null or p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = 'DW400', message = 'DW400: record_domain_check: invalid status.';
  end if;
  if p_checked_at is null or p_succeeded is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_domain_check: checked_at and succeeded are required.';
  end if;
  if p_source is null or p_source not in ('poller', 'live') then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_domain_check: source must be poller or live.';
  end if;
  v_decided := p_succeeded and p_status <> 'unknown';

  if p_source = 'live' then
    if not v_decided then
      return;
    end if;
    select d.status into v_previous_status
      from public.domains as d
     where d.name = p_domain_name
       and (d.last_checked_at is null or d.last_checked_at <= p_checked_at)
       for update;
    if not found then
      return;
    end if;
    update public.domains as d
       set status = p_status,
           status_changed_at = case when d.status is distinct from p_status then p_checked_at
                                    else d.status_changed_at end,
           last_checked_at = p_checked_at,
           expires_at = p_expires_at,
           registrar = p_registrar,
           next_check_at = least(d.next_check_at,
                                 p_checked_at + private.next_check_delay(p_status, p_expires_at, 0))
     where d.name = p_domain_name
       and (d.last_checked_at is null or d.last_checked_at <= p_checked_at);
    perform private.note_status_change(p_domain_name, v_previous_status, p_status, p_checked_at, p_source,
                                       p_registrar, p_expires_at);
    return;
  end if;

  select d.last_checked_at, d.consecutive_failures, d.status
    into v_last_checked_at, v_failures, v_previous_status
    from public.domains as d
   where d.name = p_domain_name
     for update;

  if not found then
    return;
  end if;

  if v_last_checked_at is not null and p_checked_at < v_last_checked_at then
    update public.domains set lease_until = null where name = p_domain_name;
    return;
  end if;

  if p_succeeded then
    update public.domains as d
       set status = p_status,
           status_changed_at = case when d.status is distinct from p_status then p_checked_at
                                    else d.status_changed_at end,
           last_checked_at = p_checked_at,
           expires_at = p_expires_at,
           registrar = p_registrar,
           consecutive_failures = 0,
           next_check_at = p_checked_at + private.next_check_delay(p_status, p_expires_at, 0),
           lease_until = null
     where d.name = p_domain_name;
    perform private.note_status_change(p_domain_name, v_previous_status, p_status, p_checked_at, p_source,
                                       p_registrar, p_expires_at);
  else
    update public.domains as d
       set last_checked_at = p_checked_at,
           consecutive_failures = v_failures + 1,
           next_check_at = p_checked_at + private.next_check_delay('unknown', d.expires_at, v_failures + 1),
           lease_until = null
     where d.name = p_domain_name;
  end if;
end
$$;

ALTER FUNCTION private.record_domain_check(p_domain_name text, p_status text, p_checked_at timestamp with time zone, p_expires_at timestamp with time zone, p_registrar text, p_succeeded boolean, p_source text) OWNER TO postgres;

--
-- Name: record_drop_observation(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.record_drop_observation() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  insert into public.drop_observations
    (domain_name, registry, basis, predicted_drop_at, correction_seconds, last_pending_at, observed_at)
  values (new.name, private.registry_of(new.name), old.prediction_basis, old.predicted_drop_at,
          old.prediction_correction_seconds, old.last_checked_at, coalesce(new.last_checked_at, now()));
  perform private.refresh_drop_prediction_correction(private.registry_of(new.name), old.prediction_basis);
  return null;
end
$$;

ALTER FUNCTION private.record_drop_observation() OWNER TO postgres;

--
-- Name: record_rdap_server_proof(text, text, uuid, text, text, integer, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.record_rdap_server_proof(p_server_url text, p_suffix text, p_claim_id uuid, p_canary_name text, p_outcome text, p_http_status integer, p_detail text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  if p_outcome is null or p_outcome not in ('verified', 'failed', 'inconclusive') or p_claim_id is null
     or p_canary_name is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_rdap_server_proof: a claim, a canary and a valid outcome are required.';
  end if;

  update public.rdap_server_proofs as p
     set state = case p_outcome when 'inconclusive' then p.state else p_outcome end,
         canary_name = case p_outcome when 'inconclusive' then p.canary_name else p_canary_name end,
         http_status = p_http_status,
         detail = left(p_detail, 300),
         checked_at = now(),
         verified_at = case p_outcome when 'verified' then now() else p.verified_at end,
         valid_until = case p_outcome
                         when 'verified' then now() + interval '26 hours'
                         when 'failed' then null
                         else p.valid_until end,
         renew_after = now() + case p_outcome
                                 when 'verified' then interval '24 hours'
                                 when 'failed' then interval '1 hour'
                                 else interval '5 minutes' end,
         claim_id = null,
         claimed_until = null,
         updated_at = now()
   where p.server_url = p_server_url
     and p.suffix = p_suffix
     and p.claim_id = p_claim_id;
  return found;
end
$$;

ALTER FUNCTION private.record_rdap_server_proof(p_server_url text, p_suffix text, p_claim_id uuid, p_canary_name text, p_outcome text, p_http_status integer, p_detail text) OWNER TO postgres;

--
-- Name: record_registry_answer(text, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.record_registry_answer(p_domain_name text, p_answered_at timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domains as d
     set registry_asked_at = p_answered_at,
         registry_unreadable_at = case when d.registry_unreadable_at > p_answered_at
                                       then d.registry_unreadable_at end
   where d.name = p_domain_name
     and p_answered_at is not null
     and (d.registry_asked_at is null or d.registry_asked_at < p_answered_at);
$$;

ALTER FUNCTION private.record_registry_answer(p_domain_name text, p_answered_at timestamp with time zone) OWNER TO postgres;

--
-- Name: refresh_drop_prediction_correction(text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.refresh_drop_prediction_correction(p_registry text, p_basis text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_count integer;
  v_offset double precision;
  v_first timestamptz;
  v_last timestamptz;
begin
  select count(*)::integer,
         percentile_cont(0.5) within group (
           order by extract(epoch from o.observed_at - (o.predicted_drop_at
                                                         - make_interval(secs => o.correction_seconds)))),
         min(o.observed_at), max(o.observed_at)
    into v_count, v_offset, v_first, v_last
    from (select * from public.drop_observations as x
           where x.registry = p_registry and x.basis = p_basis
           order by x.observed_at desc limit 100) as o;
  if v_count < 20 then
    return;
  end if;
  insert into public.drop_prediction_corrections as c
    (registry, basis, offset_seconds, observations, measured, source, updated_at)
  values (p_registry, p_basis, greatest(-604800, least(604800, round(v_offset)::integer)), v_count, true,
          format('measured: median of (observed - predicted) over %s observed drops, %s to %s (drop_observations)',
                 v_count, to_char(v_first at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"'),
                 to_char(v_last at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"')),
          now())
  on conflict (registry, basis) do update
    set offset_seconds = excluded.offset_seconds,
        observations = excluded.observations,
        source = excluded.source,
        updated_at = excluded.updated_at
    where c.measured;
end
$$;

ALTER FUNCTION private.refresh_drop_prediction_correction(p_registry text, p_basis text) OWNER TO postgres;

--
-- Name: refuse_invalid_domain_names(text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.refuse_invalid_domain_names(p_domain_names text[]) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
declare
  v_invalid text[];
  v_first_problem text;
begin
  select array_agg(coalesce(p.name, '(null)') order by p.ord), (array_agg(p.problem order by p.ord))[1]
    into v_invalid, v_first_problem
    from private.domain_name_problems(p_domain_names) as p
   where p.problem is not null;
  if v_invalid is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Invalid domain names: ' || array_to_string(v_invalid[1:20], ', ')
        || case when cardinality(v_invalid) > 20 then ', ...' else '' end
        || ' (the first ' || v_first_problem || ')',
      detail = to_jsonb(v_invalid)::text;
  end if;
end
$$;

ALTER FUNCTION private.refuse_invalid_domain_names(p_domain_names text[]) OWNER TO postgres;

--
-- Name: refuse_oauth_client_token(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.refuse_oauth_client_token() RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
begin
  if public.is_oauth_client_token() then
    raise exception using
      errcode = '42501',
      message = 'An assistant''s access token cannot manage the account: sign in to the app to do this.',
      hint = 'OAuth client tokens may only list, add and remove watchlist names (the MCP tools).';
  end if;
end
$$;

ALTER FUNCTION private.refuse_oauth_client_token() OWNER TO postgres;

--
-- Name: registrable_domain_problem(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.registrable_domain_problem(p_name text) RETURNS text
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
begin
  return (select p.problem from private.domain_name_problems(array[p_name]) as p);
end
$$;

ALTER FUNCTION private.registrable_domain_problem(p_name text) OWNER TO postgres;

--
-- Name: registry_of(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.registry_of(p_domain_name text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
  select substring(p_domain_name from '[^.]+$')
$_$;

ALTER FUNCTION private.registry_of(p_domain_name text) OWNER TO postgres;

--
-- Name: require_org_role(uuid, text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.require_org_role(p_organization_id uuid, p_roles text[]) RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_role text;
begin
  perform private.refuse_oauth_client_token();
  select m.role into v_role
    from public.organization_members as m
   where m.organization_id = p_organization_id and m.user_id = v_uid;
  if v_role is null then
    raise exception using errcode = 'DW404', message = 'DW404: The organization was not found.';
  end if;
  if not (v_role = any (p_roles)) then
    raise exception using errcode = 'DW403',
      message = 'DW403: Your role in the organization does not allow this.';
  end if;
  return v_uid;
end
$$;

ALTER FUNCTION private.require_org_role(p_organization_id uuid, p_roles text[]) OWNER TO postgres;

--
-- Name: require_session_request(uuid, text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.require_session_request(p_user_id uuid, p_action text, p_what text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_limit record;
  v_wait integer;
begin
  select * into v_limit from private.consume_session_request(p_user_id, p_action);
  if not v_limit.allowed then
    v_wait := greatest(1, ceil(extract(epoch from v_limit.reset_at - now()))::integer);
    raise exception using
      errcode = 'DW429',
      message = format('DW429: At most %s %s per %s seconds; try again in %s s.',
                       v_limit.request_limit, p_what, v_limit.window_seconds, v_wait),
      detail = jsonb_build_object('retry_after_seconds', v_wait, 'reset_at', v_limit.reset_at)::text;
  end if;
end
$$;

ALTER FUNCTION private.require_session_request(p_user_id uuid, p_action text, p_what text) OWNER TO postgres;

--
-- Name: require_webhook_plan(uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.require_webhook_plan(p_user_id uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in to manage alerts.';
  end if;
  -- Locks the profile row: an account's webhook changes and test alerts are serialised.
  perform 1
     from public.profiles as p
     join public.plans as pl on pl.id = p.plan_id
    where p.id = p_user_id and pl.webhooks
      for no key update of p;
  if not found then
    raise exception using errcode = 'DWUPG', message = 'DWUPG: Webhooks need the Pro plan or higher.';
  end if;
end
$$;

ALTER FUNCTION private.require_webhook_plan(p_user_id uuid) OWNER TO postgres;

--
-- Name: reserve_invite_mail(uuid, uuid); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid) OWNER TO postgres;

--
-- Name: reserve_telegram_send(text, integer, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.reserve_telegram_send(p_chat_id text, p_messages_per_second integer, p_chat_interval_ms integer, p_max_wait_ms integer) RETURNS TABLE(granted boolean, send_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_key text := encode(pg_catalog.sha256(convert_to(coalesce(p_chat_id, ''), 'UTF8')), 'hex');
  v_now timestamptz := clock_timestamp();
  v_global public.telegram_send_pace;
  v_chat_free timestamptz;
  v_at timestamptz;
begin
  if p_messages_per_second is null or p_messages_per_second < 1 or p_messages_per_second > 1000
     or p_chat_interval_ms is null or p_chat_interval_ms < 0
     or p_max_wait_ms is null or p_max_wait_ms < 0 then
    raise exception using errcode = 'DW400', message = 'DW400: reserve_telegram_send: invalid limits.';
  end if;
  select * into v_global from public.telegram_send_pace as g where g.id = 1 for update;
  insert into public.telegram_chat_send_pace (chat_key, next_free_at) values (v_key, '-infinity')
  on conflict do nothing;
  select c.next_free_at into v_chat_free from public.telegram_chat_send_pace as c
   where c.chat_key = v_key for update;

  v_at := greatest(v_now, v_global.next_free_at, v_global.paused_until, v_chat_free);
  if v_at > v_now + make_interval(secs => p_max_wait_ms / 1000.0) then
    return query select false, v_at;
    return;
  end if;
  update public.telegram_send_pace as g
     set next_free_at = v_at + make_interval(secs => 1.0 / p_messages_per_second)
   where g.id = 1;
  update public.telegram_chat_send_pace as c
     set next_free_at = v_at + make_interval(secs => p_chat_interval_ms / 1000.0)
   where c.chat_key = v_key;
  return query select true, v_at;
end
$$;

ALTER FUNCTION private.reserve_telegram_send(p_chat_id text, p_messages_per_second integer, p_chat_interval_ms integer, p_max_wait_ms integer) OWNER TO postgres;

--
-- Name: reset_drop_prediction(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.reset_drop_prediction() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  new.predicted_drop_at := null;
  new.prediction_basis := null;
  new.prediction_correction_seconds := 0;
  return new;
end
$$;

ALTER FUNCTION private.reset_drop_prediction() OWNER TO postgres;

--
-- Name: retagged(text[], text[], text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.retagged(p_tags text[], p_add text[], p_remove text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
  select private.cleaned_tags(array(select t.tag from unnest(p_tags) with ordinality as t (tag, ord)
                                     where t.tag <> all (p_remove) order by t.ord) || p_add)
$$;

ALTER FUNCTION private.retagged(p_tags text[], p_add text[], p_remove text[]) OWNER TO postgres;

--
-- Name: revoke_invitations_of_former_inviter(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.revoke_invitations_of_former_inviter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION private.revoke_invitations_of_former_inviter() OWNER TO postgres;

--
-- Name: revoke_org_keys_of_former_admin(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.revoke_org_keys_of_former_admin() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if tg_op = 'DELETE' or new.role not in ('owner', 'admin') then
    update public.api_keys as k
       set revoked_at = now()
     where k.organization_id = old.organization_id and k.user_id = old.user_id and k.revoked_at is null;
  end if;
  return null;
end
$$;

ALTER FUNCTION private.revoke_org_keys_of_former_admin() OWNER TO postgres;

--
-- Name: schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.schedule_alert_delivery_retry(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if p_outcome not in ('failed', 'rate_limited') then
    raise exception using errcode = 'DW400', message = 'DW400: only failed or rate_limited attempts are retried.';
  end if;
  if p_next_attempt_at is null then
    raise exception using errcode = 'DW400', message = 'DW400: a retry needs its time.';
  end if;
  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set next_attempt_at = p_next_attempt_at
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

ALTER FUNCTION private.schedule_alert_delivery_retry(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone) OWNER TO postgres;

--
-- Name: schedule_pending_delete_check(text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.schedule_pending_delete_check(p_domain_name text, p_checked_at timestamp with time zone, p_next_check_at timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  update public.domains as d
     set next_check_at = least(greatest(p_next_check_at, p_checked_at + interval '5 seconds'),
                               p_checked_at + interval '1 day')
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at
$$;

ALTER FUNCTION private.schedule_pending_delete_check(p_domain_name text, p_checked_at timestamp with time zone, p_next_check_at timestamp with time zone) OWNER TO postgres;

--
-- Name: set_updated_at(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.set_updated_at() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  new.updated_at := now();
  return new;
end
$$;

ALTER FUNCTION private.set_updated_at() OWNER TO postgres;

--
-- Name: settle_alert_delivery(uuid, text, integer, text, integer, timestamp with time zone, integer, integer, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.settle_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_breaker_threshold integer, p_breaker_base_seconds integer, p_breaker_max_seconds integer) RETURNS TABLE(breaker_state text, next_probe_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_lane_key text;
begin
  if p_breaker_threshold is null or p_breaker_threshold < 1
     or p_breaker_base_seconds is null or p_breaker_base_seconds < 1
     or p_breaker_max_seconds is null or p_breaker_max_seconds < p_breaker_base_seconds then
    raise exception using errcode = 'DW400', message = 'DW400: settle_alert_delivery: invalid breaker settings.';
  end if;
  select d.lane_key into v_lane_key from public.alert_deliveries as d where d.id = p_delivery_id;

  perform private.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  if p_outcome = 'delivered' then
    update public.alert_deliveries as d
       set status = 'delivered', delivered_at = now()
     where d.id = p_delivery_id and d.status = 'pending';
  elsif p_next_attempt_at is not null then
    update public.alert_deliveries as d
       set next_attempt_at = p_next_attempt_at
     where d.id = p_delivery_id and d.status = 'pending';
  else
    update public.alert_deliveries as d
       set status = 'failed', failed_at = now()
     where d.id = p_delivery_id and d.status = 'pending';
  end if;

  if p_outcome = 'delivered' then
    update public.alert_delivery_lanes as l
       set breaker_state = 'closed', consecutive_failures = 0, opened_count = 0, opened_at = null,
           next_probe_at = null, updated_at = now()
     where l.lane_key = v_lane_key;
  elsif p_outcome = 'failed' then
    update public.alert_delivery_lanes as l
       set consecutive_failures = l.consecutive_failures + 1,
           breaker_state = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then 'open' else l.breaker_state end,
           opened_count = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then l.opened_count + 1 else l.opened_count end,
           opened_at = case
             when l.channel = 'webhook' and l.breaker_state = 'closed'
                  and l.consecutive_failures + 1 >= p_breaker_threshold
               then now() else l.opened_at end,
           next_probe_at = case
             when l.channel = 'webhook'
                  and (l.breaker_state = 'half_open' or l.consecutive_failures + 1 >= p_breaker_threshold)
               then now() + make_interval(secs => least(
                      p_breaker_max_seconds::double precision,
                      p_breaker_base_seconds * power(2::double precision, least(l.opened_count, 30))))
             else l.next_probe_at end,
           updated_at = now()
     where l.lane_key = v_lane_key;
  end if;

  return query
    select l.breaker_state, l.next_probe_at from public.alert_delivery_lanes as l where l.lane_key = v_lane_key;
end
$$;

ALTER FUNCTION private.settle_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_breaker_threshold integer, p_breaker_base_seconds integer, p_breaker_max_seconds integer) OWNER TO postgres;

--
-- Name: settle_email_mail(uuid[], text, integer, text, integer, timestamp with time zone, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.settle_email_mail(p_delivery_ids uuid[], p_outcome text, p_smtp_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_permanent boolean) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_id uuid;
  v_address uuid;
  v_status text;
begin
  if p_delivery_ids is null or cardinality(p_delivery_ids) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: settle_email_mail: no deliveries.';
  end if;
  select d.email_address_id into v_address from public.alert_deliveries as d where d.id = p_delivery_ids[1];
  foreach v_id in array p_delivery_ids loop
    perform private.settle_alert_delivery(v_id, p_outcome, p_smtp_code, p_error, p_duration_ms,
                                          case when p_permanent then null else p_next_attempt_at end,
                                          1000, 60, 3600);
  end loop;
  if p_outcome = 'delivered' then
    update public.email_addresses as a
       set permanent_failures = 0, last_failure = null
     where a.id = v_address and a.permanent_failures > 0;
  elsif p_permanent then
    update public.email_addresses as a
       set permanent_failures = a.permanent_failures + 1,
           last_failure = left(p_error, 500),
           status = case when a.permanent_failures + 1 >= 3 then 'stopped' else a.status end,
           stopped_reason = case when a.permanent_failures + 1 >= 3 then 'bounced' else a.stopped_reason end,
           stopped_at = case when a.permanent_failures + 1 >= 3 then now() else a.stopped_at end
     where a.id = v_address and a.status <> 'stopped';
  end if;
  select a.status into v_status from public.email_addresses as a where a.id = v_address;
  return v_status;
end
$$;

ALTER FUNCTION private.settle_email_mail(p_delivery_ids uuid[], p_outcome text, p_smtp_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_permanent boolean) OWNER TO postgres;

--
-- Name: tags_problem(text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.tags_problem(p_tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
  select case
    when p_tags is null then 'tags must be a list'
    when coalesce(array_ndims(p_tags), 1) <> 1 then 'tags must be a flat list'
    when cardinality(p_tags) > 10 then 'a name has at most 10 tags'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag is null) then 'a tag cannot be null'
    when exists (select 1 from unnest(p_tags) as t (tag) where char_length(t.tag) not between 1 and 32)
      then 'a tag has 1 to 32 characters'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag <> btrim(t.tag))
      then 'a tag cannot start or end with a space'
    when exists (select 1 from unnest(p_tags) as t (tag) where t.tag ~ '[,[:cntrl:]]')
      then 'a tag cannot contain a comma or a control character'
    when (select count(distinct t.tag) from unnest(p_tags) as t (tag)) <> cardinality(p_tags)
      then 'a tag is repeated'
  end
$$;

ALTER FUNCTION private.tags_problem(p_tags text[]) OWNER TO postgres;

--
-- Name: telegram_chat_watchlist(text, integer); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.telegram_chat_watchlist(p_chat_id text, p_limit integer) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid;
begin
  select n.user_id into v_uid from public.notification_settings as n where n.telegram_chat_id = p_chat_id;
  if v_uid is null then
    return null;
  end if;
  return jsonb_build_object(
    'count', (select count(*) from public.watchlist_entries as w where w.user_id = v_uid and w.deleted_at is null),
    'names', coalesce((
      select jsonb_agg(jsonb_build_object('domain_name', x.domain_name, 'status', x.status) order by x.domain_name)
        from (
          select w.domain_name, d.status
            from public.watchlist_entries as w
            join public.domains as d on d.name = w.domain_name
           where w.user_id = v_uid and w.deleted_at is null
           order by w.domain_name collate "C"
           limit least(greatest(coalesce(p_limit, 50), 1), 50)
        ) as x
    ), '[]'::jsonb)
  );
end
$$;

ALTER FUNCTION private.telegram_chat_watchlist(p_chat_id text, p_limit integer) OWNER TO postgres;

--
-- Name: telegram_link_chat(text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.telegram_link_chat(p_token text, p_chat_id text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
declare
  v_token public.telegram_link_tokens;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' or p_chat_id is null or p_chat_id !~ '^[1-9][0-9]{0,19}$' then
    return 'invalid';
  end if;
  select * into v_token
    from public.telegram_link_tokens as t
   where t.token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex')
     for update;
  if not found or v_token.used_at is not null or v_token.expires_at <= now() then
    return 'invalid';
  end if;
  update public.telegram_link_tokens as t set used_at = now(), chat_id = p_chat_id
   where t.token_hash = v_token.token_hash;
  update public.notification_settings as n
     set telegram_chat_id = null, telegram_linked_at = null
   where n.telegram_chat_id = p_chat_id and n.user_id <> v_token.user_id;
  insert into public.notification_settings as n (user_id, telegram_chat_id, telegram_linked_at)
  values (v_token.user_id, p_chat_id, now())
  on conflict (user_id) do update
    set telegram_chat_id = excluded.telegram_chat_id, telegram_linked_at = excluded.telegram_linked_at;
  return 'linked';
end
$_$;

ALTER FUNCTION private.telegram_link_chat(p_token text, p_chat_id text) OWNER TO postgres;

--
-- Name: telegram_link_group(text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.telegram_link_group(p_token text, p_chat_id text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
declare
  v_token public.organization_telegram_link_tokens;
  v_moved record;
  v_had boolean;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' or p_chat_id is null or p_chat_id !~ '^-[1-9][0-9]{0,19}$' then
    return 'invalid';
  end if;
  select * into v_token
    from public.organization_telegram_link_tokens as t
   where t.token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex')
     for update;
  if not found or v_token.used_at is not null or v_token.expires_at <= now()
     or not exists (select 1 from public.organization_members as m
                     where m.organization_id = v_token.organization_id and m.user_id = v_token.created_by
                       and m.role in ('owner', 'admin')) then
    return 'invalid';
  end if;
  update public.organization_telegram_link_tokens as t set used_at = now() where t.token_hash = v_token.token_hash;
  -- A group belongs to one organization: linking it here unlinks it from another.
  for v_moved in
    delete from public.organization_telegram_chats as g
     where g.chat_id = p_chat_id and g.organization_id <> v_token.organization_id
    returning g.organization_id
  loop
    perform private.log_org_activity(v_moved.organization_id, null, 'channel.removed', null, null,
                                     '{"channel": "telegram_group", "via": "linked_elsewhere"}'::jsonb);
  end loop;
  v_had := exists (select 1 from public.organization_telegram_chats as g where g.organization_id = v_token.organization_id);
  insert into public.organization_telegram_chats as g (organization_id, chat_id, linked_by, linked_at)
  values (v_token.organization_id, p_chat_id, v_token.created_by, now())
  on conflict (organization_id) do update
    set chat_id = excluded.chat_id, linked_by = excluded.linked_by, linked_at = excluded.linked_at, enabled = true;
  perform private.log_org_activity(v_token.organization_id, v_token.created_by,
                                   case when v_had then 'channel.changed' else 'channel.added' end, null, null,
                                   '{"channel": "telegram_group"}'::jsonb);
  return 'linked';
end
$_$;

ALTER FUNCTION private.telegram_link_group(p_token text, p_chat_id text) OWNER TO postgres;

--
-- Name: telegram_unlink_chat(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.telegram_unlink_chat(p_chat_id text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  update public.notification_settings as n
     set telegram_chat_id = null, telegram_linked_at = null
   where n.telegram_chat_id = p_chat_id;
  return found;
end
$$;

ALTER FUNCTION private.telegram_unlink_chat(p_chat_id text) OWNER TO postgres;

--
-- Name: telegram_unlink_group(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.telegram_unlink_group(p_chat_id text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_org uuid;
begin
  delete from public.organization_telegram_chats as g where g.chat_id = p_chat_id returning g.organization_id into v_org;
  if v_org is null then
    return false;
  end if;
  perform private.log_org_activity(v_org, null, 'channel.removed', null, null,
                                   '{"channel": "telegram_group", "via": "telegram"}'::jsonb);
  return true;
end
$$;

ALTER FUNCTION private.telegram_unlink_group(p_chat_id text) OWNER TO postgres;

--
-- Name: track_watch_period(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.track_watch_period() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  if tg_op = 'INSERT' then
    if new.deleted_at is null then
      insert into public.watch_periods (user_id, domain_name, started_at)
      values (new.user_id, new.domain_name, new.added_at);
    else
      insert into public.watch_periods (user_id, domain_name, started_at, ended_at)
      values (new.user_id, new.domain_name, new.added_at, greatest(new.deleted_at, new.added_at));
    end if;
    return null;
  end if;
  if tg_op = 'DELETE' then
    -- An entry deleted outright (not removed) ends its open period now.
    update public.watch_periods as p
       set ended_at = greatest(now(), p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
    return null;
  end if;
  -- UPDATE
  if old.deleted_at is null and new.deleted_at is not null then
    update public.watch_periods as p
       set ended_at = greatest(new.deleted_at, p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
  elsif old.deleted_at is not null and new.deleted_at is null then
    update public.watch_periods as p
       set ended_at = greatest(old.deleted_at, p.started_at)
     where p.user_id = old.user_id and p.domain_name = old.domain_name and p.ended_at is null;
    insert into public.watch_periods (user_id, domain_name, started_at)
    values (new.user_id, new.domain_name, new.added_at);
  end if;
  return null;
end
$$;

ALTER FUNCTION private.track_watch_period() OWNER TO postgres;

--
-- Name: unsubscribe_email_address(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.unsubscribe_email_address(p_token text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
declare
  v_id uuid;
begin
  if p_token is null or p_token !~ '^[0-9a-f]{48}$' then
    return 'invalid';
  end if;
  select t.email_address_id into v_id from public.email_unsubscribe_tokens as t
   where t.token_hash = encode(extensions.digest(p_token, 'sha256'), 'hex');
  if v_id is null then
    return 'invalid';
  end if;
  update public.email_addresses as a
     set status = 'stopped', stopped_reason = 'unsubscribed', stopped_at = now()
   where a.id = v_id and a.status <> 'stopped';
  return 'unsubscribed';
end
$_$;

ALTER FUNCTION private.unsubscribe_email_address(p_token text) OWNER TO postgres;

--
-- Name: validated_alert_event_types(text[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.validated_alert_event_types(p_event_types text[]) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO ''
    AS $$
declare
  v_unknown text;
begin
  if p_event_types is null then
    return null;
  end if;
  if cardinality(p_event_types) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: Choose at least one event type.';
  end if;
  select t into v_unknown from unnest(p_event_types) as u(t)
   where t is null or not (t = any (public.alert_event_types())) limit 1;
  if found then
    raise exception using errcode = 'DW400',
      message = 'DW400: Unknown event type ' || coalesce('"' || left(v_unknown, 64) || '"', 'null')
        || '; the known ones are ' || array_to_string(public.alert_event_types(), ', ') || '.';
  end if;
  return array(select distinct t from unnest(p_event_types) as u(t) order by t);
end
$$;

ALTER FUNCTION private.validated_alert_event_types(p_event_types text[]) OWNER TO postgres;

--
-- Name: validated_expiring_days(integer[]); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.validated_expiring_days(p_days integer[]) RETURNS integer[]
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO ''
    AS $$
begin
  if p_days is null then
    return null;
  end if;
  if cardinality(p_days) = 0 or cardinality(p_days) > 10
     or exists (select 1 from unnest(p_days) as u(d) where d is null or d < 1 or d > 365) then
    raise exception using errcode = 'DW400',
      message = 'DW400: Reminder days must be 1 to 10 whole numbers of days from 1 to 365.';
  end if;
  return array(select distinct d from unnest(p_days) as u(d) order by d desc);
end
$$;

ALTER FUNCTION private.validated_expiring_days(p_days integer[]) OWNER TO postgres;

--
-- Name: validated_webhook_secret(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.validated_webhook_secret(p_secret text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO ''
    AS $$
declare
  v_problem text := private.webhook_secret_problem(p_secret);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  return p_secret;
end
$$;

ALTER FUNCTION private.validated_webhook_secret(p_secret text) OWNER TO postgres;

--
-- Name: validated_webhook_url(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.validated_webhook_url(p_url text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
declare
  v_url text := btrim(p_url);
  v_problem text := public.webhook_url_problem(v_url);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  return v_url;
end
$$;

ALTER FUNCTION private.validated_webhook_url(p_url text) OWNER TO postgres;

--
-- Name: wake_alert_delivery(); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.wake_alert_delivery() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.nudge_alert_delivery();
  return null;
end
$$;

ALTER FUNCTION private.wake_alert_delivery() OWNER TO postgres;

--
-- Name: domains; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.domains (
    name text NOT NULL,
    status text DEFAULT 'unknown'::text NOT NULL,
    last_checked_at timestamp with time zone,
    status_changed_at timestamp with time zone,
    expires_at timestamp with time zone,
    registrar text,
    next_check_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    registry_asked_at timestamp with time zone,
    predicted_drop_at timestamp with time zone,
    prediction_basis text,
    prediction_correction_seconds integer DEFAULT 0 NOT NULL,
    id bigint NOT NULL,
    registry_unreadable_at timestamp with time zone,
    unknown_reason text,
    CONSTRAINT domains_name_check CHECK (((name = lower(name)) AND (name !~ '\.$'::text) AND (length(name) <= 253) AND (name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$'::text))),
    CONSTRAINT domains_prediction_basis_check CHECK ((prediction_basis = ANY (ARRAY['redemption_period'::text, 'pending_delete_period'::text, 'unknown'::text]))),
    CONSTRAINT domains_status_check CHECK ((status = ANY (ARRAY['unknown'::text, 'registered'::text, 'pending_delete'::text, 'available'::text]))),
    CONSTRAINT domains_unknown_reason_check CHECK ((unknown_reason ~ '^[a-z0-9_]{1,64}$'::text))
);

ALTER TABLE public.domains OWNER TO postgres;

--
-- Name: TABLE domains; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.domains IS 'Shared RDAP/DNS check state, one row per watched name. Written only by service_role and definer functions.';

--
-- Name: COLUMN domains.predicted_drop_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.domains.predicted_drop_at IS 'While in pending delete: the latest predicted drop time (the poller''s, correction included), or null.';

--
-- Name: COLUMN domains.prediction_correction_seconds; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.domains.prediction_correction_seconds IS 'The registry correction included in predicted_drop_at (drop_prediction_corrections), 0 for none.';

--
-- Name: COLUMN domains.registry_unreadable_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.domains.registry_unreadable_at IS 'When the last check of the name got an answer from the registry that could not be read (reason whois_unrecognized: a reserved or blocked name''s text, a new phrasing); null once a later check reads the registry''s answer. Shown on the name''s page.';

--
-- Name: COLUMN domains.unknown_reason; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.domains.unknown_reason IS 'The reason (the API contract''s check reason, e.g. rdap_timeout) of the poller''s last undecided check of the name; shown while the status is unknown. Written by private.note_unknown_reason.';

--
-- Name: watched_domain_json(text, text, timestamp with time zone, public.domains); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.watched_domain_json(p_domain_name text, p_unicode_name text, p_added_at timestamp with time zone, p_domain public.domains) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
  select jsonb_build_object(
    'domain_name', p_domain_name,
    'unicode_name', p_unicode_name,
    'status', p_domain.status,
    'added_at', p_added_at,
    'last_checked_at', p_domain.last_checked_at,
    'status_changed_at', p_domain.status_changed_at,
    'expires_at', p_domain.expires_at,
    'registrar', p_domain.registrar,
    'predicted_drop_at', case when p_domain.status = 'pending_delete' then p_domain.predicted_drop_at end,
    'prediction_basis', case when p_domain.status = 'pending_delete' then p_domain.prediction_basis end,
    'registry_unreadable_at', p_domain.registry_unreadable_at
  )
$$;

ALTER FUNCTION private.watched_domain_json(p_domain_name text, p_unicode_name text, p_added_at timestamp with time zone, p_domain public.domains) OWNER TO postgres;

--
-- Name: watchlist_entries; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.watchlist_entries (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    domain_name text NOT NULL,
    unicode_name text,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    note text,
    CONSTRAINT watchlist_entries_note_check CHECK (((note IS NULL) OR ((char_length(note) >= 1) AND (char_length(note) <= 500)))),
    CONSTRAINT watchlist_entries_tags_check CHECK ((private.tags_problem(tags) IS NULL)),
    CONSTRAINT watchlist_entries_unicode_name_check CHECK (((unicode_name IS NULL) OR ((char_length(unicode_name) >= 1) AND (char_length(unicode_name) <= 253))))
);

ALTER TABLE public.watchlist_entries OWNER TO postgres;

--
-- Name: COLUMN watchlist_entries.deleted_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.watchlist_entries.deleted_at IS 'Soft delete: set by remove_watchlist_domain. Removed rows are excluded from lists and quota.';

--
-- Name: COLUMN watchlist_entries.tags; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.watchlist_entries.tags IS 'The user''s own tags for the name: up to 10, each 1–32 characters (private.tags_problem). Kept while the entry is removed, so adding the name again (undo) brings them back.';

--
-- Name: COLUMN watchlist_entries.note; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.watchlist_entries.note IS 'The user''s own note for the name, 1–500 characters, or null.';

--
-- Name: watched_entry_json(public.watchlist_entries, public.domains); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.watched_entry_json(p_entry public.watchlist_entries, p_domain public.domains) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
  select jsonb_build_object(
    'domain_name', p_entry.domain_name,
    'unicode_name', p_entry.unicode_name,
    'status', p_domain.status,
    'added_at', p_entry.added_at,
    'last_checked_at', p_domain.last_checked_at,
    'status_changed_at', p_domain.status_changed_at,
    'expires_at', p_domain.expires_at,
    'registrar', p_domain.registrar,
    'predicted_drop_at', case when p_domain.status = 'pending_delete' then p_domain.predicted_drop_at end,
    'prediction_basis', case when p_domain.status = 'pending_delete' then p_domain.prediction_basis end,
    'unknown_reason', case when p_domain.status = 'unknown'
                           then coalesce(p_domain.unknown_reason,
                                         case when p_domain.last_checked_at is null then 'not_checked_yet' end)
                      end,
    'next_check_at', case when p_domain.status = 'unknown' then p_domain.next_check_at end,
    'tags', to_jsonb(p_entry.tags),
    'note', p_entry.note,
    -- When the last poller check got a registry answer it could not read (20261206000400); null otherwise.
    'registry_unreadable_at', p_domain.registry_unreadable_at
  )
$$;

ALTER FUNCTION private.watched_entry_json(p_entry public.watchlist_entries, p_domain public.domains) OWNER TO postgres;

--
-- Name: watched_name(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.watched_name(p_name text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
  select rtrim(lower(btrim(coalesce(p_name, ''))), '.')
$$;

ALTER FUNCTION private.watched_name(p_name text) OWNER TO postgres;

--
-- Name: webhook_kind_problem(text, text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.webhook_kind_problem(p_url text, p_kind text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
declare
  v_scheme text := lower(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*)://'));
  v_rest text := substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://(.*)$');
  v_authority text;
  v_path text;
begin
  if p_kind is null or p_kind not in ('generic', 'slack', 'discord') then
    return 'The webhook kind must be generic, slack or discord.';
  end if;
  if p_kind = 'generic' then
    return null;
  end if;
  v_authority := lower(coalesce(substring(v_rest from '^[^/?#]*'), ''));
  v_path := substr(coalesce(v_rest, ''), char_length(v_authority) + 1);
  if p_kind = 'slack' then
    if v_scheme is distinct from 'https' or v_authority <> 'hooks.slack.com'
       or v_path !~ '^/services/[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$' then
      return 'A Slack webhook URL must be Slack''s incoming-webhook URL, https://hooks.slack.com/services/….';
    end if;
    return null;
  end if;
  if v_scheme is distinct from 'https' or v_authority not in ('discord.com', 'discordapp.com')
     or v_path !~ '^/api/(v[0-9]{1,2}/)?webhooks/[0-9]{1,25}/[A-Za-z0-9_-]{1,200}(\?[A-Za-z0-9_=&-]*)?$' then
    return 'A Discord webhook URL must be Discord''s webhook URL, https://discord.com/api/webhooks/<id>/<token>.';
  end if;
  return null;
end
$_$;

ALTER FUNCTION private.webhook_kind_problem(p_url text, p_kind text) OWNER TO postgres;

--
-- Name: webhook_secret_problem(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.webhook_secret_problem(p_secret text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $_$
  select case
    when p_secret is null then null
    when starts_with(p_secret, 'whsec_') then
      -- CASE, not OR: decode() must only see text that is base64.
      case
        when substr(p_secret, 7) !~ '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'
        then 'A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.'
        when octet_length(decode(substr(p_secret, 7), 'base64')) not between 24 and 64
        then 'A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.'
      end
    when char_length(p_secret) not between 16 and 256 then 'A webhook secret must be 16-256 characters.'
  end
$_$;

ALTER FUNCTION private.webhook_secret_problem(p_secret text) OWNER TO postgres;

--
-- Name: webhook_target_problem(text, text, boolean); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
  select coalesce(private.outbound_url_problem(p_url, p_allow_private), private.webhook_kind_problem(p_url, p_kind))
$$;

ALTER FUNCTION private.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean) OWNER TO postgres;

--
-- Name: whois_row_suffix(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.whois_row_suffix(p_domain_name text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  with labels as (
    select string_to_array(lower(p_domain_name), '.') as l
  )
  select w.suffix
    from labels
   cross join lateral generate_series(1, cardinality(labels.l) - 1) as k (k)
    join public.whois_servers as w
      on w.suffix = array_to_string(labels.l[cardinality(labels.l) - k.k + 1:], '.')
   where w.enabled
   order by k.k desc
   limit 1
$$;

ALTER FUNCTION private.whois_row_suffix(p_domain_name text) OWNER TO postgres;

--
-- Name: FUNCTION whois_row_suffix(p_domain_name text); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.whois_row_suffix(p_domain_name text) IS 'The whois_servers row (enabled) whose suffix is the longest proper suffix of whole labels of the name, or null.';

--
-- Name: whois_unsupported_zone(text); Type: FUNCTION; Schema: private; Owner: postgres
--

CREATE FUNCTION private.whois_unsupported_zone(p_domain_name text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select w.suffix
    from public.whois_servers as w
   where w.suffix = (select private.whois_row_suffix(p_domain_name))
     and w.host is null
     and strpos(w.suffix, '.') > 0
$$;

ALTER FUNCTION private.whois_unsupported_zone(p_domain_name text) OWNER TO postgres;

--
-- Name: FUNCTION whois_unsupported_zone(p_domain_name text); Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON FUNCTION private.whois_unsupported_zone(p_domain_name text) IS 'The second-level (or deeper) zone a name is under when that zone has its own WHOIS server this service cannot read (a whois_servers row without host), else null. Such names are refused (unsupported_zone).';

--
-- Name: accept_invitation(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.accept_invitation(p_token text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.accept_invitation(p_token text) OWNER TO postgres;

--
-- Name: account_overview(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.account_overview() RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_result jsonb;
begin
  perform private.refuse_oauth_client_token();
  select jsonb_build_object(
           'plan', pl.id,
           'api_access', pl.api_access,
           'watchlist_quota', pl.watchlist_quota,
           'watchlist_used', (select count(*)::integer from public.watchlist_entries as e
                               where e.user_id = p.id and e.deleted_at is null),
           'daily_request_limit', case when pl.api_access then pl.requests_per_day else 0 end,
           'requests_today', coalesce((select c.request_count from public.api_request_counters as c
                                        where c.user_id = p.id and c.day = v_today), 0),
           'requests_reset_at', (v_today + 1)::timestamp at time zone 'UTC',
           'webhooks_allowed', pl.webhooks,
           'display_name', p.display_name)
    into v_result
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid;
  if v_result is null then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;
  return v_result;
end
$$;

ALTER FUNCTION public.account_overview() OWNER TO postgres;

--
-- Name: add_email_address(text, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add_email_address(p_address text, p_event_types text[] DEFAULT NULL::text[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.add_email_address(p_address text, p_event_types text[]) OWNER TO postgres;

--
-- Name: add_organization_email_address(uuid, text, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add_organization_email_address(p_organization_id uuid, p_address text, p_event_types text[] DEFAULT NULL::text[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.add_organization_email_address(p_organization_id uuid, p_address text, p_event_types text[]) OWNER TO postgres;

--
-- Name: add_organization_watchlist_domains(uuid, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[]) RETURNS TABLE(added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  return query select * from private.org_add_domains(p_organization_id, v_uid, p_domain_names,
    case when auth.jwt() ->> 'organization_id' is not null then '{"via": "api_key"}'::jsonb else '{}'::jsonb end);
end
$$;

ALTER FUNCTION public.add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[]) OWNER TO postgres;

--
-- Name: add_watchlist_domains(text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add_watchlist_domains(p_domain_names text[]) RETURNS TABLE(added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
  v_count integer;
  v_quota integer;
  v_active integer;
  v_room integer;
  v_dups integer;
  v_added integer;
begin
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1 then
    raise exception using errcode = 'DW400', message = 'DW400: domains must be a list of domain names.';
  end if;

  v_count := coalesce(cardinality(p_domain_names), 0);

  if v_count > 10000 then
    raise exception using errcode = 'DW400', message = 'DW400: Too many domains in one request.';
  end if;

  -- Validate the whole request before writing anything, by the API's rule, in one set-based statement.
  perform private.refuse_invalid_domain_names(p_domain_names);

  -- Serialise every quota decision of this account: concurrent calls queue here, and each one counts
  -- the active entries only after the previous call has committed (READ COMMITTED).
  select pl.watchlist_quota
    into v_quota
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid
     for no key update of p;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;

  select count(*)::integer into v_active
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.deleted_at is null;

  v_room := greatest(v_quota - v_active, 0);

  -- One statement, in request order: repeats and names already active are duplicates; of the other
  -- names the first v_room are added (shared domain row first, then a new entry or the restore of a
  -- soft-deleted one, which counts as added) and the rest are rejected over the limit. The unicode form
  -- is set by the watchlist_entries_derive_unicode_name trigger.
  with input as (
    select n.name as domain_name,
           n.ord,
           row_number() over (partition by n.name order by n.ord) as occurrence
      from unnest(p_domain_names) with ordinality as n (name, ord)
  ),
  classified as (
    select i.domain_name,
           i.ord,
           (i.occurrence > 1 or exists (
              select 1 from public.watchlist_entries as e
               where e.user_id = v_uid and e.domain_name = i.domain_name and e.deleted_at is null
           )) as duplicate
      from input as i
  ),
  to_add as (
    select c.domain_name, c.ord
      from (
        select c.*, row_number() over (order by c.ord) as rank
          from classified as c
         where not c.duplicate
      ) as c
     where c.rank <= v_room
  ),
  new_domains as (
    -- Sorted, so that accounts adding overlapping new names concurrently cannot deadlock.
    insert into public.domains (name)
    select a.domain_name from to_add as a order by a.domain_name
    on conflict (name) do nothing
    returning 1
  ),
  upserted as (
    insert into public.watchlist_entries as e (user_id, domain_name)
    select v_uid, a.domain_name from to_add as a order by a.ord
    on conflict (user_id, domain_name) do update
       set deleted_at = null,
           added_at = now()
     where e.deleted_at is not null
    returning 1
  )
  select (select count(*) from upserted)::integer,
         (select count(*) from classified as c where c.duplicate)::integer
    into v_added, v_dups;

  return query select v_added,
                      v_dups,
                      v_count - v_dups - v_added,
                      greatest(v_quota - (v_active + v_added), 0);
end
$$;

ALTER FUNCTION public.add_watchlist_domains(p_domain_names text[]) OWNER TO postgres;

--
-- Name: alert_event_types(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.alert_event_types() RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
  select array['domain.available', 'domain.expiring', 'domain.pending_delete', 'domain.registered',
               'domain.restored']::text[]
$$;

ALTER FUNCTION public.alert_event_types() OWNER TO postgres;

--
-- Name: calendar_feed(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.calendar_feed() RETURNS TABLE(active boolean, created_at timestamp with time zone, reminder_days integer[])
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := auth.uid();
begin
  perform private.refuse_oauth_client_token();
  if v_uid is null then
    raise exception using errcode = '42501', message = 'Sign in first.';
  end if;
  return query
    select true, f.created_at, f.reminder_days from public.calendar_feeds as f where f.user_id = v_uid
    union all
    select false, null::timestamptz, '{30,7,1}'::integer[]
     where not exists (select 1 from public.calendar_feeds as f where f.user_id = v_uid);
end
$$;

ALTER FUNCTION public.calendar_feed() OWNER TO postgres;

--
-- Name: FUNCTION calendar_feed(); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.calendar_feed() IS 'The signed-in account''s calendar feed: active, created_at, reminder_days (30, 7, 1 when there is none). Never the token. Refuses assistants'' OAuth tokens.';

--
-- Name: claim_organization_domain(uuid, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.claim_organization_domain(p_organization_id uuid, p_domain_name text) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  v_name text := lower(btrim(coalesce(p_domain_name, '')));
  v_claim public.organization_claims;
begin
  if not exists (
    select 1 from public.organization_watchlist_entries as e
     where e.organization_id = p_organization_id and e.domain_name = v_name and e.deleted_at is null
  ) then
    raise exception using errcode = 'DW404', message = 'DW404: The name is not on the organization''s watchlist.';
  end if;

  loop
    insert into public.organization_claims (organization_id, domain_name, claimed_by)
    values (p_organization_id, v_name, v_uid)
    on conflict (organization_id, domain_name) do nothing
    returning * into v_claim;
    exit when v_claim.claimed_by is not null;
    -- Someone holds it (the conflict waited for their transaction): who? Loop if it was released since.
    select c.* into v_claim from public.organization_claims as c
     where c.organization_id = p_organization_id and c.domain_name = v_name;
    exit when v_claim.claimed_by is not null;
  end loop;

  if v_claim.claimed_by <> v_uid then
    raise exception using errcode = 'DW409',
      message = 'DW409: already_claimed: ' || v_name || ' is already claimed by '
        || coalesce(private.member_label(v_claim.claimed_by), 'another member') || '.',
      detail = jsonb_build_object('claimed_by', v_claim.claimed_by,
                                  'name', private.member_label(v_claim.claimed_by),
                                  'claimed_at', v_claim.claimed_at)::text;
  end if;
  return jsonb_build_object('domain_name', v_claim.domain_name, 'claimed_by', v_claim.claimed_by,
                            'name', private.member_label(v_claim.claimed_by), 'claimed_at', v_claim.claimed_at);
end
$$;

ALTER FUNCTION public.claim_organization_domain(p_organization_id uuid, p_domain_name text) OWNER TO postgres;

--
-- Name: create_api_key(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_api_key(p_name text) RETURNS TABLE(id uuid, name text, prefix text, api_key text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
  v_name text := btrim(coalesce(p_name, ''));
  v_api_access boolean;
  v_raw text;
  v_id uuid;
begin
  perform private.refuse_oauth_client_token();
  if char_length(v_name) < 1 or char_length(v_name) > 100 then
    raise exception using errcode = 'DW400',
      message = 'DW400: An API key needs a name of 1 to 100 characters.';
  end if;

  select pl.api_access into v_api_access
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;

  if not v_api_access then
    raise exception using errcode = 'DWUPG',
      message = 'DWUPG: API keys need the Pro plan or higher.';
  end if;

  v_raw := 'dwl_' || encode(extensions.gen_random_bytes(24), 'hex');

  insert into public.api_keys as k (user_id, name, prefix, key_hash)
  values (v_uid, v_name, left(v_raw, 12), encode(extensions.digest(v_raw, 'sha256'), 'hex'))
  returning k.id into v_id;

  return query select v_id, v_name, left(v_raw, 12), v_raw;
end
$$;

ALTER FUNCTION public.create_api_key(p_name text) OWNER TO postgres;

--
-- Name: create_calendar_feed(integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_calendar_feed(p_reminder_days integer[] DEFAULT NULL::integer[]) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := auth.uid();
  v_token text := 'dwcal_' || encode(extensions.gen_random_bytes(24), 'hex');
  v_days integer[] := private.validated_expiring_days(p_reminder_days);
begin
  perform private.refuse_oauth_client_token();
  if v_uid is null then
    raise exception using errcode = '42501', message = 'Sign in first.';
  end if;
  insert into public.calendar_feeds as f (user_id, token_hash, reminder_days)
  values (v_uid, encode(extensions.digest(v_token, 'sha256'), 'hex'), coalesce(v_days, '{30,7,1}'))
  on conflict (user_id) do update
     set token_hash = excluded.token_hash,
         reminder_days = coalesce(v_days, f.reminder_days),
         created_at = now();
  return v_token;
end
$$;

ALTER FUNCTION public.create_calendar_feed(p_reminder_days integer[]) OWNER TO postgres;

--
-- Name: FUNCTION create_calendar_feed(p_reminder_days integer[]); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.create_calendar_feed(p_reminder_days integer[]) IS 'Makes or renews the signed-in account''s calendar feed and returns its new secret token (shown once; the previous URL stops working). Refuses assistants'' OAuth tokens. DW400 reminder days out of range.';

--
-- Name: create_organization(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_organization(p_name text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.create_organization(p_name text) OWNER TO postgres;

--
-- Name: create_organization_api_key(uuid, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_organization_api_key(p_organization_id uuid, p_name text) RETURNS TABLE(id uuid, name text, prefix text, api_key text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.create_organization_api_key(p_organization_id uuid, p_name text) OWNER TO postgres;

--
-- Name: create_organization_telegram_link(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_organization_telegram_link(p_organization_id uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_bot text;
  v_token text := encode(extensions.gen_random_bytes(24), 'hex');
  v_expires_at timestamptz := now() + interval '15 minutes';
begin
  select s.bot_username into v_bot from public.telegram_bot_settings as s;
  if v_bot is null then
    raise exception using errcode = 'DW503',
      message = 'DW503: Telegram linking is not set up (the bot''s username is missing).';
  end if;
  perform 1 from public.organizations as o where o.id = p_organization_id for no key update;
  delete from public.organization_telegram_link_tokens as t
   where t.organization_id = p_organization_id and (t.used_at is null or t.expires_at < now() - interval '1 day');
  insert into public.organization_telegram_link_tokens (token_hash, organization_id, created_by, expires_at)
  values (encode(extensions.digest(v_token, 'sha256'), 'hex'), p_organization_id, v_uid, v_expires_at);
  return jsonb_build_object(
    'url', 'https://t.me/' || v_bot || '?startgroup=' || v_token,
    'expires_at', v_expires_at
  );
end
$$;

ALTER FUNCTION public.create_organization_telegram_link(p_organization_id uuid) OWNER TO postgres;

--
-- Name: create_organization_webhook(uuid, text, text, text, text, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_organization_webhook(p_organization_id uuid, p_url text, p_description text DEFAULT NULL::text, p_secret text DEFAULT NULL::text, p_kind text DEFAULT NULL::text, p_event_types text[] DEFAULT NULL::text[]) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_owner uuid := private.org_owner(p_organization_id);
  v_id uuid;
begin
  perform private.require_webhook_plan(v_owner);
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  insert into public.webhook_endpoints (user_id, organization_id, url, description, secret, kind, event_types)
  values (v_owner, p_organization_id, private.validated_webhook_url(p_url), nullif(btrim(p_description), ''),
          private.validated_webhook_secret(p_secret), coalesce(p_kind, 'generic'),
          coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}'))
  returning id into v_id;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.added', null, null,
                                   jsonb_build_object('channel', 'webhook', 'kind', coalesce(p_kind, 'generic'),
                                                      'channel_id', v_id));
  return v_id;
end
$$;

ALTER FUNCTION public.create_organization_webhook(p_organization_id uuid, p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) OWNER TO postgres;

--
-- Name: create_telegram_link(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_telegram_link() RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_bot text;
  v_token text := encode(extensions.gen_random_bytes(24), 'hex');
  v_expires_at timestamptz := now() + interval '15 minutes';
begin
  perform private.refuse_oauth_client_token();
  select s.bot_username into v_bot from public.telegram_bot_settings as s;
  if v_bot is null then
    raise exception using errcode = 'DW503',
      message = 'DW503: Telegram linking is not set up (the bot''s username is missing).';
  end if;
  perform 1 from public.profiles as p where p.id = v_uid for no key update;
  delete from public.telegram_link_tokens as t
   where t.user_id = v_uid and (t.used_at is null or t.expires_at < now() - interval '1 day');
  insert into public.telegram_link_tokens (token_hash, user_id, expires_at)
  values (encode(extensions.digest(v_token, 'sha256'), 'hex'), v_uid, v_expires_at);
  return jsonb_build_object(
    'url', 'https://t.me/' || v_bot || '?start=' || v_token,
    'expires_at', v_expires_at
  );
end
$$;

ALTER FUNCTION public.create_telegram_link() OWNER TO postgres;

--
-- Name: create_webhook_endpoint(text, text, text, text, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.create_webhook_endpoint(p_url text, p_description text DEFAULT NULL::text, p_secret text DEFAULT NULL::text, p_kind text DEFAULT NULL::text, p_event_types text[] DEFAULT NULL::text[]) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := auth.uid();
  v_id uuid;
begin
  perform private.refuse_oauth_client_token();
  perform private.require_webhook_plan(v_uid);
  if (select count(*) from public.webhook_endpoints as w where w.user_id = v_uid) >= 10 then
    raise exception using errcode = 'DW400', message = 'DW400: An account can have at most 10 webhooks.';
  end if;
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  insert into public.webhook_endpoints (user_id, url, description, secret, kind, event_types)
  values (v_uid, private.validated_webhook_url(p_url), nullif(btrim(p_description), ''),
          private.validated_webhook_secret(p_secret), coalesce(p_kind, 'generic'),
          coalesce(private.validated_alert_event_types(p_event_types), '{domain.available}'))
  returning id into v_id;
  return v_id;
end
$$;

ALTER FUNCTION public.create_webhook_endpoint(p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) OWNER TO postgres;

--
-- Name: current_account_id(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.current_account_id() RETURNS uuid
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := auth.uid();
begin
  if v_uid is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  return v_uid;
end
$$;

ALTER FUNCTION public.current_account_id() OWNER TO postgres;

--
-- Name: delete_email_address(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.delete_email_address(p_id uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.delete_email_address(p_id uuid) OWNER TO postgres;

--
-- Name: delete_organization_email_address(uuid, uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.delete_organization_email_address(p_organization_id uuid, p_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.delete_organization_email_address(p_organization_id uuid, p_id uuid) OWNER TO postgres;

--
-- Name: delete_organization_webhook(uuid, uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_kind text;
begin
  delete from public.webhook_endpoints as w
   where w.id = p_webhook_id and w.organization_id = p_organization_id
  returning w.kind into v_kind;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.removed', null, null,
                                   jsonb_build_object('channel', 'webhook', 'kind', v_kind,
                                                      'channel_id', p_webhook_id));
  return true;
end
$$;

ALTER FUNCTION public.delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid) OWNER TO postgres;

--
-- Name: delete_webhook_endpoint(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.delete_webhook_endpoint(p_id uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  delete from public.webhook_endpoints as w where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

ALTER FUNCTION public.delete_webhook_endpoint(p_id uuid) OWNER TO postgres;

--
-- Name: domain_detail(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.domain_detail(p_domain_name text) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_name text := private.watched_name(p_domain_name);
  v_entry public.watchlist_entries;
  v_domain public.domains;
  v_history jsonb;
  v_alerts jsonb;
begin
  perform private.refuse_oauth_client_token();
  select e.* into v_entry
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.domain_name = v_name and e.deleted_at is null;
  if not found then
    select e.* into v_entry
      from public.watchlist_entries as e
     where e.user_id = v_uid and e.unicode_name = v_name and e.deleted_at is null
     limit 1;
  end if;
  if not found then
    raise exception using errcode = 'P0002', message = 'The name is not on your watchlist.';
  end if;
  select d.* into v_domain from public.domains as d where d.name = v_entry.domain_name;

  select coalesce(jsonb_agg(jsonb_build_object(
           'previous_status', h.previous_status,
           'status', h.status,
           'changed_at', h.changed_at,
           'source', h.source,
           'evidence', h.evidence) order by h.changed_at, h.id), '[]'::jsonb)
    into v_history
    from public.domain_status_changes as h
   where h.domain_id = v_domain.id
     -- The read policy's rule, word for word (20261206000400): the poller's or the caller's own live change,
     -- made while the caller watched the name.
     and (h.source = 'poller' or h.caused_by = v_uid)
     and exists (
       select 1
         from public.watch_periods as p
        where p.user_id = v_uid
          and p.domain_name = h.domain_name
          and p.started_at <= h.changed_at
          and (p.ended_at is null or h.changed_at <= p.ended_at)
     );

  select coalesce(jsonb_agg(jsonb_build_object(
           'event_id', ev.id,
           'type', ev.type,
           'created_at', ev.created_at,
           'deliveries', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'channel', dl.channel,
                      'status', dl.status,
                      'attempts', dl.attempt_count,
                      'last_attempt_at', dl.last_attempt_at,
                      'delivered_at', dl.delivered_at,
                      'last_response_status', dl.last_http_status) order by dl.created_at, dl.id)
               from public.alert_deliveries as dl
              where dl.event_id = ev.id and dl.user_id = v_uid), '[]'::jsonb))
         order by ev.created_at desc, ev.id desc), '[]'::jsonb)
    into v_alerts
    from (
      select a.id, a.type, a.created_at
        from public.alert_events as a
       where a.user_id = v_uid and a.domain_name = v_entry.domain_name and a.type <> 'test'
       order by a.created_at desc, a.id desc
       limit 50
    ) as ev;

  return jsonb_build_object(
    'domain', private.watched_entry_json(v_entry, v_domain),
    'history', v_history,
    'alerts', v_alerts);
end
$$;

ALTER FUNCTION public.domain_detail(p_domain_name text) OWNER TO postgres;

--
-- Name: has_org_role(uuid, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.has_org_role(org uuid, roles text[]) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select exists (
    select 1
      from public.organization_members as m
     where m.organization_id = org
       and m.user_id = (select auth.uid())
       and m.role = any (roles)
  )
$$;

ALTER FUNCTION public.has_org_role(org uuid, roles text[]) OWNER TO postgres;

--
-- Name: invitation_for_sending(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.invitation_for_sending(p_invitation_id uuid) RETURNS TABLE(id uuid, organization_id uuid, organization_name text, email text, role text, token text, expires_at timestamp with time zone)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.invitation_for_sending(p_invitation_id uuid) OWNER TO postgres;

--
-- Name: is_oauth_client_token(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.is_oauth_client_token() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
  select coalesce(auth.jwt() ->> 'client_id', '') <> ''
$$;

ALTER FUNCTION public.is_oauth_client_token() OWNER TO postgres;

--
-- Name: is_valid_domain_name(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.is_valid_domain_name(p_name text) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select private.registrable_domain_problem(p_name) is null
$$;

ALTER FUNCTION public.is_valid_domain_name(p_name text) OWNER TO postgres;

--
-- Name: list_email_channels(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_email_channels() RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.list_email_channels() OWNER TO postgres;

--
-- Name: list_email_deliveries(uuid, integer, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_email_deliveries(p_address_id uuid, p_limit integer DEFAULT 20, p_cursor text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $_$
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
$_$;

ALTER FUNCTION public.list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text) OWNER TO postgres;

--
-- Name: FUNCTION list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text) IS 'The caller''s email channel''s deliveries, newest first, keyset pages as list_webhook_deliveries; each attempt with its SMTP reply code (smtp_code). Never an address. Rate-limited (email-delivery-log).';

--
-- Name: list_organization_email_addresses(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_organization_email_addresses(p_organization_id uuid) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.list_organization_email_addresses(p_organization_id uuid) OWNER TO postgres;

--
-- Name: list_organization_watchlist(uuid, integer, integer, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_organization_watchlist(p_organization_id uuid, p_limit integer, p_offset integer DEFAULT NULL::integer, p_cursor text DEFAULT NULL::text) RETURNS TABLE(domain_name text, unicode_name text, status text, added_at timestamp with time zone, last_checked_at timestamp with time zone, status_changed_at timestamp with time zone, expires_at timestamp with time zone, registrar text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  return query select * from private.list_org_watchlist(p_organization_id, p_limit, p_offset, p_cursor);
end
$$;

ALTER FUNCTION public.list_organization_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) OWNER TO postgres;

--
-- Name: list_watchlist(integer, integer, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_watchlist(p_limit integer, p_offset integer DEFAULT NULL::integer, p_cursor text DEFAULT NULL::text) RETURNS TABLE(domain_name text, unicode_name text, status text, added_at timestamp with time zone, last_checked_at timestamp with time zone, status_changed_at timestamp with time zone, expires_at timestamp with time zone, registrar text, tags text[], note text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
begin
  if p_cursor is not null and p_offset is not null then
    raise exception using errcode = 'DW400', message = 'DW400: Send either cursor or offset, not both.';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: limit must be between 1 and 1000.';
  end if;
  if p_offset is not null and p_offset < 0 then
    raise exception using errcode = 'DW400', message = 'DW400: offset must not be negative.';
  end if;

  if coalesce(p_offset, 0) = 0 then
    return query select * from private.list_watchlist_keyset(v_uid, p_limit, p_cursor);
    return;
  end if;
  return query select * from private.list_watchlist_offset(v_uid, p_limit, p_offset);
end
$$;

ALTER FUNCTION public.list_watchlist(p_limit integer, p_offset integer, p_cursor text) OWNER TO postgres;

--
-- Name: list_webhook_deliveries(uuid, integer, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.list_webhook_deliveries(p_endpoint_id uuid, p_limit integer DEFAULT 20, p_cursor text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $_$
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
  if p_endpoint_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the webhook (p_endpoint_id).';
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
  if not exists (
    select 1 from public.webhook_endpoints as w where w.id = p_endpoint_id and w.user_id = v_uid
  ) then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  perform private.require_session_request(v_uid, 'webhook-delivery-log', 'delivery log requests');

  with page as (
    select d.*
      from public.alert_deliveries as d
     where d.webhook_endpoint_id = p_endpoint_id
       and d.channel = 'webhook'
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
                        'http_status', a.http_status,
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

  -- The last row of this page: the next page starts after it.
  if v_count > v_limit then
    select to_char(d.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || d.id::text into v_next_cursor
      from public.alert_deliveries as d
     where d.id = (v_rows -> (v_limit - 1) ->> 'id')::uuid;
  end if;

  return jsonb_build_object('deliveries', v_rows, 'has_more', v_count > v_limit, 'next_cursor', v_next_cursor);
end
$_$;

ALTER FUNCTION public.list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text) OWNER TO postgres;

--
-- Name: FUNCTION list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text) IS 'The caller''s webhook''s deliveries, newest first (created_at, id), p_limit 1-100 (default 20), keyset p_cursor = the previous page''s next_cursor; each with its newest 20 attempts (outcome, http_status, duration_ms, attempted_at, error). No URL, secret or chat ID. Rate-limited (webhook-delivery-log).';

--
-- Name: mask_url(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.mask_url(p_url text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO ''
    AS $$
  select coalesce(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*)'), '') || '/…' || right(p_url, 4)
$$;

ALTER FUNCTION public.mask_url(p_url text) OWNER TO postgres;

--
-- Name: organization_telegram_group(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.organization_telegram_group(p_organization_id uuid) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  v_group public.organization_telegram_chats;
begin
  select * into v_group from public.organization_telegram_chats as g where g.organization_id = p_organization_id;
  if not found then
    return null;
  end if;
  return private.org_telegram_group_json(v_group);
end
$$;

ALTER FUNCTION public.organization_telegram_group(p_organization_id uuid) OWNER TO postgres;

--
-- Name: organization_watchlist_page(uuid, text, text, integer, integer); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.organization_watchlist_page(p_organization_id uuid, p_status text DEFAULT NULL::text, p_search text DEFAULT NULL::text, p_limit integer DEFAULT 50, p_offset integer DEFAULT 0) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  v_pattern text;
  v_total integer;
  v_used integer;
  v_domains jsonb;
begin
  if p_limit is null or p_limit < 1 or p_limit > 200 then
    raise exception using errcode = '22023', message = 'limit must be between 1 and 200.';
  end if;
  if p_offset is null or p_offset < 0 then
    raise exception using errcode = '22023', message = 'offset must not be negative.';
  end if;
  if p_status is not null and p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = '22023',
      message = 'status must be one of unknown, registered, pending_delete, available.';
  end if;
  if p_search is not null and char_length(p_search) > 253 then
    raise exception using errcode = '22023', message = 'search must be at most 253 characters.';
  end if;
  if nullif(btrim(p_search), '') is not null then
    v_pattern := '%' || replace(replace(replace(btrim(p_search), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  end if;

  select count(*)::integer into v_used
    from public.organization_watchlist_entries as e
   where e.organization_id = p_organization_id and e.deleted_at is null;

  -- Without a status only the entries are counted and paged (index on (organization_id, name)); only the
  -- page is joined to its domains, as watchlist_page does.
  if p_status is null then
    if v_pattern is null then
      v_total := v_used;
    else
      select count(*)::integer into v_total
        from public.organization_watchlist_entries as e
       where e.organization_id = p_organization_id
         and e.deleted_at is null
         and (e.domain_name ilike v_pattern escape '\' or e.unicode_name ilike v_pattern escape '\');
    end if;
  else
    select count(*)::integer into v_total
      from public.organization_watchlist_entries as e
      join public.domains as d on d.name = e.domain_name
     where e.organization_id = p_organization_id
       and e.deleted_at is null
       and d.status = p_status
       and (v_pattern is null or e.domain_name ilike v_pattern escape '\' or e.unicode_name ilike v_pattern escape '\');
  end if;

  with keys as (
    select e.domain_name
      from public.organization_watchlist_entries as e
     where e.organization_id = p_organization_id
       and e.deleted_at is null
       and (v_pattern is null or e.domain_name ilike v_pattern escape '\' or e.unicode_name ilike v_pattern escape '\')
       and (p_status is null
            or exists (select 1 from public.domains as s where s.name = e.domain_name and s.status = p_status))
     order by e.domain_name collate "C"
     limit p_limit offset p_offset
  ),
  page as (
    select e.domain_name, e.unicode_name, e.added_at, e.added_by, d
      from keys as k
      join public.organization_watchlist_entries as e
        on e.organization_id = p_organization_id and e.domain_name = k.domain_name
      join public.domains as d on d.name = e.domain_name
  )
  select coalesce(jsonb_agg(
           private.watched_domain_json(pg.domain_name, pg.unicode_name, pg.added_at, pg.d)
           || jsonb_build_object(
                'added_by', case when pg.added_by is not null
                                 then jsonb_build_object('id', pg.added_by, 'name', private.member_label(pg.added_by)) end,
                'claim', (select jsonb_build_object('user_id', c.claimed_by, 'name', private.member_label(c.claimed_by),
                                                    'claimed_at', c.claimed_at)
                            from public.organization_claims as c
                           where c.organization_id = p_organization_id and c.domain_name = pg.domain_name))
           order by pg.domain_name collate "C"), '[]'::jsonb)
    into v_domains
    from page as pg;

  return jsonb_build_object('total', v_total, 'used', v_used,
                            'quota', private.org_watchlist_quota(p_organization_id), 'domains', v_domains);
end
$$;

ALTER FUNCTION public.organization_watchlist_page(p_organization_id uuid, p_status text, p_search text, p_limit integer, p_offset integer) OWNER TO postgres;

--
-- Name: redeliver_email_delivery(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.redeliver_email_delivery(p_delivery_id uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $$
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

ALTER FUNCTION public.redeliver_email_delivery(p_delivery_id uuid) OWNER TO postgres;

--
-- Name: FUNCTION redeliver_email_delivery(p_delivery_id uuid); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.redeliver_email_delivery(p_delivery_id uuid) IS 'Queues the caller''s finished email delivery again (one attempt, in the address''s next mail). DW404 not the caller''s, DW409 still pending / address not active / older than 7 days, DW429 (email-redelivery).';

--
-- Name: redeliver_webhook_delivery(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.redeliver_webhook_delivery(p_delivery_id uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    SET "TimeZone" TO 'UTC'
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_delivery record;
begin
  perform private.refuse_oauth_client_token();
  if p_delivery_id is null then
    raise exception using errcode = 'DW400', message = 'DW400: Name the delivery (p_delivery_id).';
  end if;
  -- Plan check; also locks the profile row, so one account's redeliveries are serialised.
  perform private.require_webhook_plan(v_uid);

  select d.id, d.status, d.created_at, ev.type as event_type, w.enabled
    into v_delivery
    from public.alert_deliveries as d
    join public.alert_events as ev on ev.id = d.event_id
    join public.webhook_endpoints as w on w.id = d.webhook_endpoint_id and w.user_id = v_uid
   where d.id = p_delivery_id
     and d.user_id = v_uid
     and d.channel = 'webhook'
     for update of d;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such delivery.';
  end if;

  perform private.require_session_request(v_uid, 'webhook-redelivery', 'redeliveries');

  if v_delivery.status = 'pending' then
    raise exception using errcode = 'DW409',
      message = 'DW409: delivery_pending: This delivery is still queued or being sent; wait for its outcome.';
  end if;
  if not v_delivery.enabled and v_delivery.event_type <> 'test' then
    raise exception using errcode = 'DW409',
      message = 'DW409: webhook_disabled: The webhook is switched off; switch it on to redeliver.';
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

ALTER FUNCTION public.redeliver_webhook_delivery(p_delivery_id uuid) OWNER TO postgres;

--
-- Name: FUNCTION redeliver_webhook_delivery(p_delivery_id uuid); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.redeliver_webhook_delivery(p_delivery_id uuid) IS 'Queues the caller''s finished webhook delivery again under the same id (one attempt, same body, fresh signature timestamp, current secret), through the normal queue, and wakes a delivery run. DW404 not the caller''s (or its webhook was deleted), DWUPG plan without webhooks, DW409 still pending / webhook switched off / older than 7 days, DW429 rate limited (webhook-redelivery).';

--
-- Name: release_organization_domain_claim(uuid, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.release_organization_domain_claim(p_organization_id uuid, p_domain_name text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
  v_name text := lower(btrim(coalesce(p_domain_name, '')));
  v_claimer uuid;
begin
  select c.claimed_by into v_claimer from public.organization_claims as c
   where c.organization_id = p_organization_id and c.domain_name = v_name
     for update;
  if v_claimer is null then
    return false;
  end if;
  if v_claimer <> v_uid and not public.has_org_role(p_organization_id, array['owner', 'admin']) then
    raise exception using errcode = 'DW403',
      message = 'DW403: Only the member who claimed the name, an admin or the owner can release the claim.';
  end if;
  delete from public.organization_claims as c
   where c.organization_id = p_organization_id and c.domain_name = v_name;
  return true;
end
$$;

ALTER FUNCTION public.release_organization_domain_claim(p_organization_id uuid, p_domain_name text) OWNER TO postgres;

--
-- Name: remove_organization_watchlist_domain(uuid, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  return private.org_remove_domain(p_organization_id, v_uid, p_domain_name,
    case when auth.jwt() ->> 'organization_id' is not null then '{"via": "api_key"}'::jsonb else '{}'::jsonb end);
end
$$;

ALTER FUNCTION public.remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text) OWNER TO postgres;

--
-- Name: remove_watchlist_domain(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.remove_watchlist_domain(p_domain_name text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  update public.watchlist_entries as e
     set deleted_at = now()
   where e.user_id = v_uid
     and e.domain_name = lower(p_domain_name)
     and e.deleted_at is null;
  -- A watched name is always removable (even one a newer suffix list would refuse); a name that is not
  -- watched and could not be is refused as DELETE /domains/{name} refuses it.
  if not found and private.registrable_domain_problem(lower(p_domain_name)) is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: ' || coalesce(p_domain_name, '(null)') || ' '
        || private.registrable_domain_problem(lower(p_domain_name)) || '.';
  end if;
  return found;
end
$$;

ALTER FUNCTION public.remove_watchlist_domain(p_domain_name text) OWNER TO postgres;

--
-- Name: resend_email_confirmation(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.resend_email_confirmation(p_id uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.resend_email_confirmation(p_id uuid) OWNER TO postgres;

--
-- Name: resend_organization_email_confirmation(uuid, uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.resend_organization_email_confirmation(p_organization_id uuid, p_id uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.resend_organization_email_confirmation(p_organization_id uuid, p_id uuid) OWNER TO postgres;

--
-- Name: revoke_api_key(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.revoke_api_key(p_key_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  update public.api_keys as k
     set revoked_at = now()
   where k.id = p_key_id
     and k.user_id = v_uid
     and k.revoked_at is null;

  return found;
end
$$;

ALTER FUNCTION public.revoke_api_key(p_key_id uuid) OWNER TO postgres;

--
-- Name: revoke_calendar_feed(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.revoke_calendar_feed() RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
begin
  perform private.refuse_oauth_client_token();
  delete from public.calendar_feeds as f where f.user_id = auth.uid();
  return found;
end
$$;

ALTER FUNCTION public.revoke_calendar_feed() OWNER TO postgres;

--
-- Name: FUNCTION revoke_calendar_feed(); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.revoke_calendar_feed() IS 'Revokes the signed-in account''s calendar feed (its URL answers 404 from then on); true when there was one. Refuses assistants'' OAuth tokens.';

--
-- Name: revoke_organization_api_key(uuid, uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.revoke_organization_api_key(p_organization_id uuid, p_key_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.revoke_organization_api_key(p_organization_id uuid, p_key_id uuid) OWNER TO postgres;

--
-- Name: rotate_webhook_secret(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.rotate_webhook_secret(p_id uuid) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_secret text := 'whsec_' || encode(extensions.gen_random_bytes(32), 'base64');
begin
  perform private.refuse_oauth_client_token();
  update public.webhook_endpoints as w
     set previous_secret = w.secret,
         previous_secret_expires_at = case when w.secret is null then null else now() + interval '24 hours' end,
         secret = v_secret
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  return v_secret;
end
$$;

ALTER FUNCTION public.rotate_webhook_secret(p_id uuid) OWNER TO postgres;

--
-- Name: send_email_test(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.send_email_test(p_id uuid) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.send_email_test(p_id uuid) OWNER TO postgres;

--
-- Name: send_telegram_test(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.send_telegram_test() RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  perform 1 from public.profiles as p where p.id = v_uid for no key update;
  if not exists (
    select 1 from public.notification_settings as n where n.user_id = v_uid and n.telegram_chat_id is not null
  ) then
    raise exception using errcode = 'DW400', message = 'DW400: Save a Telegram chat ID first.';
  end if;
  return private.queue_test_alert(v_uid, 'telegram', null);
end
$$;

ALTER FUNCTION public.send_telegram_test() OWNER TO postgres;

--
-- Name: send_webhook_test(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.send_webhook_test(p_id uuid) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := auth.uid();
begin
  perform private.refuse_oauth_client_token();
  perform private.require_webhook_plan(v_uid);
  if not exists (select 1 from public.webhook_endpoints as w where w.id = p_id and w.user_id = v_uid) then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  return private.queue_test_alert(v_uid, 'webhook', p_id);
end
$$;

ALTER FUNCTION public.send_webhook_test(p_id uuid) OWNER TO postgres;

--
-- Name: set_calendar_reminder_days(integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_calendar_reminder_days(p_reminder_days integer[]) RETURNS integer[]
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_days integer[] := private.validated_expiring_days(p_reminder_days);
  v_saved integer[];
begin
  perform private.refuse_oauth_client_token();
  if v_days is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Reminder days must be 1 to 10 whole numbers of days from 1 to 365.';
  end if;
  update public.calendar_feeds as f set reminder_days = v_days
   where f.user_id = auth.uid()
  returning f.reminder_days into v_saved;
  if v_saved is null then
    raise exception using errcode = 'DW404', message = 'DW404: There is no calendar feed to change.';
  end if;
  return v_saved;
end
$$;

ALTER FUNCTION public.set_calendar_reminder_days(p_reminder_days integer[]) OWNER TO postgres;

--
-- Name: FUNCTION set_calendar_reminder_days(p_reminder_days integer[]); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.set_calendar_reminder_days(p_reminder_days integer[]) IS 'Sets the reminder days of the signed-in account''s calendar feed (its URL stays). DW400 out of range, DW404 no feed. Refuses assistants'' OAuth tokens.';

--
-- Name: set_organization_personal_alerts(uuid, boolean); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin', 'member']);
begin
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  update public.organization_members as m
     set personal_alerts = p_enabled
   where m.organization_id = p_organization_id and m.user_id = v_uid;
  return p_enabled;
end
$$;

ALTER FUNCTION public.set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean) OWNER TO postgres;

--
-- Name: set_organization_webhook_enabled(uuid, uuid, boolean); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
begin
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  update public.webhook_endpoints as w
     set enabled = p_enabled
   where w.id = p_webhook_id and w.organization_id = p_organization_id and w.enabled is distinct from p_enabled;
  if not found then
    return exists (select 1 from public.webhook_endpoints as w
                    where w.id = p_webhook_id and w.organization_id = p_organization_id);
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.changed', null, null,
                                   jsonb_build_object('channel', 'webhook', 'channel_id', p_webhook_id,
                                                      'enabled', p_enabled));
  return true;
end
$$;

ALTER FUNCTION public.set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean) OWNER TO postgres;

--
-- Name: set_telegram_chat(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_telegram_chat(p_chat_id text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  if p_chat_id is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Link Telegram through the bot: open the link from create_telegram_link() in Telegram.';
  end if;
  update public.notification_settings as n
     set telegram_chat_id = null, telegram_linked_at = null
   where n.user_id = v_uid;
end
$$;

ALTER FUNCTION public.set_telegram_chat(p_chat_id text) OWNER TO postgres;

--
-- Name: set_telegram_enabled(boolean); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_telegram_enabled(p_enabled boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_enabled)
  values (v_uid, p_enabled)
  on conflict (user_id) do update set telegram_enabled = excluded.telegram_enabled;
end
$$;

ALTER FUNCTION public.set_telegram_enabled(p_enabled boolean) OWNER TO postgres;

--
-- Name: set_telegram_event_types(text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_telegram_event_types(p_event_types text[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_types text[];
begin
  perform private.refuse_oauth_client_token();
  v_types := private.validated_alert_event_types(p_event_types);
  if v_types is null then
    raise exception using errcode = 'DW400', message = 'DW400: Choose at least one event type.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_event_types)
  values (v_uid, v_types)
  on conflict (user_id) do update set telegram_event_types = excluded.telegram_event_types;
end
$$;

ALTER FUNCTION public.set_telegram_event_types(p_event_types text[]) OWNER TO postgres;

--
-- Name: set_telegram_expiring_days(integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_telegram_expiring_days(p_days integer[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_days integer[];
begin
  perform private.refuse_oauth_client_token();
  v_days := private.validated_expiring_days(p_days);
  if v_days is null then
    raise exception using errcode = 'DW400', message = 'DW400: Give at least one reminder day.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_expiring_days)
  values (v_uid, v_days)
  on conflict (user_id) do update set telegram_expiring_days = excluded.telegram_expiring_days;
end
$$;

ALTER FUNCTION public.set_telegram_expiring_days(p_days integer[]) OWNER TO postgres;

--
-- Name: set_watchlist_details(jsonb); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_watchlist_details(p_items jsonb) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_problem text;
  v_updated integer;
  v_not_watched jsonb;
begin
  perform private.refuse_oauth_client_token();
  if p_items is null or jsonb_typeof(p_items) <> 'array' or jsonb_array_length(p_items) not between 1 and 500
  then
    raise exception using errcode = 'DW400', message = 'DW400: Send a list of 1 to 500 names with their details.';
  end if;

  select format('item %s (%s): %s', i.ord, coalesce(i.item ->> 'domain_name', '?'), p.problem)
    into v_problem
    from jsonb_array_elements(p_items) with ordinality as i (item, ord)
    cross join lateral (
      select case
        when jsonb_typeof(i.item) <> 'object' then 'each item must be an object'
        when exists (select 1 from jsonb_object_keys(i.item) as k (key)
                      where k.key not in ('domain_name', 'tags', 'note'))
          then 'only domain_name, tags and note may be set'
        when jsonb_typeof(i.item -> 'domain_name') is distinct from 'string'
          then 'domain_name must be a string'
        when i.item ? 'tags' and (jsonb_typeof(i.item -> 'tags') <> 'array'
                                  or exists (select 1 from jsonb_array_elements(i.item -> 'tags') as t (tag)
                                              where jsonb_typeof(t.tag) <> 'string'))
          then 'tags must be a list of strings'
        when i.item ? 'tags' and private.tags_problem(private.cleaned_tags(
               array(select jsonb_array_elements_text(i.item -> 'tags')))) is not null
          then private.tags_problem(private.cleaned_tags(array(select jsonb_array_elements_text(i.item -> 'tags'))))
        when i.item ? 'note' and jsonb_typeof(i.item -> 'note') not in ('string', 'null')
          then 'note must be a string or null'
        when char_length(btrim(coalesce(i.item ->> 'note', ''))) > 500 then 'a note has at most 500 characters'
      end as problem
    ) as p
   where p.problem is not null
   order by i.ord
   limit 1;
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem || '.';
  end if;

  with items as (
    select private.watched_name(i.item ->> 'domain_name') as domain_name,
           i.item ? 'tags' as has_tags,
           case when i.item ? 'tags'
                then private.cleaned_tags(array(select jsonb_array_elements_text(i.item -> 'tags'))) end as tags,
           i.item ? 'note' as has_note,
           nullif(btrim(coalesce(i.item ->> 'note', '')), '') as note,
           i.ord
      from jsonb_array_elements(p_items) with ordinality as i (item, ord)
  ),
  last_items as (
    -- A name sent twice: its last item wins.
    select distinct on (it.domain_name) it.* from items as it order by it.domain_name, it.ord desc
  ),
  updated as (
    update public.watchlist_entries as e
       set tags = case when li.has_tags then li.tags else e.tags end,
           note = case when li.has_note then li.note else e.note end
      from last_items as li
     where e.user_id = v_uid and e.deleted_at is null and e.domain_name = li.domain_name
    returning e.domain_name
  )
  select (select count(*)::integer from updated),
         coalesce((select jsonb_agg(li.domain_name order by li.domain_name) from last_items as li
                    where li.domain_name not in (select u.domain_name from updated as u)), '[]'::jsonb)
    into v_updated, v_not_watched;

  return jsonb_build_object('updated', v_updated, 'not_watched', v_not_watched);
end
$$;

ALTER FUNCTION public.set_watchlist_details(p_items jsonb) OWNER TO postgres;

--
-- Name: set_webhook_expiring_days(uuid, integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_webhook_expiring_days(p_id uuid, p_days integer[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_days integer[];
begin
  perform private.refuse_oauth_client_token();
  v_days := private.validated_expiring_days(p_days);
  if v_days is null then
    raise exception using errcode = 'DW400', message = 'DW400: Give at least one reminder day.';
  end if;
  update public.webhook_endpoints as w set expiring_days = v_days where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

ALTER FUNCTION public.set_webhook_expiring_days(p_id uuid, p_days integer[]) OWNER TO postgres;

--
-- Name: set_webhook_secret(uuid, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.set_webhook_secret(p_id uuid, p_secret text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  update public.webhook_endpoints as w
     set secret = private.validated_webhook_secret(p_secret)
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

ALTER FUNCTION public.set_webhook_secret(p_id uuid, p_secret text) OWNER TO postgres;

--
-- Name: shares_organization_with(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.shares_organization_with(p_user_id uuid) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  select exists (
    select 1
      from public.organization_members as mine
      join public.organization_members as theirs on theirs.organization_id = mine.organization_id
     where mine.user_id = (select auth.uid())
       and theirs.user_id = p_user_id
  )
$$;

ALTER FUNCTION public.shares_organization_with(p_user_id uuid) OWNER TO postgres;

--
-- Name: tag_watchlist_domains(text[], text[], text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.tag_watchlist_domains(p_domain_names text[], p_add text[] DEFAULT '{}'::text[], p_remove text[] DEFAULT '{}'::text[]) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_add text[] := private.cleaned_tags(coalesce(p_add, '{}'));
  v_remove text[] := private.cleaned_tags(coalesce(p_remove, '{}'));
  v_problem text;
  v_changed integer;
begin
  perform private.refuse_oauth_client_token();
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1
     or cardinality(p_domain_names) not between 1 and 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: Send 1 to 1000 names.';
  end if;
  if cardinality(v_add) = 0 and cardinality(v_remove) = 0 then
    raise exception using errcode = 'DW400', message = 'DW400: Name a tag to add or to remove.';
  end if;
  v_problem := coalesce(private.tags_problem(v_add), private.tags_problem(v_remove));
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem || '.';
  end if;

  select string_agg(e.domain_name, ', ' order by e.domain_name) into v_problem
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.deleted_at is null
     and e.domain_name in (select private.watched_name(n) from unnest(p_domain_names) as n)
     and cardinality(private.retagged(e.tags, v_add, v_remove)) > 10;
  if v_problem is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: A name has at most 10 tags; these would have more: ' || left(v_problem, 400) || '.';
  end if;

  -- The table's check constraint holds the limit under concurrency too (a concurrent change that would
  -- pass it fails with 23514).
  with changed as (
    update public.watchlist_entries as e
       set tags = private.retagged(e.tags, v_add, v_remove)
     where e.user_id = v_uid and e.deleted_at is null
       and e.domain_name in (select private.watched_name(n) from unnest(p_domain_names) as n)
       and e.tags is distinct from private.retagged(e.tags, v_add, v_remove)
    returning 1
  )
  select count(*)::integer into v_changed from changed;
  return v_changed;
end
$$;

ALTER FUNCTION public.tag_watchlist_domains(p_domain_names text[], p_add text[], p_remove text[]) OWNER TO postgres;

--
-- Name: unlink_organization_telegram_group(uuid); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.unlink_organization_telegram_group(p_organization_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
begin
  delete from public.organization_telegram_chats as g where g.organization_id = p_organization_id;
  if not found then
    return false;
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.removed', null, null,
                                   '{"channel": "telegram_group"}'::jsonb);
  return true;
end
$$;

ALTER FUNCTION public.unlink_organization_telegram_group(p_organization_id uuid) OWNER TO postgres;

--
-- Name: update_email_address(uuid, boolean, text[], integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.update_email_address(p_id uuid, p_enabled boolean DEFAULT NULL::boolean, p_event_types text[] DEFAULT NULL::text[], p_expiring_days integer[] DEFAULT NULL::integer[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.update_email_address(p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) OWNER TO postgres;

--
-- Name: update_organization_email_address(uuid, uuid, boolean, text[], integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.update_organization_email_address(p_organization_id uuid, p_id uuid, p_enabled boolean DEFAULT NULL::boolean, p_event_types text[] DEFAULT NULL::text[], p_expiring_days integer[] DEFAULT NULL::integer[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

ALTER FUNCTION public.update_organization_email_address(p_organization_id uuid, p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) OWNER TO postgres;

--
-- Name: update_organization_telegram_group(uuid, boolean, text[], integer[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.update_organization_telegram_group(p_organization_id uuid, p_enabled boolean DEFAULT NULL::boolean, p_event_types text[] DEFAULT NULL::text[], p_expiring_days integer[] DEFAULT NULL::integer[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := private.require_org_role(p_organization_id, array['owner', 'admin']);
  v_types text[] := private.validated_alert_event_types(p_event_types);
  v_days integer[] := private.validated_expiring_days(p_expiring_days);
  v_group public.organization_telegram_chats;
begin
  update public.organization_telegram_chats as g
     set enabled = coalesce(p_enabled, g.enabled),
         event_types = coalesce(v_types, g.event_types),
         expiring_days = coalesce(v_days, g.expiring_days)
   where g.organization_id = p_organization_id
  returning * into v_group;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No Telegram group is linked to the organization.';
  end if;
  perform private.log_org_activity(p_organization_id, v_uid, 'channel.changed', null, null,
    jsonb_strip_nulls(jsonb_build_object('channel', 'telegram_group', 'enabled', p_enabled,
                                         'event_types', to_jsonb(v_types), 'expiring_days', to_jsonb(v_days))));
  return private.org_telegram_group_json(v_group);
end
$$;

ALTER FUNCTION public.update_organization_telegram_group(p_organization_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) OWNER TO postgres;

--
-- Name: update_webhook_endpoint(uuid, text, text, boolean, text, text[]); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.update_webhook_endpoint(p_id uuid, p_url text DEFAULT NULL::text, p_description text DEFAULT NULL::text, p_enabled boolean DEFAULT NULL::boolean, p_kind text DEFAULT NULL::text, p_event_types text[] DEFAULT NULL::text[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform private.refuse_oauth_client_token();
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  if p_kind is not null and p_kind not in ('generic', 'slack', 'discord') then
    raise exception using errcode = 'DW400', message = 'DW400: The webhook kind must be generic, slack or discord.';
  end if;
  update public.webhook_endpoints as w
     set url = case when p_url is null then w.url else private.validated_webhook_url(p_url) end,
         description = case when p_description is null then w.description else nullif(btrim(p_description), '') end,
         enabled = coalesce(p_enabled, w.enabled),
         kind = coalesce(p_kind, w.kind),
         event_types = coalesce(private.validated_alert_event_types(p_event_types), w.event_types)
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

ALTER FUNCTION public.update_webhook_endpoint(p_id uuid, p_url text, p_description text, p_enabled boolean, p_kind text, p_event_types text[]) OWNER TO postgres;

--
-- Name: watchlist_page(text, text, integer, integer, text, text, text, text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.watchlist_page(p_status text DEFAULT NULL::text, p_search text DEFAULT NULL::text, p_limit integer DEFAULT 50, p_offset integer DEFAULT NULL::integer, p_order text DEFAULT 'urgency'::text, p_after text DEFAULT NULL::text, p_focus text DEFAULT NULL::text, p_tag text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $_$
declare
  v_uid uuid := public.current_account_id();
  v_now timestamptz := now();
  v_pattern text;
  v_order text := coalesce(p_order, 'urgency');
  v_after_rank integer;
  v_after_key numeric;
  v_after_name text;
  v_where text := 'e.user_id = $1 and e.deleted_at is null';
  v_filtered boolean;
  v_joined boolean;
  v_rank text;
  v_key text;
  v_total integer;
  v_rows jsonb;
  v_next text;
begin
  if p_limit is null or p_limit < 1 or p_limit > 200 then
    raise exception using errcode = '22023', message = 'limit must be between 1 and 200.';
  end if;
  if p_offset is not null and p_offset < 0 then
    raise exception using errcode = '22023', message = 'offset must not be negative.';
  end if;
  if p_offset is not null and p_after is not null then
    raise exception using errcode = '22023', message = 'Send either a cursor or an offset, not both.';
  end if;
  if p_status is not null and p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = '22023',
      message = 'status must be one of unknown, registered, pending_delete, available.';
  end if;
  if v_order not in ('urgency', 'name', 'expiry', 'added') then
    raise exception using errcode = '22023', message = 'order must be one of urgency, name, expiry, added.';
  end if;
  if p_focus is not null
     and p_focus not in ('available_now', 'dropping_within_7_days', 'expiring_within_30_days', 'unknown') then
    raise exception using errcode = '22023', message =
      'focus must be one of available_now, dropping_within_7_days, expiring_within_30_days, unknown.';
  end if;
  if p_search is not null and char_length(p_search) > 253 then
    raise exception using errcode = '22023', message = 'search must be at most 253 characters.';
  end if;
  if p_tag is not null and char_length(p_tag) > 32 then
    raise exception using errcode = '22023', message = 'a tag has at most 32 characters.';
  end if;
  if p_after is not null then
    if p_after !~ '^[0-9]\|-?[0-9]+(\.[0-9]+)?\|[a-z0-9.-]{1,253}$' then
      raise exception using errcode = '22023', message = 'cursor is not one this function gave.';
    end if;
    v_after_rank := split_part(p_after, '|', 1)::integer;
    v_after_key := split_part(p_after, '|', 2)::numeric;
    v_after_name := split_part(p_after, '|', 3);
  end if;
  if nullif(btrim(p_search), '') is not null then
    v_pattern := '%' || replace(replace(replace(btrim(p_search), '\', '\\'), '%', '\%'), '_', '\_') || '%';
    v_where := v_where || ' and (e.domain_name ilike $2 escape ''\'' or e.unicode_name ilike $2 escape ''\'')';
  end if;
  if nullif(p_tag, '') is not null then
    v_where := v_where || ' and e.tags @> array[$3]';
  end if;

  -- Conditions on the domain row.
  v_filtered := p_status is not null or p_focus is not null;
  v_joined := v_filtered or v_order <> 'name';
  if p_status is not null then
    v_where := v_where || ' and d.status = $4';
  end if;
  v_where := v_where || case p_focus
    when 'available_now' then ' and d.status = ''available'''
    when 'dropping_within_7_days' then
      ' and d.status = ''pending_delete'' and d.predicted_drop_at < $5 + interval ''7 days'''
    when 'expiring_within_30_days' then
      ' and d.status = ''registered'' and d.expires_at < $5 + interval ''30 days'''
    when 'unknown' then ' and d.status = ''unknown'''
    else '' end;

  v_rank := format('private.radar_rank(%L, d.status, d.expires_at, $5)', v_order);
  v_key := format('private.radar_key(%L, d.status, d.expires_at, d.predicted_drop_at, e.added_at, $5)', v_order);

  if v_filtered then
    execute 'select count(*)::integer from public.watchlist_entries as e
               join public.domains as d on d.name = e.domain_name where ' || v_where
       into v_total
      using v_uid, v_pattern, p_tag, p_status, v_now;
  else
    execute 'select count(*)::integer from public.watchlist_entries as e where ' || v_where
       into v_total
      using v_uid, v_pattern, p_tag, p_status, v_now;
  end if;

  if v_total = 0 or coalesce(p_offset, 0) >= v_total then
    return jsonb_build_object('total', v_total, 'domains', '[]'::jsonb, 'next_cursor', null);
  end if;

  if not v_joined then
    -- The name order: the index gives the order; only the page is joined.
    execute format(
      'with page as (
         select page_rows.e, row_number() over (order by (page_rows.e).domain_name collate "C") as n
           from (
             select e from public.watchlist_entries as e
              where %s %s
              order by e.domain_name collate "C"
              limit $7 + 1 offset $8
           ) as page_rows
       )
       select jsonb_agg(private.watched_entry_json(p.e, pd.d) order by p.n) filter (where p.n <= $7),
              max(case when p.n = $7 then ''0|0|'' || (p.e).domain_name end)
                filter (where (select count(*) from page) > $7)
         from page as p
         cross join lateral (select d from public.domains as d where d.name = (p.e).domain_name offset 0) as pd',
      v_where,
      case when p_after is null then '' else 'and e.domain_name collate "C" > $6 collate "C"' end)
      into v_rows, v_next
      using v_uid, v_pattern, p_tag, p_status, v_now, v_after_name, p_limit, coalesce(p_offset, 0);
  else
    execute format(
      'with page as (
         select r.id, r.rank, r.key, r.domain_name,
                row_number() over (order by r.rank, r.key, r.domain_name collate "C") as n
           from (
             select k.* from (
               select e.id, e.domain_name, %1$s as rank, %2$s as key
                 from public.watchlist_entries as e
                 join public.domains as d on d.name = e.domain_name
                where %3$s
             ) as k
              where %4$s
              order by k.rank, k.key, k.domain_name collate "C"
              limit $7 + 1 offset $8
           ) as r
       )
       select jsonb_agg(private.watched_entry_json(pe.e, pd.d) order by p.n) filter (where p.n <= $7),
              max(case when p.n = $7 then p.rank || ''|'' || p.key || ''|'' || p.domain_name end)
                filter (where (select count(*) from page) > $7)
         from page as p
         cross join lateral (select e from public.watchlist_entries as e where e.id = p.id offset 0) as pe
         cross join lateral (select d from public.domains as d where d.name = p.domain_name offset 0) as pd',
      v_rank, v_key, v_where,
      case when p_after is null then 'true'
           else '(k.rank > $9 or (k.rank = $9 and (k.key > $10 or (k.key = $10
                   and k.domain_name collate "C" > $6 collate "C"))))' end)
      into v_rows, v_next
      using v_uid, v_pattern, p_tag, p_status, v_now, v_after_name, p_limit, coalesce(p_offset, 0),
            v_after_rank, v_after_key;
  end if;

  return jsonb_build_object('total', v_total, 'domains', coalesce(v_rows, '[]'::jsonb), 'next_cursor', v_next);
end
$_$;

ALTER FUNCTION public.watchlist_page(p_status text, p_search text, p_limit integer, p_offset integer, p_order text, p_after text, p_focus text, p_tag text) OWNER TO postgres;

--
-- Name: watchlist_summary(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.watchlist_summary() RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_uid uuid := public.current_account_id();
  v_now timestamptz := now();
  v_result jsonb;
begin
  select jsonb_build_object(
           'available_now', count(*) filter (where d.status = 'available'),
           'dropping_within_7_days', count(*) filter (where d.status = 'pending_delete'
                                                        and d.predicted_drop_at < v_now + interval '7 days'),
           'expiring_within_30_days', count(*) filter (where d.status = 'registered'
                                                         and d.expires_at < v_now + interval '30 days'),
           'unknown', count(*) filter (where d.status = 'unknown'),
           'total', count(*))
    into v_result
    from public.watchlist_entries as e
    join public.domains as d on d.name = e.domain_name
   where e.user_id = v_uid and e.deleted_at is null;
  return v_result;
end
$$;

ALTER FUNCTION public.watchlist_summary() OWNER TO postgres;

--
-- Name: webhook_url_problem(text); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.webhook_url_problem(p_url text) RETURNS text
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
declare
  v_allow_private boolean;
begin
  select p.allow_private_targets into v_allow_private from public.webhook_target_policy as p;
  if p_url is null then
    return 'The URL must be an absolute https:// URL.';
  end if;
  return private.outbound_url_problem(p_url, coalesce(v_allow_private, false));
end
$$;

ALTER FUNCTION public.webhook_url_problem(p_url text) OWNER TO postgres;

--
-- Name: domain_name_rules; Type: TABLE; Schema: private; Owner: postgres
--

CREATE TABLE private.domain_name_rules (
    id boolean DEFAULT true NOT NULL,
    local_test_tlds boolean DEFAULT false NOT NULL,
    CONSTRAINT domain_name_rules_id_check CHECK (id)
);

ALTER TABLE private.domain_name_rules OWNER TO postgres;

--
-- Name: email_alert_channels; Type: VIEW; Schema: private; Owner: postgres
--

CREATE VIEW private.email_alert_channels AS
 SELECT a.id,
    a.user_id,
    a.event_types,
    a.expiring_days
   FROM public.email_addresses a
  WHERE (a.enabled AND (a.status = 'active'::text) AND (a.organization_id IS NULL));

ALTER TABLE private.email_alert_channels OWNER TO postgres;

--
-- Name: notification_settings; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.notification_settings (
    user_id uuid DEFAULT auth.uid() NOT NULL,
    telegram_chat_id text,
    telegram_enabled boolean DEFAULT true NOT NULL,
    telegram_configured boolean GENERATED ALWAYS AS ((telegram_chat_id IS NOT NULL)) STORED,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    telegram_linked_at timestamp with time zone,
    telegram_event_types text[] DEFAULT '{domain.available}'::text[] NOT NULL,
    telegram_expiring_days integer[] DEFAULT '{30,7,1}'::integer[] NOT NULL,
    CONSTRAINT notification_settings_telegram_chat_id_check CHECK (((telegram_chat_id IS NULL) OR ((char_length(telegram_chat_id) >= 1) AND (char_length(telegram_chat_id) <= 64)))),
    CONSTRAINT notification_settings_telegram_chat_proven CHECK (((telegram_chat_id IS NULL) OR ((telegram_linked_at IS NOT NULL) AND (telegram_chat_id ~ '^[1-9][0-9]{0,19}$'::text)))),
    CONSTRAINT notification_settings_telegram_event_types_check CHECK (((cardinality(telegram_event_types) > 0) AND (telegram_event_types <@ ARRAY['domain.available'::text, 'domain.expiring'::text, 'domain.pending_delete'::text, 'domain.registered'::text, 'domain.restored'::text]))),
    CONSTRAINT notification_settings_telegram_expiring_days_check CHECK ((((cardinality(telegram_expiring_days) >= 1) AND (cardinality(telegram_expiring_days) <= 10)) AND (1 <= ALL (telegram_expiring_days)) AND (365 >= ALL (telegram_expiring_days))))
);

ALTER TABLE public.notification_settings OWNER TO postgres;

--
-- Name: COLUMN notification_settings.telegram_chat_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notification_settings.telegram_chat_id IS 'Write-only for authenticated (no SELECT privilege); read by the alert sender as service_role.';

--
-- Name: COLUMN notification_settings.telegram_linked_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notification_settings.telegram_linked_at IS 'When the chat proved it belongs to the account (bot link flow); null when no chat is linked.';

--
-- Name: COLUMN notification_settings.telegram_event_types; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notification_settings.telegram_event_types IS 'The events the linked Telegram chat receives (alert_event_types()); set with set_telegram_event_types.';

--
-- Name: COLUMN notification_settings.telegram_expiring_days; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notification_settings.telegram_expiring_days IS 'domain.expiring: the days before a watched name''s expiration date the Telegram chat is reminded at.';

--
-- Name: plans; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.plans (
    id text NOT NULL,
    api_access boolean DEFAULT false NOT NULL,
    requests_per_day integer,
    watchlist_quota integer NOT NULL,
    webhooks boolean DEFAULT false NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    extra_alert_emails integer DEFAULT 0 NOT NULL,
    app_checks_per_day integer,
    CONSTRAINT plans_app_checks_per_day_check CHECK (((app_checks_per_day IS NULL) OR (app_checks_per_day >= 0))),
    CONSTRAINT plans_extra_alert_emails_check CHECK (((extra_alert_emails >= 0) AND (extra_alert_emails <= 100))),
    CONSTRAINT plans_requests_per_day_check CHECK (((requests_per_day IS NULL) OR (requests_per_day >= 0))),
    CONSTRAINT plans_watchlist_quota_check CHECK ((watchlist_quota >= 0))
);

ALTER TABLE public.plans OWNER TO postgres;

--
-- Name: TABLE plans; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.plans IS 'Product plans. requests_per_day null means unlimited. Read by every signed-in account.';

--
-- Name: COLUMN plans.extra_alert_emails; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.plans.extra_alert_emails IS 'Confirmed or pending extra alert email addresses an account may have besides its own (Free 0, Pro+ 5).';

--
-- Name: COLUMN plans.app_checks_per_day; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.plans.app_checks_per_day IS 'Live checks per UTC day from the app (check-now). null: they share the plan''s API daily limit (requests_per_day, counted in api_request_counters with REST and MCP; unlimited when that is null).';

--
-- Name: profiles; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.profiles (
    id uuid NOT NULL,
    email text,
    display_name text,
    plan_id text DEFAULT 'free'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT profiles_display_name_check CHECK (((display_name IS NULL) OR (char_length(display_name) <= 200)))
);

ALTER TABLE public.profiles OWNER TO postgres;

--
-- Name: TABLE profiles; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.profiles IS 'One row per auth.users row (created by trigger). Accounts may change only display_name.';

--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.webhook_endpoints (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid DEFAULT auth.uid() NOT NULL,
    url text NOT NULL,
    secret text,
    secret_configured boolean GENERATED ALWAYS AS ((secret IS NOT NULL)) STORED,
    description text,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    url_masked text GENERATED ALWAYS AS (public.mask_url(url)) STORED,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone,
    kind text DEFAULT 'generic'::text NOT NULL,
    event_types text[] DEFAULT '{domain.available}'::text[] NOT NULL,
    expiring_days integer[] DEFAULT '{30,7,1}'::integer[] NOT NULL,
    organization_id uuid,
    CONSTRAINT webhook_endpoints_description_check CHECK (((description IS NULL) OR (char_length(description) <= 500))),
    CONSTRAINT webhook_endpoints_event_types_check CHECK (((cardinality(event_types) > 0) AND (event_types <@ ARRAY['domain.available'::text, 'domain.expiring'::text, 'domain.pending_delete'::text, 'domain.registered'::text, 'domain.restored'::text]))),
    CONSTRAINT webhook_endpoints_expiring_days_check CHECK ((((cardinality(expiring_days) >= 1) AND (cardinality(expiring_days) <= 10)) AND (1 <= ALL (expiring_days)) AND (365 >= ALL (expiring_days)))),
    CONSTRAINT webhook_endpoints_kind_check CHECK ((kind = ANY (ARRAY['generic'::text, 'slack'::text, 'discord'::text]))),
    CONSTRAINT webhook_endpoints_previous_secret_check CHECK (((previous_secret IS NULL) OR ((char_length(previous_secret) >= 1) AND (char_length(previous_secret) <= 256)))),
    CONSTRAINT webhook_endpoints_secret_check CHECK (((secret IS NULL) OR ((char_length(secret) >= 1) AND (char_length(secret) <= 256)))),
    CONSTRAINT webhook_endpoints_url_check CHECK (((char_length(url) <= 2048) AND (url ~* '^https?://[^[:space:]]+$'::text)))
);

ALTER TABLE public.webhook_endpoints OWNER TO postgres;

--
-- Name: COLUMN webhook_endpoints.secret; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.secret IS 'HMAC-SHA256 signing secret. Write-only for authenticated (no SELECT privilege); never sent as a header.';

--
-- Name: COLUMN webhook_endpoints.url_masked; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.url_masked IS 'What the app may read of the URL: scheme://host/…last 4 characters. The URL itself is write-only for authenticated (it may carry a token); the alert sender reads it as service_role.';

--
-- Name: COLUMN webhook_endpoints.previous_secret; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.previous_secret IS 'The secret before the last rotate_webhook_secret(); it also signs webhook-signature until previous_secret_expires_at (24 h). Never readable by authenticated.';

--
-- Name: COLUMN webhook_endpoints.kind; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.kind IS 'generic: the signed JSON body; slack / discord: that service''s incoming-webhook message (unsigned), only to its documented https host (webhook_kind_problem).';

--
-- Name: COLUMN webhook_endpoints.event_types; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.event_types IS 'The events this endpoint receives (alert_event_types()); test alerts always go through.';

--
-- Name: COLUMN webhook_endpoints.expiring_days; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.expiring_days IS 'domain.expiring: the days before a watched name''s expiration date this endpoint is reminded at.';

--
-- Name: COLUMN webhook_endpoints.organization_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.webhook_endpoints.organization_id IS 'A team channel of this organization (null: the account''s own). user_id is then the organization''s owner.';

--
-- Name: expiring_reminder_channels; Type: VIEW; Schema: private; Owner: postgres
--

CREATE VIEW private.expiring_reminder_channels AS
 SELECT ('telegram:'::text || (n.user_id)::text) AS lane_key,
    n.user_id,
    'telegram'::text AS channel,
    NULL::uuid AS endpoint_id,
    n.telegram_expiring_days AS days
   FROM public.notification_settings n
  WHERE ((n.telegram_chat_id IS NOT NULL) AND n.telegram_enabled AND ('domain.expiring'::text = ANY (n.telegram_event_types)))
UNION ALL
 SELECT ('webhook:'::text || (w.id)::text) AS lane_key,
    w.user_id,
    'webhook'::text AS channel,
    w.id AS endpoint_id,
    w.expiring_days AS days
   FROM ((public.webhook_endpoints w
     JOIN public.profiles p ON ((p.id = w.user_id)))
     JOIN public.plans pl ON (((pl.id = p.plan_id) AND pl.webhooks)))
  WHERE (w.enabled AND (w.organization_id IS NULL) AND ('domain.expiring'::text = ANY (w.event_types)))
UNION ALL
 SELECT ('email:'::text || (a.id)::text) AS lane_key,
    a.user_id,
    'email'::text AS channel,
    a.id AS endpoint_id,
    a.expiring_days AS days
   FROM private.email_alert_channels a
  WHERE ('domain.expiring'::text = ANY (a.event_types));

ALTER TABLE private.expiring_reminder_channels OWNER TO postgres;

--
-- Name: public_suffixes; Type: TABLE; Schema: private; Owner: postgres
--

CREATE TABLE private.public_suffixes (
    rule text NOT NULL
);

ALTER TABLE private.public_suffixes OWNER TO postgres;

--
-- Name: TABLE public_suffixes; Type: COMMENT; Schema: private; Owner: postgres
--

COMMENT ON TABLE private.public_suffixes IS 'The Public Suffix List''s ICANN rules as tldts@<import_map pin> has them (generated, see scripts/public_suffixes.ts).';

--
-- Name: alert_deliveries; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.alert_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    event_id text NOT NULL,
    user_id uuid NOT NULL,
    channel text NOT NULL,
    webhook_endpoint_id uuid,
    status text DEFAULT 'pending'::text NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    failure_count integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    last_attempt_at timestamp with time zone,
    last_http_status integer,
    last_error text,
    delivered_at timestamp with time zone,
    failed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    redelivery_count integer DEFAULT 0 NOT NULL,
    redelivered_at timestamp with time zone,
    email_address_id uuid,
    telegram_group_id uuid,
    lane_key text GENERATED ALWAYS AS (
CASE
    WHEN ((channel = 'telegram'::text) AND (telegram_group_id IS NOT NULL)) THEN ('telegram-group:'::text || (telegram_group_id)::text)
    WHEN (channel = 'telegram'::text) THEN ('telegram:'::text || (user_id)::text)
    WHEN ((channel = 'webhook'::text) AND (webhook_endpoint_id IS NOT NULL)) THEN ('webhook:'::text || (webhook_endpoint_id)::text)
    WHEN ((channel = 'email'::text) AND (email_address_id IS NOT NULL)) THEN ('email:'::text || (email_address_id)::text)
    ELSE ('delivery:'::text || (id)::text)
END) STORED,
    CONSTRAINT alert_deliveries_channel_check CHECK ((channel = ANY (ARRAY['telegram'::text, 'webhook'::text, 'email'::text]))),
    CONSTRAINT alert_deliveries_redelivery_count_check CHECK ((redelivery_count >= 0)),
    CONSTRAINT alert_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);

ALTER TABLE public.alert_deliveries OWNER TO postgres;

--
-- Name: COLUMN alert_deliveries.webhook_endpoint_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.webhook_endpoint_id IS 'The webhook this delivery goes to; null for Telegram, and for webhooks deleted since.';

--
-- Name: COLUMN alert_deliveries.failure_count; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.failure_count IS 'Failed attempts that count towards the retry schedule (a Telegram 429 does not).';

--
-- Name: COLUMN alert_deliveries.redelivery_count; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.redelivery_count IS 'Times the owner queued this delivery again (redeliver_webhook_delivery); same id, same body.';

--
-- Name: COLUMN alert_deliveries.redelivered_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.redelivered_at IS 'When the owner last queued it again. A redelivery is one attempt: a failure after it is final.';

--
-- Name: COLUMN alert_deliveries.email_address_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.email_address_id IS 'The email channel this delivery goes to; null for other channels, and for addresses deleted since.';

--
-- Name: COLUMN alert_deliveries.telegram_group_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.telegram_group_id IS 'A team Telegram delivery: the organization''s group (null for other deliveries, and for a group unlinked since).';

--
-- Name: COLUMN alert_deliveries.lane_key; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_deliveries.lane_key IS 'The lane this delivery is sent in: webhook:<endpoint id>, telegram:<account id>, telegram-group:<group id>, email:<address id>, or delivery:<id> when its channel was deleted. At most one send per lane is in flight.';

--
-- Name: alert_delivery_attempts; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.alert_delivery_attempts (
    id bigint NOT NULL,
    delivery_id uuid NOT NULL,
    user_id uuid NOT NULL,
    attempted_at timestamp with time zone DEFAULT now() NOT NULL,
    outcome text NOT NULL,
    http_status integer,
    error text,
    duration_ms integer,
    CONSTRAINT alert_delivery_attempts_error_check CHECK (((error IS NULL) OR (char_length(error) <= 500))),
    CONSTRAINT alert_delivery_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['delivered'::text, 'failed'::text, 'rate_limited'::text, 'refused'::text, 'skipped'::text])))
);

ALTER TABLE public.alert_delivery_attempts OWNER TO postgres;

--
-- Name: alert_delivery_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_delivery_attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.alert_delivery_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: alert_delivery_lanes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.alert_delivery_lanes (
    lane_key text NOT NULL,
    user_id uuid NOT NULL,
    channel text NOT NULL,
    webhook_endpoint_id uuid,
    breaker_state text DEFAULT 'closed'::text NOT NULL,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    opened_count integer DEFAULT 0 NOT NULL,
    opened_at timestamp with time zone,
    next_probe_at timestamp with time zone,
    busy_delivery_id uuid,
    busy_until timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    email_address_id uuid,
    CONSTRAINT alert_delivery_lanes_breaker_state_check CHECK ((breaker_state = ANY (ARRAY['closed'::text, 'open'::text, 'half_open'::text]))),
    CONSTRAINT alert_delivery_lanes_channel_check CHECK ((channel = ANY (ARRAY['telegram'::text, 'webhook'::text, 'email'::text])))
);

ALTER TABLE public.alert_delivery_lanes OWNER TO postgres;

--
-- Name: TABLE alert_delivery_lanes; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.alert_delivery_lanes IS 'One row per delivery lane (webhook endpoint, or an account''s Telegram chat): the in-flight marker and the breaker. breaker_state closed | open (no attempt before next_probe_at) | half_open (one probe in flight or due). Readable by the owner.';

--
-- Name: COLUMN alert_delivery_lanes.opened_count; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_delivery_lanes.opened_count IS 'Times the breaker opened without a success in between: the exponent of its backoff.';

--
-- Name: alert_delivery_wake; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.alert_delivery_wake (
    id smallint DEFAULT 1 NOT NULL,
    last_wake_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    CONSTRAINT alert_delivery_wake_id_check CHECK ((id = 1))
);

ALTER TABLE public.alert_delivery_wake OWNER TO postgres;

--
-- Name: alert_events; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.alert_events (
    id text DEFAULT ('evt_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)) NOT NULL,
    user_id uuid NOT NULL,
    type text NOT NULL,
    domain_name text NOT NULL,
    unicode_name text,
    previous_status text,
    status text NOT NULL,
    checked_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    predicted_drop_at timestamp with time zone,
    prediction_basis text,
    evidence jsonb,
    registrar text,
    expires_at timestamp with time zone,
    days_before integer,
    organization_id uuid,
    organization_name text,
    claimed_by_name text,
    CONSTRAINT alert_events_evidence_check CHECK (((evidence IS NULL) OR (jsonb_typeof(evidence) = 'object'::text))),
    CONSTRAINT alert_events_prediction_basis_check CHECK ((prediction_basis = ANY (ARRAY['redemption_period'::text, 'pending_delete_period'::text, 'unknown'::text]))),
    CONSTRAINT alert_events_type_check CHECK ((type = ANY (ARRAY['domain.available'::text, 'domain.pending_delete'::text, 'domain.restored'::text, 'domain.registered'::text, 'domain.expiring'::text, 'test'::text])))
);

ALTER TABLE public.alert_events OWNER TO postgres;

--
-- Name: TABLE alert_events; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.alert_events IS 'One row per watching account for each transition of a domain into available (type domain.available), or per test the account asked for (type test). Written by the outbox trigger and the test functions.';

--
-- Name: COLUMN alert_events.predicted_drop_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.predicted_drop_at IS 'domain.pending_delete: when the name is predicted to drop (null when it cannot be predicted).';

--
-- Name: COLUMN alert_events.prediction_basis; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.prediction_basis IS 'domain.pending_delete: how predicted_drop_at was found: redemption_period (RDAP last change + 30 days of redemption + 5 of pending delete), pending_delete_period (last change + 5 days) or unknown.';

--
-- Name: COLUMN alert_events.evidence; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.evidence IS 'domain.available: why the check believed the name free (source, server, answer, canary_name, canary_proved_at, dns_rcode, resolver, checked_at), written by note_check_evidence in the check''s transaction.';

--
-- Name: COLUMN alert_events.registrar; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.registrar IS 'domain.restored, domain.registered: the registrar, when known.';

--
-- Name: COLUMN alert_events.expires_at; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.expires_at IS 'domain.restored, domain.registered, domain.expiring: the registry''s expiration date.';

--
-- Name: COLUMN alert_events.days_before; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.days_before IS 'domain.expiring: which reminder (days before expires_at).';

--
-- Name: COLUMN alert_events.organization_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.organization_id IS 'A team alert: the organization whose list holds the name (user_id is then its owner); null: personal.';

--
-- Name: COLUMN alert_events.claimed_by_name; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.alert_events.claimed_by_name IS 'A team alert of a claimed name: the claimer as the members see them (display name or address before @).';

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    key_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    organization_id uuid,
    CONSTRAINT api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100)))
);

ALTER TABLE public.api_keys OWNER TO postgres;

--
-- Name: COLUMN api_keys.key_hash; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.api_keys.key_hash IS 'SHA-256 hex of the raw key. Never readable by authenticated (no column privilege).';

--
-- Name: COLUMN api_keys.organization_id; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.api_keys.organization_id IS 'An organization''s key (null: the account''s own). Reads and changes only that organization''s watchlist.';

--
-- Name: api_request_counters; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.api_request_counters (
    user_id uuid NOT NULL,
    day date NOT NULL,
    request_count integer DEFAULT 0 NOT NULL,
    CONSTRAINT api_request_counters_request_count_check CHECK ((request_count >= 0))
);

ALTER TABLE public.api_request_counters OWNER TO postgres;

--
-- Name: TABLE api_request_counters; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.api_request_counters IS 'Counted API requests per account and UTC day. Unlimited plans are not counted (no row).';

--
-- Name: app_check_counters; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.app_check_counters (
    user_id uuid NOT NULL,
    day date NOT NULL,
    check_count integer NOT NULL,
    CONSTRAINT app_check_counters_check_count_check CHECK ((check_count >= 0))
);

ALTER TABLE public.app_check_counters OWNER TO postgres;

--
-- Name: TABLE app_check_counters; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.app_check_counters IS 'Checks from the app per account and UTC day, for plans with their own app_checks_per_day. Written only by private.consume_app_check (service_role).';

--
-- Name: calendar_feeds; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.calendar_feeds (
    user_id uuid NOT NULL,
    token_hash text NOT NULL,
    reminder_days integer[] DEFAULT '{30,7,1}'::integer[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT calendar_feeds_reminder_days_check CHECK ((((cardinality(reminder_days) >= 1) AND (cardinality(reminder_days) <= 10)) AND (1 <= ALL (reminder_days)) AND (365 >= ALL (reminder_days)))),
    CONSTRAINT calendar_feeds_token_hash_check CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text))
);

ALTER TABLE public.calendar_feeds OWNER TO postgres;

--
-- Name: TABLE calendar_feeds; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.calendar_feeds IS 'One calendar feed per account: the SHA-256 hex of its secret token (the token itself is shown once), the reminder days of its alarms, when it was made. No grants: reached only through the functions below.';

--
-- Name: domain_expiry_reminders; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.domain_expiry_reminders (
    lane_key text NOT NULL,
    domain_name text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    days_before integer NOT NULL,
    event_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.domain_expiry_reminders OWNER TO postgres;

--
-- Name: TABLE domain_expiry_reminders; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.domain_expiry_reminders IS 'domain.expiring reminders sent per channel (lane_key as alert_deliveries: telegram:<account>, webhook:<endpoint>), name and expiration date; rows for dates past by 30 days are removed.';

--
-- Name: domain_status_changes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.domain_status_changes (
    id bigint NOT NULL,
    domain_id bigint NOT NULL,
    domain_name text NOT NULL,
    previous_status text,
    status text NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    source text NOT NULL,
    evidence jsonb,
    registrar text,
    expires_at timestamp with time zone,
    caused_by uuid,
    CONSTRAINT domain_status_changes_evidence_check CHECK (((evidence IS NULL) OR ((status = 'available'::text) AND (jsonb_typeof(evidence) = 'object'::text)))),
    CONSTRAINT domain_status_changes_previous_status_check CHECK ((previous_status = ANY (ARRAY['unknown'::text, 'registered'::text, 'pending_delete'::text, 'available'::text]))),
    CONSTRAINT domain_status_changes_source_check CHECK ((source = ANY (ARRAY['poller'::text, 'live'::text]))),
    CONSTRAINT domain_status_changes_status_check CHECK ((status = ANY (ARRAY['unknown'::text, 'registered'::text, 'pending_delete'::text, 'available'::text])))
);

ALTER TABLE public.domain_status_changes OWNER TO postgres;

--
-- Name: TABLE domain_status_changes; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.domain_status_changes IS 'Each name''s history of states: one row per change of public.domains.status (previous_status null: first seen, the first decided check). evidence: why an available was believed (as domain.available carries it). An account reads the changes made while it watched the name (public.watch_periods) that the poller recorded or its own live checks caused (caused_by).';

--
-- Name: COLUMN domain_status_changes.caused_by; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.domain_status_changes.caused_by IS 'source = live: the account whose live check recorded the change (null once that account is deleted). Null for the poller''s changes. Another account never reads a live change it did not cause.';

--
-- Name: domain_status_changes_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.domain_status_changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER TABLE public.domain_status_changes_id_seq OWNER TO postgres;

--
-- Name: domain_status_changes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: postgres
--

ALTER SEQUENCE public.domain_status_changes_id_seq OWNED BY public.domain_status_changes.id;

--
-- Name: domains_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.domains ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.domains_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: drop_observations; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.drop_observations (
    id bigint NOT NULL,
    domain_name text NOT NULL,
    registry text NOT NULL,
    basis text NOT NULL,
    predicted_drop_at timestamp with time zone NOT NULL,
    correction_seconds integer DEFAULT 0 NOT NULL,
    last_pending_at timestamp with time zone,
    observed_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT drop_observations_basis_check CHECK ((basis = ANY (ARRAY['redemption_period'::text, 'pending_delete_period'::text])))
);

ALTER TABLE public.drop_observations OWNER TO postgres;

--
-- Name: TABLE drop_observations; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.drop_observations IS 'Each drop that had a prediction: the prediction in force (correction included), its basis, the registry (TLD) and when the drop was observed. Kept when nobody watches the name any more.';

--
-- Name: drop_observations_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.drop_observations ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.drop_observations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: drop_prediction_corrections; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.drop_prediction_corrections (
    registry text NOT NULL,
    basis text NOT NULL,
    offset_seconds integer NOT NULL,
    observations integer DEFAULT 0 NOT NULL,
    measured boolean DEFAULT false NOT NULL,
    source text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT drop_prediction_corrections_basis_check CHECK ((basis = ANY (ARRAY['redemption_period'::text, 'pending_delete_period'::text]))),
    CONSTRAINT drop_prediction_corrections_offset_seconds_check CHECK (((offset_seconds >= '-604800'::integer) AND (offset_seconds <= 604800))),
    CONSTRAINT drop_prediction_corrections_source_check CHECK (((char_length(source) >= 1) AND (char_length(source) <= 500)))
);

ALTER TABLE public.drop_prediction_corrections OWNER TO postgres;

--
-- Name: TABLE drop_prediction_corrections; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.drop_prediction_corrections IS 'Per registry (TLD) and basis: seconds added to new drop predictions. measured rows: the median offset of the latest (up to 100) observed drops, from 20 on; operator rows (measured = false) are never overwritten. source says where the figure comes from.';

--
-- Name: email_unsubscribe_tokens; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.email_unsubscribe_tokens (
    token_hash text NOT NULL,
    email_address_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.email_unsubscribe_tokens OWNER TO postgres;

--
-- Name: TABLE email_unsubscribe_tokens; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.email_unsubscribe_tokens IS 'SHA-256 of each alert mail''s one-click unsubscribe token (RFC 8058), kept 180 days. service_role only.';

--
-- Name: invitations; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.invitations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    email text NOT NULL,
    role text DEFAULT 'member'::text NOT NULL,
    token text DEFAULT encode(extensions.gen_random_bytes(24), 'hex'::text) NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    invited_by uuid DEFAULT auth.uid(),
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone DEFAULT (now() + '7 days'::interval) NOT NULL,
    emailed_at timestamp with time zone,
    accepted_at timestamp with time zone,
    accepted_by uuid,
    CONSTRAINT invitations_email_check CHECK ((((char_length(email) >= 3) AND (char_length(email) <= 320)) AND (strpos(email, '@'::text) > 1))),
    CONSTRAINT invitations_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'member'::text]))),
    CONSTRAINT invitations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'accepted'::text, 'revoked'::text])))
);

ALTER TABLE public.invitations OWNER TO postgres;

--
-- Name: COLUMN invitations.token; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.invitations.token IS 'Secret of the invitation link. Never readable by authenticated (no column privilege).';

--
-- Name: invite_mail_limits; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.invite_mail_limits (
    id boolean DEFAULT true NOT NULL,
    per_account_per_day integer DEFAULT 10 NOT NULL,
    project_per_hour integer DEFAULT 10 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT invite_mail_limits_per_account_per_day_check CHECK ((per_account_per_day >= 0)),
    CONSTRAINT invite_mail_limits_project_per_hour_check CHECK ((project_per_hour >= 0)),
    CONSTRAINT invite_mail_limits_single_row CHECK (id)
);

ALTER TABLE public.invite_mail_limits OWNER TO postgres;

--
-- Name: TABLE invite_mail_limits; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.invite_mail_limits IS 'One row: the invite-mail caps, operator settings (service_role only). per_account_per_day: mails per inviting account per rolling 24 hours. project_per_hour: mails for the whole project per rolling hour; one account may use at most a third of it (rounded down, at least 1) in any rolling hour.';

--
-- Name: COLUMN invite_mail_limits.per_account_per_day; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.invite_mail_limits.per_account_per_day IS 'Invite mails one account may send per rolling 24 hours.';

--
-- Name: COLUMN invite_mail_limits.project_per_hour; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.invite_mail_limits.project_per_hour IS 'Invite mails the whole project may send per rolling hour; one account gets at most a third of it.';

--
-- Name: invite_mail_log; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.invite_mail_log (
    id bigint NOT NULL,
    user_id uuid,
    invitation_id uuid,
    sent_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.invite_mail_log OWNER TO postgres;

--
-- Name: invite_mail_log_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.invite_mail_log ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.invite_mail_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: live_check_cache; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.live_check_cache (
    domain_name text NOT NULL COLLATE pg_catalog."C",
    result json NOT NULL,
    checked_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

ALTER TABLE public.live_check_cache OWNER TO postgres;

--
-- Name: TABLE live_check_cache; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.live_check_cache IS 'Last live-check result per name, served again until expires_at so repeated checks do not reach registries. Rows more than an hour past expiry are deleted by the next write.';

--
-- Name: COLUMN live_check_cache.result; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.live_check_cache.result IS 'The result as the API returns it; json rather than jsonb so a cached answer keeps its key order.';

--
-- Name: organization_activity; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_activity (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    actor_id uuid,
    actor_name text,
    action text NOT NULL,
    domain_name text,
    subject_id uuid,
    subject_name text,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT organization_activity_action_check CHECK ((action = ANY (ARRAY['member.joined'::text, 'member.left'::text, 'member.removed'::text, 'member.role_changed'::text, 'name.added'::text, 'name.removed'::text, 'claim.taken'::text, 'claim.released'::text, 'channel.added'::text, 'channel.changed'::text, 'channel.removed'::text, 'api_key.created'::text, 'api_key.revoked'::text])))
);

ALTER TABLE public.organization_activity OWNER TO postgres;

--
-- Name: TABLE organization_activity; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_activity IS 'Who did what in an organization, and when. Written only by the database (triggers and definer functions); read by members; purged after retention_settings.organization_activity_days (365).';

--
-- Name: organization_activity_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_activity ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.organization_activity_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: organization_api_request_counters; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_api_request_counters (
    organization_id uuid NOT NULL,
    day date NOT NULL,
    request_count integer DEFAULT 0 NOT NULL,
    CONSTRAINT organization_api_request_counters_request_count_check CHECK ((request_count >= 0))
);

ALTER TABLE public.organization_api_request_counters OWNER TO postgres;

--
-- Name: TABLE organization_api_request_counters; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_api_request_counters IS 'Counted API requests of an organization''s keys per UTC day (service_role only).';

--
-- Name: organization_claims; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_claims (
    organization_id uuid NOT NULL,
    domain_name text NOT NULL,
    claimed_by uuid NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.organization_claims OWNER TO postgres;

--
-- Name: TABLE organization_claims; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_claims IS 'Open claims ("I will register it when it drops"): one per name per organization. Taken and released only through claim_organization_domain / release_organization_domain_claim; a member who leaves or is removed loses theirs (trigger).';

--
-- Name: organization_members; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_members (
    organization_id uuid NOT NULL,
    user_id uuid NOT NULL,
    role text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    personal_alerts boolean DEFAULT false NOT NULL,
    CONSTRAINT organization_members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'member'::text])))
);

ALTER TABLE public.organization_members OWNER TO postgres;

--
-- Name: COLUMN organization_members.personal_alerts; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.organization_members.personal_alerts IS 'The member gets the organization''s names'' events on their own channels too (off by default); set only by the member through set_organization_personal_alerts.';

--
-- Name: organization_telegram_link_tokens; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_telegram_link_tokens (
    token_hash text NOT NULL,
    organization_id uuid NOT NULL,
    created_by uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT organization_telegram_link_tokens_token_hash_check CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text))
);

ALTER TABLE public.organization_telegram_link_tokens OWNER TO postgres;

--
-- Name: TABLE organization_telegram_link_tokens; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_telegram_link_tokens IS 'One-time Telegram group link tokens of organizations (SHA-256 only), valid 15 minutes. service_role only.';

--
-- Name: organization_watchlist_entries; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organization_watchlist_entries (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    domain_name text NOT NULL,
    unicode_name text,
    added_by uuid,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT organization_watchlist_entries_unicode_name_check CHECK (((unicode_name IS NULL) OR ((char_length(unicode_name) >= 1) AND (char_length(unicode_name) <= 253))))
);

ALTER TABLE public.organization_watchlist_entries OWNER TO postgres;

--
-- Name: TABLE organization_watchlist_entries; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.organization_watchlist_entries IS 'An organization''s watched names (soft-deleted). Written only by the organization watchlist functions; quota: the owner''s plan''s watchlist_quota, counted for the organization alone.';

--
-- Name: organization_watchlist_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_watchlist_entries ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.organization_watchlist_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: organizations; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.organizations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT organizations_name_check CHECK (((char_length(btrim(name)) >= 1) AND (char_length(btrim(name)) <= 200)))
);

ALTER TABLE public.organizations OWNER TO postgres;

--
-- Name: poller_settings; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.poller_settings (
    id boolean DEFAULT true NOT NULL,
    checks_per_invocation integer DEFAULT 400 NOT NULL,
    max_invocations integer DEFAULT 8 NOT NULL,
    CONSTRAINT poller_settings_checks_per_invocation_check CHECK (((checks_per_invocation >= 1) AND (checks_per_invocation <= 100000))),
    CONSTRAINT poller_settings_id_check CHECK (id),
    CONSTRAINT poller_settings_max_invocations_check CHECK (((max_invocations >= 1) AND (max_invocations <= 100)))
);

ALTER TABLE public.poller_settings OWNER TO postgres;

--
-- Name: TABLE poller_settings; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.poller_settings IS 'The poller fan-out (one row): names per invocation and the cap on invocations per pg_cron tick.';

--
-- Name: rate_limit_keys; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rate_limit_keys (
    class text NOT NULL,
    key text NOT NULL,
    rate_per_second double precision,
    concurrency integer,
    next_start_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    last_started_at timestamp with time zone,
    last_finished_at timestamp with time zone,
    paused_until timestamp with time zone,
    pause_reason text,
    paused_at timestamp with time zone,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    live_next_start_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    CONSTRAINT rate_limit_keys_concurrency_check CHECK (((concurrency >= 1) AND (concurrency <= 1000))),
    CONSTRAINT rate_limit_keys_key_check CHECK (((char_length(key) >= 1) AND (char_length(key) <= 300))),
    CONSTRAINT rate_limit_keys_pause_reason_check CHECK ((pause_reason = ANY (ARRAY['rate_limited'::text, 'backoff'::text]))),
    CONSTRAINT rate_limit_keys_rate_per_second_check CHECK (((rate_per_second >= (0)::double precision) AND (rate_per_second <= (10000)::double precision)))
);

ALTER TABLE public.rate_limit_keys OWNER TO postgres;

--
-- Name: TABLE rate_limit_keys; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rate_limit_keys IS 'State of each shared rate limiter key (next start, pause, failures) and optional per-key overrides.';

--
-- Name: rate_limit_live_accounts; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rate_limit_live_accounts (
    class text NOT NULL,
    key text NOT NULL,
    account text NOT NULL,
    tat timestamp with time zone NOT NULL,
    CONSTRAINT rate_limit_live_accounts_account_check CHECK (((char_length(account) >= 1) AND (char_length(account) <= 100)))
);

ALTER TABLE public.rate_limit_live_accounts OWNER TO postgres;

--
-- Name: TABLE rate_limit_live_accounts; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rate_limit_live_accounts IS 'Each account''s use of a rate-limited key''s live-check share (live_account_share of live_share).';

--
-- Name: rate_limit_slots; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rate_limit_slots (
    token uuid DEFAULT gen_random_uuid() NOT NULL,
    class text NOT NULL,
    key text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    expires_at timestamp with time zone NOT NULL,
    live_account text,
    live_start timestamp with time zone,
    CONSTRAINT rate_limit_slots_live_account_check CHECK (((char_length(live_account) >= 1) AND (char_length(live_account) <= 100)))
);

ALTER TABLE public.rate_limit_slots OWNER TO postgres;

--
-- Name: TABLE rate_limit_slots; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rate_limit_slots IS 'In-flight (or about to start) requests of each shared rate limiter key; freed on release or expiry.';

--
-- Name: rdap_bootstrap_cache; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rdap_bootstrap_cache (
    source_url text NOT NULL,
    publication timestamp with time zone,
    document jsonb NOT NULL,
    fetched_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.rdap_bootstrap_cache OWNER TO postgres;

--
-- Name: TABLE rdap_bootstrap_cache; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rdap_bootstrap_cache IS 'Copies of the RDAP bootstrap file (RFC 9224) by source URL. fetched_at is when the copy was last fetched or confirmed current; a fetched copy with an older publication never replaces a newer one.';

--
-- Name: rdap_server_overrides; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rdap_server_overrides (
    suffix text NOT NULL COLLATE pg_catalog."C",
    base_url text,
    note text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    precedence text DEFAULT 'override'::text NOT NULL,
    canary_name text COLLATE pg_catalog."C",
    enabled boolean DEFAULT true NOT NULL,
    CONSTRAINT rdap_server_overrides_base_url_check CHECK (((base_url IS NULL) OR (base_url ~ '^https?://[^\s]+$'::text))),
    CONSTRAINT rdap_server_overrides_canary_name_check CHECK (((canary_name IS NULL) OR ((canary_name = lower(canary_name)) AND (canary_name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$'::text)))),
    CONSTRAINT rdap_server_overrides_precedence_check CHECK ((precedence = ANY (ARRAY['override'::text, 'fallback'::text]))),
    CONSTRAINT rdap_server_overrides_suffix_check CHECK (((suffix = lower(suffix)) AND (suffix ~ '^[a-z0-9-]+(\.[a-z0-9-]+)*$'::text)))
);

ALTER TABLE public.rdap_server_overrides OWNER TO postgres;

--
-- Name: TABLE rdap_server_overrides; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rdap_server_overrides IS 'RDAP servers by suffix (a TLD such as "io", or a longer suffix), besides IANA''s bootstrap. precedence "fallback" (the shipped rows): used only where the bootstrap does not list the suffix, so the bootstrap wins where it lists one; "override" (the default for new rows): replaces IANA''s entry. base_url is the registry''s own RDAP base URL (the part before "domain/<name>"); null means "no RDAP for this suffix": checks then use DNS only and never report a name as available. canary_name (default nic.<suffix>) is a registered name that proves the suffix''s server can say "found" (see rdap_server_proofs); it applies whichever server is used, so a row for a suffix the bootstrap lists can set just the canary. enabled false ignores the row. Edits take effect within about 5 minutes (each edge function process keeps the list in memory that long).';

--
-- Name: COLUMN rdap_server_overrides.note; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.rdap_server_overrides.note IS 'Where the URL is documented (registry page, RDAP clients'' override lists) and when it was checked.';

--
-- Name: COLUMN rdap_server_overrides.precedence; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.rdap_server_overrides.precedence IS '"fallback": only where IANA''s bootstrap does not list the suffix; "override": replaces IANA''s entry.';

--
-- Name: COLUMN rdap_server_overrides.canary_name; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.rdap_server_overrides.canary_name IS 'A name the registry has registered, asked to prove the server (default nic.<suffix>).';

--
-- Name: rdap_server_proofs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rdap_server_proofs (
    server_url text NOT NULL COLLATE pg_catalog."C",
    suffix text NOT NULL COLLATE pg_catalog."C",
    canary_name text NOT NULL COLLATE pg_catalog."C",
    state text DEFAULT 'unverified'::text NOT NULL,
    http_status integer,
    detail text,
    checked_at timestamp with time zone,
    verified_at timestamp with time zone,
    valid_until timestamp with time zone,
    renew_after timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    claim_id uuid,
    claimed_until timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT rdap_server_proofs_state_check CHECK ((state = ANY (ARRAY['unverified'::text, 'verified'::text, 'failed'::text])))
);

ALTER TABLE public.rdap_server_proofs OWNER TO postgres;

--
-- Name: TABLE rdap_server_proofs; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.rdap_server_proofs IS 'Per RDAP server and suffix: did the canary name answer 200 with a domain object? state verified counts until valid_until (26 h after the last success; renewed after 24 h); failed (the canary answered 404 or something that is not a domain) is asked again after an hour; a canary that could not be asked (timeout, 5xx, 429) changes no state and is asked again after 5 minutes. A 404 from a server without a valid proof is unknown (rdap_server_unverified), never available. Set renew_after = now() to re-check at once.';

--
-- Name: retention_settings; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.retention_settings (
    singleton boolean DEFAULT true NOT NULL,
    delivery_attempts_days integer DEFAULT 90 NOT NULL,
    alert_events_days integer DEFAULT 365 NOT NULL,
    live_check_cache_hours integer DEFAULT 24 NOT NULL,
    request_counters_days integer DEFAULT 35 NOT NULL,
    session_request_log_days integer DEFAULT 2 NOT NULL,
    cron_run_details_days integer DEFAULT 7 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    organization_activity_days integer DEFAULT 365 NOT NULL,
    CONSTRAINT retention_settings_alert_events_days_check CHECK ((alert_events_days >= 2)),
    CONSTRAINT retention_settings_cron_run_details_days_check CHECK ((cron_run_details_days >= 1)),
    CONSTRAINT retention_settings_delivery_attempts_days_check CHECK ((delivery_attempts_days >= 2)),
    CONSTRAINT retention_settings_live_check_cache_hours_check CHECK ((live_check_cache_hours >= 1)),
    CONSTRAINT retention_settings_organization_activity_days_check CHECK ((organization_activity_days >= 365)),
    CONSTRAINT retention_settings_request_counters_days_check CHECK ((request_counters_days >= 2)),
    CONSTRAINT retention_settings_session_request_log_days_check CHECK ((session_request_log_days >= 1)),
    CONSTRAINT retention_settings_singleton_check CHECK (singleton)
);

ALTER TABLE public.retention_settings OWNER TO postgres;

--
-- Name: TABLE retention_settings; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.retention_settings IS 'Retention periods of purge_expired_rows() (one row). Operators change them with SQL; see docs/database.md.';

--
-- Name: session_action_limits; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.session_action_limits (
    action text NOT NULL,
    max_requests integer NOT NULL,
    window_length interval NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT session_action_limits_action_check CHECK ((action ~ '^[a-z][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT session_action_limits_max_requests_check CHECK (((max_requests >= 1) AND (max_requests <= 1000))),
    CONSTRAINT session_action_limits_window_length_check CHECK (((window_length >= '00:00:01'::interval) AND (window_length <= '1 day'::interval)))
);

ALTER TABLE public.session_action_limits OWNER TO postgres;

--
-- Name: TABLE session_action_limits; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.session_action_limits IS 'Rolling-window limit per account for each rate-limited session action. Operator data (service_role only); callers name the action, never the maximum or the window.';

--
-- Name: session_request_log; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.session_request_log (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    action text NOT NULL,
    requested_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.session_request_log OWNER TO postgres;

--
-- Name: session_request_log_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.session_request_log ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.session_request_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: telegram_bot_settings; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.telegram_bot_settings (
    id boolean DEFAULT true NOT NULL,
    bot_username text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT telegram_bot_settings_bot_username_check CHECK ((bot_username ~ '^[A-Za-z][A-Za-z0-9_]{3,31}$'::text)),
    CONSTRAINT telegram_bot_settings_single_row CHECK (id)
);

ALTER TABLE public.telegram_bot_settings OWNER TO postgres;

--
-- Name: TABLE telegram_bot_settings; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.telegram_bot_settings IS 'One row: the Telegram bot''s username for link-flow deep links (TELEGRAM_BOT_USERNAME). service_role only.';

--
-- Name: telegram_chat_send_pace; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.telegram_chat_send_pace (
    chat_key text NOT NULL,
    next_free_at timestamp with time zone NOT NULL
);

ALTER TABLE public.telegram_chat_send_pace OWNER TO postgres;

--
-- Name: telegram_link_tokens; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.telegram_link_tokens (
    token_hash text NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    chat_id text,
    CONSTRAINT telegram_link_tokens_token_hash_check CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text))
);

ALTER TABLE public.telegram_link_tokens OWNER TO postgres;

--
-- Name: TABLE telegram_link_tokens; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.telegram_link_tokens IS 'One-time Telegram link tokens (SHA-256 only), valid 15 minutes. Written by create_telegram_link and telegram_link_chat; service_role only.';

--
-- Name: telegram_send_pace; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.telegram_send_pace (
    id smallint DEFAULT 1 NOT NULL,
    next_free_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    paused_until timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    CONSTRAINT telegram_send_pace_id_check CHECK ((id = 1))
);

ALTER TABLE public.telegram_send_pace OWNER TO postgres;

--
-- Name: watch_periods; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.watch_periods (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    domain_name text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    CONSTRAINT watch_periods_order_check CHECK (((ended_at IS NULL) OR (ended_at >= started_at)))
);

ALTER TABLE public.watch_periods OWNER TO postgres;

--
-- Name: TABLE watch_periods; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.watch_periods IS 'When each account watched each name: from adding it (started_at) to removing it (ended_at, null while watched). Kept by a trigger on public.watchlist_entries; bounds what the account reads of the name''s history (public.domain_status_changes).';

--
-- Name: watch_periods_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.watch_periods ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.watch_periods_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: watchlist_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.watchlist_entries ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.watchlist_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: webhook_endpoint_breakers; Type: VIEW; Schema: public; Owner: postgres
--

CREATE VIEW public.webhook_endpoint_breakers WITH (security_invoker='true') AS
 SELECT l.webhook_endpoint_id,
    l.breaker_state,
    l.consecutive_failures,
    l.opened_at,
    l.next_probe_at,
    l.updated_at
   FROM public.alert_delivery_lanes l
  WHERE (l.channel = 'webhook'::text);

ALTER TABLE public.webhook_endpoint_breakers OWNER TO postgres;

--
-- Name: VIEW webhook_endpoint_breakers; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON VIEW public.webhook_endpoint_breakers IS 'Per webhook endpoint: breaker state (closed/open/half_open), consecutive failures, when it opened and when the next probe is due. Only endpoints that have had a delivery appear.';

--
-- Name: webhook_target_policy; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.webhook_target_policy (
    id boolean DEFAULT true NOT NULL,
    allow_private_targets boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_target_policy_single_row CHECK (id)
);

ALTER TABLE public.webhook_target_policy OWNER TO postgres;

--
-- Name: TABLE webhook_target_policy; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.webhook_target_policy IS 'One row. allow_private_targets accepts http:// and loopback webhook URLs (local development only; the local stack copies WEBHOOK_ALLOW_PRIVATE_TARGETS here). service_role only.';

--
-- Name: whois_servers; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.whois_servers (
    suffix text NOT NULL COLLATE pg_catalog."C",
    host text COLLATE pg_catalog."C",
    port integer DEFAULT 43 NOT NULL,
    query_format text DEFAULT '%s'::text NOT NULL,
    canary_name text COLLATE pg_catalog."C",
    not_found_pattern text,
    found_pattern text,
    limit_pattern text,
    status_pattern text,
    pending_delete_statuses text[] DEFAULT '{}'::text[] NOT NULL,
    registrar_pattern text,
    expiration_pattern text,
    encoding text DEFAULT 'utf-8'::text NOT NULL,
    unsupported_reason text,
    source text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT whois_servers_canary_name_check CHECK (((canary_name IS NULL) OR ((canary_name = lower(canary_name)) AND (canary_name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$'::text)))),
    CONSTRAINT whois_servers_encoding_check CHECK ((encoding = ANY (ARRAY['utf-8'::text, 'latin-1'::text]))),
    CONSTRAINT whois_servers_host_check CHECK (((host IS NULL) OR ((host = lower(host)) AND (host ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$'::text)))),
    CONSTRAINT whois_servers_port_check CHECK (((port >= 1) AND (port <= 65535))),
    CONSTRAINT whois_servers_query_format_check CHECK (((query_format ~~ '%\%s%'::text) AND (query_format !~ '[\r\n]'::text))),
    CONSTRAINT whois_servers_route_check CHECK ((((host IS NOT NULL) AND (canary_name IS NOT NULL) AND (not_found_pattern IS NOT NULL) AND (found_pattern IS NOT NULL) AND (unsupported_reason IS NULL)) OR ((host IS NULL) AND (unsupported_reason IS NOT NULL)))),
    CONSTRAINT whois_servers_suffix_check CHECK (((suffix = lower(suffix)) AND (suffix ~ '^[a-z0-9-]+(\.[a-z0-9-]+)*$'::text)))
);

ALTER TABLE public.whois_servers OWNER TO postgres;

--
-- Name: TABLE whois_servers; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.whois_servers IS 'WHOIS servers (RFC 3912, port 43) for suffixes without an RDAP route; RDAP always wins where the bootstrap or rdap_server_overrides names a server. The longest matching suffix applies. A not-found answer makes a name available only when the row''s canary_name was answered with a record its found_pattern matches (proof kept in rdap_server_proofs as whois://host:port, renewed daily), the answer matches not_found_pattern and no other pattern, and DNS says the name is not delegated. host null: the registry offers no usable public WHOIS (unsupported_reason). Edits take effect within about 5 minutes.';

--
-- Name: COLUMN whois_servers.source; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.whois_servers.source IS 'Where the server and phrasings come from, and when checked.';

--
-- Name: domain_status_changes id; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domain_status_changes ALTER COLUMN id SET DEFAULT nextval('public.domain_status_changes_id_seq'::regclass);

--
-- Name: domain_name_rules domain_name_rules_pkey; Type: CONSTRAINT; Schema: private; Owner: postgres
--

ALTER TABLE ONLY private.domain_name_rules
    ADD CONSTRAINT domain_name_rules_pkey PRIMARY KEY (id);

--
-- Name: public_suffixes public_suffixes_pkey; Type: CONSTRAINT; Schema: private; Owner: postgres
--

ALTER TABLE ONLY private.public_suffixes
    ADD CONSTRAINT public_suffixes_pkey PRIMARY KEY (rule);

--
-- Name: alert_deliveries alert_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_pkey PRIMARY KEY (id);

--
-- Name: alert_delivery_attempts alert_delivery_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_attempts
    ADD CONSTRAINT alert_delivery_attempts_pkey PRIMARY KEY (id);

--
-- Name: alert_delivery_lanes alert_delivery_lanes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_lanes
    ADD CONSTRAINT alert_delivery_lanes_pkey PRIMARY KEY (lane_key);

--
-- Name: alert_delivery_wake alert_delivery_wake_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_wake
    ADD CONSTRAINT alert_delivery_wake_pkey PRIMARY KEY (id);

--
-- Name: alert_events alert_events_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_events
    ADD CONSTRAINT alert_events_pkey PRIMARY KEY (id);

--
-- Name: api_keys api_keys_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);

--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

--
-- Name: api_request_counters api_request_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_request_counters
    ADD CONSTRAINT api_request_counters_pkey PRIMARY KEY (user_id, day);

--
-- Name: app_check_counters app_check_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.app_check_counters
    ADD CONSTRAINT app_check_counters_pkey PRIMARY KEY (user_id, day);

--
-- Name: calendar_feeds calendar_feeds_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.calendar_feeds
    ADD CONSTRAINT calendar_feeds_pkey PRIMARY KEY (user_id);

--
-- Name: calendar_feeds calendar_feeds_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.calendar_feeds
    ADD CONSTRAINT calendar_feeds_token_hash_key UNIQUE (token_hash);

--
-- Name: domain_expiry_reminders domain_expiry_reminders_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domain_expiry_reminders
    ADD CONSTRAINT domain_expiry_reminders_pkey PRIMARY KEY (lane_key, domain_name, expires_at, days_before);

--
-- Name: domain_status_changes domain_status_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domain_status_changes
    ADD CONSTRAINT domain_status_changes_pkey PRIMARY KEY (id);

--
-- Name: domains domains_id_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domains
    ADD CONSTRAINT domains_id_key UNIQUE (id);

--
-- Name: domains domains_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domains
    ADD CONSTRAINT domains_pkey PRIMARY KEY (name);

--
-- Name: drop_observations drop_observations_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.drop_observations
    ADD CONSTRAINT drop_observations_pkey PRIMARY KEY (id);

--
-- Name: drop_prediction_corrections drop_prediction_corrections_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.drop_prediction_corrections
    ADD CONSTRAINT drop_prediction_corrections_pkey PRIMARY KEY (registry, basis);

--
-- Name: email_addresses email_addresses_confirmation_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_addresses
    ADD CONSTRAINT email_addresses_confirmation_token_hash_key UNIQUE (confirmation_token_hash);

--
-- Name: email_addresses email_addresses_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_addresses
    ADD CONSTRAINT email_addresses_pkey PRIMARY KEY (id);

--
-- Name: email_unsubscribe_tokens email_unsubscribe_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_unsubscribe_tokens
    ADD CONSTRAINT email_unsubscribe_tokens_pkey PRIMARY KEY (token_hash);

--
-- Name: invitations invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);

--
-- Name: invitations invitations_token_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_token_key UNIQUE (token);

--
-- Name: invite_mail_limits invite_mail_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invite_mail_limits
    ADD CONSTRAINT invite_mail_limits_pkey PRIMARY KEY (id);

--
-- Name: invite_mail_log invite_mail_log_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invite_mail_log
    ADD CONSTRAINT invite_mail_log_pkey PRIMARY KEY (id);

--
-- Name: live_check_cache live_check_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.live_check_cache
    ADD CONSTRAINT live_check_cache_pkey PRIMARY KEY (domain_name);

--
-- Name: notification_settings notification_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.notification_settings
    ADD CONSTRAINT notification_settings_pkey PRIMARY KEY (user_id);

--
-- Name: organization_activity organization_activity_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_activity
    ADD CONSTRAINT organization_activity_pkey PRIMARY KEY (id);

--
-- Name: organization_api_request_counters organization_api_request_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_api_request_counters
    ADD CONSTRAINT organization_api_request_counters_pkey PRIMARY KEY (organization_id, day);

--
-- Name: organization_claims organization_claims_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_claims
    ADD CONSTRAINT organization_claims_pkey PRIMARY KEY (organization_id, domain_name);

--
-- Name: organization_members organization_members_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_members
    ADD CONSTRAINT organization_members_pkey PRIMARY KEY (organization_id, user_id);

--
-- Name: organization_telegram_chats organization_telegram_chats_chat_id_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_chats
    ADD CONSTRAINT organization_telegram_chats_chat_id_key UNIQUE (chat_id);

--
-- Name: organization_telegram_chats organization_telegram_chats_organization_id_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_chats
    ADD CONSTRAINT organization_telegram_chats_organization_id_key UNIQUE (organization_id);

--
-- Name: organization_telegram_chats organization_telegram_chats_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_chats
    ADD CONSTRAINT organization_telegram_chats_pkey PRIMARY KEY (id);

--
-- Name: organization_telegram_link_tokens organization_telegram_link_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_link_tokens
    ADD CONSTRAINT organization_telegram_link_tokens_pkey PRIMARY KEY (token_hash);

--
-- Name: organization_watchlist_entries organization_watchlist_entries_org_domain_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_watchlist_entries
    ADD CONSTRAINT organization_watchlist_entries_org_domain_key UNIQUE (organization_id, domain_name);

--
-- Name: organization_watchlist_entries organization_watchlist_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_watchlist_entries
    ADD CONSTRAINT organization_watchlist_entries_pkey PRIMARY KEY (id);

--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);

--
-- Name: plans plans_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.plans
    ADD CONSTRAINT plans_pkey PRIMARY KEY (id);

--
-- Name: poller_settings poller_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.poller_settings
    ADD CONSTRAINT poller_settings_pkey PRIMARY KEY (id);

--
-- Name: profiles profiles_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT profiles_pkey PRIMARY KEY (id);

--
-- Name: rate_limit_classes rate_limit_classes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_classes
    ADD CONSTRAINT rate_limit_classes_pkey PRIMARY KEY (class);

--
-- Name: rate_limit_keys rate_limit_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_keys
    ADD CONSTRAINT rate_limit_keys_pkey PRIMARY KEY (class, key);

--
-- Name: rate_limit_live_accounts rate_limit_live_accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_live_accounts
    ADD CONSTRAINT rate_limit_live_accounts_pkey PRIMARY KEY (class, key, account);

--
-- Name: rate_limit_slots rate_limit_slots_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_slots
    ADD CONSTRAINT rate_limit_slots_pkey PRIMARY KEY (token);

--
-- Name: rdap_bootstrap_cache rdap_bootstrap_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rdap_bootstrap_cache
    ADD CONSTRAINT rdap_bootstrap_cache_pkey PRIMARY KEY (source_url);

--
-- Name: rdap_server_overrides rdap_server_overrides_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rdap_server_overrides
    ADD CONSTRAINT rdap_server_overrides_pkey PRIMARY KEY (suffix);

--
-- Name: rdap_server_proofs rdap_server_proofs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rdap_server_proofs
    ADD CONSTRAINT rdap_server_proofs_pkey PRIMARY KEY (server_url, suffix);

--
-- Name: retention_settings retention_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.retention_settings
    ADD CONSTRAINT retention_settings_pkey PRIMARY KEY (singleton);

--
-- Name: session_action_limits session_action_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.session_action_limits
    ADD CONSTRAINT session_action_limits_pkey PRIMARY KEY (action);

--
-- Name: session_request_log session_request_log_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.session_request_log
    ADD CONSTRAINT session_request_log_pkey PRIMARY KEY (id);

--
-- Name: telegram_bot_settings telegram_bot_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.telegram_bot_settings
    ADD CONSTRAINT telegram_bot_settings_pkey PRIMARY KEY (id);

--
-- Name: telegram_chat_send_pace telegram_chat_send_pace_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.telegram_chat_send_pace
    ADD CONSTRAINT telegram_chat_send_pace_pkey PRIMARY KEY (chat_key);

--
-- Name: telegram_link_tokens telegram_link_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.telegram_link_tokens
    ADD CONSTRAINT telegram_link_tokens_pkey PRIMARY KEY (token_hash);

--
-- Name: telegram_send_pace telegram_send_pace_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.telegram_send_pace
    ADD CONSTRAINT telegram_send_pace_pkey PRIMARY KEY (id);

--
-- Name: watch_periods watch_periods_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watch_periods
    ADD CONSTRAINT watch_periods_pkey PRIMARY KEY (id);

--
-- Name: watchlist_entries watchlist_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watchlist_entries
    ADD CONSTRAINT watchlist_entries_pkey PRIMARY KEY (id);

--
-- Name: watchlist_entries watchlist_entries_user_id_domain_name_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watchlist_entries
    ADD CONSTRAINT watchlist_entries_user_id_domain_name_key UNIQUE (user_id, domain_name);

--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

--
-- Name: webhook_target_policy webhook_target_policy_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.webhook_target_policy
    ADD CONSTRAINT webhook_target_policy_pkey PRIMARY KEY (id);

--
-- Name: whois_servers whois_servers_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.whois_servers
    ADD CONSTRAINT whois_servers_pkey PRIMARY KEY (suffix);

--
-- Name: alert_deliveries_due_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_due_idx ON public.alert_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);

--
-- Name: alert_deliveries_email_log_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_email_log_idx ON public.alert_deliveries USING btree (email_address_id, created_at DESC, id DESC) WHERE (channel = 'email'::text);

--
-- Name: alert_deliveries_event_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_event_id_idx ON public.alert_deliveries USING btree (event_id);

--
-- Name: alert_deliveries_one_per_email_per_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX alert_deliveries_one_per_email_per_event_idx ON public.alert_deliveries USING btree (event_id, email_address_id) WHERE ((channel = 'email'::text) AND (email_address_id IS NOT NULL));

--
-- Name: alert_deliveries_one_per_webhook_per_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX alert_deliveries_one_per_webhook_per_event_idx ON public.alert_deliveries USING btree (event_id, webhook_endpoint_id) WHERE ((channel = 'webhook'::text) AND (webhook_endpoint_id IS NOT NULL));

--
-- Name: alert_deliveries_one_telegram_per_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX alert_deliveries_one_telegram_per_event_idx ON public.alert_deliveries USING btree (event_id) WHERE (channel = 'telegram'::text);

--
-- Name: alert_deliveries_pending_lane_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_pending_lane_idx ON public.alert_deliveries USING btree (lane_key, next_attempt_at, created_at) WHERE (status = 'pending'::text);

--
-- Name: alert_deliveries_telegram_group_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_telegram_group_idx ON public.alert_deliveries USING btree (telegram_group_id) WHERE (telegram_group_id IS NOT NULL);

--
-- Name: alert_deliveries_user_id_created_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_user_id_created_at_idx ON public.alert_deliveries USING btree (user_id, created_at DESC);

--
-- Name: alert_deliveries_webhook_endpoint_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_webhook_endpoint_id_idx ON public.alert_deliveries USING btree (webhook_endpoint_id);

--
-- Name: alert_deliveries_webhook_log_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_deliveries_webhook_log_idx ON public.alert_deliveries USING btree (webhook_endpoint_id, created_at DESC, id DESC) WHERE (channel = 'webhook'::text);

--
-- Name: alert_delivery_attempts_delivery_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_delivery_attempts_delivery_id_idx ON public.alert_delivery_attempts USING btree (delivery_id, attempted_at);

--
-- Name: alert_delivery_attempts_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_delivery_attempts_user_id_idx ON public.alert_delivery_attempts USING btree (user_id);

--
-- Name: alert_delivery_lanes_email_address_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_delivery_lanes_email_address_id_idx ON public.alert_delivery_lanes USING btree (email_address_id);

--
-- Name: alert_delivery_lanes_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_delivery_lanes_user_id_idx ON public.alert_delivery_lanes USING btree (user_id);

--
-- Name: alert_delivery_lanes_webhook_endpoint_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_delivery_lanes_webhook_endpoint_id_idx ON public.alert_delivery_lanes USING btree (webhook_endpoint_id);

--
-- Name: alert_events_available_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_events_available_idx ON public.alert_events USING btree (domain_name, checked_at) WHERE (type = 'domain.available'::text);

--
-- Name: alert_events_organization_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_events_organization_idx ON public.alert_events USING btree (organization_id, created_at DESC) WHERE (organization_id IS NOT NULL);

--
-- Name: alert_events_pending_delete_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_events_pending_delete_idx ON public.alert_events USING btree (domain_name, checked_at) WHERE (type = 'domain.pending_delete'::text);

--
-- Name: alert_events_user_id_created_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_events_user_id_created_at_idx ON public.alert_events USING btree (user_id, created_at DESC);

--
-- Name: alert_events_user_id_domain_name_created_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX alert_events_user_id_domain_name_created_at_idx ON public.alert_events USING btree (user_id, domain_name, created_at DESC);

--
-- Name: api_keys_organization_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX api_keys_organization_id_idx ON public.api_keys USING btree (organization_id) WHERE (organization_id IS NOT NULL);

--
-- Name: api_keys_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX api_keys_user_id_idx ON public.api_keys USING btree (user_id);

--
-- Name: domain_status_changes_domain_id_changed_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX domain_status_changes_domain_id_changed_at_idx ON public.domain_status_changes USING btree (domain_id, changed_at);

--
-- Name: domains_expires_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX domains_expires_at_idx ON public.domains USING btree (expires_at) WHERE (status = 'registered'::text);

--
-- Name: domains_next_check_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX domains_next_check_at_idx ON public.domains USING btree (next_check_at);

--
-- Name: domains_pending_delete_next_check_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX domains_pending_delete_next_check_idx ON public.domains USING btree (next_check_at) WHERE (status = 'pending_delete'::text);

--
-- Name: drop_observations_registry_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX drop_observations_registry_idx ON public.drop_observations USING btree (registry, basis, observed_at DESC);

--
-- Name: email_addresses_confirmation_due_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX email_addresses_confirmation_due_idx ON public.email_addresses USING btree (confirmation_mail_due_at) WHERE (confirmation_mail_due_at IS NOT NULL);

--
-- Name: email_addresses_one_account_row_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX email_addresses_one_account_row_idx ON public.email_addresses USING btree (user_id) WHERE is_account;

--
-- Name: email_addresses_organization_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX email_addresses_organization_id_idx ON public.email_addresses USING btree (organization_id) WHERE (organization_id IS NOT NULL);

--
-- Name: email_addresses_unique_extra_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX email_addresses_unique_extra_idx ON public.email_addresses USING btree (user_id, lower(address)) WHERE ((NOT is_account) AND (organization_id IS NULL));

--
-- Name: email_addresses_unique_team_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX email_addresses_unique_team_idx ON public.email_addresses USING btree (organization_id, lower(address)) WHERE (organization_id IS NOT NULL);

--
-- Name: email_unsubscribe_tokens_address_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX email_unsubscribe_tokens_address_idx ON public.email_unsubscribe_tokens USING btree (email_address_id);

--
-- Name: email_unsubscribe_tokens_created_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX email_unsubscribe_tokens_created_at_idx ON public.email_unsubscribe_tokens USING btree (created_at);

--
-- Name: invitations_invited_by_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX invitations_invited_by_idx ON public.invitations USING btree (invited_by);

--
-- Name: invitations_organization_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX invitations_organization_id_idx ON public.invitations USING btree (organization_id);

--
-- Name: invite_mail_log_sent_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX invite_mail_log_sent_idx ON public.invite_mail_log USING btree (sent_at);

--
-- Name: invite_mail_log_user_sent_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX invite_mail_log_user_sent_idx ON public.invite_mail_log USING btree (user_id, sent_at);

--
-- Name: live_check_cache_expires_at_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX live_check_cache_expires_at_idx ON public.live_check_cache USING btree (expires_at);

--
-- Name: notification_settings_telegram_chat_id_key; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX notification_settings_telegram_chat_id_key ON public.notification_settings USING btree (telegram_chat_id) WHERE (telegram_chat_id IS NOT NULL);

--
-- Name: organization_activity_actor_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_activity_actor_idx ON public.organization_activity USING btree (actor_id);

--
-- Name: organization_activity_created_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_activity_created_idx ON public.organization_activity USING btree (created_at);

--
-- Name: organization_activity_org_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_activity_org_idx ON public.organization_activity USING btree (organization_id, created_at DESC, id DESC);

--
-- Name: organization_activity_subject_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_activity_subject_idx ON public.organization_activity USING btree (subject_id);

--
-- Name: organization_claims_claimed_by_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_claims_claimed_by_idx ON public.organization_claims USING btree (claimed_by);

--
-- Name: organization_claims_domain_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_claims_domain_idx ON public.organization_claims USING btree (domain_name);

--
-- Name: organization_members_personal_alerts_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_members_personal_alerts_idx ON public.organization_members USING btree (organization_id) WHERE personal_alerts;

--
-- Name: organization_members_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_members_user_id_idx ON public.organization_members USING btree (user_id);

--
-- Name: organization_telegram_chats_linked_by_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_telegram_chats_linked_by_idx ON public.organization_telegram_chats USING btree (linked_by);

--
-- Name: organization_telegram_link_tokens_created_by_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_telegram_link_tokens_created_by_idx ON public.organization_telegram_link_tokens USING btree (created_by);

--
-- Name: organization_telegram_link_tokens_org_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_telegram_link_tokens_org_idx ON public.organization_telegram_link_tokens USING btree (organization_id);

--
-- Name: organization_watchlist_entries_active_domain_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_watchlist_entries_active_domain_idx ON public.organization_watchlist_entries USING btree (domain_name) WHERE (deleted_at IS NULL);

--
-- Name: organization_watchlist_entries_active_org_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_watchlist_entries_active_org_idx ON public.organization_watchlist_entries USING btree (organization_id, domain_name COLLATE "C") WHERE (deleted_at IS NULL);

--
-- Name: organization_watchlist_entries_added_by_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX organization_watchlist_entries_added_by_idx ON public.organization_watchlist_entries USING btree (added_by);

--
-- Name: profiles_plan_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX profiles_plan_id_idx ON public.profiles USING btree (plan_id);

--
-- Name: rate_limit_slots_key_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX rate_limit_slots_key_idx ON public.rate_limit_slots USING btree (class, key, expires_at);

--
-- Name: session_request_log_user_action_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX session_request_log_user_action_idx ON public.session_request_log USING btree (user_id, action, requested_at);

--
-- Name: telegram_link_tokens_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX telegram_link_tokens_user_id_idx ON public.telegram_link_tokens USING btree (user_id);

--
-- Name: watch_periods_open_key; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX watch_periods_open_key ON public.watch_periods USING btree (user_id, domain_name) WHERE (ended_at IS NULL);

--
-- Name: watch_periods_user_id_domain_name_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX watch_periods_user_id_domain_name_idx ON public.watch_periods USING btree (user_id, domain_name, started_at);

--
-- Name: watchlist_entries_active_domain_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX watchlist_entries_active_domain_idx ON public.watchlist_entries USING btree (domain_name) WHERE (deleted_at IS NULL);

--
-- Name: watchlist_entries_active_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX watchlist_entries_active_user_idx ON public.watchlist_entries USING btree (user_id, domain_name COLLATE "C") WHERE (deleted_at IS NULL);

--
-- Name: webhook_endpoints_organization_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX webhook_endpoints_organization_id_idx ON public.webhook_endpoints USING btree (organization_id) WHERE (organization_id IS NOT NULL);

--
-- Name: webhook_endpoints_user_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX webhook_endpoints_user_id_idx ON public.webhook_endpoints USING btree (user_id);

--
-- Name: alert_deliveries alert_deliveries_finish_failed_redelivery; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER alert_deliveries_finish_failed_redelivery BEFORE UPDATE OF next_attempt_at ON public.alert_deliveries FOR EACH ROW WHEN ((new.redelivered_at IS NOT NULL)) EXECUTE FUNCTION private.finish_failed_redelivery();

--
-- Name: alert_deliveries alert_deliveries_wake_delivery; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER alert_deliveries_wake_delivery AFTER INSERT ON public.alert_deliveries FOR EACH STATEMENT EXECUTE FUNCTION private.wake_alert_delivery();

--
-- Name: alert_events alert_events_derive_unicode_name; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER alert_events_derive_unicode_name BEFORE INSERT OR UPDATE OF domain_name, unicode_name ON public.alert_events FOR EACH ROW EXECUTE FUNCTION private.derive_unicode_name();

--
-- Name: domains domains_queue_available_alerts; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_queue_available_alerts AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'available'::text) AND (old.status IS DISTINCT FROM 'available'::text))) EXECUTE FUNCTION private.queue_domain_available_alerts();

--
-- Name: domains domains_queue_organization_alerts; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_queue_organization_alerts AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN ((new.status IS DISTINCT FROM old.status)) EXECUTE FUNCTION private.queue_organization_alerts();

--
-- Name: domains domains_queue_pending_delete_alerts; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_queue_pending_delete_alerts AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'pending_delete'::text) AND (old.status IS DISTINCT FROM 'pending_delete'::text))) EXECUTE FUNCTION private.queue_domain_pending_delete_alerts();

--
-- Name: domains domains_queue_registered_alerts; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_queue_registered_alerts AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'registered'::text) AND ((old.status = 'available'::text) OR ((old.status = 'unknown'::text) AND (old.last_checked_at IS NOT NULL))))) EXECUTE FUNCTION private.queue_domain_registration_alerts('domain.registered');

--
-- Name: domains domains_queue_restored_alerts; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_queue_restored_alerts AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'registered'::text) AND (old.status = 'pending_delete'::text))) EXECUTE FUNCTION private.queue_domain_registration_alerts('domain.restored');

--
-- Name: domains domains_record_drop_observation; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_record_drop_observation AFTER UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'available'::text) AND (old.status = 'pending_delete'::text) AND (old.predicted_drop_at IS NOT NULL) AND (old.prediction_basis = ANY (ARRAY['redemption_period'::text, 'pending_delete_period'::text])))) EXECUTE FUNCTION private.record_drop_observation();

--
-- Name: domains domains_refuse_unsupported_zone; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_refuse_unsupported_zone AFTER INSERT ON public.domains REFERENCING NEW TABLE AS new_domains FOR EACH STATEMENT EXECUTE FUNCTION private.domains_refuse_unsupported_zone();

--
-- Name: domains domains_reset_drop_prediction; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER domains_reset_drop_prediction BEFORE UPDATE OF status ON public.domains FOR EACH ROW WHEN (((new.status = 'pending_delete'::text) AND (old.status IS DISTINCT FROM 'pending_delete'::text))) EXECUTE FUNCTION private.reset_drop_prediction();

--
-- Name: email_addresses email_addresses_cap; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER email_addresses_cap BEFORE INSERT ON public.email_addresses FOR EACH ROW EXECUTE FUNCTION private.check_email_address_cap();

--
-- Name: email_addresses email_addresses_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER email_addresses_set_updated_at BEFORE UPDATE ON public.email_addresses FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: invite_mail_limits invite_mail_limits_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER invite_mail_limits_set_updated_at BEFORE UPDATE ON public.invite_mail_limits FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: notification_settings notification_settings_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER notification_settings_set_updated_at BEFORE UPDATE ON public.notification_settings FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: organization_claims organization_claims_log; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_claims_log AFTER INSERT OR DELETE ON public.organization_claims FOR EACH ROW EXECUTE FUNCTION private.log_org_claim();

--
-- Name: organization_members organization_members_log; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_members_log AFTER INSERT OR DELETE OR UPDATE OF role ON public.organization_members FOR EACH ROW EXECUTE FUNCTION private.on_org_member_change();

--
-- Name: organization_members organization_members_revoke_api_keys; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_members_revoke_api_keys AFTER DELETE OR UPDATE OF role ON public.organization_members FOR EACH ROW WHEN ((old.role = ANY (ARRAY['owner'::text, 'admin'::text]))) EXECUTE FUNCTION private.revoke_org_keys_of_former_admin();

--
-- Name: organization_members organization_members_revoke_invitations; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_members_revoke_invitations AFTER DELETE OR UPDATE OF role ON public.organization_members FOR EACH ROW WHEN ((old.role = ANY (ARRAY['owner'::text, 'admin'::text]))) EXECUTE FUNCTION private.revoke_invitations_of_former_inviter();

--
-- Name: organization_telegram_chats organization_telegram_chats_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_telegram_chats_set_updated_at BEFORE UPDATE ON public.organization_telegram_chats FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: organization_watchlist_entries organization_watchlist_entries_derive_unicode_name; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER organization_watchlist_entries_derive_unicode_name BEFORE INSERT OR UPDATE OF domain_name, unicode_name ON public.organization_watchlist_entries FOR EACH ROW EXECUTE FUNCTION private.derive_unicode_name();

--
-- Name: profiles profiles_create_account_email_channel; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER profiles_create_account_email_channel AFTER INSERT ON public.profiles FOR EACH ROW EXECUTE FUNCTION private.create_account_email_channel();

--
-- Name: profiles profiles_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER profiles_set_updated_at BEFORE UPDATE ON public.profiles FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: retention_settings retention_settings_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER retention_settings_set_updated_at BEFORE UPDATE ON public.retention_settings FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: session_action_limits session_action_limits_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER session_action_limits_set_updated_at BEFORE UPDATE ON public.session_action_limits FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: telegram_bot_settings telegram_bot_settings_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER telegram_bot_settings_set_updated_at BEFORE UPDATE ON public.telegram_bot_settings FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: watchlist_entries watchlist_entries_derive_unicode_name; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER watchlist_entries_derive_unicode_name BEFORE INSERT OR UPDATE OF domain_name, unicode_name ON public.watchlist_entries FOR EACH ROW EXECUTE FUNCTION private.derive_unicode_name();

--
-- Name: watchlist_entries watchlist_entries_track_watch_period; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER watchlist_entries_track_watch_period AFTER INSERT OR DELETE OR UPDATE OF deleted_at, added_at ON public.watchlist_entries FOR EACH ROW EXECUTE FUNCTION private.track_watch_period();

--
-- Name: webhook_endpoints webhook_endpoints_cap; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_cap BEFORE INSERT OR UPDATE OF user_id ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.check_webhook_endpoint_cap();

--
-- Name: webhook_endpoints webhook_endpoints_check_secret; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_check_secret BEFORE INSERT OR UPDATE OF secret ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.check_webhook_endpoint_secret();

--
-- Name: webhook_endpoints webhook_endpoints_check_url; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_check_url BEFORE INSERT OR UPDATE OF url ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.check_webhook_endpoint_url();

--
-- Name: webhook_endpoints webhook_endpoints_check_url_kind; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_check_url_kind BEFORE INSERT OR UPDATE OF url, kind, event_types ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.check_webhook_endpoint_kind();

--
-- Name: webhook_endpoints webhook_endpoints_forget_previous_secret; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_forget_previous_secret BEFORE UPDATE OF secret ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.forget_previous_webhook_secret();

--
-- Name: webhook_endpoints webhook_endpoints_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_endpoints_set_updated_at BEFORE UPDATE ON public.webhook_endpoints FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: webhook_target_policy webhook_target_policy_set_updated_at; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER webhook_target_policy_set_updated_at BEFORE UPDATE ON public.webhook_target_policy FOR EACH ROW EXECUTE FUNCTION private.set_updated_at();

--
-- Name: alert_deliveries alert_deliveries_email_address_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_email_address_id_fkey FOREIGN KEY (email_address_id) REFERENCES public.email_addresses(id) ON DELETE SET NULL;

--
-- Name: alert_deliveries alert_deliveries_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.alert_events(id) ON DELETE CASCADE;

--
-- Name: alert_deliveries alert_deliveries_telegram_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_telegram_group_id_fkey FOREIGN KEY (telegram_group_id) REFERENCES public.organization_telegram_chats(id) ON DELETE SET NULL;

--
-- Name: alert_deliveries alert_deliveries_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: alert_deliveries alert_deliveries_webhook_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_webhook_endpoint_id_fkey FOREIGN KEY (webhook_endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE SET NULL;

--
-- Name: alert_delivery_attempts alert_delivery_attempts_delivery_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_attempts
    ADD CONSTRAINT alert_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.alert_deliveries(id) ON DELETE CASCADE;

--
-- Name: alert_delivery_attempts alert_delivery_attempts_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_attempts
    ADD CONSTRAINT alert_delivery_attempts_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: alert_delivery_lanes alert_delivery_lanes_email_address_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_lanes
    ADD CONSTRAINT alert_delivery_lanes_email_address_id_fkey FOREIGN KEY (email_address_id) REFERENCES public.email_addresses(id) ON DELETE CASCADE;

--
-- Name: alert_delivery_lanes alert_delivery_lanes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_lanes
    ADD CONSTRAINT alert_delivery_lanes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: alert_delivery_lanes alert_delivery_lanes_webhook_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_delivery_lanes
    ADD CONSTRAINT alert_delivery_lanes_webhook_endpoint_id_fkey FOREIGN KEY (webhook_endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;

--
-- Name: alert_events alert_events_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_events
    ADD CONSTRAINT alert_events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: alert_events alert_events_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.alert_events
    ADD CONSTRAINT alert_events_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: api_keys api_keys_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: api_keys api_keys_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: api_request_counters api_request_counters_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_request_counters
    ADD CONSTRAINT api_request_counters_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: app_check_counters app_check_counters_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.app_check_counters
    ADD CONSTRAINT app_check_counters_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: calendar_feeds calendar_feeds_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.calendar_feeds
    ADD CONSTRAINT calendar_feeds_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: domain_status_changes domain_status_changes_caused_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domain_status_changes
    ADD CONSTRAINT domain_status_changes_caused_by_fkey FOREIGN KEY (caused_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: domain_status_changes domain_status_changes_domain_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.domain_status_changes
    ADD CONSTRAINT domain_status_changes_domain_id_fkey FOREIGN KEY (domain_id) REFERENCES public.domains(id) ON DELETE CASCADE;

--
-- Name: email_addresses email_addresses_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_addresses
    ADD CONSTRAINT email_addresses_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: email_addresses email_addresses_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_addresses
    ADD CONSTRAINT email_addresses_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: email_unsubscribe_tokens email_unsubscribe_tokens_email_address_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.email_unsubscribe_tokens
    ADD CONSTRAINT email_unsubscribe_tokens_email_address_id_fkey FOREIGN KEY (email_address_id) REFERENCES public.email_addresses(id) ON DELETE CASCADE;

--
-- Name: invitations invitations_accepted_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_accepted_by_fkey FOREIGN KEY (accepted_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: invitations invitations_invited_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: invitations invitations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: invite_mail_log invite_mail_log_invitation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invite_mail_log
    ADD CONSTRAINT invite_mail_log_invitation_id_fkey FOREIGN KEY (invitation_id) REFERENCES public.invitations(id) ON DELETE SET NULL;

--
-- Name: invite_mail_log invite_mail_log_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.invite_mail_log
    ADD CONSTRAINT invite_mail_log_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: notification_settings notification_settings_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.notification_settings
    ADD CONSTRAINT notification_settings_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: organization_activity organization_activity_actor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_activity
    ADD CONSTRAINT organization_activity_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: organization_activity organization_activity_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_activity
    ADD CONSTRAINT organization_activity_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_activity organization_activity_subject_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_activity
    ADD CONSTRAINT organization_activity_subject_id_fkey FOREIGN KEY (subject_id) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: organization_api_request_counters organization_api_request_counters_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_api_request_counters
    ADD CONSTRAINT organization_api_request_counters_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_claims organization_claims_claimed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_claims
    ADD CONSTRAINT organization_claims_claimed_by_fkey FOREIGN KEY (claimed_by) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: organization_claims organization_claims_domain_name_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_claims
    ADD CONSTRAINT organization_claims_domain_name_fkey FOREIGN KEY (domain_name) REFERENCES public.domains(name);

--
-- Name: organization_claims organization_claims_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_claims
    ADD CONSTRAINT organization_claims_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_members organization_members_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_members
    ADD CONSTRAINT organization_members_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_members organization_members_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_members
    ADD CONSTRAINT organization_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: organization_telegram_chats organization_telegram_chats_linked_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_chats
    ADD CONSTRAINT organization_telegram_chats_linked_by_fkey FOREIGN KEY (linked_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: organization_telegram_chats organization_telegram_chats_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_chats
    ADD CONSTRAINT organization_telegram_chats_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_telegram_link_tokens organization_telegram_link_tokens_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_link_tokens
    ADD CONSTRAINT organization_telegram_link_tokens_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: organization_telegram_link_tokens organization_telegram_link_tokens_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_telegram_link_tokens
    ADD CONSTRAINT organization_telegram_link_tokens_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_watchlist_entries organization_watchlist_entries_added_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_watchlist_entries
    ADD CONSTRAINT organization_watchlist_entries_added_by_fkey FOREIGN KEY (added_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: organization_watchlist_entries organization_watchlist_entries_domain_name_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_watchlist_entries
    ADD CONSTRAINT organization_watchlist_entries_domain_name_fkey FOREIGN KEY (domain_name) REFERENCES public.domains(name);

--
-- Name: organization_watchlist_entries organization_watchlist_entries_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organization_watchlist_entries
    ADD CONSTRAINT organization_watchlist_entries_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organizations organizations_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.profiles(id) ON DELETE SET NULL;

--
-- Name: profiles profiles_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT profiles_id_fkey FOREIGN KEY (id) REFERENCES auth.users(id) ON DELETE CASCADE;

--
-- Name: profiles profiles_plan_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT profiles_plan_id_fkey FOREIGN KEY (plan_id) REFERENCES public.plans(id);

--
-- Name: rate_limit_keys rate_limit_keys_class_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_keys
    ADD CONSTRAINT rate_limit_keys_class_fkey FOREIGN KEY (class) REFERENCES public.rate_limit_classes(class) ON DELETE CASCADE;

--
-- Name: rate_limit_live_accounts rate_limit_live_accounts_class_key_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_live_accounts
    ADD CONSTRAINT rate_limit_live_accounts_class_key_fkey FOREIGN KEY (class, key) REFERENCES public.rate_limit_keys(class, key) ON DELETE CASCADE;

--
-- Name: rate_limit_slots rate_limit_slots_class_key_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_slots
    ADD CONSTRAINT rate_limit_slots_class_key_fkey FOREIGN KEY (class, key) REFERENCES public.rate_limit_keys(class, key) ON DELETE CASCADE;

--
-- Name: session_request_log session_request_log_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.session_request_log
    ADD CONSTRAINT session_request_log_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: telegram_link_tokens telegram_link_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.telegram_link_tokens
    ADD CONSTRAINT telegram_link_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: watch_periods watch_periods_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watch_periods
    ADD CONSTRAINT watch_periods_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: watchlist_entries watchlist_entries_domain_name_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watchlist_entries
    ADD CONSTRAINT watchlist_entries_domain_name_fkey FOREIGN KEY (domain_name) REFERENCES public.domains(name);

--
-- Name: watchlist_entries watchlist_entries_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.watchlist_entries
    ADD CONSTRAINT watchlist_entries_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: webhook_endpoints webhook_endpoints_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: webhook_endpoints webhook_endpoints_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.profiles(id) ON DELETE CASCADE;

--
-- Name: invitations Assistants' tokens cannot add invitations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot add invitations" ON public.invitations AS RESTRICTIVE FOR INSERT TO authenticated WITH CHECK ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: invitations Assistants' tokens cannot change invitations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot change invitations" ON public.invitations AS RESTRICTIVE FOR UPDATE TO authenticated USING (true) WITH CHECK ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_members Assistants' tokens cannot change organization members; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot change organization members" ON public.organization_members AS RESTRICTIVE FOR UPDATE TO authenticated USING (true) WITH CHECK ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organizations Assistants' tokens cannot change organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot change organizations" ON public.organizations AS RESTRICTIVE FOR UPDATE TO authenticated USING (true) WITH CHECK ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: notification_settings Assistants' tokens cannot delete notification settings; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot delete notification settings" ON public.notification_settings AS RESTRICTIVE FOR DELETE TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_members Assistants' tokens cannot delete organization members; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot delete organization members" ON public.organization_members AS RESTRICTIVE FOR DELETE TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organizations Assistants' tokens cannot delete organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot delete organizations" ON public.organizations AS RESTRICTIVE FOR DELETE TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: webhook_endpoints Assistants' tokens cannot delete webhook endpoints; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot delete webhook endpoints" ON public.webhook_endpoints AS RESTRICTIVE FOR DELETE TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: alert_deliveries Assistants' tokens cannot read alert deliveries; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read alert deliveries" ON public.alert_deliveries AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: alert_delivery_attempts Assistants' tokens cannot read alert delivery attempts; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read alert delivery attempts" ON public.alert_delivery_attempts AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: alert_delivery_lanes Assistants' tokens cannot read alert delivery lanes; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read alert delivery lanes" ON public.alert_delivery_lanes AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: alert_events Assistants' tokens cannot read alert events; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read alert events" ON public.alert_events AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: api_keys Assistants' tokens cannot read api keys; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read api keys" ON public.api_keys AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: api_request_counters Assistants' tokens cannot read api request counters; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read api request counters" ON public.api_request_counters AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: email_addresses Assistants' tokens cannot read email channels; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read email channels" ON public.email_addresses AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: invitations Assistants' tokens cannot read invitations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read invitations" ON public.invitations AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: notification_settings Assistants' tokens cannot read notification settings; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read notification settings" ON public.notification_settings AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_activity Assistants' tokens cannot read organization activity; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organization activity" ON public.organization_activity AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_claims Assistants' tokens cannot read organization claims; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organization claims" ON public.organization_claims AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_members Assistants' tokens cannot read organization members; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organization members" ON public.organization_members AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_watchlist_entries Assistants' tokens cannot read organization watchlists; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organization watchlists" ON public.organization_watchlist_entries AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organizations Assistants' tokens cannot read organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organizations" ON public.organizations AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_telegram_chats Assistants' tokens cannot read organizations' Telegram groups; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read organizations' Telegram groups" ON public.organization_telegram_chats AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: profiles Assistants' tokens cannot read profiles; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read profiles" ON public.profiles AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: session_request_log Assistants' tokens cannot read session request log; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read session request log" ON public.session_request_log AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: domain_status_changes Assistants' tokens cannot read the history; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read the history" ON public.domain_status_changes AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: watch_periods Assistants' tokens cannot read watch periods; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read watch periods" ON public.watch_periods AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: webhook_endpoints Assistants' tokens cannot read webhook endpoints; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot read webhook endpoints" ON public.webhook_endpoints AS RESTRICTIVE FOR SELECT TO authenticated USING ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: profiles Assistants' tokens cannot rename the account; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Assistants' tokens cannot rename the account" ON public.profiles AS RESTRICTIVE FOR UPDATE TO authenticated USING (true) WITH CHECK ((NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token)));

--
-- Name: organization_members Members can read the members of their organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read the members of their organizations" ON public.organization_members FOR SELECT TO authenticated USING (public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: profiles Members can read the profiles of people in their organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read the profiles of people in their organizations" ON public.profiles FOR SELECT TO authenticated USING (public.shares_organization_with(id));

--
-- Name: organizations Members can read their organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations" ON public.organizations FOR SELECT TO authenticated USING (public.has_org_role(id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: organization_telegram_chats Members can read their organizations' Telegram group; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' Telegram group" ON public.organization_telegram_chats FOR SELECT TO authenticated USING (public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: organization_activity Members can read their organizations' activity; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' activity" ON public.organization_activity FOR SELECT TO authenticated USING (public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: alert_events Members can read their organizations' alert events; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' alert events" ON public.alert_events FOR SELECT TO authenticated USING (((organization_id IS NOT NULL) AND public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text])));

--
-- Name: organization_claims Members can read their organizations' claims; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' claims" ON public.organization_claims FOR SELECT TO authenticated USING (public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: email_addresses Members can read their organizations' email channels; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' email channels" ON public.email_addresses FOR SELECT TO authenticated USING (((organization_id IS NOT NULL) AND public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text])));

--
-- Name: webhook_endpoints Members can read their organizations' team webhooks; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' team webhooks" ON public.webhook_endpoints FOR SELECT TO authenticated USING (((organization_id IS NOT NULL) AND public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text])));

--
-- Name: organization_watchlist_entries Members can read their organizations' watchlists; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Members can read their organizations' watchlists" ON public.organization_watchlist_entries FOR SELECT TO authenticated USING (public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text, 'member'::text]));

--
-- Name: invitations Owners and admins can invite people; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners and admins can invite people" ON public.invitations FOR INSERT TO authenticated WITH CHECK ((public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text]) AND (invited_by = ( SELECT auth.uid() AS uid)) AND (status = 'pending'::text)));

--
-- Name: api_keys Owners and admins can read their organizations' API keys; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners and admins can read their organizations' API keys" ON public.api_keys FOR SELECT TO authenticated USING (((organization_id IS NOT NULL) AND public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text])));

--
-- Name: organization_members Owners and admins can remove members, and members can leave; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners and admins can remove members, and members can leave" ON public.organization_members FOR DELETE TO authenticated USING ((((user_id = ( SELECT auth.uid() AS uid)) AND (role <> 'owner'::text)) OR (public.has_org_role(organization_id, ARRAY['owner'::text]) AND (user_id <> ( SELECT auth.uid() AS uid))) OR (public.has_org_role(organization_id, ARRAY['admin'::text]) AND (role = 'member'::text))));

--
-- Name: invitations Owners and admins can revoke pending invitations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners and admins can revoke pending invitations" ON public.invitations FOR UPDATE TO authenticated USING ((public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text]) AND (status = 'pending'::text))) WITH CHECK ((public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text]) AND (status = 'revoked'::text)));

--
-- Name: organization_members Owners can change the roles of other members; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners can change the roles of other members" ON public.organization_members FOR UPDATE TO authenticated USING ((public.has_org_role(organization_id, ARRAY['owner'::text]) AND (user_id <> ( SELECT auth.uid() AS uid)))) WITH CHECK ((public.has_org_role(organization_id, ARRAY['owner'::text]) AND (user_id <> ( SELECT auth.uid() AS uid))));

--
-- Name: organizations Owners can delete their organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners can delete their organizations" ON public.organizations FOR DELETE TO authenticated USING (public.has_org_role(id, ARRAY['owner'::text]));

--
-- Name: organizations Owners can rename their organizations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners can rename their organizations" ON public.organizations FOR UPDATE TO authenticated USING (public.has_org_role(id, ARRAY['owner'::text])) WITH CHECK (public.has_org_role(id, ARRAY['owner'::text]));

--
-- Name: invitations Owners, admins and the inviter can read invitations; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Owners, admins and the inviter can read invitations" ON public.invitations FOR SELECT TO authenticated USING (((invited_by = ( SELECT auth.uid() AS uid)) OR public.has_org_role(organization_id, ARRAY['owner'::text, 'admin'::text])));

--
-- Name: plans Signed-in users can read the plans; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Signed-in users can read the plans" ON public.plans FOR SELECT TO authenticated USING (true);

--
-- Name: notification_settings Users can delete their own notification settings; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can delete their own notification settings" ON public.notification_settings FOR DELETE TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: webhook_endpoints Users can delete their own webhooks; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can delete their own webhooks" ON public.webhook_endpoints FOR DELETE TO authenticated USING (((user_id = ( SELECT auth.uid() AS uid)) AND (organization_id IS NULL)));

--
-- Name: domain_status_changes Users can read a name's changes made while they watched it; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read a name's changes made while they watched it" ON public.domain_status_changes FOR SELECT TO authenticated USING ((((source = 'poller'::text) OR (caused_by = ( SELECT auth.uid() AS uid))) AND (EXISTS ( SELECT 1
   FROM public.watch_periods p
  WHERE ((p.user_id = ( SELECT auth.uid() AS uid)) AND (p.domain_name = domain_status_changes.domain_name) AND (p.started_at <= domain_status_changes.changed_at) AND ((p.ended_at IS NULL) OR (domain_status_changes.changed_at <= p.ended_at)))))));

--
-- Name: alert_delivery_attempts Users can read the attempts of their own deliveries; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read the attempts of their own deliveries" ON public.alert_delivery_attempts FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: domains Users can read the domains they actively watch; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read the domains they actively watch" ON public.domains FOR SELECT TO authenticated USING ((EXISTS ( SELECT 1
   FROM public.watchlist_entries e
  WHERE ((e.domain_name = domains.name) AND (e.user_id = ( SELECT auth.uid() AS uid)) AND (e.deleted_at IS NULL)))));

--
-- Name: api_keys Users can read their own API keys; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own API keys" ON public.api_keys FOR SELECT TO authenticated USING (((user_id = ( SELECT auth.uid() AS uid)) AND (organization_id IS NULL)));

--
-- Name: api_request_counters Users can read their own API request counters; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own API request counters" ON public.api_request_counters FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: alert_deliveries Users can read their own alert deliveries; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own alert deliveries" ON public.alert_deliveries FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: alert_events Users can read their own alert events; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own alert events" ON public.alert_events FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: app_check_counters Users can read their own app check counts; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own app check counts" ON public.app_check_counters FOR SELECT TO authenticated USING (((user_id = ( SELECT auth.uid() AS uid)) AND (NOT ( SELECT public.is_oauth_client_token() AS is_oauth_client_token))));

--
-- Name: alert_delivery_lanes Users can read their own delivery lanes; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own delivery lanes" ON public.alert_delivery_lanes FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: email_addresses Users can read their own email channels; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own email channels" ON public.email_addresses FOR SELECT TO authenticated USING (((user_id = ( SELECT auth.uid() AS uid)) AND (organization_id IS NULL)));

--
-- Name: notification_settings Users can read their own notification settings; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own notification settings" ON public.notification_settings FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: profiles Users can read their own profile; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own profile" ON public.profiles FOR SELECT TO authenticated USING ((id = ( SELECT auth.uid() AS uid)));

--
-- Name: session_request_log Users can read their own session request log; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own session request log" ON public.session_request_log FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: watch_periods Users can read their own watch periods; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own watch periods" ON public.watch_periods FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: watchlist_entries Users can read their own watchlist entries; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own watchlist entries" ON public.watchlist_entries FOR SELECT TO authenticated USING ((user_id = ( SELECT auth.uid() AS uid)));

--
-- Name: webhook_endpoints Users can read their own webhooks; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can read their own webhooks" ON public.webhook_endpoints FOR SELECT TO authenticated USING (((user_id = ( SELECT auth.uid() AS uid)) AND (organization_id IS NULL)));

--
-- Name: profiles Users can update their own display name; Type: POLICY; Schema: public; Owner: postgres
--

CREATE POLICY "Users can update their own display name" ON public.profiles FOR UPDATE TO authenticated USING ((id = ( SELECT auth.uid() AS uid))) WITH CHECK ((id = ( SELECT auth.uid() AS uid)));

--
-- Name: alert_deliveries; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_deliveries ENABLE ROW LEVEL SECURITY;

--
-- Name: alert_delivery_attempts; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_delivery_attempts ENABLE ROW LEVEL SECURITY;

--
-- Name: alert_delivery_lanes; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_delivery_lanes ENABLE ROW LEVEL SECURITY;

--
-- Name: alert_delivery_wake; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_delivery_wake ENABLE ROW LEVEL SECURITY;

--
-- Name: alert_events; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.alert_events ENABLE ROW LEVEL SECURITY;

--
-- Name: api_keys; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.api_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: api_request_counters; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.api_request_counters ENABLE ROW LEVEL SECURITY;

--
-- Name: app_check_counters; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.app_check_counters ENABLE ROW LEVEL SECURITY;

--
-- Name: calendar_feeds; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.calendar_feeds ENABLE ROW LEVEL SECURITY;

--
-- Name: domain_expiry_reminders; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.domain_expiry_reminders ENABLE ROW LEVEL SECURITY;

--
-- Name: domain_status_changes; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.domain_status_changes ENABLE ROW LEVEL SECURITY;

--
-- Name: domains; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.domains ENABLE ROW LEVEL SECURITY;

--
-- Name: drop_observations; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.drop_observations ENABLE ROW LEVEL SECURITY;

--
-- Name: drop_prediction_corrections; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.drop_prediction_corrections ENABLE ROW LEVEL SECURITY;

--
-- Name: email_addresses; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.email_addresses ENABLE ROW LEVEL SECURITY;

--
-- Name: email_unsubscribe_tokens; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.email_unsubscribe_tokens ENABLE ROW LEVEL SECURITY;

--
-- Name: invitations; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.invitations ENABLE ROW LEVEL SECURITY;

--
-- Name: invite_mail_limits; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.invite_mail_limits ENABLE ROW LEVEL SECURITY;

--
-- Name: invite_mail_log; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.invite_mail_log ENABLE ROW LEVEL SECURITY;

--
-- Name: live_check_cache; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.live_check_cache ENABLE ROW LEVEL SECURITY;

--
-- Name: notification_settings; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.notification_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_activity; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_activity ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_api_request_counters; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_api_request_counters ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_claims; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_claims ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_members; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_members ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_telegram_chats; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_telegram_chats ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_telegram_link_tokens; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_telegram_link_tokens ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_watchlist_entries; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organization_watchlist_entries ENABLE ROW LEVEL SECURITY;

--
-- Name: organizations; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.organizations ENABLE ROW LEVEL SECURITY;

--
-- Name: plans; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.plans ENABLE ROW LEVEL SECURITY;

--
-- Name: poller_settings; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.poller_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: profiles; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.profiles ENABLE ROW LEVEL SECURITY;

--
-- Name: rate_limit_classes; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rate_limit_classes ENABLE ROW LEVEL SECURITY;

--
-- Name: rate_limit_keys; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rate_limit_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: rate_limit_live_accounts; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rate_limit_live_accounts ENABLE ROW LEVEL SECURITY;

--
-- Name: rate_limit_slots; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rate_limit_slots ENABLE ROW LEVEL SECURITY;

--
-- Name: rdap_bootstrap_cache; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rdap_bootstrap_cache ENABLE ROW LEVEL SECURITY;

--
-- Name: rdap_server_overrides; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rdap_server_overrides ENABLE ROW LEVEL SECURITY;

--
-- Name: rdap_server_proofs; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.rdap_server_proofs ENABLE ROW LEVEL SECURITY;

--
-- Name: retention_settings; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.retention_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: session_action_limits; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.session_action_limits ENABLE ROW LEVEL SECURITY;

--
-- Name: session_request_log; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.session_request_log ENABLE ROW LEVEL SECURITY;

--
-- Name: telegram_bot_settings; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.telegram_bot_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: telegram_chat_send_pace; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.telegram_chat_send_pace ENABLE ROW LEVEL SECURITY;

--
-- Name: telegram_link_tokens; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.telegram_link_tokens ENABLE ROW LEVEL SECURITY;

--
-- Name: telegram_send_pace; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.telegram_send_pace ENABLE ROW LEVEL SECURITY;

--
-- Name: watch_periods; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.watch_periods ENABLE ROW LEVEL SECURITY;

--
-- Name: watchlist_entries; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.watchlist_entries ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_endpoints; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.webhook_endpoints ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_target_policy; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.webhook_target_policy ENABLE ROW LEVEL SECURITY;

--
-- Name: whois_servers; Type: ROW SECURITY; Schema: public; Owner: postgres
--

ALTER TABLE public.whois_servers ENABLE ROW LEVEL SECURITY;

--
-- Name: SCHEMA private; Type: ACL; Schema: -; Owner: postgres
--

GRANT USAGE ON SCHEMA private TO service_role;

--
-- Name: SCHEMA public; Type: ACL; Schema: -; Owner: pg_database_owner
--

GRANT USAGE ON SCHEMA public TO anon;
GRANT USAGE ON SCHEMA public TO authenticated;
GRANT USAGE ON SCHEMA public TO service_role;

--
-- Name: FUNCTION admit_api_request(p_user_id uuid, p_plan_id text, p_api_access boolean, p_requests_per_day integer, p_count boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.admit_api_request(p_user_id uuid, p_plan_id text, p_api_access boolean, p_requests_per_day integer, p_count boolean) FROM PUBLIC;

--
-- Name: FUNCTION alert_watchers(p_domain_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.alert_watchers(p_domain_name text) FROM PUBLIC;

--
-- Name: FUNCTION api_request_allowance(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.api_request_allowance(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.api_request_allowance(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION api_watchlist_page(p_key_hash text, p_account uuid, p_limit integer, p_offset integer, p_cursor text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.api_watchlist_page(p_key_hash text, p_account uuid, p_limit integer, p_offset integer, p_cursor text) FROM PUBLIC;

--
-- Name: FUNCTION authenticate_api_key(p_key_hash text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.authenticate_api_key(p_key_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.authenticate_api_key(p_key_hash text) TO service_role;

--
-- Name: FUNCTION authorize_account_request(p_user_id uuid, p_count boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.authorize_account_request(p_user_id uuid, p_count boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.authorize_account_request(p_user_id uuid, p_count boolean) TO service_role;

--
-- Name: FUNCTION authorize_api_request(p_key_hash text, p_count boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.authorize_api_request(p_key_hash text, p_count boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.authorize_api_request(p_key_hash text, p_count boolean) TO service_role;

--
-- Name: FUNCTION calendar_feed_document(p_token_hash text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.calendar_feed_document(p_token_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.calendar_feed_document(p_token_hash text) TO service_role;

--
-- Name: FUNCTION check_email_address_cap(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_email_address_cap() FROM PUBLIC;

--
-- Name: FUNCTION mask_email(p_address text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.mask_email(p_address text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.mask_email(p_address text) TO authenticated;
GRANT ALL ON FUNCTION public.mask_email(p_address text) TO service_role;

--
-- Name: TABLE email_addresses; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.email_addresses TO service_role;

--
-- Name: COLUMN email_addresses.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(id) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.user_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(user_id) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.is_account; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(is_account) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.address_masked; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(address_masked) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.status; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(status) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.stopped_reason; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(stopped_reason) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.enabled; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(enabled) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.event_types; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(event_types) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.expiring_days; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(expiring_days) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.permanent_failures; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(permanent_failures) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.confirmation_expires_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(confirmation_expires_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.confirmation_sent_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(confirmation_sent_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.confirmed_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(confirmed_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.stopped_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(stopped_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.created_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(created_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.updated_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(updated_at) ON TABLE public.email_addresses TO authenticated;

--
-- Name: COLUMN email_addresses.organization_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(organization_id) ON TABLE public.email_addresses TO authenticated;

--
-- Name: FUNCTION check_org_email_address_cap(p_new public.email_addresses); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_org_email_address_cap(p_new public.email_addresses) FROM PUBLIC;

--
-- Name: FUNCTION check_webhook_endpoint_cap(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_webhook_endpoint_cap() FROM PUBLIC;

--
-- Name: FUNCTION check_webhook_endpoint_kind(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_webhook_endpoint_kind() FROM PUBLIC;

--
-- Name: FUNCTION check_webhook_endpoint_secret(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_webhook_endpoint_secret() FROM PUBLIC;

--
-- Name: FUNCTION check_webhook_endpoint_url(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.check_webhook_endpoint_url() FROM PUBLIC;

--
-- Name: FUNCTION claim_alert_deliveries(p_limit integer, p_lease_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_alert_deliveries(p_limit integer, p_lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_alert_deliveries(p_limit integer, p_lease_seconds integer) TO service_role;

--
-- Name: FUNCTION claim_due_domains(p_limit integer, p_lease_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_due_domains(p_limit integer, p_lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_due_domains(p_limit integer, p_lease_seconds integer) TO service_role;

--
-- Name: FUNCTION claim_email_confirmations(p_limit integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_email_confirmations(p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_email_confirmations(p_limit integer) TO service_role;

--
-- Name: FUNCTION claim_email_mails(p_limit integer, p_lease_seconds integer, p_window_seconds integer, p_max_events integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_email_mails(p_limit integer, p_lease_seconds integer, p_window_seconds integer, p_max_events integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_email_mails(p_limit integer, p_lease_seconds integer, p_window_seconds integer, p_max_events integer) TO service_role;

--
-- Name: FUNCTION claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_fair_alert_deliveries(p_limit integer, p_lease_seconds integer) TO service_role;

--
-- Name: FUNCTION claim_rdap_server_proof(p_server_url text, p_suffix text, p_canary_name text, p_lease_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.claim_rdap_server_proof(p_server_url text, p_suffix text, p_canary_name text, p_lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.claim_rdap_server_proof(p_server_url text, p_suffix text, p_canary_name text, p_lease_seconds integer) TO service_role;

--
-- Name: FUNCTION cleaned_tags(p_tags text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.cleaned_tags(p_tags text[]) FROM PUBLIC;

--
-- Name: FUNCTION confirm_email_address(p_token text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.confirm_email_address(p_token text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.confirm_email_address(p_token text) TO service_role;

--
-- Name: FUNCTION consume_api_request(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.consume_api_request(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.consume_api_request(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION consume_app_check(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.consume_app_check(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.consume_app_check(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION consume_org_api_request(p_organization_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.consume_org_api_request(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.consume_org_api_request(p_organization_id uuid) TO service_role;

--
-- Name: FUNCTION consume_session_request(p_user_id uuid, p_action text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.consume_session_request(p_user_id uuid, p_action text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.consume_session_request(p_user_id uuid, p_action text) TO service_role;

--
-- Name: FUNCTION count_api_request(p_user_id uuid, p_limit integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.count_api_request(p_user_id uuid, p_limit integer) FROM PUBLIC;

--
-- Name: FUNCTION count_org_api_request(p_organization_id uuid, p_limit integer, p_count boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.count_org_api_request(p_organization_id uuid, p_limit integer, p_count boolean) FROM PUBLIC;

--
-- Name: FUNCTION create_account_email_channel(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.create_account_email_channel() FROM PUBLIC;

--
-- Name: FUNCTION defer_alert_delivery(p_delivery_id uuid, p_not_before timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamp with time zone) TO service_role;

--
-- Name: FUNCTION defer_domain_check(p_domain_name text, p_not_before timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.defer_domain_check(p_domain_name text, p_not_before timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.defer_domain_check(p_domain_name text, p_not_before timestamp with time zone) TO service_role;

--
-- Name: FUNCTION derive_unicode_name(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.derive_unicode_name() FROM PUBLIC;

--
-- Name: FUNCTION domain_name_problems(p_names text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.domain_name_problems(p_names text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION private.domain_name_problems(p_names text[]) TO service_role;

--
-- Name: FUNCTION domain_unicode_name(p_domain_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.domain_unicode_name(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.domain_unicode_name(p_domain_name text) TO service_role;

--
-- Name: FUNCTION domains_refuse_unsupported_zone(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.domains_refuse_unsupported_zone() FROM PUBLIC;

--
-- Name: FUNCTION drop_accuracy_report(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.drop_accuracy_report() FROM PUBLIC;
GRANT ALL ON FUNCTION private.drop_accuracy_report() TO service_role;

--
-- Name: FUNCTION email_channel_json(p_address public.email_addresses); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.email_channel_json(p_address public.email_addresses) FROM PUBLIC;

--
-- Name: FUNCTION email_confirmation_not_sent(p_id uuid, p_retry_at timestamp with time zone, p_error text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.email_confirmation_not_sent(p_id uuid, p_retry_at timestamp with time zone, p_error text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.email_confirmation_not_sent(p_id uuid, p_retry_at timestamp with time zone, p_error text) TO service_role;

--
-- Name: FUNCTION expiring_reminder_days(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.expiring_reminder_days(p_user_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION export_account(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.export_account(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.export_account(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION export_email_channels(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.export_email_channels(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.export_email_channels(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION export_owned_organizations(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.export_owned_organizations(p_user_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION fail_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.fail_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.fail_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) TO service_role;

--
-- Name: FUNCTION finish_failed_redelivery(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.finish_failed_redelivery() FROM PUBLIC;

--
-- Name: FUNCTION forget_previous_webhook_secret(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.forget_previous_webhook_secret() FROM PUBLIC;

--
-- Name: FUNCTION handle_new_user(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.handle_new_user() FROM PUBLIC;

--
-- Name: FUNCTION handle_user_email_change(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.handle_user_email_change() FROM PUBLIC;

--
-- Name: FUNCTION invoke_alert_delivery(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.invoke_alert_delivery() FROM PUBLIC;
GRANT ALL ON FUNCTION private.invoke_alert_delivery() TO service_role;

--
-- Name: FUNCTION invoke_rdap_poller(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.invoke_rdap_poller() FROM PUBLIC;

--
-- Name: FUNCTION iso_timestamp(p_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.iso_timestamp(p_at timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION list_org_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.list_org_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.list_org_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) TO service_role;

--
-- Name: FUNCTION list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.list_watchlist_keyset(p_user_id uuid, p_limit integer, p_cursor text) FROM PUBLIC;

--
-- Name: FUNCTION list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.list_watchlist_offset(p_user_id uuid, p_limit integer, p_offset integer) FROM PUBLIC;

--
-- Name: FUNCTION log_org_activity(p_organization_id uuid, p_actor_id uuid, p_action text, p_domain_name text, p_subject_id uuid, p_detail jsonb); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.log_org_activity(p_organization_id uuid, p_actor_id uuid, p_action text, p_domain_name text, p_subject_id uuid, p_detail jsonb) FROM PUBLIC;

--
-- Name: FUNCTION log_org_claim(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.log_org_claim() FROM PUBLIC;

--
-- Name: FUNCTION mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer) TO service_role;

--
-- Name: FUNCTION mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid) TO service_role;

--
-- Name: FUNCTION member_label(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.member_label(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.member_label(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION next_check_delay(status text, expires_at timestamp with time zone, consecutive_failures integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.next_check_delay(status text, expires_at timestamp with time zone, consecutive_failures integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.next_check_delay(status text, expires_at timestamp with time zone, consecutive_failures integer) TO service_role;

--
-- Name: FUNCTION normalized_email_address(p_address text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.normalized_email_address(p_address text) FROM PUBLIC;

--
-- Name: FUNCTION note_check_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_check_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION private.note_check_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) TO service_role;

--
-- Name: FUNCTION note_drop_prediction(p_domain_name text, p_checked_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_basis text, p_correction_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_drop_prediction(p_domain_name text, p_checked_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_basis text, p_correction_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.note_drop_prediction(p_domain_name text, p_checked_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_basis text, p_correction_seconds integer) TO service_role;

--
-- Name: FUNCTION note_live_change_account(p_domain_name text, p_checked_at timestamp with time zone, p_account uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_live_change_account(p_domain_name text, p_checked_at timestamp with time zone, p_account uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.note_live_change_account(p_domain_name text, p_checked_at timestamp with time zone, p_account uuid) TO service_role;

--
-- Name: FUNCTION note_registry_reading(p_domain_name text, p_checked_at timestamp with time zone, p_unreadable boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_registry_reading(p_domain_name text, p_checked_at timestamp with time zone, p_unreadable boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.note_registry_reading(p_domain_name text, p_checked_at timestamp with time zone, p_unreadable boolean) TO service_role;

--
-- Name: FUNCTION note_status_change(p_domain_name text, p_previous_status text, p_status text, p_changed_at timestamp with time zone, p_source text, p_registrar text, p_expires_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_status_change(p_domain_name text, p_previous_status text, p_status text, p_changed_at timestamp with time zone, p_source text, p_registrar text, p_expires_at timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION note_status_change_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_status_change_evidence(p_domain_name text, p_checked_at timestamp with time zone, p_evidence jsonb) FROM PUBLIC;

--
-- Name: FUNCTION note_unknown_reason(p_domain_name text, p_reason text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.note_unknown_reason(p_domain_name text, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.note_unknown_reason(p_domain_name text, p_reason text) TO service_role;

--
-- Name: FUNCTION nudge_alert_delivery(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.nudge_alert_delivery() FROM PUBLIC;

--
-- Name: FUNCTION on_org_member_change(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.on_org_member_change() FROM PUBLIC;

--
-- Name: FUNCTION org_add_domains(p_organization_id uuid, p_actor_id uuid, p_domain_names text[], p_detail jsonb); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_add_domains(p_organization_id uuid, p_actor_id uuid, p_domain_names text[], p_detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION private.org_add_domains(p_organization_id uuid, p_actor_id uuid, p_domain_names text[], p_detail jsonb) TO service_role;

--
-- Name: FUNCTION org_owner(p_organization_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_owner(p_organization_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION org_plan(p_organization_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_plan(p_organization_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION org_remove_domain(p_organization_id uuid, p_actor_id uuid, p_domain_name text, p_detail jsonb); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_remove_domain(p_organization_id uuid, p_actor_id uuid, p_domain_name text, p_detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION private.org_remove_domain(p_organization_id uuid, p_actor_id uuid, p_domain_name text, p_detail jsonb) TO service_role;

--
-- Name: TABLE organization_telegram_chats; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_telegram_chats TO service_role;

--
-- Name: COLUMN organization_telegram_chats.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(id) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.organization_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(organization_id) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.enabled; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(enabled) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.event_types; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(event_types) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.expiring_days; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(expiring_days) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.linked_by; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(linked_by) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.linked_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(linked_at) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: COLUMN organization_telegram_chats.updated_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(updated_at) ON TABLE public.organization_telegram_chats TO authenticated;

--
-- Name: FUNCTION org_telegram_group_json(p_group public.organization_telegram_chats); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_telegram_group_json(p_group public.organization_telegram_chats) FROM PUBLIC;

--
-- Name: FUNCTION org_watchlist_quota(p_organization_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.org_watchlist_quota(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.org_watchlist_quota(p_organization_id uuid) TO service_role;

--
-- Name: FUNCTION outbound_address_class(p_address inet); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.outbound_address_class(p_address inet) FROM PUBLIC;
GRANT ALL ON FUNCTION private.outbound_address_class(p_address inet) TO service_role;

--
-- Name: FUNCTION outbound_url_problem(p_url text, p_allow_private boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.outbound_url_problem(p_url text, p_allow_private boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.outbound_url_problem(p_url text, p_allow_private boolean) TO service_role;

--
-- Name: FUNCTION pause_telegram_sends(p_until timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.pause_telegram_sends(p_until timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.pause_telegram_sends(p_until timestamp with time zone) TO service_role;

--
-- Name: FUNCTION poller_invocations_needed(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.poller_invocations_needed() FROM PUBLIC;
GRANT ALL ON FUNCTION private.poller_invocations_needed() TO service_role;

--
-- Name: FUNCTION post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.post_to_edge_function(p_path text, p_timeout_milliseconds integer, p_times integer) FROM PUBLIC;

--
-- Name: FUNCTION punycode_decode(p_input text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.punycode_decode(p_input text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.punycode_decode(p_input text) TO service_role;

--
-- Name: FUNCTION purge_email_unsubscribe_tokens(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.purge_email_unsubscribe_tokens() FROM PUBLIC;

--
-- Name: FUNCTION purge_expired_rows(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.purge_expired_rows() FROM PUBLIC;

--
-- Name: FUNCTION queue_domain_available_alerts(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_domain_available_alerts() FROM PUBLIC;

--
-- Name: FUNCTION queue_domain_expiring_alerts(p_now timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_domain_expiring_alerts(p_now timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.queue_domain_expiring_alerts(p_now timestamp with time zone) TO service_role;

--
-- Name: FUNCTION queue_domain_pending_delete_alerts(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_domain_pending_delete_alerts() FROM PUBLIC;

--
-- Name: FUNCTION queue_domain_registration_alerts(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_domain_registration_alerts() FROM PUBLIC;

--
-- Name: FUNCTION queue_opt_in_alerts(p_type text, p_domain_name text, p_previous_status text, p_status text, p_checked_at timestamp with time zone, p_registrar text, p_expires_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_opt_in_alerts(p_type text, p_domain_name text, p_previous_status text, p_status text, p_checked_at timestamp with time zone, p_registrar text, p_expires_at timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION queue_organization_alerts(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_organization_alerts() FROM PUBLIC;

--
-- Name: FUNCTION queue_organization_expiring_alerts(p_now timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_organization_expiring_alerts(p_now timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION radar_key(p_order text, p_status text, p_expires_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_added_at timestamp with time zone, p_now timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.radar_key(p_order text, p_status text, p_expires_at timestamp with time zone, p_predicted_drop_at timestamp with time zone, p_added_at timestamp with time zone, p_now timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION radar_rank(p_order text, p_status text, p_expires_at timestamp with time zone, p_now timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.radar_rank(p_order text, p_status text, p_expires_at timestamp with time zone, p_now timestamp with time zone) FROM PUBLIC;

--
-- Name: FUNCTION rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_acquire(p_class text, p_key text, p_max_wait_ms integer) TO service_role;

--
-- Name: FUNCTION rate_limit_confirm(p_token uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_confirm(p_token uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_confirm(p_token uuid) TO service_role;

--
-- Name: TABLE rate_limit_classes; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rate_limit_classes TO service_role;

--
-- Name: FUNCTION rate_limit_late_start_ms(p_class public.rate_limit_classes, p_rate double precision); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_late_start_ms(p_class public.rate_limit_classes, p_rate double precision) FROM PUBLIC;

--
-- Name: FUNCTION rate_limit_pause(p_class text, p_key text, p_until timestamp with time zone, p_reason text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_pause(p_class text, p_key text, p_until timestamp with time zone, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_pause(p_class text, p_key text, p_until timestamp with time zone, p_reason text) TO service_role;

--
-- Name: FUNCTION rate_limit_release(p_token uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_release(p_token uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_release(p_token uuid) TO service_role;

--
-- Name: FUNCTION rate_limit_release_at(p_token uuid, p_finished_at timestamp with time zone, p_sent boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_release_at(p_token uuid, p_finished_at timestamp with time zone, p_sent boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_release_at(p_token uuid, p_finished_at timestamp with time zone, p_sent boolean) TO service_role;

--
-- Name: FUNCTION rate_limit_report(p_class text, p_key text, p_succeeded boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_report(p_class text, p_key text, p_succeeded boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_report(p_class text, p_key text, p_succeeded boolean) TO service_role;

--
-- Name: FUNCTION rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer, p_urgent boolean, p_live_account text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer, p_urgent boolean, p_live_account text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_reserve(p_class text, p_key text, p_max_wait_ms integer, p_urgent boolean, p_live_account text) TO service_role;

--
-- Name: FUNCTION rate_limit_settle(p_token uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.rate_limit_settle(p_token uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.rate_limit_settle(p_token uuid) TO service_role;

--
-- Name: FUNCTION record_alert_delivery_attempt(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.record_alert_delivery_attempt(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer) FROM PUBLIC;

--
-- Name: FUNCTION record_domain_check(p_domain_name text, p_status text, p_checked_at timestamp with time zone, p_expires_at timestamp with time zone, p_registrar text, p_succeeded boolean, p_source text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.record_domain_check(p_domain_name text, p_status text, p_checked_at timestamp with time zone, p_expires_at timestamp with time zone, p_registrar text, p_succeeded boolean, p_source text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.record_domain_check(p_domain_name text, p_status text, p_checked_at timestamp with time zone, p_expires_at timestamp with time zone, p_registrar text, p_succeeded boolean, p_source text) TO service_role;

--
-- Name: FUNCTION record_drop_observation(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.record_drop_observation() FROM PUBLIC;

--
-- Name: FUNCTION record_rdap_server_proof(p_server_url text, p_suffix text, p_claim_id uuid, p_canary_name text, p_outcome text, p_http_status integer, p_detail text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.record_rdap_server_proof(p_server_url text, p_suffix text, p_claim_id uuid, p_canary_name text, p_outcome text, p_http_status integer, p_detail text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.record_rdap_server_proof(p_server_url text, p_suffix text, p_claim_id uuid, p_canary_name text, p_outcome text, p_http_status integer, p_detail text) TO service_role;

--
-- Name: FUNCTION record_registry_answer(p_domain_name text, p_answered_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.record_registry_answer(p_domain_name text, p_answered_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.record_registry_answer(p_domain_name text, p_answered_at timestamp with time zone) TO service_role;

--
-- Name: FUNCTION refresh_drop_prediction_correction(p_registry text, p_basis text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.refresh_drop_prediction_correction(p_registry text, p_basis text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.refresh_drop_prediction_correction(p_registry text, p_basis text) TO service_role;

--
-- Name: FUNCTION refuse_invalid_domain_names(p_domain_names text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.refuse_invalid_domain_names(p_domain_names text[]) FROM PUBLIC;

--
-- Name: FUNCTION refuse_oauth_client_token(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.refuse_oauth_client_token() FROM PUBLIC;

--
-- Name: FUNCTION registrable_domain_problem(p_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.registrable_domain_problem(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.registrable_domain_problem(p_name text) TO service_role;

--
-- Name: FUNCTION registry_of(p_domain_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.registry_of(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.registry_of(p_domain_name text) TO service_role;

--
-- Name: FUNCTION require_org_role(p_organization_id uuid, p_roles text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.require_org_role(p_organization_id uuid, p_roles text[]) FROM PUBLIC;

--
-- Name: FUNCTION require_session_request(p_user_id uuid, p_action text, p_what text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.require_session_request(p_user_id uuid, p_action text, p_what text) FROM PUBLIC;

--
-- Name: FUNCTION require_webhook_plan(p_user_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.require_webhook_plan(p_user_id uuid) FROM PUBLIC;

--
-- Name: FUNCTION reserve_invite_mail(p_user_id uuid, p_invitation_id uuid); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION private.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid) TO service_role;

--
-- Name: FUNCTION reserve_telegram_send(p_chat_id text, p_messages_per_second integer, p_chat_interval_ms integer, p_max_wait_ms integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.reserve_telegram_send(p_chat_id text, p_messages_per_second integer, p_chat_interval_ms integer, p_max_wait_ms integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.reserve_telegram_send(p_chat_id text, p_messages_per_second integer, p_chat_interval_ms integer, p_max_wait_ms integer) TO service_role;

--
-- Name: FUNCTION reset_drop_prediction(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.reset_drop_prediction() FROM PUBLIC;

--
-- Name: FUNCTION retagged(p_tags text[], p_add text[], p_remove text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.retagged(p_tags text[], p_add text[], p_remove text[]) FROM PUBLIC;

--
-- Name: FUNCTION revoke_invitations_of_former_inviter(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.revoke_invitations_of_former_inviter() FROM PUBLIC;

--
-- Name: FUNCTION revoke_org_keys_of_former_admin(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.revoke_org_keys_of_former_admin() FROM PUBLIC;

--
-- Name: FUNCTION schedule_alert_delivery_retry(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.schedule_alert_delivery_retry(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.schedule_alert_delivery_retry(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone) TO service_role;

--
-- Name: FUNCTION schedule_pending_delete_check(p_domain_name text, p_checked_at timestamp with time zone, p_next_check_at timestamp with time zone); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.schedule_pending_delete_check(p_domain_name text, p_checked_at timestamp with time zone, p_next_check_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION private.schedule_pending_delete_check(p_domain_name text, p_checked_at timestamp with time zone, p_next_check_at timestamp with time zone) TO service_role;

--
-- Name: FUNCTION set_updated_at(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.set_updated_at() FROM PUBLIC;

--
-- Name: FUNCTION settle_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_breaker_threshold integer, p_breaker_base_seconds integer, p_breaker_max_seconds integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.settle_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_breaker_threshold integer, p_breaker_base_seconds integer, p_breaker_max_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.settle_alert_delivery(p_delivery_id uuid, p_outcome text, p_http_status integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_breaker_threshold integer, p_breaker_base_seconds integer, p_breaker_max_seconds integer) TO service_role;

--
-- Name: FUNCTION settle_email_mail(p_delivery_ids uuid[], p_outcome text, p_smtp_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_permanent boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.settle_email_mail(p_delivery_ids uuid[], p_outcome text, p_smtp_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_permanent boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.settle_email_mail(p_delivery_ids uuid[], p_outcome text, p_smtp_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_permanent boolean) TO service_role;

--
-- Name: FUNCTION tags_problem(p_tags text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.tags_problem(p_tags text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION private.tags_problem(p_tags text[]) TO service_role;

--
-- Name: FUNCTION telegram_chat_watchlist(p_chat_id text, p_limit integer); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.telegram_chat_watchlist(p_chat_id text, p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION private.telegram_chat_watchlist(p_chat_id text, p_limit integer) TO service_role;

--
-- Name: FUNCTION telegram_link_chat(p_token text, p_chat_id text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.telegram_link_chat(p_token text, p_chat_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.telegram_link_chat(p_token text, p_chat_id text) TO service_role;

--
-- Name: FUNCTION telegram_link_group(p_token text, p_chat_id text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.telegram_link_group(p_token text, p_chat_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.telegram_link_group(p_token text, p_chat_id text) TO service_role;

--
-- Name: FUNCTION telegram_unlink_chat(p_chat_id text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.telegram_unlink_chat(p_chat_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.telegram_unlink_chat(p_chat_id text) TO service_role;

--
-- Name: FUNCTION telegram_unlink_group(p_chat_id text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.telegram_unlink_group(p_chat_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.telegram_unlink_group(p_chat_id text) TO service_role;

--
-- Name: FUNCTION track_watch_period(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.track_watch_period() FROM PUBLIC;

--
-- Name: FUNCTION unsubscribe_email_address(p_token text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.unsubscribe_email_address(p_token text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.unsubscribe_email_address(p_token text) TO service_role;

--
-- Name: FUNCTION validated_alert_event_types(p_event_types text[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.validated_alert_event_types(p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION private.validated_alert_event_types(p_event_types text[]) TO service_role;

--
-- Name: FUNCTION validated_expiring_days(p_days integer[]); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.validated_expiring_days(p_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION private.validated_expiring_days(p_days integer[]) TO service_role;

--
-- Name: FUNCTION validated_webhook_secret(p_secret text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.validated_webhook_secret(p_secret text) FROM PUBLIC;

--
-- Name: FUNCTION validated_webhook_url(p_url text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.validated_webhook_url(p_url text) FROM PUBLIC;

--
-- Name: FUNCTION wake_alert_delivery(); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.wake_alert_delivery() FROM PUBLIC;

--
-- Name: TABLE domains; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.domains TO service_role;
GRANT SELECT ON TABLE public.domains TO authenticated;

--
-- Name: FUNCTION watched_domain_json(p_domain_name text, p_unicode_name text, p_added_at timestamp with time zone, p_domain public.domains); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.watched_domain_json(p_domain_name text, p_unicode_name text, p_added_at timestamp with time zone, p_domain public.domains) FROM PUBLIC;

--
-- Name: TABLE watchlist_entries; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.watchlist_entries TO service_role;
GRANT SELECT ON TABLE public.watchlist_entries TO authenticated;

--
-- Name: FUNCTION watched_entry_json(p_entry public.watchlist_entries, p_domain public.domains); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.watched_entry_json(p_entry public.watchlist_entries, p_domain public.domains) FROM PUBLIC;

--
-- Name: FUNCTION watched_name(p_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.watched_name(p_name text) FROM PUBLIC;

--
-- Name: FUNCTION webhook_kind_problem(p_url text, p_kind text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.webhook_kind_problem(p_url text, p_kind text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.webhook_kind_problem(p_url text, p_kind text) TO service_role;

--
-- Name: FUNCTION webhook_secret_problem(p_secret text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.webhook_secret_problem(p_secret text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.webhook_secret_problem(p_secret text) TO service_role;

--
-- Name: FUNCTION webhook_target_problem(p_url text, p_kind text, p_allow_private boolean); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION private.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean) TO service_role;

--
-- Name: FUNCTION whois_row_suffix(p_domain_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.whois_row_suffix(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.whois_row_suffix(p_domain_name text) TO service_role;

--
-- Name: FUNCTION whois_unsupported_zone(p_domain_name text); Type: ACL; Schema: private; Owner: postgres
--

REVOKE ALL ON FUNCTION private.whois_unsupported_zone(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION private.whois_unsupported_zone(p_domain_name text) TO service_role;

--
-- Name: FUNCTION accept_invitation(p_token text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.accept_invitation(p_token text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.accept_invitation(p_token text) TO authenticated;

--
-- Name: FUNCTION account_overview(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.account_overview() FROM PUBLIC;
GRANT ALL ON FUNCTION public.account_overview() TO authenticated;

--
-- Name: FUNCTION add_email_address(p_address text, p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.add_email_address(p_address text, p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.add_email_address(p_address text, p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION add_organization_email_address(p_organization_id uuid, p_address text, p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.add_organization_email_address(p_organization_id uuid, p_address text, p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.add_organization_email_address(p_organization_id uuid, p_address text, p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.add_organization_watchlist_domains(p_organization_id uuid, p_domain_names text[]) TO authenticated;

--
-- Name: FUNCTION add_watchlist_domains(p_domain_names text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.add_watchlist_domains(p_domain_names text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.add_watchlist_domains(p_domain_names text[]) TO authenticated;

--
-- Name: FUNCTION alert_event_types(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.alert_event_types() FROM PUBLIC;
GRANT ALL ON FUNCTION public.alert_event_types() TO authenticated;
GRANT ALL ON FUNCTION public.alert_event_types() TO service_role;

--
-- Name: FUNCTION calendar_feed(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.calendar_feed() FROM PUBLIC;
GRANT ALL ON FUNCTION public.calendar_feed() TO authenticated;

--
-- Name: FUNCTION claim_organization_domain(p_organization_id uuid, p_domain_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.claim_organization_domain(p_organization_id uuid, p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.claim_organization_domain(p_organization_id uuid, p_domain_name text) TO authenticated;

--
-- Name: FUNCTION create_api_key(p_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_api_key(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_api_key(p_name text) TO authenticated;

--
-- Name: FUNCTION create_calendar_feed(p_reminder_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_calendar_feed(p_reminder_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_calendar_feed(p_reminder_days integer[]) TO authenticated;

--
-- Name: FUNCTION create_organization(p_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_organization(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_organization(p_name text) TO authenticated;

--
-- Name: FUNCTION create_organization_api_key(p_organization_id uuid, p_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_organization_api_key(p_organization_id uuid, p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_organization_api_key(p_organization_id uuid, p_name text) TO authenticated;

--
-- Name: FUNCTION create_organization_telegram_link(p_organization_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_organization_telegram_link(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_organization_telegram_link(p_organization_id uuid) TO authenticated;

--
-- Name: FUNCTION create_organization_webhook(p_organization_id uuid, p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_organization_webhook(p_organization_id uuid, p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_organization_webhook(p_organization_id uuid, p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION create_telegram_link(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_telegram_link() FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_telegram_link() TO authenticated;

--
-- Name: FUNCTION create_webhook_endpoint(p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.create_webhook_endpoint(p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.create_webhook_endpoint(p_url text, p_description text, p_secret text, p_kind text, p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION current_account_id(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.current_account_id() FROM PUBLIC;
GRANT ALL ON FUNCTION public.current_account_id() TO authenticated;
GRANT ALL ON FUNCTION public.current_account_id() TO service_role;

--
-- Name: FUNCTION delete_email_address(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.delete_email_address(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.delete_email_address(p_id uuid) TO authenticated;

--
-- Name: FUNCTION delete_organization_email_address(p_organization_id uuid, p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.delete_organization_email_address(p_organization_id uuid, p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.delete_organization_email_address(p_organization_id uuid, p_id uuid) TO authenticated;

--
-- Name: FUNCTION delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.delete_organization_webhook(p_organization_id uuid, p_webhook_id uuid) TO authenticated;

--
-- Name: FUNCTION delete_webhook_endpoint(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.delete_webhook_endpoint(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.delete_webhook_endpoint(p_id uuid) TO authenticated;

--
-- Name: FUNCTION domain_detail(p_domain_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.domain_detail(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.domain_detail(p_domain_name text) TO authenticated;

--
-- Name: FUNCTION has_org_role(org uuid, roles text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.has_org_role(org uuid, roles text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.has_org_role(org uuid, roles text[]) TO authenticated;
GRANT ALL ON FUNCTION public.has_org_role(org uuid, roles text[]) TO service_role;

--
-- Name: FUNCTION invitation_for_sending(p_invitation_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.invitation_for_sending(p_invitation_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.invitation_for_sending(p_invitation_id uuid) TO authenticated;

--
-- Name: FUNCTION is_oauth_client_token(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.is_oauth_client_token() FROM PUBLIC;
GRANT ALL ON FUNCTION public.is_oauth_client_token() TO authenticated;
GRANT ALL ON FUNCTION public.is_oauth_client_token() TO service_role;

--
-- Name: FUNCTION is_valid_domain_name(p_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.is_valid_domain_name(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.is_valid_domain_name(p_name text) TO authenticated;
GRANT ALL ON FUNCTION public.is_valid_domain_name(p_name text) TO service_role;

--
-- Name: FUNCTION list_email_channels(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_email_channels() FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_email_channels() TO authenticated;

--
-- Name: FUNCTION list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_email_deliveries(p_address_id uuid, p_limit integer, p_cursor text) TO authenticated;

--
-- Name: FUNCTION list_organization_email_addresses(p_organization_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_organization_email_addresses(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_organization_email_addresses(p_organization_id uuid) TO authenticated;

--
-- Name: FUNCTION list_organization_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_organization_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_organization_watchlist(p_organization_id uuid, p_limit integer, p_offset integer, p_cursor text) TO authenticated;

--
-- Name: FUNCTION list_watchlist(p_limit integer, p_offset integer, p_cursor text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_watchlist(p_limit integer, p_offset integer, p_cursor text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_watchlist(p_limit integer, p_offset integer, p_cursor text) TO authenticated;

--
-- Name: FUNCTION list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.list_webhook_deliveries(p_endpoint_id uuid, p_limit integer, p_cursor text) TO authenticated;

--
-- Name: FUNCTION mask_url(p_url text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.mask_url(p_url text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.mask_url(p_url text) TO authenticated;
GRANT ALL ON FUNCTION public.mask_url(p_url text) TO service_role;

--
-- Name: FUNCTION organization_telegram_group(p_organization_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.organization_telegram_group(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.organization_telegram_group(p_organization_id uuid) TO authenticated;

--
-- Name: FUNCTION organization_watchlist_page(p_organization_id uuid, p_status text, p_search text, p_limit integer, p_offset integer); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.organization_watchlist_page(p_organization_id uuid, p_status text, p_search text, p_limit integer, p_offset integer) FROM PUBLIC;
GRANT ALL ON FUNCTION public.organization_watchlist_page(p_organization_id uuid, p_status text, p_search text, p_limit integer, p_offset integer) TO authenticated;

--
-- Name: FUNCTION redeliver_email_delivery(p_delivery_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.redeliver_email_delivery(p_delivery_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.redeliver_email_delivery(p_delivery_id uuid) TO authenticated;

--
-- Name: FUNCTION redeliver_webhook_delivery(p_delivery_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.redeliver_webhook_delivery(p_delivery_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.redeliver_webhook_delivery(p_delivery_id uuid) TO authenticated;

--
-- Name: FUNCTION release_organization_domain_claim(p_organization_id uuid, p_domain_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.release_organization_domain_claim(p_organization_id uuid, p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.release_organization_domain_claim(p_organization_id uuid, p_domain_name text) TO authenticated;

--
-- Name: FUNCTION remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.remove_organization_watchlist_domain(p_organization_id uuid, p_domain_name text) TO authenticated;

--
-- Name: FUNCTION remove_watchlist_domain(p_domain_name text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.remove_watchlist_domain(p_domain_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.remove_watchlist_domain(p_domain_name text) TO authenticated;

--
-- Name: FUNCTION resend_email_confirmation(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.resend_email_confirmation(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.resend_email_confirmation(p_id uuid) TO authenticated;

--
-- Name: FUNCTION resend_organization_email_confirmation(p_organization_id uuid, p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.resend_organization_email_confirmation(p_organization_id uuid, p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.resend_organization_email_confirmation(p_organization_id uuid, p_id uuid) TO authenticated;

--
-- Name: FUNCTION revoke_api_key(p_key_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.revoke_api_key(p_key_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.revoke_api_key(p_key_id uuid) TO authenticated;

--
-- Name: FUNCTION revoke_calendar_feed(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.revoke_calendar_feed() FROM PUBLIC;
GRANT ALL ON FUNCTION public.revoke_calendar_feed() TO authenticated;

--
-- Name: FUNCTION revoke_organization_api_key(p_organization_id uuid, p_key_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.revoke_organization_api_key(p_organization_id uuid, p_key_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.revoke_organization_api_key(p_organization_id uuid, p_key_id uuid) TO authenticated;

--
-- Name: FUNCTION rotate_webhook_secret(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.rotate_webhook_secret(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.rotate_webhook_secret(p_id uuid) TO authenticated;

--
-- Name: FUNCTION send_email_test(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.send_email_test(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.send_email_test(p_id uuid) TO authenticated;

--
-- Name: FUNCTION send_telegram_test(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.send_telegram_test() FROM PUBLIC;
GRANT ALL ON FUNCTION public.send_telegram_test() TO authenticated;

--
-- Name: FUNCTION send_webhook_test(p_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.send_webhook_test(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.send_webhook_test(p_id uuid) TO authenticated;

--
-- Name: FUNCTION set_calendar_reminder_days(p_reminder_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_calendar_reminder_days(p_reminder_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_calendar_reminder_days(p_reminder_days integer[]) TO authenticated;

--
-- Name: FUNCTION set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_organization_personal_alerts(p_organization_id uuid, p_enabled boolean) TO authenticated;

--
-- Name: FUNCTION set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_organization_webhook_enabled(p_organization_id uuid, p_webhook_id uuid, p_enabled boolean) TO authenticated;

--
-- Name: FUNCTION set_telegram_chat(p_chat_id text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_telegram_chat(p_chat_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_telegram_chat(p_chat_id text) TO authenticated;

--
-- Name: FUNCTION set_telegram_enabled(p_enabled boolean); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_telegram_enabled(p_enabled boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_telegram_enabled(p_enabled boolean) TO authenticated;

--
-- Name: FUNCTION set_telegram_event_types(p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_telegram_event_types(p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_telegram_event_types(p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION set_telegram_expiring_days(p_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_telegram_expiring_days(p_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_telegram_expiring_days(p_days integer[]) TO authenticated;

--
-- Name: FUNCTION set_watchlist_details(p_items jsonb); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_watchlist_details(p_items jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_watchlist_details(p_items jsonb) TO authenticated;

--
-- Name: FUNCTION set_webhook_expiring_days(p_id uuid, p_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_webhook_expiring_days(p_id uuid, p_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_webhook_expiring_days(p_id uuid, p_days integer[]) TO authenticated;

--
-- Name: FUNCTION set_webhook_secret(p_id uuid, p_secret text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.set_webhook_secret(p_id uuid, p_secret text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.set_webhook_secret(p_id uuid, p_secret text) TO authenticated;

--
-- Name: FUNCTION shares_organization_with(p_user_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.shares_organization_with(p_user_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.shares_organization_with(p_user_id uuid) TO authenticated;
GRANT ALL ON FUNCTION public.shares_organization_with(p_user_id uuid) TO service_role;

--
-- Name: FUNCTION tag_watchlist_domains(p_domain_names text[], p_add text[], p_remove text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.tag_watchlist_domains(p_domain_names text[], p_add text[], p_remove text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.tag_watchlist_domains(p_domain_names text[], p_add text[], p_remove text[]) TO authenticated;

--
-- Name: FUNCTION unlink_organization_telegram_group(p_organization_id uuid); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.unlink_organization_telegram_group(p_organization_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.unlink_organization_telegram_group(p_organization_id uuid) TO authenticated;

--
-- Name: FUNCTION update_email_address(p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.update_email_address(p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.update_email_address(p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) TO authenticated;

--
-- Name: FUNCTION update_organization_email_address(p_organization_id uuid, p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.update_organization_email_address(p_organization_id uuid, p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.update_organization_email_address(p_organization_id uuid, p_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) TO authenticated;

--
-- Name: FUNCTION update_organization_telegram_group(p_organization_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.update_organization_telegram_group(p_organization_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.update_organization_telegram_group(p_organization_id uuid, p_enabled boolean, p_event_types text[], p_expiring_days integer[]) TO authenticated;

--
-- Name: FUNCTION update_webhook_endpoint(p_id uuid, p_url text, p_description text, p_enabled boolean, p_kind text, p_event_types text[]); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.update_webhook_endpoint(p_id uuid, p_url text, p_description text, p_enabled boolean, p_kind text, p_event_types text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.update_webhook_endpoint(p_id uuid, p_url text, p_description text, p_enabled boolean, p_kind text, p_event_types text[]) TO authenticated;

--
-- Name: FUNCTION watchlist_page(p_status text, p_search text, p_limit integer, p_offset integer, p_order text, p_after text, p_focus text, p_tag text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.watchlist_page(p_status text, p_search text, p_limit integer, p_offset integer, p_order text, p_after text, p_focus text, p_tag text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.watchlist_page(p_status text, p_search text, p_limit integer, p_offset integer, p_order text, p_after text, p_focus text, p_tag text) TO authenticated;

--
-- Name: FUNCTION watchlist_summary(); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.watchlist_summary() FROM PUBLIC;
GRANT ALL ON FUNCTION public.watchlist_summary() TO authenticated;

--
-- Name: FUNCTION webhook_url_problem(p_url text); Type: ACL; Schema: public; Owner: postgres
--

REVOKE ALL ON FUNCTION public.webhook_url_problem(p_url text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.webhook_url_problem(p_url text) TO authenticated;
GRANT ALL ON FUNCTION public.webhook_url_problem(p_url text) TO service_role;

--
-- Name: TABLE domain_name_rules; Type: ACL; Schema: private; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE private.domain_name_rules TO service_role;

--
-- Name: TABLE notification_settings; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.notification_settings TO service_role;
GRANT DELETE ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.user_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(user_id) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.telegram_enabled; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(telegram_enabled) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.telegram_configured; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(telegram_configured) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.updated_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(updated_at) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.telegram_linked_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(telegram_linked_at) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.telegram_event_types; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(telegram_event_types) ON TABLE public.notification_settings TO authenticated;

--
-- Name: COLUMN notification_settings.telegram_expiring_days; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(telegram_expiring_days) ON TABLE public.notification_settings TO authenticated;

--
-- Name: TABLE plans; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.plans TO service_role;
GRANT SELECT ON TABLE public.plans TO authenticated;

--
-- Name: TABLE profiles; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.profiles TO service_role;
GRANT SELECT ON TABLE public.profiles TO authenticated;

--
-- Name: COLUMN profiles.display_name; Type: ACL; Schema: public; Owner: postgres
--

GRANT UPDATE(display_name) ON TABLE public.profiles TO authenticated;

--
-- Name: TABLE webhook_endpoints; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.webhook_endpoints TO service_role;
GRANT DELETE ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(id) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.user_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(user_id) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.secret_configured; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(secret_configured) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.description; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(description) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.enabled; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(enabled) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.created_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(created_at) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.updated_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(updated_at) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.url_masked; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(url_masked) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.kind; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(kind) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.event_types; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(event_types) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.expiring_days; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(expiring_days) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: COLUMN webhook_endpoints.organization_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(organization_id) ON TABLE public.webhook_endpoints TO authenticated;

--
-- Name: TABLE public_suffixes; Type: ACL; Schema: private; Owner: postgres
--

GRANT SELECT ON TABLE private.public_suffixes TO service_role;

--
-- Name: TABLE alert_deliveries; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.alert_deliveries TO service_role;
GRANT SELECT ON TABLE public.alert_deliveries TO authenticated;

--
-- Name: TABLE alert_delivery_attempts; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.alert_delivery_attempts TO service_role;
GRANT SELECT ON TABLE public.alert_delivery_attempts TO authenticated;

--
-- Name: SEQUENCE alert_delivery_attempts_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.alert_delivery_attempts_id_seq TO service_role;

--
-- Name: TABLE alert_delivery_lanes; Type: ACL; Schema: public; Owner: postgres
--

GRANT ALL ON TABLE public.alert_delivery_lanes TO service_role;

--
-- Name: COLUMN alert_delivery_lanes.lane_key; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(lane_key) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.user_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(user_id) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.channel; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(channel) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.webhook_endpoint_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(webhook_endpoint_id) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.breaker_state; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(breaker_state) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.consecutive_failures; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(consecutive_failures) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.opened_count; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(opened_count) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.opened_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(opened_at) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.next_probe_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(next_probe_at) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.updated_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(updated_at) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: COLUMN alert_delivery_lanes.email_address_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(email_address_id) ON TABLE public.alert_delivery_lanes TO authenticated;

--
-- Name: TABLE alert_delivery_wake; Type: ACL; Schema: public; Owner: postgres
--

GRANT ALL ON TABLE public.alert_delivery_wake TO service_role;

--
-- Name: TABLE alert_events; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.alert_events TO service_role;
GRANT SELECT ON TABLE public.alert_events TO authenticated;

--
-- Name: TABLE api_keys; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.api_keys TO service_role;

--
-- Name: COLUMN api_keys.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(id) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.user_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(user_id) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.name; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(name) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.prefix; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(prefix) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.created_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(created_at) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.last_used_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(last_used_at) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.revoked_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(revoked_at) ON TABLE public.api_keys TO authenticated;

--
-- Name: COLUMN api_keys.organization_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(organization_id) ON TABLE public.api_keys TO authenticated;

--
-- Name: TABLE api_request_counters; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.api_request_counters TO service_role;
GRANT SELECT ON TABLE public.api_request_counters TO authenticated;

--
-- Name: TABLE app_check_counters; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.app_check_counters TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.app_check_counters TO service_role;

--
-- Name: TABLE domain_expiry_reminders; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.domain_expiry_reminders TO service_role;

--
-- Name: TABLE domain_status_changes; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.domain_status_changes TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.domain_status_changes TO service_role;

--
-- Name: SEQUENCE domain_status_changes_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.domain_status_changes_id_seq TO service_role;

--
-- Name: TABLE drop_observations; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.drop_observations TO service_role;

--
-- Name: SEQUENCE drop_observations_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.drop_observations_id_seq TO service_role;

--
-- Name: TABLE drop_prediction_corrections; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.drop_prediction_corrections TO service_role;

--
-- Name: TABLE email_unsubscribe_tokens; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.email_unsubscribe_tokens TO service_role;

--
-- Name: TABLE invitations; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.invitations TO service_role;

--
-- Name: COLUMN invitations.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(id) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.organization_id; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(organization_id),INSERT(organization_id) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.email; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(email),INSERT(email) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.role; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(role),INSERT(role) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.status; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(status),UPDATE(status) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.invited_by; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(invited_by) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.created_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(created_at) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.expires_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(expires_at) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.emailed_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(emailed_at) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.accepted_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(accepted_at) ON TABLE public.invitations TO authenticated;

--
-- Name: COLUMN invitations.accepted_by; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT(accepted_by) ON TABLE public.invitations TO authenticated;

--
-- Name: TABLE invite_mail_limits; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE public.invite_mail_limits TO service_role;

--
-- Name: TABLE invite_mail_log; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.invite_mail_log TO service_role;

--
-- Name: SEQUENCE invite_mail_log_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.invite_mail_log_id_seq TO service_role;

--
-- Name: TABLE live_check_cache; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.live_check_cache TO service_role;

--
-- Name: TABLE organization_activity; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_activity TO service_role;
GRANT SELECT ON TABLE public.organization_activity TO authenticated;

--
-- Name: SEQUENCE organization_activity_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.organization_activity_id_seq TO service_role;

--
-- Name: TABLE organization_api_request_counters; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_api_request_counters TO service_role;

--
-- Name: TABLE organization_claims; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_claims TO service_role;
GRANT SELECT ON TABLE public.organization_claims TO authenticated;

--
-- Name: TABLE organization_members; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_members TO service_role;
GRANT SELECT,DELETE ON TABLE public.organization_members TO authenticated;

--
-- Name: COLUMN organization_members.role; Type: ACL; Schema: public; Owner: postgres
--

GRANT UPDATE(role) ON TABLE public.organization_members TO authenticated;

--
-- Name: TABLE organization_telegram_link_tokens; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_telegram_link_tokens TO service_role;

--
-- Name: TABLE organization_watchlist_entries; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organization_watchlist_entries TO service_role;
GRANT SELECT ON TABLE public.organization_watchlist_entries TO authenticated;

--
-- Name: SEQUENCE organization_watchlist_entries_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.organization_watchlist_entries_id_seq TO service_role;

--
-- Name: TABLE organizations; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.organizations TO service_role;
GRANT SELECT,DELETE ON TABLE public.organizations TO authenticated;

--
-- Name: COLUMN organizations.name; Type: ACL; Schema: public; Owner: postgres
--

GRANT UPDATE(name) ON TABLE public.organizations TO authenticated;

--
-- Name: TABLE poller_settings; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE public.poller_settings TO service_role;

--
-- Name: TABLE rate_limit_keys; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rate_limit_keys TO service_role;

--
-- Name: TABLE rate_limit_live_accounts; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.rate_limit_live_accounts TO service_role;

--
-- Name: TABLE rate_limit_slots; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.rate_limit_slots TO service_role;

--
-- Name: TABLE rdap_bootstrap_cache; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rdap_bootstrap_cache TO service_role;

--
-- Name: TABLE rdap_server_overrides; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rdap_server_overrides TO service_role;

--
-- Name: TABLE rdap_server_proofs; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rdap_server_proofs TO service_role;

--
-- Name: TABLE retention_settings; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE public.retention_settings TO service_role;

--
-- Name: TABLE session_action_limits; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.session_action_limits TO service_role;

--
-- Name: TABLE session_request_log; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.session_request_log TO service_role;
GRANT SELECT ON TABLE public.session_request_log TO authenticated;

--
-- Name: SEQUENCE session_request_log_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.session_request_log_id_seq TO service_role;

--
-- Name: TABLE telegram_bot_settings; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE public.telegram_bot_settings TO service_role;

--
-- Name: TABLE telegram_chat_send_pace; Type: ACL; Schema: public; Owner: postgres
--

GRANT ALL ON TABLE public.telegram_chat_send_pace TO service_role;

--
-- Name: TABLE telegram_link_tokens; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.telegram_link_tokens TO service_role;

--
-- Name: TABLE telegram_send_pace; Type: ACL; Schema: public; Owner: postgres
--

GRANT ALL ON TABLE public.telegram_send_pace TO service_role;

--
-- Name: TABLE watch_periods; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.watch_periods TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.watch_periods TO service_role;

--
-- Name: SEQUENCE watchlist_entries_id_seq; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE public.watchlist_entries_id_seq TO service_role;

--
-- Name: TABLE webhook_endpoint_breakers; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT ON TABLE public.webhook_endpoint_breakers TO service_role;
GRANT SELECT ON TABLE public.webhook_endpoint_breakers TO authenticated;

--
-- Name: TABLE webhook_target_policy; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,UPDATE ON TABLE public.webhook_target_policy TO service_role;

--
-- Name: TABLE whois_servers; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.whois_servers TO service_role;

--
-- PostgreSQL database dump complete
--

--
-- pg_cron jobs (cron.job): name | schedule | active | command
--   alert-delivery | * * * * * | active |  select private.invoke_alert_delivery() 
--   domain-expiring-alerts | */10 * * * * | active |  select private.queue_domain_expiring_alerts() 
--   dwl-prune-invite-mail-log | 27 3 * * * | active |  delete from public.invite_mail_log where sent_at < now() - interval '2 days'; 
--   dwl-prune-request-limits | 17 3 * * * | active | \n      delete from public.api_request_counters where day < (now() at time zone 'UTC')::date - 90;\n      delete from public.session_request_log where requested_at < now() - interval '2 days';\n    
--   email-unsubscribe-token-purge | 17 3 * * * | active |  select private.purge_email_unsubscribe_tokens() 
--   purge-expired-rows | 17 3 * * * | active |  select private.purge_expired_rows() 
--   rdap-poller | * * * * * | active |  select private.invoke_rdap_poller() 
