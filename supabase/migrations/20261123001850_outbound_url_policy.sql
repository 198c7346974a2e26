-- One URL judge for every outbound request (docs/url-policy.md).
--
-- public.outbound_url_problem is the database's copy of the edge functions' judge
-- (supabase/functions/_shared/net/url_policy.ts, judgeUrl): a URL is accepted only in a strict form that
-- the WHATWG URL parser reads exactly as written, so save-time and send-time verdicts cannot drift. A
-- parity test (tests/integration/url_policy_parity.test.ts) runs one table of hostile forms through both.
-- webhook_url_problem (used by create/update_webhook_endpoint and the webhook_endpoints trigger) now
-- delegates to it.

-- ---------------------------------------------------------------------------------------------------
-- outbound_address_class: 'public' | 'loopback' | 'non_public'. IPv6 forms that carry an IPv4 address
-- (IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by
-- that IPv4 address, as address_policy in the edge functions does; Teredo (2001::/32) is non-public.
-- ---------------------------------------------------------------------------------------------------
create function public.outbound_address_class(p_address inet)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
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
      '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:10::/28', '2001:db8::/32', 'fc00::/7', 'fe80::/10',
      'fec0::/10', 'ff00::/8'
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
$$;

-- ---------------------------------------------------------------------------------------------------
-- outbound_url_problem: null when the URL may be used, else a sentence saying why not. Host names pass
-- here (their addresses are judged when a request is sent); IP literals and names are judged now.
-- p_allow_private is WEBHOOK_ALLOW_PRIVATE_TARGETS: http and loopback (local use only).
-- Every step mirrors judgeUrl in url_policy.ts, in the same order with the same wording.
-- ---------------------------------------------------------------------------------------------------
create function public.outbound_url_problem(p_url text, p_allow_private boolean)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
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
  if v_parts[2] is not null and v_parts[2] <> ''
     and (char_length(v_parts[2]) > 5 or v_parts[2]::integer > 65535) then
    return 'The URL''s port is not valid.';
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

  v_class := public.outbound_address_class(v_inet);
  if v_class = 'public' or (v_class = 'loopback' and coalesce(p_allow_private, false)) then
    return null;
  end if;
  if v_class = 'loopback' then
    return 'URLs must not point at a loopback address.';
  end if;
  return 'URLs must not point at a private, link-local or reserved address.';
end
$$;

revoke all on function public.outbound_address_class(inet) from public, anon, authenticated, service_role;
revoke all on function public.outbound_url_problem(text, boolean) from public, anon, authenticated, service_role;
grant execute on function public.outbound_address_class(inet) to service_role;
grant execute on function public.outbound_url_problem(text, boolean) to service_role;

-- The webhook rules are the outbound rules under the stored WEBHOOK_ALLOW_PRIVATE_TARGETS switch.
create or replace function public.webhook_url_problem(p_url text)
returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_allow_private boolean;
begin
  select p.allow_private_targets into v_allow_private from public.webhook_target_policy as p;
  if p_url is null then
    return 'The URL must be an absolute https:// URL.';
  end if;
  return public.outbound_url_problem(p_url, coalesce(v_allow_private, false));
end
$$;
