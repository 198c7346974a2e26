-- Alerts: the outbox and the poller's work queues.
--   * webhook_target_policy: whether webhook URLs may be http or loopback (local development only);
--   * webhook URL rules (https, no private/loopback/link-local/metadata IP literals), enforced on every write;
--   * alert_events, alert_deliveries, alert_delivery_attempts: one event per watching account for each
--     transition of a domain into `available`, one delivery per channel, and every attempt to send it;
--   * the trigger that writes them in the same transaction as the new status (the outbox);
--   * claim / record functions for the poller (service_role): due domains and due deliveries are claimed
--     with FOR UPDATE SKIP LOCKED plus a lease, so parallel or crashed pollers never double-check a name
--     nor lose one;
--   * the app's functions for its Telegram chat and webhooks (the account, security definer).
--
-- The alert sender decides retries (supabase/functions/_shared/alerts/retry_schedule.ts) and checks
-- webhook targets again at send time, including the addresses a host name resolves to.

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

-- ---------------------------------------------------------------------------------------------------
-- alert_events: one row per account per alert. `id` is the event id webhooks carry ("evt_…").
-- ---------------------------------------------------------------------------------------------------
create table public.alert_events (
  id text primary key default ('evt_' || replace(gen_random_uuid()::text, '-', '')),
  user_id uuid not null references public.profiles (id) on delete cascade,
  type text not null check (type in ('domain.available', 'test')),
  domain_name text not null,
  unicode_name text,
  previous_status text,
  status text not null,
  checked_at timestamptz not null,
  created_at timestamptz not null default now()
);

comment on table public.alert_events is
  'One row per watching account for each transition of a domain into available (type domain.available), '
  'or per test the account asked for (type test). Written by the outbox trigger and the test functions.';

create index alert_events_user_id_created_at_idx on public.alert_events (user_id, created_at desc);

alter table public.alert_events enable row level security;

create policy "Users can read their own alert events"
  on public.alert_events for select to authenticated
  using (user_id = (select auth.uid()));

revoke all on table public.alert_events from anon, authenticated;
grant select on table public.alert_events to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- alert_deliveries: one row per event and channel (per endpoint for webhooks). Its id is the webhook's
-- X-Service-Delivery header, the same on every retry. No secrets and no chat IDs are stored here.
-- ---------------------------------------------------------------------------------------------------
create table public.alert_deliveries (
  id uuid primary key default gen_random_uuid(),
  event_id text not null references public.alert_events (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  channel text not null check (channel in ('telegram', 'webhook')),
  webhook_endpoint_id uuid references public.webhook_endpoints (id) on delete set null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempt_count integer not null default 0,
  failure_count integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_http_status integer,
  last_error text,
  delivered_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz not null default now()
);

comment on column public.alert_deliveries.webhook_endpoint_id is
  'The webhook this delivery goes to; null for Telegram, and for webhooks deleted since.';
comment on column public.alert_deliveries.failure_count is
  'Failed attempts that count towards the retry schedule (a Telegram 429 does not).';

create unique index alert_deliveries_one_telegram_per_event_idx
  on public.alert_deliveries (event_id) where channel = 'telegram';
create unique index alert_deliveries_one_per_webhook_per_event_idx
  on public.alert_deliveries (event_id, webhook_endpoint_id)
  where channel = 'webhook' and webhook_endpoint_id is not null;
create index alert_deliveries_due_idx on public.alert_deliveries (next_attempt_at) where status = 'pending';
create index alert_deliveries_user_id_created_at_idx on public.alert_deliveries (user_id, created_at desc);
create index alert_deliveries_webhook_endpoint_id_idx on public.alert_deliveries (webhook_endpoint_id);

alter table public.alert_deliveries enable row level security;

create policy "Users can read their own alert deliveries"
  on public.alert_deliveries for select to authenticated
  using (user_id = (select auth.uid()));

revoke all on table public.alert_deliveries from anon, authenticated;
grant select on table public.alert_deliveries to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- alert_delivery_attempts: the history of every attempt (kept; never contains secrets or chat IDs).
--   outcome: delivered | failed (counts towards the schedule) | rate_limited (Telegram 429) |
--            refused (webhook target not allowed) | skipped (channel removed or switched off).
-- ---------------------------------------------------------------------------------------------------
create table public.alert_delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references public.alert_deliveries (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  attempted_at timestamptz not null default now(),
  outcome text not null check (outcome in ('delivered', 'failed', 'rate_limited', 'refused', 'skipped')),
  http_status integer,
  error text check (error is null or char_length(error) <= 500),
  duration_ms integer
);

create index alert_delivery_attempts_delivery_id_idx on public.alert_delivery_attempts (delivery_id, attempted_at);
create index alert_delivery_attempts_user_id_idx on public.alert_delivery_attempts (user_id);

alter table public.alert_delivery_attempts enable row level security;

create policy "Users can read the attempts of their own deliveries"
  on public.alert_delivery_attempts for select to authenticated
  using (user_id = (select auth.uid()));

revoke all on table public.alert_delivery_attempts from anon, authenticated;
grant select on table public.alert_delivery_attempts to authenticated;

-- ---------------------------------------------------------------------------------------------------
-- The outbox: a transition of a domain into `available` (from any other status) writes, in the same
-- transaction, one event per account actively watching the name, a Telegram delivery for accounts with a
-- chat ID and Telegram switched on, and a webhook delivery per enabled endpoint of accounts whose plan has
-- webhooks. record_domain_check locks the row, so one transition fires this once.
-- ---------------------------------------------------------------------------------------------------
create function public.queue_domain_available_alerts()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  with events as (
    insert into public.alert_events (user_id, type, domain_name, unicode_name, previous_status, status, checked_at)
    select e.user_id, 'domain.available', new.name, e.unicode_name, old.status, new.status,
           coalesce(new.last_checked_at, now())
      from public.watchlist_entries as e
     where e.domain_name = new.name
       and e.deleted_at is null
     order by e.user_id
    returning id, user_id
  ),
  telegram as (
    insert into public.alert_deliveries (event_id, user_id, channel)
    select ev.id, ev.user_id, 'telegram'
      from events as ev
      join public.notification_settings as n on n.user_id = ev.user_id
     where n.telegram_chat_id is not null
       and n.telegram_enabled
  )
  insert into public.alert_deliveries (event_id, user_id, channel, webhook_endpoint_id)
  select ev.id, ev.user_id, 'webhook', w.id
    from events as ev
    join public.profiles as p on p.id = ev.user_id
    join public.plans as pl on pl.id = p.plan_id and pl.webhooks
    join public.webhook_endpoints as w on w.user_id = ev.user_id and w.enabled;
  return null;
end
$$;

revoke all on function public.queue_domain_available_alerts() from public, anon, authenticated, service_role;

create trigger domains_queue_available_alerts
  after update of status on public.domains
  for each row
  when (new.status = 'available' and old.status is distinct from 'available')
  execute function public.queue_domain_available_alerts();

-- ---------------------------------------------------------------------------------------------------
-- Poller: claim due domains. Only names with at least one active watcher; each row once (SKIP LOCKED
-- while claims overlap, then the lease until the check is recorded or deferred). A crashed poller's names
-- come back when the lease ends.
-- ---------------------------------------------------------------------------------------------------
create function public.claim_due_domains(p_limit integer, p_lease_seconds integer)
returns table (
  domain_name text,
  status text,
  expires_at timestamptz,
  registrar text,
  last_checked_at timestamptz
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_due_domains: lease must be 1-3600 s.';
  end if;

  return query
    with due as (
      select d.name
        from public.domains as d
       where d.next_check_at <= now()
         and (d.lease_until is null or d.lease_until <= now())
         and exists (
           select 1 from public.watchlist_entries as e
            where e.domain_name = d.name and e.deleted_at is null
         )
       order by d.next_check_at
       limit p_limit
         for update of d skip locked
    ),
    claimed as (
      update public.domains as d
         set lease_until = now() + make_interval(secs => p_lease_seconds)
        from due
       where d.name = due.name
      returning d.name, d.status, d.expires_at, d.registrar, d.last_checked_at, d.next_check_at
    )
    select c.name::text, c.status, c.expires_at, c.registrar, c.last_checked_at
      from claimed as c
     order by c.next_check_at, c.name;
end
$$;

-- Releases a claimed name without recording a check (the registry was not asked: its host is paused or
-- the run's time is up), or pushes a recorded name's next check back (a 429's Retry-After).
create function public.defer_domain_check(p_domain_name text, p_not_before timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = greatest(d.next_check_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.name = p_domain_name
$$;

-- The denser schedule of a name in pending delete around its predicted drop (computed by the poller from
-- the RDAP dates). Applies only to the check recorded at p_checked_at, and only while still pending
-- delete; the next check stays within 1 minute and 1 day of that check.
create function public.schedule_pending_delete_check(
  p_domain_name text,
  p_checked_at timestamptz,
  p_next_check_at timestamptz
)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.domains as d
     set next_check_at = least(greatest(p_next_check_at, p_checked_at + interval '1 minute'),
                               p_checked_at + interval '1 day')
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at
$$;

revoke all on function public.claim_due_domains(integer, integer) from public, anon, authenticated, service_role;
revoke all on function public.defer_domain_check(text, timestamptz) from public, anon, authenticated, service_role;
revoke all on function public.schedule_pending_delete_check(text, timestamptz, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.claim_due_domains(integer, integer) to service_role;
grant execute on function public.defer_domain_check(text, timestamptz) to service_role;
grant execute on function public.schedule_pending_delete_check(text, timestamptz, timestamptz) to service_role;

-- ---------------------------------------------------------------------------------------------------
-- Dispatcher: claim due deliveries with what is needed to send them (secrets and chat IDs included:
-- service_role only), then record each attempt.
-- ---------------------------------------------------------------------------------------------------
create function public.claim_alert_deliveries(p_limit integer, p_lease_seconds integer)
returns table (
  delivery_id uuid,
  channel text,
  attempt_count integer,
  failure_count integer,
  delivery_created_at timestamptz,
  event_id text,
  event_type text,
  event_created_at timestamptz,
  domain_name text,
  unicode_name text,
  previous_status text,
  status text,
  checked_at timestamptz,
  webhook_endpoint_id uuid,
  webhook_url text,
  webhook_secret text,
  webhook_enabled boolean,
  telegram_chat_id text,
  telegram_enabled boolean
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception using errcode = 'DW400', message = 'DW400: claim_alert_deliveries: limit must be 1-1000.';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_alert_deliveries: lease must be 1-3600 s.';
  end if;

  return query
    with due as (
      select dl.id
        from public.alert_deliveries as dl
       where dl.status = 'pending'
         and dl.next_attempt_at <= now()
         and (dl.lease_until is null or dl.lease_until <= now())
       order by dl.next_attempt_at
       limit p_limit
         for update of dl skip locked
    ),
    claimed as (
      update public.alert_deliveries as dl
         set lease_until = now() + make_interval(secs => p_lease_seconds)
        from due
       where dl.id = due.id
      returning dl.*
    )
    select c.id, c.channel, c.attempt_count, c.failure_count, c.created_at,
           ev.id, ev.type, ev.created_at, ev.domain_name, ev.unicode_name, ev.previous_status, ev.status,
           ev.checked_at,
           c.webhook_endpoint_id, w.url, w.secret, w.enabled,
           n.telegram_chat_id, n.telegram_enabled
      from claimed as c
      join public.alert_events as ev on ev.id = c.event_id
      left join public.webhook_endpoints as w on w.id = c.webhook_endpoint_id
      left join public.notification_settings as n on n.user_id = c.user_id and c.channel = 'telegram'
     order by c.next_attempt_at;
end
$$;

-- Writes one attempt into the history and the delivery's summary columns.
create function public.record_alert_delivery_attempt(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_outcome is null or p_outcome not in ('delivered', 'failed', 'rate_limited', 'refused', 'skipped') then
    raise exception using errcode = 'DW400', message = 'DW400: invalid delivery outcome.';
  end if;
  insert into public.alert_delivery_attempts (delivery_id, user_id, outcome, http_status, error, duration_ms)
  select d.id, d.user_id, p_outcome, p_http_status, left(p_error, 500), p_duration_ms
    from public.alert_deliveries as d
   where d.id = p_delivery_id;
  update public.alert_deliveries as d
     set attempt_count = d.attempt_count + 1,
         failure_count = d.failure_count + case when p_outcome = 'failed' then 1 else 0 end,
         last_attempt_at = now(),
         last_http_status = p_http_status,
         last_error = left(p_error, 500),
         lease_until = null
   where d.id = p_delivery_id;
end
$$;

create function public.mark_alert_delivery_delivered(p_delivery_id uuid, p_http_status integer, p_duration_ms integer)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.record_alert_delivery_attempt(p_delivery_id, 'delivered', p_http_status, null, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'delivered', delivered_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- A failed (or rate-limited) attempt; the delivery stays pending until p_next_attempt_at.
create function public.schedule_alert_delivery_retry(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer,
  p_next_attempt_at timestamptz
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_outcome not in ('failed', 'rate_limited') then
    raise exception using errcode = 'DW400', message = 'DW400: only failed or rate_limited attempts are retried.';
  end if;
  if p_next_attempt_at is null then
    raise exception using errcode = 'DW400', message = 'DW400: a retry needs its time.';
  end if;
  perform public.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set next_attempt_at = p_next_attempt_at
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- The last attempt: the delivery is failed for good (and kept for inspection).
create function public.fail_alert_delivery(
  p_delivery_id uuid,
  p_outcome text,
  p_http_status integer,
  p_error text,
  p_duration_ms integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform public.record_alert_delivery_attempt(p_delivery_id, p_outcome, p_http_status, p_error, p_duration_ms);
  update public.alert_deliveries as d
     set status = 'failed', failed_at = now()
   where d.id = p_delivery_id and d.status = 'pending';
end
$$;

-- Gives a claimed delivery back without an attempt (Telegram paused, or the run's time is up).
create function public.defer_alert_delivery(p_delivery_id uuid, p_not_before timestamptz)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.alert_deliveries as d
     set next_attempt_at = greatest(d.next_attempt_at, coalesce(p_not_before, now())),
         lease_until = null
   where d.id = p_delivery_id and d.status = 'pending'
$$;

revoke all on function public.claim_alert_deliveries(integer, integer) from public, anon, authenticated, service_role;
revoke all on function public.record_alert_delivery_attempt(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.mark_alert_delivery_delivered(uuid, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  from public, anon, authenticated, service_role;
revoke all on function public.fail_alert_delivery(uuid, text, integer, text, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.defer_alert_delivery(uuid, timestamptz) from public, anon, authenticated, service_role;
grant execute on function public.claim_alert_deliveries(integer, integer) to service_role;
grant execute on function public.mark_alert_delivery_delivered(uuid, integer, integer) to service_role;
grant execute on function public.schedule_alert_delivery_retry(uuid, text, integer, text, integer, timestamptz)
  to service_role;
grant execute on function public.fail_alert_delivery(uuid, text, integer, text, integer) to service_role;
grant execute on function public.defer_alert_delivery(uuid, timestamptz) to service_role;

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
