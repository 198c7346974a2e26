-- RDAP servers: the shipped RDAP server list and the canary proofs (claim exactly once per renewal).
\ir _setup.psql

select plan(34);

-- The shipped list ----------------------------------------------------------------------------------
select ok((select count(*) from public.rdap_server_overrides
           where precedence = 'fallback' and base_url is not null) >= 12,
  'the server list ships rows for TLDs IANA omits');
select is_empty(
  $$ select suffix from public.rdap_server_overrides
      where precedence = 'fallback' and suffix not in ('com', 'net', 'org')
        and (base_url is null or base_url !~ '^https://[^\s/]+/(\S*/)?$' or note is null or length(note) < 20) $$,
  'every shipped row is an https base URL ending in / with a source note'
);
select is(
  (select array_agg(suffix order by suffix) from public.rdap_server_overrides
    where suffix in ('io', 'co', 'de', 'me', 'us', 'ch', 'li', 'ac', 'sh') and base_url like 'https://%' and enabled),
  array['ac', 'ch', 'co', 'de', 'io', 'li', 'me', 'sh', 'us']::text[],
  'io, co, de, me, us (and ch, li, ac, sh) resolve to an https server'
);
select is(
  (select array_agg(coalesce(canary_name, 'nic.' || suffix) order by suffix) from public.rdap_server_overrides
    where suffix in ('io', 'co', 'de', 'me', 'us')),
  array['nic.co', 'denic.de', 'nic.io', 'nic.me', 'nic.us']::text[],
  'each has a canary name (the row''s own, or nic.<tld>)'
);
select is(
  (select array_agg(canary_name order by suffix) from public.rdap_server_overrides
    where suffix in ('com', 'net', 'org') and base_url is null and precedence = 'fallback'),
  array['example.com', 'example.net', 'example.org']::text[],
  'com, net and org keep IANA''s server and prove it with the RFC 2606 example names'
);
select is_empty(
  $$ select suffix from public.rdap_server_overrides
      where precedence = 'fallback' and coalesce(canary_name, 'nic.' || suffix) !~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$' $$,
  'every shipped row has a usable canary name'
);
select throws_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url, precedence) values ('zz-test', 'https://x.test/', 'first') $$,
  '23514', null, 'precedence is override or fallback'
);
select throws_ok(
  $$ insert into public.rdap_server_overrides (suffix, base_url, canary_name) values ('zz-test', 'https://x.test/', 'NIC.ZZ') $$,
  '23514', null, 'a canary name is a lower-case domain name'
);
select lives_ok(
  $$ update public.rdap_server_overrides set enabled = false where suffix = 'io' $$,
  'an operator can disable a shipped row'
);
select lives_ok(
  $$ update public.rdap_server_overrides set base_url = 'https://rdap.example.test/', precedence = 'override'
      where suffix = 'co' $$,
  'an operator can replace a shipped row'
);

-- Proof table protection ---------------------------------------------------------------------------
select has_table('public', 'rdap_server_proofs', 'rdap_server_proofs exists');
select ok((select relrowsecurity from pg_class where oid = 'public.rdap_server_proofs'::regclass),
  'row-level security is enabled on rdap_server_proofs');
select is_empty(
  $$ select r || ' ' || p from unnest(array['anon', 'authenticated']) as r,
       unnest(array['select', 'insert', 'update', 'delete']) as p
      where has_table_privilege(r, 'public.rdap_server_proofs', p) $$,
  'anon and authenticated hold no privilege on rdap_server_proofs'
);
select ok(has_table_privilege('service_role', 'public.rdap_server_proofs', 'select'),
  'service_role (operators) can read the proofs');
select is_empty(
  $$ select r || ' ' || f from unnest(array['public', 'anon', 'authenticated']) as r,
       unnest(array['private.claim_rdap_server_proof(text, text, text, integer)',
                    'private.record_rdap_server_proof(text, text, uuid, text, text, integer, text)']) as f
      where r <> 'public' and has_function_privilege(r, f, 'execute') $$,
  'anon and authenticated cannot execute the proof functions'
);
select ok(has_function_privilege('service_role', 'private.claim_rdap_server_proof(text, text, text, integer)',
  'execute'), 'service_role can claim');

-- Claims ------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
create temporary table first_claim on commit drop as
  select * from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60);
select isnt((select claim_id from first_claim), null, 'first use: the first caller gets the claim');
select is((select proven from first_claim), false, 'and the server is not proven yet');
select results_eq(
  $$ select claim_id is null, proven, claimed_elsewhere
       from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60) $$,
  $$ values (true, false, true) $$,
  'a second caller gets no claim and sees the renewal under way'
);
-- A claim made before the database server last started is void (its caller's connection died with it).
insert into public.rdap_server_proofs (server_url, suffix, canary_name, claim_id, claimed_until, updated_at)
select 'https://r.test/', 'zy', 'nic.zy', gen_random_uuid(), now() + interval '1 minute',
       pg_postmaster_start_time() - interval '1 second';
create temporary table restarted_claim on commit drop as
  select * from private.claim_rdap_server_proof('https://r.test/', 'zy', 'nic.zy', 60);
select isnt((select claim_id from restarted_claim), null,
  'a claim from before the database restarted is void: the next caller asks the canary');
select results_eq(
  $$ select claim_id is null, claimed_elsewhere
       from private.claim_rdap_server_proof('https://r.test/', 'zy', 'nic.zy', 60) $$,
  $$ values (true, true) $$,
  'while the new claim holds'
);
select is(
  private.record_rdap_server_proof('https://r.test/', 'zz', gen_random_uuid(), 'nic.zz', 'verified', 200, 'x'),
  false, 'a stranger''s claim id records nothing'
);
select is(
  private.record_rdap_server_proof('https://r.test/', 'zz', (select claim_id from first_claim), 'nic.zz',
    'verified', 200, 'canary answered 200'),
  true, 'the claimer records the canary''s answer'
);
select results_eq(
  $$ select claim_id is null, proven, claimed_elsewhere
       from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60) $$,
  $$ values (true, true, false) $$,
  'verified: proven, and nothing to renew for a day'
);
select results_eq(
  $$ select state, http_status, valid_until > now() + interval '25 hours', renew_after > now() + interval '23 hours'
       from public.rdap_server_proofs where server_url = 'https://r.test/' and suffix = 'zz' $$,
  $$ values ('verified'::text, 200, true, true) $$,
  'the proof is visible to operators with its validity'
);
select results_eq(
  $$ select claim_id is null, proven from private.claim_rdap_server_proof('https://r.test/', 'yy', 'nic.yy', 60) $$,
  $$ values (false, false) $$,
  'proofs are per suffix: another suffix on the same server starts unproven'
);
select results_eq(
  $$ select claim_id is null, proven from private.claim_rdap_server_proof('https://r.test/', 'zz', 'reg.zz', 60) $$,
  $$ values (false, false) $$,
  'a changed canary name is not proven and is asked at once'
);

-- A day later: renewal; a failed canary removes the proof.
reset role;
update public.rdap_server_proofs set renew_after = now() - interval '1 second', canary_name = 'nic.zz',
       claim_id = null, claimed_until = null
 where server_url = 'https://r.test/' and suffix = 'zz';
select tests.authenticate_as_service_role();
create temporary table renewal on commit drop as
  select * from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60);
select results_eq($$ select claim_id is null, proven from renewal $$, $$ values (false, true) $$,
  'renewal due: one caller claims it while the old proof still counts');
select ok(private.record_rdap_server_proof('https://r.test/', 'zz', (select claim_id from renewal), 'nic.zz',
  'inconclusive', null, 'timeout'), 'the renewer records an inconclusive canary');
select results_eq(
  $$ select state, renew_after <= now() + interval '5 minutes' from public.rdap_server_proofs
      where server_url = 'https://r.test/' and suffix = 'zz' $$,
  $$ values ('verified'::text, true) $$,
  'an inconclusive canary keeps the state and is retried within 5 minutes'
);
reset role;
update public.rdap_server_proofs set renew_after = now() - interval '1 second'
 where server_url = 'https://r.test/' and suffix = 'zz';
select tests.authenticate_as_service_role();
create temporary table second_renewal on commit drop as
  select * from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60);
select ok(private.record_rdap_server_proof('https://r.test/', 'zz', (select claim_id from second_renewal),
  'nic.zz', 'failed', 404, 'canary answered 404'), 'the renewer records a failed canary');
select results_eq(
  $$ select claim_id is null, proven from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 60) $$,
  $$ values (true, false) $$,
  'a failed canary: not proven, and not asked again for an hour'
);
select throws_ok(
  $$ select * from private.claim_rdap_server_proof('https://r.test/', 'zz', 'nic.zz', 0) $$,
  'DW400', null, 'a lease outside 1-3600 s is refused'
);
select throws_ok(
  $$ select private.record_rdap_server_proof('https://r.test/', 'zz', gen_random_uuid(), 'nic.zz', 'maybe', null, null) $$,
  'DW400', null, 'an unknown outcome is refused'
);
reset role;

select * from tests.finish();
rollback;
