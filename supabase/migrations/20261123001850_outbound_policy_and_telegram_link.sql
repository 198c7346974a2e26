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

-- ===================================================================================================
-- Webhook URLs are credentials: once saved, the app reads only a masked form.
-- url_masked = scheme://host/…<last 4 characters>; authenticated loses SELECT on url itself (and so can
-- neither read it nor filter on it).
-- ===================================================================================================
create function public.mask_url(p_url text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select coalesce(substring(p_url from '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*)'), '') || '/…' || right(p_url, 4)
$$;

revoke all on function public.mask_url(text) from public, anon, authenticated, service_role;
-- authenticated computes the generated column when it writes a URL (pure and harmless).
grant execute on function public.mask_url(text) to authenticated, service_role;

alter table public.webhook_endpoints
  add column url_masked text generated always as (public.mask_url(url)) stored;

comment on column public.webhook_endpoints.url_masked is
  'What the app may read of the URL: scheme://host/…last 4 characters. The URL itself is write-only for '
  'authenticated (it may carry a token); the alert sender reads it as service_role.';

revoke select on table public.webhook_endpoints from authenticated;
revoke select (url) on table public.webhook_endpoints from authenticated;
grant select (id, user_id, url_masked, description, enabled, secret_configured, created_at, updated_at)
  on table public.webhook_endpoints to authenticated;

-- ===================================================================================================
-- Telegram: a chat receives alerts only after it proved it belongs to the account, through the bot's
-- link flow (docs/telegram.md):
--   1. the app calls create_telegram_link() and shows https://t.me/<bot>?start=<token> (15 minutes, once);
--   2. the user opens it; Telegram sends "/start <token>" from their private chat to the telegram-bot
--      function, which calls telegram_link_chat (service_role) and replies with a confirmation.
-- Hand-typed chat IDs are gone: set_telegram_chat only unlinks (null), and authenticated may no longer
-- write telegram_chat_id. Chat IDs saved before this migration were never proven and are cleared.
-- ===================================================================================================

-- The bot's username (for the deep link), set by `deno task admin telegram-webhook` or the local stack
-- from TELEGRAM_BOT_USERNAME. service_role only.
create table public.telegram_bot_settings (
  id boolean primary key default true constraint telegram_bot_settings_single_row check (id),
  bot_username text check (bot_username ~ '^[A-Za-z][A-Za-z0-9_]{3,31}$'),
  updated_at timestamptz not null default now()
);

comment on table public.telegram_bot_settings is
  'One row: the Telegram bot''s username for link-flow deep links (TELEGRAM_BOT_USERNAME). service_role only.';

insert into public.telegram_bot_settings (id, bot_username) values (true, null) on conflict (id) do nothing;

create trigger telegram_bot_settings_set_updated_at
  before update on public.telegram_bot_settings
  for each row execute function public.set_updated_at();

alter table public.telegram_bot_settings enable row level security;
revoke all on table public.telegram_bot_settings from anon, authenticated;
grant select, update on table public.telegram_bot_settings to service_role;

-- One-time link tokens: only their SHA-256 is stored. service_role only (through the functions below).
create table public.telegram_link_tokens (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  user_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  chat_id text
);

comment on table public.telegram_link_tokens is
  'One-time Telegram link tokens (SHA-256 only), valid 15 minutes. Written by create_telegram_link and '
  'telegram_link_chat; service_role only.';

create index telegram_link_tokens_user_id_idx on public.telegram_link_tokens (user_id);

alter table public.telegram_link_tokens enable row level security;
revoke all on table public.telegram_link_tokens from anon, authenticated;
grant select, insert, update, delete on table public.telegram_link_tokens to service_role;

alter table public.notification_settings add column telegram_linked_at timestamptz;

comment on column public.notification_settings.telegram_linked_at is
  'When the chat proved it belongs to the account (bot link flow); null when no chat is linked.';

-- Unproven chat IDs (typed by hand before the link flow) never receive another message.
update public.notification_settings set telegram_chat_id = null where telegram_chat_id is not null;

-- One chat belongs to one account: linking it elsewhere unlinks it here.
create unique index notification_settings_telegram_chat_id_key
  on public.notification_settings (telegram_chat_id) where telegram_chat_id is not null;

alter table public.notification_settings
  add constraint notification_settings_telegram_chat_proven
  check (telegram_chat_id is null or (telegram_linked_at is not null and telegram_chat_id ~ '^[1-9][0-9]{0,19}$'));

revoke insert (telegram_chat_id), update (telegram_chat_id) on table public.notification_settings from authenticated;
grant select (telegram_linked_at) on table public.notification_settings to authenticated;

-- The app: a one-time deep link for the signed-in account, valid 15 minutes. A new link replaces the
-- account's unused ones. Errors: DW401 not signed in, DW503 the bot's username is not configured.
create function public.create_telegram_link()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_bot text;
  v_token text := encode(extensions.gen_random_bytes(24), 'hex');
  v_expires_at timestamptz := now() + interval '15 minutes';
begin
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

-- The bot: links the chat that sent "/start <token>". Returns 'linked', or 'invalid' for a token that is
-- unknown, expired or already used (one answer for all three). Only private chats (positive IDs).
create function public.telegram_link_chat(p_token text, p_chat_id text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
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
$$;

-- The bot: "/stop" unlinks the chat. Returns whether a chat was linked.
create function public.telegram_unlink_chat(p_chat_id text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.notification_settings as n
     set telegram_chat_id = null, telegram_linked_at = null
   where n.telegram_chat_id = p_chat_id;
  return found;
end
$$;

-- The bot: "/list" for the account linked to the chat: the watched names (A-labels, never text the caller
-- chose) and their state, at most p_limit (1-50), with the total count. Null when no account is linked.
create function public.telegram_chat_watchlist(p_chat_id text, p_limit integer)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
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

-- Hand-typed chat IDs are gone: null unlinks; anything else points at the link flow.
create or replace function public.set_telegram_chat(p_chat_id text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  if p_chat_id is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Link Telegram through the bot: open the link from create_telegram_link() in Telegram.';
  end if;
  update public.notification_settings as n
     set telegram_chat_id = null, telegram_linked_at = null
   where n.user_id = v_uid;
end
$$;

revoke all on function public.create_telegram_link() from public, anon, authenticated, service_role;
revoke all on function public.telegram_link_chat(text, text) from public, anon, authenticated, service_role;
revoke all on function public.telegram_unlink_chat(text) from public, anon, authenticated, service_role;
revoke all on function public.telegram_chat_watchlist(text, integer) from public, anon, authenticated, service_role;
grant execute on function public.create_telegram_link() to authenticated;
grant execute on function public.telegram_link_chat(text, text) to service_role;
grant execute on function public.telegram_unlink_chat(text) to service_role;
grant execute on function public.telegram_chat_watchlist(text, integer) to service_role;
