-- The calendar feed (issue 41; decisions.md "Email alerts, in-app checks, the calendar feed, tags and notes"):
-- one secret URL per account, …/functions/v1/calendar/<token>.ics, with an all-day event on each watched
-- name's expiry date and an event at each predicted drop (pending_delete names), each with alarms at the
-- account's calendar reminder days. The token (dwcal_ and 48 hex, redacted from logs) is stored hashed (SHA-256 hex); the app creates, renews and
-- revokes it through the functions below (never an assistant's OAuth token); the edge function `calendar`
-- reads the feed as service_role by the token's hash, and gets only that account's own watchlist.

create table public.calendar_feeds (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  reminder_days integer[] not null default '{30,7,1}'
    check (cardinality(reminder_days) between 1 and 10 and 1 <= all (reminder_days) and 365 >= all (reminder_days)),
  created_at timestamptz not null default now()
);
comment on table public.calendar_feeds is
  'One calendar feed per account: the SHA-256 hex of its secret token (the token itself is shown once), the '
  'reminder days of its alarms, when it was made. No grants: reached only through the functions below.';

-- Row-level security on, no policy and no grant: nobody reads or writes the table directly.
alter table public.calendar_feeds enable row level security;

-- The caller's feed: whether one exists, since when, its reminder days (never the token or its hash).
create function public.calendar_feed()
returns table (active boolean, created_at timestamptz, reminder_days integer[])
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  perform private.refuse_oauth_client_token();
  if v_uid is null then
    raise exception using errcode = '42501', message = 'Sign in first.';
  end if;
  return query
    select true, f.created_at, f.reminder_days from public.calendar_feeds as f where f.user_id = v_uid
    union all
    select false, null::timestamptz, '{30,7,1}'::integer[]
     where not exists (select 1 from public.calendar_feeds as f where f.user_id = v_uid);
end
$$;
comment on function public.calendar_feed() is
  'The signed-in account''s calendar feed: active, created_at, reminder_days (30, 7, 1 when there is none). '
  'Never the token. Refuses assistants'' OAuth tokens.';
revoke all on function public.calendar_feed() from public, anon, authenticated, service_role;
grant execute on function public.calendar_feed() to authenticated;

-- Makes the caller's feed, or renews it (a new token; the old URL stops working at once). Returns the new
-- token, the only time it is ever shown. p_reminder_days: the alarms' days before each date (null keeps the
-- current ones, else 30, 7, 1); DW400 when out of range.
create function public.create_calendar_feed(p_reminder_days integer[] default null)
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_token text := 'dwcal_' || encode(extensions.gen_random_bytes(24), 'hex');
  v_days integer[] := private.validated_expiring_days(p_reminder_days);
begin
  perform private.refuse_oauth_client_token();
  if v_uid is null then
    raise exception using errcode = '42501', message = 'Sign in first.';
  end if;
  insert into public.calendar_feeds as f (user_id, token_hash, reminder_days)
  values (v_uid, encode(extensions.digest(v_token, 'sha256'), 'hex'), coalesce(v_days, '{30,7,1}'))
  on conflict (user_id) do update
     set token_hash = excluded.token_hash,
         reminder_days = coalesce(v_days, f.reminder_days),
         created_at = now();
  return v_token;
end
$$;
comment on function public.create_calendar_feed(integer[]) is
  'Makes or renews the signed-in account''s calendar feed and returns its new secret token (shown once; the '
  'previous URL stops working). Refuses assistants'' OAuth tokens. DW400 reminder days out of range.';
revoke all on function public.create_calendar_feed(integer[]) from public, anon, authenticated, service_role;
grant execute on function public.create_calendar_feed(integer[]) to authenticated;

-- Changes the alarms' days of the caller's feed without changing its URL; DW404 without a feed.
create function public.set_calendar_reminder_days(p_reminder_days integer[])
returns integer[]
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_days integer[] := private.validated_expiring_days(p_reminder_days);
  v_saved integer[];
begin
  perform private.refuse_oauth_client_token();
  if v_days is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Reminder days must be 1 to 10 whole numbers of days from 1 to 365.';
  end if;
  update public.calendar_feeds as f set reminder_days = v_days
   where f.user_id = auth.uid()
  returning f.reminder_days into v_saved;
  if v_saved is null then
    raise exception using errcode = 'DW404', message = 'DW404: There is no calendar feed to change.';
  end if;
  return v_saved;
end
$$;
comment on function public.set_calendar_reminder_days(integer[]) is
  'Sets the reminder days of the signed-in account''s calendar feed (its URL stays). DW400 out of range, DW404 '
  'no feed. Refuses assistants'' OAuth tokens.';
revoke all on function public.set_calendar_reminder_days(integer[]) from public, anon, authenticated, service_role;
grant execute on function public.set_calendar_reminder_days(integer[]) to authenticated;

-- Revokes the caller's feed: its URL answers 404 from now on. True when there was one.
create function public.revoke_calendar_feed()
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform private.refuse_oauth_client_token();
  delete from public.calendar_feeds as f where f.user_id = auth.uid();
  return found;
end
$$;
comment on function public.revoke_calendar_feed() is
  'Revokes the signed-in account''s calendar feed (its URL answers 404 from then on); true when there was one. '
  'Refuses assistants'' OAuth tokens.';
revoke all on function public.revoke_calendar_feed() from public, anon, authenticated, service_role;
grant execute on function public.revoke_calendar_feed() to authenticated;

-- What the feed shows, by the token's SHA-256 hex: null for an unknown or revoked token, else the account's
-- reminder days and its own watched names (its personal watchlist, names it removed left out) with their
-- expiry date, status and predicted drop. service_role only (the edge function `calendar`).
create function private.calendar_feed_document(p_token_hash text)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select jsonb_build_object(
           'reminder_days', to_jsonb(f.reminder_days),
           'names', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'domain_name', w.domain_name,
                      'unicode_name', w.unicode_name,
                      'status', d.status,
                      'expires_at', d.expires_at,
                      'predicted_drop_at', d.predicted_drop_at
                    ) order by w.domain_name)
               from public.watchlist_entries as w
               join public.domains as d on d.name = w.domain_name
              where w.user_id = f.user_id and w.deleted_at is null
           ), '[]'::jsonb)
         )
    from public.calendar_feeds as f
   where f.token_hash = p_token_hash
$$;
comment on function private.calendar_feed_document(text) is
  'The calendar feed of the token whose SHA-256 hex is p_token_hash: reminder_days and the account''s own '
  'watched names (domain_name, unicode_name, status, expires_at, predicted_drop_at); null when unknown or revoked.';
revoke all on function private.calendar_feed_document(text) from public, anon, authenticated, service_role;
grant execute on function private.calendar_feed_document(text) to service_role;
