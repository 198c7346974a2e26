-- RDAP engine: the bootstrap cache, the shipped server list (rdap_server_overrides), the canary proofs each
-- server must hold before its "not found" counts, the live-check cache, and how one check's result is
-- recorded into a name's shared state (the poller owns the schedule; docs/decisions.md).

create table public.rdap_bootstrap_cache (
  source_url text primary key,
  publication timestamptz,
  document jsonb not null,
  fetched_at timestamptz not null default now()
);

comment on table public.rdap_bootstrap_cache is
  'Copies of the RDAP bootstrap file (RFC 9224) by source URL. fetched_at is when the copy was last fetched '
  'or confirmed current; a fetched copy with an older publication never replaces a newer one.';

alter table public.rdap_bootstrap_cache enable row level security;

-- ---------------------------------------------------------------------------------------------------
-- rdap_server_overrides
-- ---------------------------------------------------------------------------------------------------
create table public.rdap_server_overrides (
  suffix text collate "C" primary key
    constraint rdap_server_overrides_suffix_check check (
      suffix = lower(suffix)
      and suffix ~ '^[a-z0-9-]+(\.[a-z0-9-]+)*$'
    ),
  base_url text
    constraint rdap_server_overrides_base_url_check check (base_url is null or base_url ~ '^https?://[^\s]+$'),
  note text,
  updated_at timestamptz not null default now()
);

comment on table public.rdap_server_overrides is
  'Operator-edited RDAP servers by suffix (a TLD such as "de", or a longer suffix), used before IANA''s '
  'bootstrap for the same suffix; the longest matching suffix wins overall. base_url is the registry''s own '
  'RDAP base URL (the part before "domain/<name>"); null means "no RDAP for this suffix": checks then use DNS '
  'only and never report a name as available. Only add a URL known to be the registry''s own service: a wrong '
  'URL that answers 404 would report registered names as available. Edits take effect within about 5 minutes '
  '(each edge function process keeps the list in memory that long).';

comment on column public.rdap_server_overrides.note is 'Where the URL comes from and who checked it, when.';

-- Deliberately not seeded: no registry URL could be verified (offline) when this was written.
alter table public.rdap_server_overrides enable row level security;

-- ---------------------------------------------------------------------------------------------------
-- live_check_cache
-- ---------------------------------------------------------------------------------------------------
create table public.live_check_cache (
  domain_name text collate "C" primary key,
  result json not null,
  checked_at timestamptz not null,
  expires_at timestamptz not null
);

comment on table public.live_check_cache is
  'Last live-check result per name, served again until expires_at so repeated checks do not reach registries. '
  'Rows more than an hour past expiry are deleted by the next write.';

comment on column public.live_check_cache.result is
  'The result as the API returns it; json rather than jsonb so a cached answer keeps its key order.';

create index live_check_cache_expires_at_idx on public.live_check_cache (expires_at);

alter table public.live_check_cache enable row level security;

-- ---------------------------------------------------------------------------------------------------
-- next_check_delay: how long until a watched name is checked again.
--   pending_delete: 5 minutes (it may drop at any time);
--   registered: hourly when it expires within 7 days or has expired, daily within 45 days, else weekly;
--   available: hourly;
--   unknown (and any failed check): 5 minutes, doubling with each consecutive failure, at most 6 hours.
-- ---------------------------------------------------------------------------------------------------
create function private.next_check_delay(status text, expires_at timestamptz, consecutive_failures integer)
returns interval
language sql
stable
parallel safe
set search_path = ''
as $$
  select case
    when status = 'pending_delete' then interval '5 minutes'
    when status = 'available' then interval '1 hour'
    when status = 'registered' then
      case
        when expires_at is not null and expires_at <= now() + interval '7 days' then interval '1 hour'
        when expires_at is not null and expires_at <= now() + interval '45 days' then interval '1 day'
        else interval '7 days'
      end
    else least(
      interval '6 hours',
      interval '5 minutes' * power(2, least(greatest(coalesce(consecutive_failures, 0) - 1, 0), 16))
    )
  end
$$;
-- next_check_delay is the poller's schedule (used inside record_domain_check); nobody calls it over the API.
revoke all on function private.next_check_delay(text, timestamptz, integer) from public, anon, authenticated;
grant execute on function private.next_check_delay(text, timestamptz, integer) to service_role;

grant select, insert, update, delete on table public.rdap_bootstrap_cache to service_role;

grant select, insert, update, delete on table public.rdap_server_overrides to service_role;

grant select, insert, update, delete on table public.live_check_cache to service_role;

alter table public.rdap_server_overrides
  add column precedence text not null default 'override'
    constraint rdap_server_overrides_precedence_check check (precedence in ('override', 'fallback')),
  add column canary_name text collate "C"
    constraint rdap_server_overrides_canary_name_check check (
      canary_name is null
      or (canary_name = lower(canary_name) and canary_name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$')
    ),
  add column enabled boolean not null default true;

comment on table public.rdap_server_overrides is
  'RDAP servers by suffix (a TLD such as "io", or a longer suffix), besides IANA''s bootstrap. precedence '
  '"fallback" (the shipped rows): used only where the bootstrap does not list the suffix, so the bootstrap '
  'wins where it lists one; "override" (the default for new rows): replaces IANA''s entry. base_url is the '
  'registry''s own RDAP base URL (the part before "domain/<name>"); null means "no RDAP for this suffix": '
  'checks then use DNS only and never report a name as available. canary_name (default nic.<suffix>) is a '
  'registered name that proves the suffix''s server can say "found" (see rdap_server_proofs); it applies '
  'whichever server is used, so a row for a suffix the bootstrap lists can set just the canary. enabled '
  'false ignores the row. Edits take effect within about 5 minutes (each edge function process keeps the '
  'list in memory that long).';

comment on column public.rdap_server_overrides.note is
  'Where the URL is documented (registry page, RDAP clients'' override lists) and when it was checked.';

comment on column public.rdap_server_overrides.precedence is
  '"fallback": only where IANA''s bootstrap does not list the suffix; "override": replaces IANA''s entry.';

comment on column public.rdap_server_overrides.canary_name is
  'A name the registry has registered, asked to prove the server (default nic.<suffix>).';

-- The shipped list: TLDs whose registry runs RDAP but that IANA's bootstrap does not list, each confirmed
-- by at least two independent public sources (named in the note). A row an operator already has is kept.
insert into public.rdap_server_overrides (suffix, base_url, canary_name, precedence, note) values
  ('ac', 'https://rdap.identitydigital.services/rdap/', 'nic.ac', 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('ag', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('bh', 'https://rdap.centralnic.com/bh/', null, 'fallback',
   'CentralNic RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('bz', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('ch', 'https://rdap.nic.ch/', 'nic.ch', 'fallback',
   'SWITCH RDAP (SWITCH documents its RDAP service for .ch and .li on nic.ch / nic.li "Domain Name Lookup with RDAP"). Sources: meeb/whoisit whoisit/overrides.py; gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('co', 'https://rdap.registry.co/co/', 'nic.co', 'fallback',
   '.CO registry RDAP. Sources: meeb/whoisit whoisit/overrides.py ("2025-11-10 .co''s unlisted RDAP endpoint has moved" to this URL); several RDAP clients'' fallback lists. The older rdap.nic.co/ (gbxyz survey) is superseded.'),
  ('de', 'https://rdap.denic.de/', 'denic.de', 'fallback',
   'DENIC RDAP. Sources: meeb/whoisit whoisit/overrides.py ("2021-11-30 .de has an RDAP endpoint, not listed"); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('gl', 'https://rdap.centralnic.com/gl/', null, 'fallback',
   'CentralNic RDAP. Sources: meeb/whoisit whoisit/overrides.py; gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('io', 'https://rdap.identitydigital.services/rdap/', 'nic.io', 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('lc', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('li', 'https://rdap.nic.li/', 'nic.li', 'fallback',
   'SWITCH RDAP, documented by the registry at nic.li/.../whois/rdap ("Domain Name Lookup with RDAP", https://rdap.nic.li/domain/<name>). Also: meeb/whoisit whoisit/overrides.py; gbxyz stealth-RDAP survey.'),
  ('me', 'https://rdap.identitydigital.services/rdap/', 'nic.me', 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('mn', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('my', 'https://rdap.mynic.my/rdap/', 'mynic.my', 'fallback',
   'MYNIC RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('pr', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('sc', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('sh', 'https://rdap.identitydigital.services/rdap/', 'nic.sh', 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('us', 'https://rdap.nic.us/', 'nic.us', 'fallback',
   '.US registry RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).'),
  ('vc', 'https://rdap.identitydigital.services/rdap/', null, 'fallback',
   'Identity Digital RDAP. Sources: meeb/whoisit whoisit/overrides.py (updated 2026-01-05); gbxyz stealth-RDAP survey (KNOWN_URLS).')
on conflict (suffix) do nothing;

-- Canary-only rows for the largest TLDs IANA lists (the bootstrap's server is used): nic.<tld> is not a
-- name these legacy registries are known to hold, while example.com/.net/.org are registered to IANA
-- (RFC 2606 section 3) and answer 200 at the registry.
insert into public.rdap_server_overrides (suffix, base_url, canary_name, precedence, note) values
  ('com', null, 'example.com', 'fallback', 'Canary only (IANA lists com): example.com, registered to IANA per RFC 2606.'),
  ('net', null, 'example.net', 'fallback', 'Canary only (IANA lists net): example.net, registered to IANA per RFC 2606.'),
  ('org', null, 'example.org', 'fallback', 'Canary only (IANA lists org): example.org, registered to IANA per RFC 2606.')
on conflict (suffix) do nothing;

-- ---------------------------------------------------------------------------------------------------
-- rdap_server_proofs
-- ---------------------------------------------------------------------------------------------------
create table public.rdap_server_proofs (
  server_url text collate "C" not null,
  suffix text collate "C" not null,
  canary_name text collate "C" not null,
  state text not null default 'unverified'
    constraint rdap_server_proofs_state_check check (state in ('unverified', 'verified', 'failed')),
  -- The canary's last answer: HTTP status (null: none) and a short description.
  http_status integer,
  detail text,
  checked_at timestamptz,
  verified_at timestamptz,
  -- A verified proof counts until then; renewed before it (renew_after) by the first check that needs it.
  valid_until timestamptz,
  renew_after timestamptz not null default '-infinity',
  -- The one caller asking the canary now (claim_rdap_server_proof), until claimed_until.
  claim_id uuid,
  claimed_until timestamptz,
  updated_at timestamptz not null default now(),
  primary key (server_url, suffix)
);

comment on table public.rdap_server_proofs is
  'Per RDAP server and suffix: did the canary name answer 200 with a domain object? state verified counts '
  'until valid_until (26 h after the last success; renewed after 24 h); failed (the canary answered 404 or '
  'something that is not a domain) is asked again after an hour; a canary that could not be asked (timeout, '
  '5xx, 429) changes no state and is asked again after 5 minutes. A 404 from a server without a valid proof '
  'is unknown (rdap_server_unverified), never available. Set renew_after = now() to re-check at once.';

alter table public.rdap_server_proofs enable row level security;

grant select, insert, update, delete on table public.rdap_server_proofs to service_role;

-- ---------------------------------------------------------------------------------------------------
-- record_rdap_server_proof: the claimed canary's outcome. Ignored (false) unless p_claim_id still holds
-- the claim.
--   verified: state verified, valid 26 h, renewed after 24 h;
--   failed: state failed (no valid proof), asked again after an hour;
--   inconclusive (timeout, 5xx, 429, host paused): state unchanged, asked again after 5 minutes.
-- ---------------------------------------------------------------------------------------------------
create function private.record_rdap_server_proof(
  p_server_url text,
  p_suffix text,
  p_claim_id uuid,
  p_canary_name text,
  p_outcome text,
  p_http_status integer,
  p_detail text
)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if p_outcome is null or p_outcome not in ('verified', 'failed', 'inconclusive') or p_claim_id is null
     or p_canary_name is null then
    raise exception using errcode = 'DW400',
      message = 'DW400: record_rdap_server_proof: a claim, a canary and a valid outcome are required.';
  end if;

  update public.rdap_server_proofs as p
     set state = case p_outcome when 'inconclusive' then p.state else p_outcome end,
         canary_name = case p_outcome when 'inconclusive' then p.canary_name else p_canary_name end,
         http_status = p_http_status,
         detail = left(p_detail, 300),
         checked_at = now(),
         verified_at = case p_outcome when 'verified' then now() else p.verified_at end,
         valid_until = case p_outcome
                         when 'verified' then now() + interval '26 hours'
                         when 'failed' then null
                         else p.valid_until end,
         renew_after = now() + case p_outcome
                                 when 'verified' then interval '24 hours'
                                 when 'failed' then interval '1 hour'
                                 else interval '5 minutes' end,
         claim_id = null,
         claimed_until = null,
         updated_at = now()
   where p.server_url = p_server_url
     and p.suffix = p_suffix
     and p.claim_id = p_claim_id;
  return found;
end
$$;
revoke all on function private.record_rdap_server_proof(text, text, uuid, text, text, integer, text)
  from public, anon, authenticated, service_role;
grant execute on function private.record_rdap_server_proof(text, text, uuid, text, text, integer, text)
  to service_role;

-- ---------------------------------------------------------------------------------------------------
-- claim_rdap_server_proof: whether the server is proven now, and whether this caller must ask the canary.
--   claim_id: non-null for exactly one caller per renewal (first use, proof older than renew_after, or a
--     changed canary name), however many ask at once; that caller asks the canary and records the outcome
--     with record_rdap_server_proof before claimed_until (else another caller may claim it).
--   proven: a verified proof for this canary name that is still valid.
--   claimed_elsewhere: another caller holds the claim (the proof may be about to change).
-- ---------------------------------------------------------------------------------------------------
create or replace function private.claim_rdap_server_proof(
  p_server_url text,
  p_suffix text,
  p_canary_name text,
  p_lease_seconds integer
)
returns table (claim_id uuid, proven boolean, claimed_elsewhere boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_claim uuid;
begin
  if p_server_url is null or p_suffix is null or p_canary_name is null
     or p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception using errcode = 'DW400',
      message = 'DW400: claim_rdap_server_proof: server, suffix, canary and a lease of 1-3600 s are required.';
  end if;

  insert into public.rdap_server_proofs (server_url, suffix, canary_name)
  values (p_server_url, p_suffix, p_canary_name)
  on conflict (server_url, suffix) do nothing;

  -- The row lock makes a concurrent caller wait here and then see the claim (READ COMMITTED re-checks
  -- the condition on the updated row), so only one caller gets a claim per renewal.
  update public.rdap_server_proofs as p
     set claim_id = gen_random_uuid(),
         claimed_until = now() + make_interval(secs => p_lease_seconds),
         updated_at = now()
   where p.server_url = p_server_url
     and p.suffix = p_suffix
     and (p.renew_after <= now() or p.canary_name is distinct from p_canary_name)
     and (p.claimed_until is null or p.claimed_until <= now() or p.updated_at < pg_postmaster_start_time())
  returning p.claim_id into v_claim;

  return query
    select v_claim,
           (p.state = 'verified' and p.valid_until > now() and p.canary_name = p_canary_name),
           (v_claim is null and p.claimed_until is not null and p.claimed_until > now()
            and p.updated_at >= pg_postmaster_start_time())
      from public.rdap_server_proofs as p
     where p.server_url = p_server_url and p.suffix = p_suffix;
end
$$;
revoke all on function private.claim_rdap_server_proof(text, text, text, integer)
  from public, anon, authenticated, service_role;
grant execute on function private.claim_rdap_server_proof(text, text, text, integer) to service_role;

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
-- changes elsewhere. Each change of status (and the first decided one) is written to the name's history
-- (private.note_status_change, public.domain_status_changes) under the row lock.
-- ---------------------------------------------------------------------------------------------------
create function private.record_domain_check(
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
  v_previous_status text;
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
    select d.status into v_previous_status
      from public.domains as d
     where d.name = p_domain_name
       and (d.last_checked_at is null or d.last_checked_at <= p_checked_at)
       for update;
    if not found then
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
                                 p_checked_at + private.next_check_delay(p_status, p_expires_at, 0))
     where d.name = p_domain_name
       and (d.last_checked_at is null or d.last_checked_at <= p_checked_at);
    perform private.note_status_change(p_domain_name, v_previous_status, p_status, p_checked_at, p_source,
                                       p_registrar, p_expires_at);
    return;
  end if;

  select d.last_checked_at, d.consecutive_failures, d.status
    into v_last_checked_at, v_failures, v_previous_status
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
           next_check_at = p_checked_at + private.next_check_delay(p_status, p_expires_at, 0),
           lease_until = null
     where d.name = p_domain_name;
    perform private.note_status_change(p_domain_name, v_previous_status, p_status, p_checked_at, p_source,
                                       p_registrar, p_expires_at);
  else
    update public.domains as d
       set last_checked_at = p_checked_at,
           consecutive_failures = v_failures + 1,
           next_check_at = p_checked_at + private.next_check_delay('unknown', d.expires_at, v_failures + 1),
           lease_until = null
     where d.name = p_domain_name;
  end if;
end
$$;
revoke all on function private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)
  from public, anon, authenticated, service_role;
grant execute on function private.record_domain_check(text, text, timestamptz, timestamptz, text, boolean, text)
  to service_role;
