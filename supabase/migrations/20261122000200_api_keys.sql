-- API keys: only the SHA-256 hash of a key is stored; the raw key is shown once by create_api_key.
--
-- Raw key: 'dwl_' || 48 lower-case hex characters (24 random bytes).
-- prefix:  the first 12 characters of the raw key, for display.
-- key_hash: encode(extensions.digest(raw_key, 'sha256'), 'hex'), the same as the SHA-256 hex of the
--           UTF-8 x-api-key header value computed by the edge functions.

create table public.api_keys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 100),
  prefix text not null,
  key_hash text not null unique,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

comment on column public.api_keys.key_hash is
  'SHA-256 hex of the raw key. Never readable by authenticated (no column privilege).';

create index api_keys_user_id_idx on public.api_keys (user_id);

alter table public.api_keys enable row level security;

create policy "Users can read their own API keys"
  on public.api_keys for select to authenticated
  using (user_id = (select auth.uid()));

-- Keys are created and revoked only through create_api_key / revoke_api_key; key_hash is never readable.
revoke all on table public.api_keys from anon, authenticated;
grant select (id, user_id, name, prefix, created_at, last_used_at, revoked_at)
  on table public.api_keys to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- authenticate_api_key: the first step of every API request (runs as service_role).
-- ---------------------------------------------------------------------------------------------------
create function public.authenticate_api_key(p_key_hash text)
returns table (outcome text, user_id uuid, plan_id text, requests_per_day integer)
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
    return query select 'unauthorized'::text, null::uuid, null::text, null::integer;
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
    return query select 'unauthorized'::text, null::uuid, null::text, null::integer;
    return;
  end if;

  -- Record use at most once a minute, and never wait for a concurrent request holding the row.
  if v_last_used_at is null or v_last_used_at < now() - interval '1 minute' then
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

  if not v_api_access then
    return query select 'upgrade_required'::text, v_user_id, v_plan_id, v_requests_per_day;
    return;
  end if;

  return query select 'ok'::text, v_user_id, v_plan_id, v_requests_per_day;
end
$$;

revoke all on function public.authenticate_api_key(text) from public, anon, authenticated, service_role;
grant execute on function public.authenticate_api_key(text) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- create_api_key / revoke_api_key: the account's own keys (Pro and higher).
-- ---------------------------------------------------------------------------------------------------
create function public.create_api_key(p_name text)
returns table (id uuid, name text, prefix text, api_key text)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
  v_name text := btrim(coalesce(p_name, ''));
  v_api_access boolean;
  v_raw text;
  v_id uuid;
begin
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
    raise exception using errcode = 'DW403',
      message = 'DW403: upgrade_required: API keys need the Pro plan or higher.';
  end if;

  v_raw := 'dwl_' || encode(extensions.gen_random_bytes(24), 'hex');

  insert into public.api_keys as k (user_id, name, prefix, key_hash)
  values (v_uid, v_name, left(v_raw, 12), encode(extensions.digest(v_raw, 'sha256'), 'hex'))
  returning k.id into v_id;

  return query select v_id, v_name, left(v_raw, 12), v_raw;
end
$$;

revoke all on function public.create_api_key(text) from public, anon, authenticated, service_role;
grant execute on function public.create_api_key(text) to authenticated;

create function public.revoke_api_key(p_key_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  update public.api_keys as k
     set revoked_at = now()
   where k.id = p_key_id
     and k.user_id = v_uid
     and k.revoked_at is null;

  return found;
end
$$;

revoke all on function public.revoke_api_key(uuid) from public, anon, authenticated, service_role;
grant execute on function public.revoke_api_key(uuid) to authenticated;
