-- No way around the rules (issue 18, database half).
--
--   1. Session limits are server data (session_action_limits); consume_session_request(user, action) is
--      called only by the edge functions (service_role), with the account from the verified JWT. The
--      export document and the invite-mail bookkeeping are service_role only as well, so no function a
--      user may execute can produce an export or touch a counter outside the limited endpoints.
--   2. One write path, or rules in the table (docs/database.md, "Write paths"):
--        * webhook_endpoints and notification_settings lose INSERT and UPDATE for authenticated (writes go
--          through the security-definer functions); their rules also hold in the table for every writer:
--          at most 10 webhooks per account (trigger, serialised on the profile row), secret 16-256
--          characters (check constraint);
--        * invitations, organization_members, organizations and profiles keep their narrow column grants;
--          every rule on them is a policy, a check constraint or a trigger below.
--   3. The unicode form of a watched name is derived from the stored A-label (domain_unicode_name) by a
--      trigger on every writer of watchlist_entries and alert_events; callers cannot supply it.
--   4. Invitations: a member who leaves or loses owner/admin has their pending invitations revoked;
--      accept_invitation checks the inviter may still grant the role; invite mail has a per-account daily
--      and a project-wide hourly cap (invite_mail_limits), counted exactly in invite_mail_log.

-- ===================================================================================================
-- 1. Session limits owned by the server
-- ===================================================================================================
create table public.session_action_limits (
  action text primary key check (action ~ '^[a-z][a-z0-9_.-]{0,63}$'),
  max_requests integer not null check (max_requests between 1 and 1000),
  window_length interval not null check (window_length between interval '1 second' and interval '1 day'),
  updated_at timestamptz not null default now()
);

comment on table public.session_action_limits is
  'Rolling-window limit per account for each rate-limited session action. Operator data (service_role '
  'only); callers name the action, never the maximum or the window.';

insert into public.session_action_limits (action, max_requests, window_length)
values ('export-account', 3, interval '10 minutes'), ('send-org-invite', 5, interval '10 minutes')
on conflict (action) do nothing;

create trigger session_action_limits_set_updated_at
  before update on public.session_action_limits
  for each row execute function public.set_updated_at();

alter table public.session_action_limits enable row level security;
revoke all on table public.session_action_limits from public, anon, authenticated;
grant select, insert, update, delete on table public.session_action_limits to service_role;

-- The old signature let the caller choose the maximum and the window.
drop function public.consume_session_request(text, integer, interval);

create function public.consume_session_request(p_user_id uuid, p_action text)
returns table (
  allowed boolean,
  remaining integer,
  reset_at timestamptz,
  request_limit integer,
  window_seconds integer
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_now timestamptz := now();
  v_max integer;
  v_window interval;
  v_count integer;
  v_oldest timestamptz;
  v_freeing timestamptz;
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  select l.max_requests, l.window_length into v_max, v_window
    from public.session_action_limits as l
   where l.action = p_action;
  if not found then
    raise exception using errcode = 'DW400', message = 'DW400: Unknown rate-limited action.';
  end if;

  -- One decision at a time per account and action.
  perform pg_catalog.pg_advisory_xact_lock(
    pg_catalog.hashtextextended('session_request:' || p_user_id::text || ':' || p_action, 0)
  );

  delete from public.session_request_log as l
   where l.user_id = p_user_id
     and l.action = p_action
     and l.requested_at <= v_now - v_window;

  select count(*)::integer, min(l.requested_at)
    into v_count, v_oldest
    from public.session_request_log as l
   where l.user_id = p_user_id
     and l.action = p_action
     and l.requested_at > v_now - v_window;

  if v_count >= v_max then
    -- A slot frees when the row that keeps the window full leaves it.
    select l.requested_at into v_freeing
      from public.session_request_log as l
     where l.user_id = p_user_id
       and l.action = p_action
       and l.requested_at > v_now - v_window
     order by l.requested_at
    offset v_count - v_max
     limit 1;
    return query select false, 0, v_freeing + v_window, v_max, extract(epoch from v_window)::integer;
    return;
  end if;

  insert into public.session_request_log (user_id, action, requested_at) values (p_user_id, p_action, v_now);
  v_count := v_count + 1;

  if v_count >= v_max then
    return query select true, 0, coalesce(v_oldest, v_now) + v_window, v_max, extract(epoch from v_window)::integer;
  else
    return query select true, v_max - v_count, v_now + v_window, v_max, extract(epoch from v_window)::integer;
  end if;
end
$$;

revoke all on function public.consume_session_request(uuid, text) from public, anon, authenticated, service_role;
grant execute on function public.consume_session_request(uuid, text) to service_role;

-- ===================================================================================================
-- export_account: only the export-account function (after its limit) builds the document.
-- ===================================================================================================
drop function public.export_account();

create function public.export_account(p_user_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
set timezone = 'UTC'
as $$
declare
  v_uid uuid := p_user_id;
  v_profile jsonb;
begin
  if v_uid is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;

  select jsonb_build_object(
           'id', p.id,
           'email', p.email,
           'display_name', p.display_name,
           'plan', p.plan_id,
           'created_at', p.created_at
         )
    into v_profile
    from public.profiles as p
   where p.id = v_uid;

  if v_profile is null then
    raise exception using errcode = 'DW404', message = 'DW404: The account has no profile.';
  end if;

  return jsonb_build_object(
    'format_version', 1,
    'exported_at', now(),
    'profile', v_profile,
    'watchlist', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'domain_name', e.domain_name,
                 'unicode_name', e.unicode_name,
                 'status', d.status,
                 'added_at', e.added_at,
                 'removed_at', e.deleted_at
               )
               order by e.domain_name collate "C"
             )
        from public.watchlist_entries as e
        join public.domains as d on d.name = e.domain_name
       where e.user_id = v_uid
    ), '[]'::jsonb),
    'notification_preferences', coalesce((
      select jsonb_build_object(
               'telegram_configured', n.telegram_chat_id is not null,
               'telegram_enabled', n.telegram_enabled
             )
        from public.notification_settings as n
       where n.user_id = v_uid
    ), jsonb_build_object('telegram_configured', false, 'telegram_enabled', true)),
    'webhooks', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', w.id,
                 'description', w.description,
                 'enabled', w.enabled,
                 'created_at', w.created_at,
                 'secret_configured', w.secret is not null
               )
               order by w.created_at, w.id
             )
        from public.webhook_endpoints as w
       where w.user_id = v_uid
    ), '[]'::jsonb),
    'organization_memberships', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'organization_id', m.organization_id,
                 'organization_name', o.name,
                 'role', m.role,
                 'joined_at', m.created_at
               )
               order by m.created_at, m.organization_id
             )
        from public.organization_members as m
        join public.organizations as o on o.id = m.organization_id
       where m.user_id = v_uid
    ), '[]'::jsonb),
    'invitations_sent', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', i.id,
                 'organization_id', i.organization_id,
                 'email', i.email,
                 'role', i.role,
                 'status', i.status,
                 'created_at', i.created_at,
                 'expires_at', i.expires_at,
                 'emailed_at', i.emailed_at
               )
               order by i.created_at, i.id
             )
        from public.invitations as i
       where i.invited_by = v_uid
    ), '[]'::jsonb)
  );
end
$$;

revoke all on function public.export_account(uuid) from public, anon, authenticated, service_role;
grant execute on function public.export_account(uuid) to service_role;

-- ===================================================================================================
-- 2. Write paths
-- ===================================================================================================

-- webhook_endpoints: writes only through create_/update_webhook_endpoint, set_/rotate_webhook_secret.
revoke insert, update on table public.webhook_endpoints from public, anon, authenticated;
grant select (id, user_id, url, description, enabled, secret_configured, created_at, updated_at)
  on table public.webhook_endpoints to authenticated;
grant delete on table public.webhook_endpoints to authenticated;
grant select, insert, update, delete on table public.webhook_endpoints to service_role;

drop policy "Users on a plan with webhooks can add webhooks" on public.webhook_endpoints;
drop policy "Users can update their own webhooks" on public.webhook_endpoints;

-- The secret rule for every writer. NOT VALID: a short secret stored before this migration stays readable
-- (the sender signs with it) until its owner replaces it; every new write is checked.
alter table public.webhook_endpoints
  add constraint webhook_endpoints_secret_length
  check (secret is null or char_length(secret) between 16 and 256) not valid;

-- At most 10 webhooks per account, for every writer, exact under concurrency: inserts (and moves to
-- another account) of one account queue on its profile row, and each counts after the previous committed.
create function public.check_webhook_endpoint_cap()
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

revoke all on function public.check_webhook_endpoint_cap() from public, anon, authenticated, service_role;

create trigger webhook_endpoints_cap
  before insert or update of user_id on public.webhook_endpoints
  for each row execute function public.check_webhook_endpoint_cap();

-- notification_settings: writes only through set_telegram_chat / set_telegram_enabled (and the chat
-- proof flow); the row may still be deleted by its owner.
revoke insert, update on table public.notification_settings from public, anon, authenticated;
grant select (user_id, telegram_enabled, telegram_configured, updated_at)
  on table public.notification_settings to authenticated;
grant delete on table public.notification_settings to authenticated;
grant select, insert, update, delete on table public.notification_settings to service_role;

drop policy "Users can create their own notification settings" on public.notification_settings;
drop policy "Users can update their own notification settings" on public.notification_settings;

-- invitations, organization_members, organizations, profiles: the grants stay exactly these (restated so
-- an earlier blanket grant cannot widen them); their rules are the policies, the check constraints and
-- the triggers of this migration.
revoke insert, update, truncate, references, trigger on table public.invitations from public, anon, authenticated;
revoke all on table public.invitations from anon;
grant insert (organization_id, email, role) on table public.invitations to authenticated;
grant update (status) on table public.invitations to authenticated;
grant select, insert, update, delete on table public.invitations to service_role;

revoke insert, update, truncate, references, trigger on table public.organization_members
  from public, anon, authenticated;
revoke all on table public.organization_members from anon;
grant update (role) on table public.organization_members to authenticated;
grant select, insert, update, delete on table public.organization_members to service_role;

revoke insert, update, truncate, references, trigger on table public.organizations from public, anon, authenticated;
revoke all on table public.organizations from anon;
grant update (name) on table public.organizations to authenticated;
grant select, insert, update, delete on table public.organizations to service_role;

revoke insert, update, truncate, references, trigger on table public.profiles from public, anon, authenticated;
revoke all on table public.profiles from anon;
grant update (display_name) on table public.profiles to authenticated;
grant select, insert, update, delete on table public.profiles to service_role;

-- ===================================================================================================
-- 3. The unicode form of a name, derived from its A-label (IDNA ToUnicode, RFC 3492 Punycode)
-- ===================================================================================================

-- The code points of one Punycode-encoded label (the part after "xn--"), or null when it does not decode.
create function public.punycode_decode(p_input text)
returns integer[]
language plpgsql
immutable
strict
parallel safe
set search_path = ''
as $$
declare
  c_base constant integer := 36;
  c_tmin constant integer := 1;
  c_tmax constant integer := 26;
  v_len integer := char_length(p_input);
  v_out integer[] := '{}';
  v_n bigint := 128;
  v_i bigint := 0;
  v_bias bigint := 72;
  v_basic integer;
  v_pos integer;
  v_oldi bigint;
  v_w bigint;
  v_k bigint;
  v_t bigint;
  v_digit integer;
  v_cp integer;
  v_delta bigint;
  v_points integer;
begin
  if v_len = 0 or v_len > 59 or p_input !~ '^[a-z0-9-]+$' then
    return null;
  end if;
  v_basic := char_length(p_input) - strpos(reverse(p_input), '-') + 1;
  if strpos(p_input, '-') = 0 then
    v_basic := 0;
  end if;
  if v_basic > 0 then
    for v_pos in 1 .. v_basic - 1 loop
      v_out := v_out || ascii(substr(p_input, v_pos, 1));
    end loop;
  end if;
  v_pos := case when v_basic > 0 then v_basic + 1 else 1 end;

  while v_pos <= v_len loop
    v_oldi := v_i;
    v_w := 1;
    v_k := c_base;
    loop
      if v_pos > v_len then
        return null;
      end if;
      v_cp := ascii(substr(p_input, v_pos, 1));
      v_pos := v_pos + 1;
      v_digit := case when v_cp between 97 and 122 then v_cp - 97
                      when v_cp between 48 and 57 then v_cp - 22
                      else c_base end;
      if v_digit >= c_base then
        return null;
      end if;
      v_i := v_i + v_digit * v_w;
      if v_i > 2147483647 then
        return null;
      end if;
      v_t := case when v_k <= v_bias then c_tmin
                  when v_k >= v_bias + c_tmax then c_tmax
                  else v_k - v_bias end;
      exit when v_digit < v_t;
      v_w := v_w * (c_base - v_t);
      if v_w > 2147483647 then
        return null;
      end if;
      v_k := v_k + c_base;
    end loop;

    -- Bias adaptation (RFC 3492 section 6.1).
    v_points := coalesce(cardinality(v_out), 0) + 1;
    v_delta := case when v_oldi = 0 then (v_i - v_oldi) / 700 else (v_i - v_oldi) / 2 end;
    v_delta := v_delta + v_delta / v_points;
    v_k := 0;
    while v_delta > ((c_base - c_tmin) * c_tmax) / 2 loop
      v_delta := v_delta / (c_base - c_tmin);
      v_k := v_k + c_base;
    end loop;
    v_bias := v_k + ((c_base - c_tmin + 1) * v_delta) / (v_delta + 38);

    v_n := v_n + v_i / v_points;
    v_i := v_i % v_points;
    if v_n > 1114111 or v_n between 55296 and 57343 then
      return null;
    end if;
    v_out := v_out[1:v_i] || v_n::integer || v_out[v_i + 1:];
    v_i := v_i + 1;
  end loop;
  return v_out;
end
$$;

-- The unicode form of a stored A-label name, or null when the name has no IDN label or any IDN label does
-- not decode to a plausible name (decoded ASCII must be letters, digits and hyphens; no controls, spaces,
-- punctuation look-alikes, format or private-use characters). The result holds only characters derived
-- from the A-label, so it can be shown in alerts without trusting any caller.
create function public.domain_unicode_name(p_domain_name text)
returns text
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
declare
  v_label text;
  v_points integer[];
  v_cp integer;
  v_labels text[] := '{}';
  v_decoded_any boolean := false;
begin
  if p_domain_name is null or char_length(p_domain_name) > 253 or p_domain_name !~ '^[a-z0-9.-]+$' then
    return null;
  end if;
  foreach v_label in array string_to_array(p_domain_name, '.') loop
    if v_label like 'xn--%' then
      v_points := public.punycode_decode(substr(v_label, 5));
      if v_points is null or cardinality(v_points) = 0 then
        return null;
      end if;
      foreach v_cp in array v_points loop
        if (v_cp < 128 and not (v_cp between 97 and 122 or v_cp between 48 and 57 or v_cp = 45))
           or v_cp between 128 and 160
           or v_cp in (173, 847, 1564, 12288, 12289, 12290, 65279, 8725, 10741)
           or v_cp between 4447 and 4448
           or v_cp between 6068 and 6069
           or v_cp between 6155 and 6159
           or v_cp between 8192 and 8303      -- general punctuation: spaces, zero-width, bidi controls, ...
           or v_cp between 11776 and 11903    -- supplemental punctuation
           or v_cp between 57344 and 63743    -- private use
           or v_cp between 65024 and 65039    -- variation selectors
           or v_cp between 65040 and 65135    -- vertical and small form punctuation
           or v_cp between 65280 and 65519    -- full- and half-width forms (IDNA maps them away)
           or v_cp between 65520 and 65535    -- specials
           or v_cp between 917504 and 921599  -- tags, variation selectors supplement
           or v_cp >= 983040                  -- supplementary private use
        then
          return null;
        end if;
      end loop;
      if not exists (select 1 from unnest(v_points) as p (cp) where p.cp >= 128) then
        return null;
      end if;
      v_labels := v_labels || (select string_agg(chr(p.cp), '' order by p.ord)
                                 from unnest(v_points) with ordinality as p (cp, ord));
      v_decoded_any := true;
    else
      v_labels := v_labels || v_label;
    end if;
  end loop;
  if not v_decoded_any then
    return null;
  end if;
  return array_to_string(v_labels, '.');
end
$$;

revoke all on function public.punycode_decode(text) from public, anon, authenticated, service_role;
revoke all on function public.domain_unicode_name(text) from public, anon, authenticated, service_role;
grant execute on function public.punycode_decode(text) to service_role;
grant execute on function public.domain_unicode_name(text) to service_role;

create function public.derive_unicode_name()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  new.unicode_name := public.domain_unicode_name(new.domain_name);
  return new;
end
$$;

revoke all on function public.derive_unicode_name() from public, anon, authenticated, service_role;

create trigger watchlist_entries_derive_unicode_name
  before insert or update of domain_name, unicode_name on public.watchlist_entries
  for each row execute function public.derive_unicode_name();

create trigger alert_events_derive_unicode_name
  before insert or update of domain_name, unicode_name on public.alert_events
  for each row execute function public.derive_unicode_name();

-- Names stored before this migration: replace whatever a caller sent with the derived form.
update public.watchlist_entries set unicode_name = null;
update public.alert_events set unicode_name = null where unicode_name is not null;

-- add_watchlist_domains without the caller's unicode names.
drop function public.add_watchlist_domains(text[], text[]);

create function public.add_watchlist_domains(p_domain_names text[])
returns table (added integer, skipped_duplicates integer, rejected_over_limit integer, remaining_quota integer)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_uid uuid := public.current_account_id();
  v_count integer;
  v_invalid text[];
  v_quota integer;
  v_active integer;
  v_room integer;
  v_dups integer;
  v_added integer;
begin
  if p_domain_names is null or coalesce(array_ndims(p_domain_names), 1) <> 1 then
    raise exception using errcode = 'DW400', message = 'DW400: domains must be a list of domain names.';
  end if;

  v_count := coalesce(cardinality(p_domain_names), 0);

  if v_count > 10000 then
    raise exception using errcode = 'DW400', message = 'DW400: Too many domains in one request.';
  end if;

  -- Validate the whole request before writing anything.
  select array_agg(coalesce(n.name, '(null)') order by n.ord)
    into v_invalid
    from unnest(p_domain_names) with ordinality as n (name, ord)
   where not public.is_valid_domain_name(n.name);

  if v_invalid is not null then
    raise exception using errcode = 'DW400',
      message = 'DW400: Invalid domain names: ' || array_to_string(v_invalid[1:20], ', ')
        || case when cardinality(v_invalid) > 20 then ', ...' else '' end,
      detail = to_jsonb(v_invalid)::text;
  end if;

  -- Serialise every quota decision of this account: concurrent calls queue here, and each one counts
  -- the active entries only after the previous call has committed (READ COMMITTED).
  select pl.watchlist_quota
    into v_quota
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = v_uid
     for no key update of p;

  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: The account has no profile.';
  end if;

  select count(*)::integer into v_active
    from public.watchlist_entries as e
   where e.user_id = v_uid and e.deleted_at is null;

  v_room := greatest(v_quota - v_active, 0);

  -- One statement, in request order: repeats and names already active are duplicates; of the other
  -- names the first v_room are added (shared domain row first, then a new entry or the restore of a
  -- soft-deleted one, which counts as added) and the rest are rejected over the limit. The unicode form
  -- is set by the watchlist_entries_derive_unicode_name trigger.
  with input as (
    select n.name as domain_name,
           n.ord,
           row_number() over (partition by n.name order by n.ord) as occurrence
      from unnest(p_domain_names) with ordinality as n (name, ord)
  ),
  classified as (
    select i.domain_name,
           i.ord,
           (i.occurrence > 1 or exists (
              select 1 from public.watchlist_entries as e
               where e.user_id = v_uid and e.domain_name = i.domain_name and e.deleted_at is null
           )) as duplicate
      from input as i
  ),
  to_add as (
    select c.domain_name, c.ord
      from (
        select c.*, row_number() over (order by c.ord) as rank
          from classified as c
         where not c.duplicate
      ) as c
     where c.rank <= v_room
  ),
  new_domains as (
    -- Sorted, so that accounts adding overlapping new names concurrently cannot deadlock.
    insert into public.domains (name)
    select a.domain_name from to_add as a order by a.domain_name
    on conflict (name) do nothing
    returning 1
  ),
  upserted as (
    insert into public.watchlist_entries as e (user_id, domain_name)
    select v_uid, a.domain_name from to_add as a order by a.ord
    on conflict (user_id, domain_name) do update
       set deleted_at = null,
           added_at = now()
     where e.deleted_at is not null
    returning 1
  )
  select (select count(*) from upserted)::integer,
         (select count(*) from classified as c where c.duplicate)::integer
    into v_added, v_dups;

  return query select v_added,
                      v_dups,
                      v_count - v_dups - v_added,
                      greatest(v_quota - (v_active + v_added), 0);
end
$$;

revoke all on function public.add_watchlist_domains(text[]) from public, anon, authenticated, service_role;
grant execute on function public.add_watchlist_domains(text[]) to authenticated;

-- ===================================================================================================
-- 4. Invitations
-- ===================================================================================================

-- Leaving an organisation, being removed, or losing owner/admin revokes that person's pending invitations
-- of that organisation (for every writer: the policies, the functions, service_role).
create function public.revoke_invitations_of_former_inviter()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' or new.role not in ('owner', 'admin') then
    update public.invitations as i
       set status = 'revoked'
     where i.organization_id = old.organization_id
       and i.invited_by = old.user_id
       and i.status = 'pending';
  end if;
  return null;
end
$$;

revoke all on function public.revoke_invitations_of_former_inviter() from public, anon, authenticated, service_role;

create trigger organization_members_revoke_invitations
  after delete or update of role on public.organization_members
  for each row
  when (old.role in ('owner', 'admin'))
  execute function public.revoke_invitations_of_former_inviter();

-- accept_invitation: as before, and only while the inviter is still an owner or admin of the organisation
-- (the roles that may grant admin and member).
create or replace function public.accept_invitation(p_token text)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.current_account_id();
  v_email text;
  v_inv public.invitations%rowtype;
begin
  -- Only a confirmed address proves the caller owns the invited mailbox (an unconfirmed sign-up with the
  -- invitee's address must not be able to take the invitation).
  select u.email into v_email from auth.users as u where u.id = v_uid and u.email_confirmed_at is not null;

  select i.* into v_inv
    from public.invitations as i
   where i.token = p_token
     for update;

  -- Unknown, already used, revoked, addressed to someone else, or from an inviter who may no longer grant
  -- the role: all look the same.
  if not found
     or v_inv.status <> 'pending'
     or v_email is null
     or lower(v_inv.email) <> lower(v_email)
     or not exists (
       select 1
         from public.organization_members as m
        where m.organization_id = v_inv.organization_id
          and m.user_id = v_inv.invited_by
          and m.role in ('owner', 'admin')
     ) then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;

  if v_inv.expires_at <= now() then
    raise exception using errcode = 'DW400', message = 'DW400: invitation_expired: The invitation has expired.';
  end if;

  -- An existing member keeps the role they already have.
  insert into public.organization_members (organization_id, user_id, role)
  values (v_inv.organization_id, v_uid, v_inv.role)
  on conflict (organization_id, user_id) do nothing;

  update public.invitations as i
     set status = 'accepted',
         accepted_at = now(),
         accepted_by = v_uid
   where i.id = v_inv.id;

  return v_inv.organization_id;
end
$$;

revoke all on function public.accept_invitation(text) from public, anon, authenticated, service_role;
grant execute on function public.accept_invitation(text) to authenticated;

-- Invite-mail caps (settings, one row): per inviting account per rolling day, and project-wide per rolling
-- hour. The project-wide default stays well under Supabase Auth's own email limit (30/hour with custom
-- SMTP), so invitations can never use up the mail that sign-up and password reset need.
create table public.invite_mail_limits (
  id boolean primary key default true constraint invite_mail_limits_single_row check (id),
  per_account_per_day integer not null default 10 check (per_account_per_day >= 0),
  project_per_hour integer not null default 10 check (project_per_hour >= 0),
  updated_at timestamptz not null default now()
);

comment on table public.invite_mail_limits is
  'One row: invite mails per inviting account per rolling 24 hours, and for the whole project per rolling '
  'hour. Operator data (service_role only).';

insert into public.invite_mail_limits (id) values (true) on conflict (id) do nothing;

create trigger invite_mail_limits_set_updated_at
  before update on public.invite_mail_limits
  for each row execute function public.set_updated_at();

alter table public.invite_mail_limits enable row level security;
revoke all on table public.invite_mail_limits from public, anon, authenticated;
grant select, update on table public.invite_mail_limits to service_role;

-- One row per invite mail handed to Auth. user_id is set null when the account is deleted, so deleting
-- accounts does not free project-wide slots.
create table public.invite_mail_log (
  id bigint generated by default as identity primary key,
  user_id uuid references public.profiles (id) on delete set null,
  invitation_id uuid references public.invitations (id) on delete set null,
  sent_at timestamptz not null default now()
);

create index invite_mail_log_user_sent_idx on public.invite_mail_log (user_id, sent_at);
create index invite_mail_log_sent_idx on public.invite_mail_log (sent_at);

alter table public.invite_mail_log enable row level security;
revoke all on table public.invite_mail_log from public, anon, authenticated;
grant select, insert, update, delete on table public.invite_mail_log to service_role;
grant usage, select on sequence public.invite_mail_log_id_seq to service_role;

-- Reserves one invite mail for the account, or returns false when a cap is reached. Project-wide
-- serialised (advisory lock), so both caps are exact under concurrency. send-org-invite calls it after
-- invitation_for_sending allowed the send and before it calls Auth.
create function public.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_limits public.invite_mail_limits%rowtype;
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in first.';
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('invite_mail', 0));
  select l.* into v_limits from public.invite_mail_limits as l;
  if not found then
    return false;
  end if;
  if (select count(*) from public.invite_mail_log as g
       where g.user_id = p_user_id and g.sent_at > now() - interval '1 day') >= v_limits.per_account_per_day
     or (select count(*) from public.invite_mail_log as g
          where g.sent_at > now() - interval '1 hour') >= v_limits.project_per_hour then
    return false;
  end if;
  insert into public.invite_mail_log (user_id, invitation_id) values (p_user_id, p_invitation_id);
  return true;
end
$$;

-- Gives back a reservation when Auth sent nothing (the address already has an account).
create function public.release_invite_mail(p_user_id uuid, p_invitation_id uuid)
returns void
language sql
security definer
set search_path = ''
as $$
  delete from public.invite_mail_log as g
   where g.id = (
     select max(x.id) from public.invite_mail_log as x
      where x.user_id = p_user_id and x.invitation_id is not distinct from p_invitation_id
   )
$$;

revoke all on function public.reserve_invite_mail(uuid, uuid) from public, anon, authenticated, service_role;
revoke all on function public.release_invite_mail(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.reserve_invite_mail(uuid, uuid) to service_role;
grant execute on function public.release_invite_mail(uuid, uuid) to service_role;

-- mark_invitation_emailed: only send-org-invite, after Auth accepted the mail (a user has no reason to
-- call it). Same rules as before, for the account taken from the verified JWT.
drop function public.mark_invitation_emailed(uuid);

create function public.mark_invitation_emailed(p_user_id uuid, p_invitation_id uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_user_id is null then
    raise exception using errcode = 'DW401', message = 'DW401: Sign in to send an invitation.';
  end if;

  update public.invitations as i
     set emailed_at = now()
   where i.id = p_invitation_id
     and i.status = 'pending'
     and i.expires_at > now()
     and exists (
       select 1 from public.organization_members as m
        where m.organization_id = i.organization_id
          and m.user_id = p_user_id
          and m.role in ('owner', 'admin')
     );

  if not found then
    raise exception using errcode = 'DW404', message = 'DW404: The invitation was not found.';
  end if;
end
$$;

revoke all on function public.mark_invitation_emailed(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.mark_invitation_emailed(uuid, uuid) to service_role;

do $do$
begin
  perform cron.schedule(
    'dwl-prune-invite-mail-log',
    '27 3 * * *',
    $job$ delete from public.invite_mail_log where sent_at < now() - interval '2 days'; $job$
  );
end
$do$;

-- ===================================================================================================
-- 5. Leftover grants the grant probe (tests/database/grant_probe.test.ts) found
-- ===================================================================================================
-- Sequences: every table with an identity column is written by definer functions or service_role only.
revoke all on all sequences in schema public from public, anon, authenticated;
grant usage, select on all sequences in schema public to service_role;

-- next_check_delay is the poller's schedule (used inside record_domain_check); nobody calls it over the API.
revoke all on function public.next_check_delay(text, timestamptz, integer) from public, anon, authenticated;
grant execute on function public.next_check_delay(text, timestamptz, integer) to service_role;
