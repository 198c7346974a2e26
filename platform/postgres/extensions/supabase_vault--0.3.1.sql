-- Local stand-in for supabase_vault 0.3.1: vault.secrets, vault.decrypted_secrets, vault.create_secret and
-- vault.update_secret with Supabase Vault's names and parameters (new_secret, new_name, new_description,
-- new_key_id), so positional and named calls both port. Secrets are stored in clear text (Supabase Vault
-- encrypts them at rest with a key outside the database); nothing else differs for a caller.
-- Grants as Supabase Vault's: nothing to PUBLIC; the bootstrap then grants Vault to postgres as Supabase does.
--
-- A vault.secrets that already exists (made by an earlier version of the local bootstrap, before Vault was an
-- extension here) is kept as it is, so clusters made then keep their secrets.

do $install$
begin
  if pg_catalog.to_regclass('vault.secrets') is not null then
    raise notice 'supabase_vault stand-in: vault.secrets already exists (an earlier local bootstrap made it); kept as it is';
    return;
  end if;

  create table vault.secrets (
    id uuid primary key default gen_random_uuid(),
    name text,
    description text not null default '',
    secret text not null,
    key_id uuid,
    nonce bytea,
    created_at timestamptz not null default pg_catalog.now(),
    updated_at timestamptz not null default pg_catalog.now()
  );
  create unique index secrets_name_idx on vault.secrets (name) where name is not null;
  comment on table vault.secrets is 'Table with encrypted `secret` column for storing sensitive information on disk.';

  create view vault.decrypted_secrets as
    select s.id, s.name, s.description, s.secret, s.secret as decrypted_secret, s.key_id, s.nonce,
           s.created_at, s.updated_at
      from vault.secrets as s;

  create function vault.create_secret(
    new_secret text,
    new_name text default null,
    new_description text default '',
    new_key_id uuid default null
  )
  returns uuid
  language plpgsql
  security definer
  set search_path = ''
  as $fn$
  declare
    v_id uuid;
  begin
    insert into vault.secrets (secret, name, description)
    values (new_secret, new_name, coalesce(new_description, ''))
    returning id into v_id;
    return v_id;
  end
  $fn$;

  create function vault.update_secret(
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
  as $fn$
  begin
    update vault.secrets as s
       set secret = coalesce(new_secret, s.secret),
           name = coalesce(new_name, s.name),
           description = coalesce(new_description, s.description),
           updated_at = pg_catalog.now()
     where s.id = secret_id;
  end
  $fn$;

  revoke all on vault.secrets from public;
  revoke all on vault.decrypted_secrets from public;
  revoke all on function vault.create_secret(text, text, text, uuid) from public;
  revoke all on function vault.update_secret(uuid, text, text, text, uuid) from public;
end
$install$;
