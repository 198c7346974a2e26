-- The API's two credentials share one admission rule: an API key (x-api-key) and an OAuth access token
-- issued by Supabase Auth's OAuth 2.1 server (MCP only; the token's user is the account).
--
-- Replaces or alters these existing objects:
--   * public.authorize_api_request(text, boolean) (redefined whole, same signature and results): the plan
--     gate and the count now come from admit_api_request;
-- New:
--   * public.admit_api_request(uuid, text, boolean, integer, boolean) (internal): the plan gate and the
--     daily count of an identified account, the one place that rule lives;
--   * public.authorize_account_request(uuid, boolean) (service_role): the same admission for an account
--     identified by a verified OAuth access token.

-- ---------------------------------------------------------------------------------------------------
-- admit_api_request: an identified account on its plan → outcome 'upgrade_required' (plan without API
-- access: nothing counted, allowed false) or 'ok' with the allowance: counted when p_count, else today's
-- as is. Internal (called by the definer functions below only).
-- ---------------------------------------------------------------------------------------------------
create function public.admit_api_request(
  p_user_id uuid,
  p_plan_id text,
  p_api_access boolean,
  p_requests_per_day integer,
  p_count boolean
)
returns table (
  outcome text,
  user_id uuid,
  plan_id text,
  allowed boolean,
  request_limit integer,
  remaining integer,
  reset_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
begin
  if not p_api_access then
    return query select 'upgrade_required'::text, p_user_id, p_plan_id, false, p_requests_per_day,
                        null::integer, null::timestamptz;
    return;
  end if;

  if p_count then
    return query select 'ok'::text, p_user_id, p_plan_id, c.allowed, c.request_limit, c.remaining, c.reset_at
                   from public.count_api_request(p_user_id, p_requests_per_day) as c;
  else
    return query select 'ok'::text, p_user_id, p_plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at
                   from public.api_request_allowance(p_user_id) as a;
  end if;
end
$$;

revoke all on function public.admit_api_request(uuid, text, boolean, integer, boolean)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------
-- authorize_api_request (redefined): the first and only database step of an API-key request before its
-- data work. outcome 'unauthorized' (unknown, revoked or no key), else admit_api_request's answer.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.authorize_api_request(p_key_hash text, p_count boolean default true)
returns table (
  outcome text,
  user_id uuid,
  plan_id text,
  allowed boolean,
  request_limit integer,
  remaining integer,
  reset_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_key_id uuid;
  v_user_id uuid;
  v_last_used_at timestamptz;
  v_plan_id text;
  v_api_access boolean;
  v_requests_per_day integer;
begin
  if p_key_hash is null or p_key_hash = '' then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz;
    return;
  end if;

  select k.id, k.user_id, k.last_used_at, p.plan_id, pl.api_access, pl.requests_per_day
    into v_key_id, v_user_id, v_last_used_at, v_plan_id, v_api_access, v_requests_per_day
    from public.api_keys as k
    join public.profiles as p on p.id = k.user_id
    join public.plans as pl on pl.id = p.plan_id
   where k.key_hash = p_key_hash
     and k.revoked_at is null;

  if not found then
    return query select 'unauthorized'::text, null::uuid, null::text, false, null::integer, null::integer,
                        null::timestamptz;
    return;
  end if;

  -- Record use at most once a minute, and never wait for a concurrent request holding the row. Like the
  -- counter, this bookkeeping need not wait for a durable flush (see count_api_request).
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

  return query select * from public.admit_api_request(v_user_id, v_plan_id, v_api_access, v_requests_per_day,
                                                      p_count);
end
$$;

revoke all on function public.authorize_api_request(text, boolean) from public, anon, authenticated, service_role;
grant execute on function public.authorize_api_request(text, boolean) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- authorize_account_request: the same admission for an account whose identity the caller has already
-- verified (an OAuth access token's user). outcome 'unauthorized' when the account no longer exists.
-- ---------------------------------------------------------------------------------------------------
create function public.authorize_account_request(p_user_id uuid, p_count boolean default true)
returns table (
  outcome text,
  user_id uuid,
  plan_id text,
  allowed boolean,
  request_limit integer,
  remaining integer,
  reset_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
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

  return query select * from public.admit_api_request(p_user_id, v_plan_id, v_api_access, v_requests_per_day,
                                                      p_count);
end
$$;

revoke all on function public.authorize_account_request(uuid, boolean) from public, anon, authenticated, service_role;
grant execute on function public.authorize_account_request(uuid, boolean) to service_role;
