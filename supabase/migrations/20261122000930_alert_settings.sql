-- The app's alert settings, as the account (security definer): webhooks, their write-only secrets, the
-- Telegram chat, and test alerts.

-- ---------------------------------------------------------------------------------------------------
-- The app's functions (as the account). Errors: DW401 not signed in, DW403 plan without webhooks,
-- DW404 not the caller's webhook, DW400 invalid input, DW429 too many test alerts.
-- ---------------------------------------------------------------------------------------------------
create function public.require_webhook_plan(p_user_id uuid)
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
    raise exception using errcode = 'DW403', message = 'DW403: Webhooks need the Pro plan or higher.';
  end if;
end
$$;

create function public.validated_webhook_secret(p_secret text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_secret is not null and char_length(p_secret) not between 16 and 256 then
    raise exception using errcode = 'DW400', message = 'DW400: A webhook secret must be 16-256 characters.';
  end if;
  return p_secret;
end
$$;

create function public.validated_webhook_url(p_url text)
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

revoke all on function public.require_webhook_plan(uuid) from public, anon, authenticated, service_role;
revoke all on function public.validated_webhook_secret(text) from public, anon, authenticated, service_role;
revoke all on function public.validated_webhook_url(text) from public, anon, authenticated, service_role;

-- At most 10 webhooks per account. Returns the new webhook's id.
create function public.create_webhook_endpoint(
  p_url text,
  p_description text default null,
  p_secret text default null
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
  perform public.require_webhook_plan(v_uid);
  if (select count(*) from public.webhook_endpoints as w where w.user_id = v_uid) >= 10 then
    raise exception using errcode = 'DW400', message = 'DW400: An account can have at most 10 webhooks.';
  end if;
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  insert into public.webhook_endpoints (user_id, url, description, secret)
  values (v_uid, public.validated_webhook_url(p_url), nullif(btrim(p_description), ''),
          public.validated_webhook_secret(p_secret))
  returning id into v_id;
  return v_id;
end
$$;

-- Null arguments leave a field as it is; an empty description clears it.
create function public.update_webhook_endpoint(
  p_id uuid,
  p_url text default null,
  p_description text default null,
  p_enabled boolean default null
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  if char_length(p_description) > 500 then
    raise exception using errcode = 'DW400', message = 'DW400: The description must be at most 500 characters.';
  end if;
  update public.webhook_endpoints as w
     set url = case when p_url is null then w.url else public.validated_webhook_url(p_url) end,
         description = case when p_description is null then w.description else nullif(btrim(p_description), '') end,
         enabled = coalesce(p_enabled, w.enabled)
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

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
  update public.webhook_endpoints as w
     set secret = public.validated_webhook_secret(p_secret)
   where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

-- Replaces the secret with a new random one and returns it, once ('whsec_' + 64 hex characters).
create function public.rotate_webhook_secret(p_id uuid)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_secret text := 'whsec_' || encode(extensions.gen_random_bytes(32), 'hex');
begin
  update public.webhook_endpoints as w set secret = v_secret where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  return v_secret;
end
$$;

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
  delete from public.webhook_endpoints as w where w.id = p_id and w.user_id = v_uid;
  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
end
$$;

-- Telegram: a numeric chat ID (groups are negative) or a public @channelname; null removes it.
create function public.set_telegram_chat(p_chat_id text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_chat_id text := btrim(p_chat_id);
begin
  if v_chat_id is not null and v_chat_id !~ '^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$' then
    raise exception using errcode = 'DW400',
      message = 'DW400: A Telegram chat ID is a number (e.g. 123456789 or -1001234567890) or an @channel name.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_chat_id)
  values (v_uid, v_chat_id)
  on conflict (user_id) do update set telegram_chat_id = excluded.telegram_chat_id;
end
$$;

create function public.set_telegram_enabled(p_enabled boolean)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  if p_enabled is null then
    raise exception using errcode = 'DW400', message = 'DW400: enabled must be true or false.';
  end if;
  insert into public.notification_settings as n (user_id, telegram_enabled)
  values (v_uid, p_enabled)
  on conflict (user_id) do update set telegram_enabled = excluded.telegram_enabled;
end
$$;

-- Test alerts: a `test` event with sample data (example.com) and one delivery, sent by the next poller
-- run. They ignore the enabled switches (so a channel can be tried before it is switched on). At most 10
-- per account per 10 minutes. The caller has locked the profile row.
create function public.queue_test_alert(p_user_id uuid, p_channel text, p_webhook_endpoint_id uuid)
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

revoke all on function public.queue_test_alert(uuid, text, uuid) from public, anon, authenticated, service_role;

create function public.send_webhook_test(p_id uuid)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  perform public.require_webhook_plan(v_uid);
  if not exists (select 1 from public.webhook_endpoints as w where w.id = p_id and w.user_id = v_uid) then
    raise exception using errcode = 'DW404', message = 'DW404: No such webhook.';
  end if;
  return public.queue_test_alert(v_uid, 'webhook', p_id);
end
$$;

create function public.send_telegram_test()
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
begin
  perform 1 from public.profiles as p where p.id = v_uid for no key update;
  if not exists (
    select 1 from public.notification_settings as n where n.user_id = v_uid and n.telegram_chat_id is not null
  ) then
    raise exception using errcode = 'DW400', message = 'DW400: Save a Telegram chat ID first.';
  end if;
  return public.queue_test_alert(v_uid, 'telegram', null);
end
$$;

revoke all on function public.create_webhook_endpoint(text, text, text) from public, anon, authenticated, service_role;
revoke all on function public.update_webhook_endpoint(uuid, text, text, boolean)
  from public, anon, authenticated, service_role;
revoke all on function public.set_webhook_secret(uuid, text) from public, anon, authenticated, service_role;
revoke all on function public.rotate_webhook_secret(uuid) from public, anon, authenticated, service_role;
revoke all on function public.delete_webhook_endpoint(uuid) from public, anon, authenticated, service_role;
revoke all on function public.set_telegram_chat(text) from public, anon, authenticated, service_role;
revoke all on function public.set_telegram_enabled(boolean) from public, anon, authenticated, service_role;
revoke all on function public.send_webhook_test(uuid) from public, anon, authenticated, service_role;
revoke all on function public.send_telegram_test() from public, anon, authenticated, service_role;
grant execute on function public.create_webhook_endpoint(text, text, text) to authenticated;
grant execute on function public.update_webhook_endpoint(uuid, text, text, boolean) to authenticated;
grant execute on function public.set_webhook_secret(uuid, text) to authenticated;
grant execute on function public.rotate_webhook_secret(uuid) to authenticated;
grant execute on function public.delete_webhook_endpoint(uuid) to authenticated;
grant execute on function public.set_telegram_chat(text) to authenticated;
grant execute on function public.set_telegram_enabled(boolean) to authenticated;
grant execute on function public.send_webhook_test(uuid) to authenticated;
grant execute on function public.send_telegram_test() to authenticated;
