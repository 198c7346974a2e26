-- Webhook targets: where alerts may be sent.
--   * webhook_target_policy: whether webhook URLs may be http or loopback (local development only);
--   * webhook URL rules (https, no private/loopback/link-local/metadata IP literals), enforced on every
--     write of webhook_endpoints.url.
-- The alert sender checks targets again at send time, including the addresses a host name resolves to.

-- ---------------------------------------------------------------------------------------------------
-- webhook_target_policy: one row. allow_private_targets = true accepts http and loopback targets; it is
-- the database's side of WEBHOOK_ALLOW_PRIVATE_TARGETS and is only ever set on a local stack.
-- ---------------------------------------------------------------------------------------------------
create table public.webhook_target_policy (
  id boolean primary key default true constraint webhook_target_policy_single_row check (id),
  allow_private_targets boolean not null default false,
  updated_at timestamptz not null default now()
);

comment on table public.webhook_target_policy is
  'One row. allow_private_targets accepts http:// and loopback webhook URLs (local development only; the '
  'local stack copies WEBHOOK_ALLOW_PRIVATE_TARGETS here). service_role only.';

insert into public.webhook_target_policy (id, allow_private_targets) values (true, false)
on conflict (id) do nothing;

create trigger webhook_target_policy_set_updated_at
  before update on public.webhook_target_policy
  for each row execute function public.set_updated_at();

alter table public.webhook_target_policy enable row level security;
revoke all on table public.webhook_target_policy from anon, authenticated;
grant select, update on table public.webhook_target_policy to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Address rules for IP literals. The edge functions apply the same rules to resolved addresses
-- (supabase/functions/_shared/alerts/address_policy.ts).
-- ---------------------------------------------------------------------------------------------------
create function public.is_loopback_address(p_address inet)
returns boolean
language sql
immutable
parallel safe
set search_path = ''
as $$
  select p_address <<= '127.0.0.0/8'::inet or p_address = '::1'::inet
$$;

-- Private, link-local (169.254.169.254 and the other cloud metadata addresses included), unspecified,
-- shared, documentation, benchmark, multicast and reserved ranges; IPv6 forms that embed or tunnel to an
-- IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64, 6to4, Teredo) are refused whole.
-- Loopback is not in this list: see is_loopback_address.
create function public.is_non_public_address(p_address inet)
returns boolean
language sql
immutable
parallel safe
set search_path = ''
as $$
  select p_address <<= any (array[
    '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
    '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24',
    '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
    '::/96', '::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:10::/28',
    '2001:db8::/32', '2002::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'
  ]::inet[])
  and not public.is_loopback_address(p_address)
$$;

revoke all on function public.is_loopback_address(inet) from public, anon, authenticated, service_role;
revoke all on function public.is_non_public_address(inet) from public, anon, authenticated, service_role;
grant execute on function public.is_loopback_address(inet) to service_role;
grant execute on function public.is_non_public_address(inet) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- webhook_url_problem: null when the URL may be saved, else a sentence saying why not. Host names are
-- accepted here (their addresses are checked at send time); IP literals, localhost and single-label
-- hosts are judged now. Security definer: it reads webhook_target_policy, which accounts cannot.
-- ---------------------------------------------------------------------------------------------------
create function public.webhook_url_problem(p_url text)
returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_allow_private boolean;
  v_scheme text;
  v_authority text;
  v_host text;
  v_address inet;
begin
  select p.allow_private_targets into v_allow_private from public.webhook_target_policy as p;
  v_allow_private := coalesce(v_allow_private, false);

  if p_url is null or p_url !~ '^[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]]+$' then
    return 'The webhook URL must be an absolute https:// URL.';
  end if;
  if char_length(p_url) > 2048 then
    return 'The webhook URL must be at most 2048 characters.';
  end if;

  v_scheme := lower(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*)://'));
  if v_scheme = 'http' and not v_allow_private then
    return 'Webhook URLs must use https.';
  end if;
  if v_scheme not in ('http', 'https') then
    return 'Webhook URLs must use https.';
  end if;

  v_authority := substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)');
  v_host := lower(regexp_replace(v_authority, '^.*@', ''));

  if v_host like '[%' then
    -- An IPv6 literal: [address] with an optional port. Zone identifiers are refused.
    if v_host !~ '^\[[0-9a-f:.]+\](:[0-9]*)?$' then
      return 'The webhook URL''s IPv6 address is not valid.';
    end if;
    begin
      v_address := substring(v_host from '^\[([0-9a-f:.]+)\]')::inet;
    exception when invalid_text_representation then
      return 'The webhook URL''s IPv6 address is not valid.';
    end;
  else
    v_host := rtrim(regexp_replace(v_host, ':[0-9]*$', ''), '.');
    if v_host = '' then
      return 'The webhook URL has no host.';
    end if;
    -- As in browsers' URL parsing, a host whose last label is numeric is an IPv4 address; only the plain
    -- dotted-quad form is accepted (no 2130706433, 0x7f.1 or 127.1 spellings).
    if v_host ~ '(^|\.)(0x[0-9a-f]*|[0-9]+)$' then
      if v_host !~ '^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$'
      then
        return 'Write the webhook host as a DNS name or a plain dotted IPv4 address.';
      end if;
      v_address := v_host::inet;
    elsif v_host = 'localhost' or v_host like '%.localhost' then
      if not v_allow_private then
        return 'Webhook URLs must not point at this machine (localhost).';
      end if;
      return null;
    elsif v_host !~ '\.' or v_host = 'metadata.google.internal' then
      return 'The webhook host must be a public DNS name.';
    end if;
  end if;

  if v_address is not null then
    if public.is_loopback_address(v_address) and not v_allow_private then
      return 'Webhook URLs must not point at a loopback address.';
    end if;
    if public.is_non_public_address(v_address) then
      return 'Webhook URLs must not point at a private, link-local or reserved address.';
    end if;
  end if;
  return null;
end
$$;

revoke all on function public.webhook_url_problem(text) from public, anon, authenticated, service_role;
grant execute on function public.webhook_url_problem(text) to authenticated, service_role;

-- Every write of a webhook URL is checked, whether it comes through the functions below or a plain
-- insert/update. Non-http(s) URLs are left to the table's own check constraint (23514).
create function public.check_webhook_endpoint_url()
returns trigger
language plpgsql
set search_path = ''
as $$
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

revoke all on function public.check_webhook_endpoint_url() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_check_url
  before insert or update of url on public.webhook_endpoints
  for each row execute function public.check_webhook_endpoint_url();
