-- Local stand-in for pg_net 0.20.4 (github.com/supabase/pg_net, sql/pg_net.sql): the same schema, tables,
-- types, functions and grants, written for this project; no C. What pg_net's C does here:
--   * net.wake() notifies the channel net_http_request; platform/pg_net/worker.ts listens (and polls), takes
--     each queued row out of net.http_request_queue (deleting it, as pg_net's worker does), sends it and
--     writes the outcome to net._http_response (kept 6 hours, pg_net.ttl's default);
--   * net._urlencode_string and net._encode_url_with_params_array percent-encode in plpgsql;
--   * net.check_worker_is_up, net.wait_until_running and net.worker_restart look for the stand-in worker's
--     session (application_name 'pg_net worker').
-- Grants as pg_net >= 0.12 sets them and Supabase keeps them today: schema net, its tables and sequences to
-- PUBLIC; the functions keep PostgreSQL's default EXECUTE for PUBLIC and run as their caller (security
-- invoker). So any role that reaches a function calling net.http_post can send requests: guard the callers.
--
-- A schema net that already exists (made by an earlier version of the local bootstrap, before pg_net was an
-- extension here) is kept as it is, so clusters made then keep working; the extension then owns nothing.

do $install$
begin
  if pg_catalog.to_regnamespace('net') is not null then
    raise notice 'pg_net stand-in: schema net already exists (an earlier local bootstrap made it); kept as it is';
    return;
  end if;

  create schema net;

  create domain net.http_method as text
    check (value ilike 'get' or value ilike 'post' or value ilike 'delete');

  -- Requests waiting for the worker (private to pg_net).
  create unlogged table net.http_request_queue (
    id bigserial,
    method net.http_method not null,
    url text not null,
    headers jsonb,
    body bytea,
    timeout_milliseconds integer not null
  );

  -- The outcome of each request, by the request's id (private to pg_net).
  create unlogged table net._http_response (
    id bigint,
    status_code integer,
    content_type text,
    headers jsonb,
    content text,
    timed_out boolean,
    error_msg text,
    created timestamptz not null default now()
  );
  create index on net._http_response (created);

  create type net.request_status as enum ('PENDING', 'SUCCESS', 'ERROR');
  create type net.http_response as (status_code integer, headers jsonb, body text);
  create type net.http_response_result as (status net.request_status, message text, response net.http_response);

  create function net.wake()
  returns void
  language sql
  as $fn$ select pg_catalog.pg_notify('net_http_request', '') $fn$;

  create function net.check_worker_is_up()
  returns void
  language plpgsql
  as $fn$
  begin
    if not exists (select 1 from pg_catalog.pg_stat_activity where application_name = 'pg_net worker') then
      raise exception using
        message = 'the pg_net background worker is not up',
        detail = 'the local stand-in worker (platform/pg_net/worker.ts) is not connected',
        hint = 'start it: deno task start runs it';
    end if;
  end
  $fn$;
  comment on function net.check_worker_is_up() is
    'raises an exception if the pg_net background worker is not up, otherwise it doesn''t return anything';

  create function net.wait_until_running()
  returns void
  language plpgsql
  as $fn$
  begin
    while not exists (select 1 from pg_catalog.pg_stat_activity where application_name = 'pg_net worker') loop
      perform pg_catalog.pg_sleep(0.05);
    end loop;
  end
  $fn$;
  comment on function net.wait_until_running() is 'waits until the worker is running';

  create function net.worker_restart()
  returns boolean
  language sql
  as $fn$
    select exists (select 1 from pg_catalog.pg_stat_activity where application_name = 'pg_net worker')
  $fn$;

  -- Percent-encodes everything but RFC 3986's unreserved characters, byte by byte of the UTF-8 text.
  create function net._urlencode_string(string varchar)
  returns text
  language plpgsql
  immutable
  as $fn$
  declare
    v_bytes bytea := pg_catalog.convert_to(string, 'UTF8');
    v_out text := '';
    v_byte integer;
  begin
    if string is null then
      return null;
    end if;
    for i in 0 .. pg_catalog.length(v_bytes) - 1 loop
      v_byte := pg_catalog.get_byte(v_bytes, i);
      if (v_byte between 48 and 57) or (v_byte between 65 and 90) or (v_byte between 97 and 122)
         or v_byte in (45, 46, 95, 126) then
        v_out := v_out || pg_catalog.chr(v_byte);
      else
        v_out := v_out || '%' || pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(v_byte), 2, '0'));
      end if;
    end loop;
    return v_out;
  end
  $fn$;

  -- The URL with the already encoded `key=value` pairs appended as its query (after any query it has).
  create function net._encode_url_with_params_array(url text, params_array text[])
  returns text
  language sql
  immutable
  as $fn$
    select case
      when coalesce(pg_catalog.cardinality(params_array), 0) = 0 then url
      else url || case when pg_catalog.strpos(url, '?') > 0 then '&' else '?' end
               || pg_catalog.array_to_string(params_array, '&')
    end
  $fn$;

  create function net.http_get(
    url text,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{}'::jsonb,
    timeout_milliseconds integer default 5000
  )
  returns bigint
  language plpgsql
  as $fn$
  declare
    v_params text[];
    v_id bigint;
  begin
    select coalesce(pg_catalog.array_agg(net._urlencode_string(p.key) || '=' || net._urlencode_string(p.value)), '{}')
      into v_params
      from pg_catalog.jsonb_each_text(params) as p;
    insert into net.http_request_queue (method, url, headers, timeout_milliseconds)
    values ('GET', net._encode_url_with_params_array(url, v_params), headers, timeout_milliseconds)
    returning id into v_id;
    perform net.wake();
    return v_id;
  end
  $fn$;

  create function net.http_post(
    url text,
    body jsonb default '{}'::jsonb,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
    timeout_milliseconds integer default 5000
  )
  returns bigint
  language plpgsql
  as $fn$
  declare
    v_headers jsonb := headers;
    v_content_type text;
    v_params text[];
    v_id bigint;
  begin
    select h.value into v_content_type
      from pg_catalog.jsonb_each_text(coalesce(headers, '{}'::jsonb)) as h
     where pg_catalog.lower(h.key) = 'content-type'
     limit 1;
    if v_content_type is null then
      v_headers := v_headers || '{"Content-Type": "application/json"}'::jsonb;
    elsif v_content_type <> 'application/json' then
      raise exception 'Content-Type header must be "application/json"';
    end if;
    select coalesce(pg_catalog.array_agg(net._urlencode_string(p.key) || '=' || net._urlencode_string(p.value)), '{}')
      into v_params
      from pg_catalog.jsonb_each_text(params) as p;
    insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
    values ('POST', net._encode_url_with_params_array(url, v_params), v_headers,
            pg_catalog.convert_to(body::text, 'UTF8'), timeout_milliseconds)
    returning id into v_id;
    perform net.wake();
    return v_id;
  end
  $fn$;

  create function net.http_delete(
    url text,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{}'::jsonb,
    timeout_milliseconds integer default 5000,
    body jsonb default null
  )
  returns bigint
  language plpgsql
  as $fn$
  declare
    v_params text[];
    v_id bigint;
  begin
    select coalesce(pg_catalog.array_agg(net._urlencode_string(p.key) || '=' || net._urlencode_string(p.value)), '{}')
      into v_params
      from pg_catalog.jsonb_each_text(params) as p;
    insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
    values ('DELETE', net._encode_url_with_params_array(url, v_params), headers,
            pg_catalog.convert_to(body::text, 'UTF8'), timeout_milliseconds)
    returning id into v_id;
    perform net.wake();
    return v_id;
  end
  $fn$;

  -- Waits (50 ms steps) until the request has a response.
  create function net._await_response(request_id bigint)
  returns boolean
  language plpgsql
  as $fn$
  begin
    while not exists (select 1 from net._http_response as r where r.id = request_id) loop
      perform pg_catalog.pg_sleep(0.05);
    end loop;
    return true;
  end
  $fn$;

  create function net._http_collect_response(request_id bigint, async boolean default true)
  returns net.http_response_result
  language plpgsql
  as $fn$
  declare
    v_response net._http_response;
  begin
    if not async then
      perform net._await_response(request_id);
    end if;
    select * into v_response from net._http_response as r where r.id = request_id;
    if v_response is null or v_response.error_msg is not null then
      return ('ERROR', coalesce(v_response.error_msg, 'request matching request_id not found'), null)
        ::net.http_response_result;
    end if;
    return ('SUCCESS', 'ok', (v_response.status_code, v_response.headers, v_response.content)::net.http_response)
      ::net.http_response_result;
  end
  $fn$;

  create function net.http_collect_response(request_id bigint, async boolean default true)
  returns net.http_response_result
  language plpgsql
  as $fn$
  begin
    raise notice 'The net.http_collect_response function is deprecated.';
    return net._http_collect_response(request_id, async);
  end
  $fn$;

  grant usage on schema net to public;
  grant all on all sequences in schema net to public;
  grant all on all tables in schema net to public;
end
$install$;
