-- Alert channels: the account's Telegram chat (linked only through the bot) and webhook endpoints (generic,
-- Slack, Discord; Pro and higher), with their event opt-ins, secrets (write-only) and the outbound URL policy
-- that judges every target when it is saved (docs/url-policy.md).

create table public.notification_settings (
  user_id uuid primary key default auth.uid() references public.profiles (id) on delete cascade,
  telegram_chat_id text check (telegram_chat_id is null or char_length(telegram_chat_id) between 1 and 64),
  telegram_enabled boolean not null default true,
  telegram_configured boolean generated always as (telegram_chat_id is not null) stored,
  updated_at timestamptz not null default now()
);

comment on column public.notification_settings.telegram_chat_id is
  'Write-only for authenticated (no SELECT privilege); read by the alert sender as service_role.';

create trigger notification_settings_set_updated_at
  before update on public.notification_settings
  for each row execute function private.set_updated_at();

alter table public.notification_settings enable row level security;

create policy "Users can read their own notification settings"
  on public.notification_settings for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Users can delete their own notification settings"
  on public.notification_settings for delete to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read notification settings"
  on public.notification_settings as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot delete notification settings"
  on public.notification_settings as restrictive for delete to authenticated
  using (not (select public.is_oauth_client_token()));

-- ---------------------------------------------------------------------------------------------------
-- webhook_endpoints
-- ---------------------------------------------------------------------------------------------------
create table public.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references public.profiles (id) on delete cascade,
  url text not null check (char_length(url) <= 2048 and url ~* '^https?://[^[:space:]]+$'),
  secret text check (secret is null or char_length(secret) between 1 and 256),
  secret_configured boolean generated always as (secret is not null) stored,
  description text check (description is null or char_length(description) <= 500),
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

comment on column public.webhook_endpoints.secret is
  'HMAC-SHA256 signing secret. Write-only for authenticated (no SELECT privilege); never sent as a header.';

create index webhook_endpoints_user_id_idx on public.webhook_endpoints (user_id);

create trigger webhook_endpoints_set_updated_at
  before update on public.webhook_endpoints
  for each row execute function private.set_updated_at();

alter table public.webhook_endpoints enable row level security;

create policy "Users can read their own webhooks"
  on public.webhook_endpoints for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Users can delete their own webhooks"
  on public.webhook_endpoints for delete to authenticated
  using (user_id = (select auth.uid()));

create policy "Assistants' tokens cannot read webhook endpoints"
  on public.webhook_endpoints as restrictive for select to authenticated
  using (not (select public.is_oauth_client_token()));

create policy "Assistants' tokens cannot delete webhook endpoints"
  on public.webhook_endpoints as restrictive for delete to authenticated
  using (not (select public.is_oauth_client_token()));

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
  for each row execute function private.set_updated_at();

alter table public.webhook_target_policy enable row level security;

grant select, update on table public.webhook_target_policy to service_role;

-- Every write of a webhook URL is checked, whether it comes through the functions below or a plain
-- insert/update. Non-http(s) URLs are left to the table's own check constraint (23514).
create function private.check_webhook_endpoint_url()
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
revoke all on function private.check_webhook_endpoint_url() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_check_url
  before insert or update of url on public.webhook_endpoints
  for each row execute function private.check_webhook_endpoint_url();

create function private.validated_webhook_url(p_url text)
returns text
language plpgsql
stable
set search_path = ''
as $$
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
revoke all on function private.validated_webhook_url(text) from public, anon, authenticated, service_role;

-- Sets or replaces the signing secret (16-256 characters); null removes it. Never readable afterwards.
create function public.set_webhook_secret(p_id uuid, p_secret text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.set_webhook_secret(uuid, text) from public, anon, authenticated, service_role;
grant execute on function public.set_webhook_secret(uuid, text) to authenticated;

-- Deletes the webhook; its delivery history stays (pending deliveries to it then fail as skipped).
create function public.delete_webhook_endpoint(p_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.delete_webhook_endpoint(uuid) from public, anon, authenticated, service_role;
grant execute on function public.delete_webhook_endpoint(uuid) to authenticated;

create function public.set_telegram_enabled(p_enabled boolean)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.set_telegram_enabled(boolean) from public, anon, authenticated, service_role;
grant execute on function public.set_telegram_enabled(boolean) to authenticated;

-- Test alerts: a `test` event with sample data (example.com) and one delivery, sent by the next poller
-- run. They ignore the enabled switches (so a channel can be tried before it is switched on). At most 10
-- per account per 10 minutes. The caller has locked the profile row.
create function private.queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function private.queue_test_alert(uuid, text, uuid) from public, anon, authenticated, service_role;

create function public.send_webhook_test(p_id uuid)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.send_webhook_test(uuid) from public, anon, authenticated, service_role;
grant execute on function public.send_webhook_test(uuid) to authenticated;

create function public.send_telegram_test()
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.send_telegram_test() from public, anon, authenticated, service_role;
grant execute on function public.send_telegram_test() to authenticated;

-- At most 10 webhooks per account, for every writer, exact under concurrency: inserts (and moves to
-- another account) of one account queue on its profile row, and each counts after the previous committed.
create function private.check_webhook_endpoint_cap()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform 1 from public.profiles as p where p.id = new.user_id for no key update;
  if (select count(*) from public.webhook_endpoints as w where w.user_id = new.user_id and w.id <> new.id) >= 10 then
    raise exception using errcode = 'DW400', message = 'DW400: An account can have at most 10 webhooks.';
  end if;
  return new;
end
$$;
revoke all on function private.check_webhook_endpoint_cap() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_cap
  before insert or update of user_id on public.webhook_endpoints
  for each row execute function private.check_webhook_endpoint_cap();

create function private.outbound_address_class(p_address inet)
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
$$;
revoke all on function private.outbound_address_class(inet) from public, anon, authenticated, service_role;
grant execute on function private.outbound_address_class(inet) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- outbound_url_problem: null when the URL may be used, else a sentence saying why not. Host names pass
-- here (their addresses are judged when a request is sent); IP literals and names are judged now.
-- p_allow_private is WEBHOOK_ALLOW_PRIVATE_TARGETS: http and loopback (local use only).
-- Every step mirrors judgeUrl in url_policy.ts, in the same order with the same wording.
-- ---------------------------------------------------------------------------------------------------
create function private.outbound_url_problem(p_url text, p_allow_private boolean)
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

  v_class := private.outbound_address_class(v_inet);
  if v_class = 'public' or (v_class = 'loopback' and coalesce(p_allow_private, false)) then
    return null;
  end if;
  if v_class = 'loopback' then
    return 'URLs must not point at a loopback address.';
  end if;
  return 'URLs must not point at a private, link-local or reserved address.';
end
$$;
revoke all on function private.outbound_url_problem(text, boolean) from public, anon, authenticated, service_role;
grant execute on function private.outbound_url_problem(text, boolean) to service_role;

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
  return private.outbound_url_problem(p_url, coalesce(v_allow_private, false));
end
$$;
revoke all on function public.webhook_url_problem(text) from public, anon, authenticated, service_role;
grant execute on function public.webhook_url_problem(text) to authenticated, service_role;

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
  for each row execute function private.set_updated_at();

alter table public.telegram_bot_settings enable row level security;

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
revoke all on function public.create_telegram_link() from public, anon, authenticated, service_role;
grant execute on function public.create_telegram_link() to authenticated;

-- The bot: links the chat that sent "/start <token>". Returns 'linked', or 'invalid' for a token that is
-- unknown, expired or already used (one answer for all three). Only private chats (positive IDs).
create function private.telegram_link_chat(p_token text, p_chat_id text)
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
revoke all on function private.telegram_link_chat(text, text) from public, anon, authenticated, service_role;
grant execute on function private.telegram_link_chat(text, text) to service_role;

-- The bot: "/stop" unlinks the chat. Returns whether a chat was linked.
create function private.telegram_unlink_chat(p_chat_id text)
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
revoke all on function private.telegram_unlink_chat(text) from public, anon, authenticated, service_role;
grant execute on function private.telegram_unlink_chat(text) to service_role;

-- The bot: "/list" for the account linked to the chat: the watched names (A-labels, never text the caller
-- chose) and their state, at most p_limit (1-50), with the total count. Null when no account is linked.
create function private.telegram_chat_watchlist(p_chat_id text, p_limit integer)
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
revoke all on function private.telegram_chat_watchlist(text, integer) from public, anon, authenticated, service_role;
grant execute on function private.telegram_chat_watchlist(text, integer) to service_role;

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
revoke all on function public.set_telegram_chat(text) from public, anon, authenticated, service_role;
grant execute on function public.set_telegram_chat(text) to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- Standard Webhooks: after a rotation the previous secret signs too, for 24 hours. Like the
-- secret, it is never readable by authenticated (no column privilege). Any other change of the secret
-- (set_webhook_secret, a direct update) drops the previous one at once.
-- ---------------------------------------------------------------------------------------------------
alter table public.webhook_endpoints
  add column previous_secret text check (previous_secret is null or char_length(previous_secret) between 1 and 256),
  add column previous_secret_expires_at timestamptz;

comment on column public.webhook_endpoints.previous_secret is
  'The secret before the last rotate_webhook_secret(); it also signs webhook-signature until '
  'previous_secret_expires_at (24 h). Never readable by authenticated.';

create function private.forget_previous_webhook_secret()
returns trigger
language plpgsql
set search_path = ''
as $$
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
revoke all on function private.forget_previous_webhook_secret() from public, anon, authenticated, service_role;

-- Replaces the secret with a new random one and returns it, once ('whsec_' + 64 hex characters).
create or replace function public.rotate_webhook_secret(p_id uuid)
returns text
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.rotate_webhook_secret(uuid) from public, anon, authenticated, service_role;
grant execute on function public.rotate_webhook_secret(uuid) to authenticated;
revoke all on function public.rotate_webhook_secret(uuid) from public, anon, authenticated, service_role;
grant execute on function public.rotate_webhook_secret(uuid) to authenticated;

create function public.alert_event_types()
returns text[]
language sql
immutable
parallel safe
set search_path = ''
as $$
  select array['domain.available', 'domain.expiring', 'domain.pending_delete', 'domain.registered',
               'domain.restored']::text[]
$$;
revoke all on function public.alert_event_types() from public, anon, authenticated, service_role;
grant execute on function public.alert_event_types() to authenticated, service_role;

-- A channel's event list as saved: known types, no duplicates, sorted; DW400 when empty or unknown.
-- Null stays null (the caller keeps the current list or uses the default).
create function private.validated_alert_event_types(p_event_types text[])
returns text[]
language plpgsql
immutable
set search_path = ''
as $$
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
revoke all on function private.validated_alert_event_types(text[]) from public, anon, authenticated, service_role;
grant execute on function private.validated_alert_event_types(text[]) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- webhook_endpoints: kind and event_types
-- ---------------------------------------------------------------------------------------------------
alter table public.webhook_endpoints
  add column kind text not null default 'generic'
    constraint webhook_endpoints_kind_check check (kind in ('generic', 'slack', 'discord')),
  add column event_types text[] not null default '{domain.available}'
    constraint webhook_endpoints_event_types_check
    check (cardinality(event_types) > 0
           and event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                    'domain.registered', 'domain.restored']::text[]);

comment on column public.webhook_endpoints.kind is
  'generic: the signed JSON body; slack / discord: that service''s incoming-webhook message (unsigned), '
  'only to its documented https host (webhook_kind_problem).';

comment on column public.webhook_endpoints.event_types is
  'The events this endpoint receives (alert_event_types()); test alerts always go through.';

-- webhook_endpoints: writes only through create_/update_webhook_endpoint, set_/rotate_webhook_secret.
grant select, insert, update, delete on table public.webhook_endpoints to service_role;
grant delete on table public.webhook_endpoints to authenticated;
grant select (created_at, description, enabled, event_types, id, kind, secret_configured, updated_at, url_masked, user_id)
  on table public.webhook_endpoints to authenticated;

-- notification_settings: the Telegram chat's opt-in.
alter table public.notification_settings
  add column telegram_event_types text[] not null default '{domain.available}'
    constraint notification_settings_telegram_event_types_check
    check (cardinality(telegram_event_types) > 0
           and telegram_event_types <@ array['domain.available', 'domain.expiring', 'domain.pending_delete',
                                             'domain.registered', 'domain.restored']::text[]);

comment on column public.notification_settings.telegram_event_types is
  'The events the linked Telegram chat receives (alert_event_types()); set with set_telegram_event_types.';

-- notification_settings: writes only through set_telegram_chat / set_telegram_enabled (and the chat
-- proof flow); the row may still be deleted by its owner.
grant select, insert, update, delete on table public.notification_settings to service_role;
grant delete on table public.notification_settings to authenticated;
grant select (telegram_configured, telegram_enabled, telegram_event_types, telegram_linked_at, updated_at, user_id)
  on table public.notification_settings to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- webhook_kind_problem: null when the URL fits the kind, else a sentence saying why not. Applied after
-- the outbound judge (outbound_url_problem), so the URL is already in its strict form. Mirrors
-- webhookKindProblem in url_policy.ts, with the same wording. The hosts are the documented ones even
-- on a local stack: the sender swaps them for SLACK_WEBHOOK_BASE_URL / DISCORD_WEBHOOK_BASE_URL.
-- ---------------------------------------------------------------------------------------------------
create function private.webhook_kind_problem(p_url text, p_kind text)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
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
$$;
revoke all on function private.webhook_kind_problem(text, text) from public, anon, authenticated, service_role;
grant execute on function private.webhook_kind_problem(text, text) to service_role;

-- The whole save-time verdict for an endpoint: the outbound judge, then the kind's host rule.
create function private.webhook_target_problem(p_url text, p_kind text, p_allow_private boolean)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select coalesce(private.outbound_url_problem(p_url, p_allow_private), private.webhook_kind_problem(p_url, p_kind))
$$;
revoke all on function private.webhook_target_problem(text, text, boolean) from public, anon, authenticated, service_role;
grant execute on function private.webhook_target_problem(text, text, boolean) to service_role;

-- Every write of url or kind is checked (after webhook_endpoints_check_url, by trigger name order).
create function private.check_webhook_endpoint_kind()
returns trigger
language plpgsql
set search_path = ''
as $$
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
revoke all on function private.check_webhook_endpoint_kind() from public, anon, authenticated, service_role;

-- At most 10 webhooks per account. Returns the new webhook's id. p_kind: generic (default), slack or
-- discord; p_event_types: default {domain.available}.
create function public.create_webhook_endpoint(
  p_url text,
  p_description text default null,
  p_secret text default null,
  p_kind text default null,
  p_event_types text[] default null
)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.create_webhook_endpoint(text, text, text, text, text[])
  from public, anon, authenticated, service_role;
grant execute on function public.create_webhook_endpoint(text, text, text, text, text[]) to authenticated;

-- Null arguments leave a field as it is; an empty description clears it. A new kind must fit the URL
-- (saved or given).
create function public.update_webhook_endpoint(
  p_id uuid,
  p_url text default null,
  p_description text default null,
  p_enabled boolean default null,
  p_kind text default null,
  p_event_types text[] default null
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.update_webhook_endpoint(uuid, text, text, boolean, text, text[])
  from public, anon, authenticated, service_role;
grant execute on function public.update_webhook_endpoint(uuid, text, text, boolean, text, text[]) to authenticated;

-- The linked Telegram chat's events (e.g. {domain.available,domain.pending_delete}).
create function public.set_telegram_event_types(p_event_types text[])
returns void
language plpgsql
security definer
set search_path = ''
as $$
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
revoke all on function public.set_telegram_event_types(text[]) from public, anon, authenticated, service_role;
grant execute on function public.set_telegram_event_types(text[]) to authenticated;

create or replace function private.require_webhook_plan(p_user_id uuid)
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
revoke all on function private.require_webhook_plan(uuid) from public, anon, authenticated, service_role;

create function private.webhook_secret_problem(p_secret text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
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
$$;
revoke all on function private.webhook_secret_problem(text) from public, anon, authenticated, service_role;
grant execute on function private.webhook_secret_problem(text) to service_role;

create or replace function private.validated_webhook_secret(p_secret text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_problem text := private.webhook_secret_problem(p_secret);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  return p_secret;
end
$$;
revoke all on function private.validated_webhook_secret(text) from public, anon, authenticated, service_role;
revoke all on function private.validated_webhook_secret(text) from public, anon, authenticated, service_role;

-- Every write of a secret is checked, whoever writes it. A check violation (23514), as the length
-- constraint it replaces raised; the app's functions refuse with DW400 before the row is written.
create function private.check_webhook_endpoint_secret()
returns trigger
language plpgsql
set search_path = ''
as $$
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
revoke all on function private.check_webhook_endpoint_secret() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_check_secret
  before insert or update of secret on public.webhook_endpoints
  for each row execute function private.check_webhook_endpoint_secret();
