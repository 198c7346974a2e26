-- The poller owns the schedule (docs/decisions.md "Schedule ownership").
--
-- Replaces:
--   * public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean)
--     (20261122000800_rdap_engine.sql): dropped, and defined again with a final p_source argument.
--
-- A live check (`GET /check/{domain}`, the `check_domain` tool) may check any name, also one that other
-- accounts watch, and it writes into the same shared row as the poller. Each caller now names itself, and
-- the rule for a live result is kept here, once:
--   * a decided result (registered, pending_delete, available) is recorded: status, expiry, registrar,
--     status_changed_at and last_checked_at, so a transition raises its alerts as a poller result would;
--   * next_check_at may only come earlier: the earlier of the planned check and the check the result's
--     status calls for. A planned check, an aimed drop check included, is never postponed or cancelled;
--   * consecutive_failures and the lease are the poller's: a live result never changes them;
--   * an undecided (`unknown`) result, or one older than the row's last check, leaves the row as it was.

drop function public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean);

-- ---------------------------------------------------------------------------------------------------
-- record_domain_check: writes one check result into the shared state of an existing public.domains row.
-- p_source 'poller' (the check the schedule planned; the caller holds the lease):
--   p_succeeded true: status, expires_at and registrar are replaced by the check's; status_changed_at is set
--     when the status changes; consecutive_failures returns to 0.
--   p_succeeded false (the check could not decide): the last known status, expiry and registrar stay;
--     consecutive_failures grows and the next check backs off.
--   Both: last_checked_at = p_checked_at, next_check_at = p_checked_at + next_check_delay(...), lease cleared.
--   A result older than the row's last_checked_at (a slow check finishing after a newer one) only clears the
--   lease.
-- p_source 'live' (any account's live check of any name): a decided result is recorded as above, except
--   that next_check_at only ever moves earlier and consecutive_failures and the lease stay; an undecided or
--   out-of-date result changes nothing.
-- A name not in public.domains is ignored (nobody watches it). About state only: alerts hang off status
-- changes elsewhere.
-- ---------------------------------------------------------------------------------------------------
create function public.record_domain_check(
  p_domain_name text,
  p_status text,
  p_checked_at timestamptz,
  p_expires_at timestamptz,
  p_registrar text,
  p_succeeded boolean,
  p_source text
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_last_checked_at timestamptz;
  v_failures integer;
  v_decided boolean;
begin
  if p_status is null or p_status not in ('unknown', 'registered', 'pending_delete', 'available') then
    raise exception using errcode = 'DW400', message = 'DW400: record_domain_check: invalid status.';
  end if;
  if p_checked_at is null or p_succeeded is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_domain_check: checked_at and succeeded are required.';
  end if;
  if p_source is null or p_source not in ('poller', 'live') then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_domain_check: source must be poller or live.';
  end if;
  v_decided := p_succeeded and p_status <> 'unknown';

  if p_source = 'live' then
    if not v_decided then
      return;
    end if;
    update public.domains as d
       set status = p_status,
           status_changed_at = case when d.status is distinct from p_status then p_checked_at
                                    else d.status_changed_at end,
           last_checked_at = p_checked_at,
           expires_at = p_expires_at,
           registrar = p_registrar,
           next_check_at = least(d.next_check_at,
                                 p_checked_at + public.next_check_delay(p_status, p_expires_at, 0))
     where d.name = p_domain_name
       and (d.last_checked_at is null or d.last_checked_at <= p_checked_at);
    return;
  end if;

  select d.last_checked_at, d.consecutive_failures
    into v_last_checked_at, v_failures
    from public.domains as d
   where d.name = p_domain_name
     for update;

  if not found then
    return;
  end if;

  if v_last_checked_at is not null and p_checked_at < v_last_checked_at then
    update public.domains set lease_until = null where name = p_domain_name;
    return;
  end if;

  if p_succeeded then
    update public.domains as d
       set status = p_status,
           status_changed_at = case when d.status is distinct from p_status then p_checked_at
                                    else d.status_changed_at end,
           last_checked_at = p_checked_at,
           expires_at = p_expires_at,
           registrar = p_registrar,
           consecutive_failures = 0,
           next_check_at = p_checked_at + public.next_check_delay(p_status, p_expires_at, 0),
           lease_until = null
     where d.name = p_domain_name;
  else
    update public.domains as d
       set last_checked_at = p_checked_at,
           consecutive_failures = v_failures + 1,
           next_check_at = p_checked_at + public.next_check_delay('unknown', d.expires_at, v_failures + 1),
           lease_until = null
     where d.name = p_domain_name;
  end if;
end
$$;

revoke all on function public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)
  from public, anon, authenticated, service_role;
grant execute on function public.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)
  to service_role;
