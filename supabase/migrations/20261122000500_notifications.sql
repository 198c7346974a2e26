-- Alert channels: the account's Telegram chat and its custom webhooks (Pro and higher).
--
-- telegram_chat_id and webhook_endpoints.secret are write-only for authenticated: it may insert and
-- update them but has no SELECT privilege on them. The generated columns telegram_configured and
-- secret_configured tell the app whether a value is saved. The alert sender reads them as service_role.

-- ---------------------------------------------------------------------------------------------------
-- notification_settings
-- ---------------------------------------------------------------------------------------------------
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
  for each row execute function public.set_updated_at();

alter table public.notification_settings enable row level security;

create policy "Users can read their own notification settings"
  on public.notification_settings for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Users can create their own notification settings"
  on public.notification_settings for insert to authenticated
  with check (user_id = (select auth.uid()));

create policy "Users can update their own notification settings"
  on public.notification_settings for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()));

create policy "Users can delete their own notification settings"
  on public.notification_settings for delete to authenticated
  using (user_id = (select auth.uid()));

revoke all on table public.notification_settings from anon, authenticated;
grant select (user_id, telegram_enabled, telegram_configured, updated_at)
  on table public.notification_settings to authenticated;
grant insert (user_id, telegram_chat_id, telegram_enabled) on table public.notification_settings to authenticated;
grant update (telegram_chat_id, telegram_enabled) on table public.notification_settings to authenticated;
grant delete on table public.notification_settings to authenticated;

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
  for each row execute function public.set_updated_at();

alter table public.webhook_endpoints enable row level security;

create policy "Users can read their own webhooks"
  on public.webhook_endpoints for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Users on a plan with webhooks can add webhooks"
  on public.webhook_endpoints for insert to authenticated
  with check (
    user_id = (select auth.uid())
    and exists (
      select 1
        from public.profiles as p
        join public.plans as pl on pl.id = p.plan_id
       where p.id = (select auth.uid())
         and pl.webhooks
    )
  );

create policy "Users can update their own webhooks"
  on public.webhook_endpoints for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()));

create policy "Users can delete their own webhooks"
  on public.webhook_endpoints for delete to authenticated
  using (user_id = (select auth.uid()));

revoke all on table public.webhook_endpoints from anon, authenticated;
grant select (id, user_id, url, description, enabled, secret_configured, created_at, updated_at)
  on table public.webhook_endpoints to authenticated;
grant insert (user_id, url, secret, description, enabled) on table public.webhook_endpoints to authenticated;
grant update (url, secret, description, enabled) on table public.webhook_endpoints to authenticated;
grant delete on table public.webhook_endpoints to authenticated;
