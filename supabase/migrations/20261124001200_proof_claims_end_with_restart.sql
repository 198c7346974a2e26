-- A canary claim ends with a database restart (issue 11: found by tests/e2e/db_outage_poller.test.ts once
-- the poller's checks stopped waiting for each other). A claim made before the restart could not be recorded
-- (its caller's connection died with the server), yet it held the renewal for its whole lease (60 s): every
-- 404 in that minute stayed `unknown` ("unverified") and, for names not in pending delete, was backed off 5
-- minutes. A claim is now void once the server has restarted since it was made (`updated_at` is set by the
-- claim, and by the record that ends it); the next caller asks the canary. At worst one extra canary request
-- per registry per restart.
create or replace function public.claim_rdap_server_proof(
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

