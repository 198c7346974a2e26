-- Fair invite mail (docs/decisions.md "Invitations"): one account may use at most a third of the
-- project-wide hourly cap (rounded down; at least one mail, so a project on Supabase's built-in mailer, at
-- 2 an hour, can still invite), so one account (or a handful of free sign-ups) cannot leave every other
-- account without invite mail for the hour.
--
-- Replaces:
--   * public.reserve_invite_mail(uuid, uuid) (20261123001800_server_owned_rules.sql): same signature, the
--     fair share added.
-- Alters:
--   * comments on public.invite_mail_limits and its two columns (the settings the caps are read from).

comment on table public.invite_mail_limits is
  'One row: the invite-mail caps, operator settings (service_role only). per_account_per_day: mails per '
  'inviting account per rolling 24 hours. project_per_hour: mails for the whole project per rolling hour; one '
  'account may use at most a third of it (rounded down, at least 1) in any rolling hour.';
comment on column public.invite_mail_limits.per_account_per_day is
  'Invite mails one account may send per rolling 24 hours.';
comment on column public.invite_mail_limits.project_per_hour is
  'Invite mails the whole project may send per rolling hour; one account gets at most a third of it.';

-- Reserves one invite mail for the account, or returns false when a cap is reached: the account's daily
-- cap, its fair share of the hour (a third of the project-wide hourly cap, rounded down, at least 1), or the
-- project-wide hourly cap. Project-wide serialised (advisory lock), so every cap is exact under concurrency.
-- send-org-invite calls it after invitation_for_sending allowed the send and before it calls Auth.
create or replace function public.reserve_invite_mail(p_user_id uuid, p_invitation_id uuid)
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
          where g.user_id = p_user_id and g.sent_at > now() - interval '1 hour')
          >= greatest(v_limits.project_per_hour / 3, 1)
     or (select count(*) from public.invite_mail_log as g
          where g.sent_at > now() - interval '1 hour') >= v_limits.project_per_hour then
    return false;
  end if;
  insert into public.invite_mail_log (user_id, invitation_id) values (p_user_id, p_invitation_id);
  return true;
end
$$;

revoke all on function public.reserve_invite_mail(uuid, uuid) from public, anon, authenticated, service_role;
grant execute on function public.reserve_invite_mail(uuid, uuid) to service_role;
