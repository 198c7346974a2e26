-- One SQLSTATE per meaning (docs/database.md, "Error SQLSTATEs"). DW403 carried both `forbidden` and
-- `upgrade_required`, told apart by the message text. From here on a plan that lacks a feature raises
-- DWUPG (→ 403 `upgrade_required`) and DW403 means only `forbidden` (the caller may not do this at all).
-- The three functions that raised DW403 for a missing plan feature are redefined from their latest
-- definitions with only the SQLSTATE and message changed:
--   create_api_key        (20261122000200_api_keys.sql)
--   require_webhook_plan  (20261122000930_alert_settings.sql)
--   consume_api_request   (20261123001200_api_fast_path.sql)
-- `invitation_for_sending` keeps DW403: a plain member may not send the organisation's invitations.
-- `create or replace` keeps each function's privileges (create_api_key: authenticated; consume_api_request:
-- service_role; require_webhook_plan: nobody but its owner), so nothing is granted or revoked here.

-- ---------------------------------------------------------------------------------------------------
-- create_api_key (redefined): the account's own keys (Pro and higher); DWUPG below it.
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

create or replace function public.require_webhook_plan(p_user_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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

-- ---------------------------------------------------------------------------------------------------
-- consume_api_request (redefined): the account's checks, then the shared counter.
-- ---------------------------------------------------------------------------------------------------
create or replace function public.consume_api_request(p_user_id uuid)
returns table (allowed boolean, request_limit integer, remaining integer, reset_at timestamptz)
language plpgsql
security definer
set search_path = ''
as $$
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
                 from public.count_api_request(p_user_id, v_limit) as c;
end
$$;
