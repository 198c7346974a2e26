-- The alert outbox: alert_events, alert_deliveries and alert_delivery_attempts (one event per watching
-- account for each transition of a domain into `available`, one delivery per channel, every attempt to
-- send it), and the trigger that writes them in the same transaction as the new status.

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
