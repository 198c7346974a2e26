-- API keys: created and revoked by the signed-in user, stored as SHA-256 only (the key is shown once).
-- The key check and daily count that the API runs on every request are in the limits file.

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

create policy "Assistants' tokens cannot read api keys"
  on public.api_keys as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create function public.revoke_api_key(p_key_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.revoke_api_key(uuid) from public, anon, authenticated, service_role;
grant execute on function public.revoke_api_key(uuid) to authenticated;

-- Keys are created and revoked only through create_api_key / revoke_api_key; key_hash is never readable.
grant select, insert, update, delete on table public.api_keys to service_role;
grant select (created_at, id, last_used_at, name, prefix, revoked_at, user_id)
  on table public.api_keys to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- create_api_key / revoke_api_key: the account's own keys (Pro and higher).
-- ---------------------------------------------------------------------------------------------------
create or replace function public.create_api_key(p_name text)
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
revoke all on function public.create_api_key(text) from public, anon, authenticated, service_role;
grant execute on function public.create_api_key(text) to authenticated;
