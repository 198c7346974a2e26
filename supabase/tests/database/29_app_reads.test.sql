-- What the app reads: domain_status_changes (written by record_domain_check on every transition, first seen
-- once per name however many watch it), account_overview, watchlist_page (filters, literal search, paging,
-- quick at 10,000 names) and domain_detail (P0002 for a name not watched), each only about the caller.
\ir _setup.psql

select plan(65);

select tests.create_user('ar-alice@test.local', 'pro') as alice \gset
select tests.create_user('ar-bob@test.local', 'free') as bob \gset
select tests.create_user('ar-carol@test.local', 'free') as carol \gset
select tests.create_user('ar-dave@test.local', 'business') as dave \gset

-- Privileges -------------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', 'public.account_overview()', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.watchlist_page(text, text, integer, integer, text, text, text, text)', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.domain_detail(text)', 'EXECUTE')
  and has_table_privilege('authenticated', 'public.domain_status_changes', 'SELECT')
  and not has_table_privilege('authenticated', 'public.domain_status_changes', 'INSERT')
  and not has_table_privilege('authenticated', 'public.domain_status_changes', 'UPDATE'),
  'the app reads; it writes no history');
select ok(
  not has_function_privilege('anon', 'public.account_overview()', 'EXECUTE')
  and not has_function_privilege('anon', 'public.watchlist_page(text, text, integer, integer, text, text, text, text)', 'EXECUTE')
  and not has_function_privilege('anon', 'public.domain_detail(text)', 'EXECUTE')
  and not has_table_privilege('anon', 'public.domain_status_changes', 'SELECT'),
  'anon holds nothing of it');
select ok(
  not has_function_privilege('authenticated',
    'private.note_status_change(text, text, text, timestamptz, text, text, timestamptz)', 'EXECUTE')
  and not has_function_privilege('service_role',
    'private.note_status_change(text, text, text, timestamptz, text, text, timestamptz)', 'EXECUTE'),
  'the history is written only through record_domain_check');

select tests.authenticate_as_anon();
select throws_ok($$ select public.account_overview() $$, '42501', null, 'anon: account_overview refused');
select throws_ok($$ select public.watchlist_page() $$, '42501', null, 'anon: watchlist_page refused');
select throws_ok($$ select public.domain_detail('a.test') $$, '42501', null, 'anon: domain_detail refused');
select throws_ok($$ select count(*) from public.domain_status_changes $$, '42501', null,
  'anon: the history table is refused');
select set_config('request.jwt.claims', '{"role": "authenticated"}', true);
select set_config('role', 'authenticated', true);
select throws_ok($$ select public.watchlist_page() $$, 'DW401', null, 'no user in the token: refused');
select throws_ok($$ select public.account_overview() $$, 'DW401', null, 'no user: account_overview refused');
select throws_ok($$ select public.domain_detail('a.test') $$, 'DW401', null, 'no user: domain_detail refused');

-- Watchlists -------------------------------------------------------------------------------------------
select tests.authenticate_as('ar-alice@test.local');
select public.add_watchlist_domains(array['shared-ar.test', 'alpha-ar.test', 'beta-ar.test', 'xn--bcher-kva.test',
  'a1b-ar.test', 'gamma-ar.test']);
select tests.authenticate_as('ar-bob@test.local');
select public.add_watchlist_domains(array['shared-ar.test', 'bob-only-ar.test']);
-- Both have watched their names since January (the history below is dated then): an account reads only the
-- changes made while it watched a name (20261206000400; pgTAP 33_history_periods).
select tests.authenticate_as_service_role();
update public.watch_periods set started_at = '2026-01-01T00:00:00Z' where user_id in (:'alice', :'bob');

-- Transitions ------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
-- An undecided first check writes no history.
select private.record_domain_check('shared-ar.test', 'unknown', '2026-01-01T00:00:00Z', null, null, false, 'poller');
select is((select count(*)::integer from public.domain_status_changes where domain_name = 'shared-ar.test'), 0,
  'an undecided check is not a state');
-- First seen: one row for the name, though two accounts watch it.
select private.record_domain_check('shared-ar.test', 'registered', '2026-01-02T00:00:00Z',
  '2026-06-01T00:00:00Z', 'Example Registrar', true, 'poller');
select results_eq(
  $$ select previous_status, status, changed_at, source, registrar, expires_at, evidence
       from public.domain_status_changes where domain_name = 'shared-ar.test' $$,
  $$ values (null::text, 'registered'::text, '2026-01-02T00:00:00Z'::timestamptz, 'poller'::text,
             'Example Registrar'::text, '2026-06-01T00:00:00Z'::timestamptz, null::jsonb) $$,
  'first seen: one row for the name (previous_status null), whoever watches it');
select is((select domain_id from public.domain_status_changes where domain_name = 'shared-ar.test'),
  (select id from public.domains where name = 'shared-ar.test'), 'the row points at the domain');
-- The same status again is no change; a failed check is none either.
select private.record_domain_check('shared-ar.test', 'registered', '2026-01-03T00:00:00Z',
  '2026-06-01T00:00:00Z', 'Example Registrar', true, 'poller');
select private.record_domain_check('shared-ar.test', 'unknown', '2026-01-04T00:00:00Z', null, null, false, 'poller');
select private.record_domain_check('shared-ar.test', 'unknown', '2026-01-04T01:00:00Z', null, null, false, 'live');
select is((select count(*)::integer from public.domain_status_changes where domain_name = 'shared-ar.test'), 1,
  'a repeated status and failed checks write nothing');
select private.record_domain_check('shared-ar.test', 'pending_delete', '2026-01-05T00:00:00Z',
  '2026-06-01T00:00:00Z', 'Example Registrar', true, 'poller');
select private.note_drop_prediction('shared-ar.test', '2026-01-05T00:00:00Z', '2026-02-04T00:00:00Z',
  'redemption_period', 0);
-- The live check finds it available, with its evidence.
select private.record_domain_check('shared-ar.test', 'available', '2026-01-06T00:00:00Z', null, null, true, 'live');
-- It was alice's live check (live_check.ts notes who asked).
select private.note_live_change_account('shared-ar.test', '2026-01-06T00:00:00Z', :'alice');
select private.note_check_evidence('shared-ar.test', '2026-01-06T00:00:00Z',
  '{"source": "rdap", "server": "https://rdap.test/", "answer": 404, "canary_name": "nic.test",
    "canary_proved_at": "2026-01-05T12:00:00Z", "dns_rcode": "NXDOMAIN", "resolver": "127.0.0.1:53",
    "checked_at": "2026-01-06T00:00:00Z"}');
-- An out-of-date live result changes nothing.
select private.record_domain_check('shared-ar.test', 'registered', '2026-01-05T12:00:00Z', null, null, true, 'live');
select private.record_domain_check('shared-ar.test', 'registered', '2026-01-07T00:00:00Z',
  '2027-01-07T00:00:00Z', 'New Registrar', true, 'poller');
select results_eq(
  $$ select previous_status, status, changed_at, source, evidence ->> 'server'
       from public.domain_status_changes where domain_name = 'shared-ar.test' order by changed_at $$,
  $$ values (null::text, 'registered'::text, '2026-01-02T00:00:00Z'::timestamptz, 'poller'::text, null::text),
            ('registered', 'pending_delete', '2026-01-05T00:00:00Z', 'poller', null),
            ('pending_delete', 'available', '2026-01-06T00:00:00Z', 'live', 'https://rdap.test/'),
            ('available', 'registered', '2026-01-07T00:00:00Z', 'poller', null) $$,
  'one row per transition, with its source; the available one carries its evidence');
select is((select registrar from public.domain_status_changes
            where domain_name = 'shared-ar.test' and changed_at = '2026-01-07T00:00:00Z'),
  'New Registrar', 'a row keeps the registrar the check saw');

-- Other names: states for the filters.
select private.record_domain_check('alpha-ar.test', 'registered', '2026-01-02T00:00:00Z', null, null, true, 'poller');
select private.record_domain_check('beta-ar.test', 'pending_delete', '2026-01-02T00:00:00Z', null, null, true,
  'poller');
select private.note_drop_prediction('beta-ar.test', '2026-01-02T00:00:00Z', '2026-02-01T00:00:00Z',
  'redemption_period', 0);
select private.record_domain_check('xn--bcher-kva.test', 'available', '2026-01-02T00:00:00Z', null, null, true,
  'live');
select is((select count(*)::integer from public.domain_status_changes where domain_name = 'xn--bcher-kva.test'),
  1, 'a live first decision is a first seen too');
select is((select evidence from public.domain_status_changes where domain_name = 'xn--bcher-kva.test'), null,
  'no evidence is invented when none was noted');

-- An alert with a delivery, for alice only.
insert into public.alert_events (id, user_id, type, domain_name, previous_status, status, checked_at, created_at)
values ('evt_ar_one', :'alice', 'domain.available', 'shared-ar.test', 'pending_delete', 'available',
        '2026-01-06T00:00:00Z', '2026-01-06T00:00:01Z'),
       ('evt_ar_test', :'alice', 'test', 'shared-ar.test', 'unknown', 'available', now(), now());
insert into public.alert_deliveries (event_id, user_id, channel, status, attempt_count, last_attempt_at,
                                     delivered_at, last_http_status)
values ('evt_ar_one', :'alice', 'webhook', 'delivered', 2, '2026-01-06T00:01:00Z', '2026-01-06T00:01:00Z', 204);

-- RLS of the history -----------------------------------------------------------------------------------
select tests.authenticate_as('ar-carol@test.local');
select is((select count(*)::integer from public.domain_status_changes), 0, 'another account sees no history');
select throws_ok($$ select public.domain_detail('shared-ar.test') $$, 'P0002', null,
  'another account''s name is not found (P0002)');
select is(public.watchlist_page(), '{"total": 0, "domains": [], "next_cursor": null}'::jsonb, 'an empty watchlist is an empty page');
select tests.authenticate_as('ar-bob@test.local');
select is((select count(*)::integer from public.domain_status_changes), 3,
  'a watcher reads the name''s history: the poller''s changes, not another account''s live check');
select is(jsonb_array_length(public.domain_detail('shared-ar.test') -> 'history'), 3,
  'the second watcher has the same history on the page');
select ok(not (public.domain_detail('shared-ar.test') -> 'alerts') @> '[{"event_id": "evt_ar_one"}]',
  'but not the other account''s alerts');
select public.remove_watchlist_domain('shared-ar.test');
select is((select count(*)::integer from public.domain_status_changes), 3,
  'an account that watched the name still reads the changes made while it watched it');
select throws_ok($$ select public.domain_detail('shared-ar.test') $$, 'P0002', null,
  'a removed name has no page (P0002)');
select throws_ok($$ select public.domain_detail('never-ar.test') $$, 'P0002', null,
  'a name never watched is not found (P0002)');

-- account_overview -------------------------------------------------------------------------------------
select tests.authenticate_as('ar-alice@test.local');
select tests.authenticate_as_service_role();
insert into public.api_request_counters (user_id, day, request_count)
values (:'alice', (now() at time zone 'UTC')::date, 17), (:'alice', (now() at time zone 'UTC')::date - 1, 99);
update public.profiles set display_name = 'Alice AR' where id = :'alice';
select tests.authenticate_as('ar-alice@test.local');
select is(public.account_overview(),
  jsonb_build_object('plan', 'pro', 'api_access', true, 'watchlist_quota', 1000, 'watchlist_used', 6,
    'daily_request_limit', 1000, 'requests_today', 17,
    'requests_reset_at', ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC',
    'webhooks_allowed', true, 'display_name', 'Alice AR'),
  'overview of a Pro account: plan, quota, usage today, reset at the next UTC midnight');
select tests.authenticate_as('ar-bob@test.local');
select is(public.account_overview() - 'requests_reset_at' - 'display_name',
  '{"plan": "free", "api_access": false, "watchlist_quota": 10, "watchlist_used": 1, "daily_request_limit": 0,
    "requests_today": 0, "webhooks_allowed": false}'::jsonb,
  'a Free account: no API access (limit 0), no webhooks, a removed name is not counted');
select tests.authenticate_as_service_role();
update public.profiles set plan_id = 'enterprise' where id = :'carol';
select tests.authenticate_as('ar-carol@test.local');
select is(public.account_overview() -> 'daily_request_limit', 'null'::jsonb, 'enterprise: unlimited is null');

-- watchlist_page: shapes, order, filters --------------------------------------------------------------
select tests.authenticate_as('ar-alice@test.local');
select is((public.watchlist_page() -> 'total')::integer, 6, 'total counts the active watchlist');
select results_eq(
  $$ select jsonb_array_elements(public.watchlist_page(p_order => 'name') -> 'domains') ->> 'domain_name' $$,
  array['a1b-ar.test', 'alpha-ar.test', 'beta-ar.test', 'gamma-ar.test', 'shared-ar.test', 'xn--bcher-kva.test'],
  'ordered by domain_name');
select is(
  (select array_agg(k order by k) from jsonb_object_keys(public.watchlist_page() -> 'domains' -> 0) as k),
  array['added_at', 'domain_name', 'expires_at', 'last_checked_at', 'next_check_at', 'note', 'predicted_drop_at',
        'prediction_basis', 'registrar', 'registry_unreadable_at', 'status', 'status_changed_at', 'tags',
        'unicode_name', 'unknown_reason'],
  'a row has exactly the contract''s fields');
select is(public.watchlist_page('pending_delete') - 'domains' - 'next_cursor', '{"total": 1}'::jsonb, 'status filter counts');
select is((public.watchlist_page('pending_delete') -> 'domains' -> 0) - 'added_at',
  '{"domain_name": "beta-ar.test", "unicode_name": null, "status": "pending_delete",
    "last_checked_at": "2026-01-02T00:00:00+00:00", "status_changed_at": "2026-01-02T00:00:00+00:00",
    "expires_at": null, "registrar": null, "predicted_drop_at": "2026-02-01T00:00:00+00:00",
    "prediction_basis": "redemption_period", "unknown_reason": null, "next_check_at": null, "tags": [],
    "note": null, "registry_unreadable_at": null}'::jsonb,
  'a pending-delete row carries its predicted drop and basis');
select is((public.watchlist_page('registered') -> 'domains' -> 1) - 'added_at' - 'last_checked_at'
            - 'status_changed_at',
  '{"domain_name": "shared-ar.test", "unicode_name": null, "status": "registered",
    "expires_at": "2027-01-07T00:00:00+00:00", "registrar": "New Registrar", "predicted_drop_at": null,
    "prediction_basis": null, "unknown_reason": null, "next_check_at": null, "tags": [], "note": null, "registry_unreadable_at": null}'::jsonb,
  'a name that left pending delete shows no prediction');
select is((public.watchlist_page('unknown') -> 'total')::integer, 2, 'unchecked names are unknown');
select throws_ok($$ select public.watchlist_page('gone') $$, '22023', null, 'an unknown status is refused');

-- Search: case-insensitive, either form, wildcards taken literally.
select results_eq($$ select jsonb_array_elements(public.watchlist_page(null, 'ALPHA') -> 'domains') ->> 'domain_name' $$,
  array['alpha-ar.test'], 'search ignores case');
select results_eq($$ select jsonb_array_elements(public.watchlist_page(null, 'bücher') -> 'domains') ->> 'unicode_name' $$,
  array['bücher.test'], 'search matches the Unicode form');
select is((public.watchlist_page(null, 'xn--bch') -> 'total')::integer, 1, 'and the ASCII form');
select is((public.watchlist_page(null, '%') -> 'total')::integer, 0, '% is a literal character');
select is((public.watchlist_page(null, '_') -> 'total')::integer, 0, '_ is a literal character');
select is((public.watchlist_page(null, 'a_b') -> 'total')::integer, 0, 'a_b does not match a1b');
select is((public.watchlist_page(null, '\') -> 'total')::integer, 0, 'a backslash is literal');
select is((public.watchlist_page(null, '  ') -> 'total')::integer, 6, 'a blank search is no search');
select is((public.watchlist_page('registered', 'ar.test') -> 'total')::integer, 2, 'filter and search combine');

-- Paging.
select results_eq(
  $$ select jsonb_array_elements(public.watchlist_page(null, null, 2, 1, 'name') -> 'domains') ->> 'domain_name' $$,
  array['alpha-ar.test', 'beta-ar.test'], 'limit and offset');
select is((public.watchlist_page(null, null, 2, 1) -> 'total')::integer, 6, 'total is the whole count');
select is(public.watchlist_page(null, null, 50, 6), '{"total": 6, "domains": [], "next_cursor": null}'::jsonb,
  'past the end: no rows, the total still');
select is(public.watchlist_page(null, 'ar.test', 1, 10), '{"total": 5, "domains": [], "next_cursor": null}'::jsonb,
  'past the end with a filter: the total still');
select results_eq(
  $$ select jsonb_array_elements(public.watchlist_page(null, 'ar', 2, 2, 'name') -> 'domains') ->> 'domain_name' $$,
  array['beta-ar.test', 'gamma-ar.test'], 'a filtered page');
select throws_ok($$ select public.watchlist_page(null, null, 0) $$, '22023', null, 'limit 0 is refused');
select throws_ok($$ select public.watchlist_page(null, null, 201) $$, '22023', null, 'limit 201 is refused');
select throws_ok($$ select public.watchlist_page(null, null, 50, -1) $$, '22023', null, 'a negative offset');

-- domain_detail ----------------------------------------------------------------------------------------
select is(
  (select array_agg(k order by k) from jsonb_object_keys(public.domain_detail('shared-ar.test')) as k),
  array['alerts', 'domain', 'history'], 'the page has the domain, its history and its alerts');
select is(public.domain_detail('shared-ar.test') -> 'domain',
  public.watchlist_page(null, 'shared-ar.test') -> 'domains' -> 0, 'the domain is the watchlist row');
select is(public.domain_detail('  Shared-AR.test. ') -> 'domain' ->> 'domain_name', 'shared-ar.test',
  'the name is normalized');
select is(public.domain_detail('bücher.test') -> 'domain' ->> 'domain_name', 'xn--bcher-kva.test',
  'the Unicode form finds the name');
select is(public.domain_detail('shared-ar.test') -> 'history' -> 2,
  '{"previous_status": "pending_delete", "status": "available", "changed_at": "2026-01-06T00:00:00+00:00",
    "source": "live", "evidence": {"source": "rdap", "server": "https://rdap.test/", "answer": 404,
    "canary_name": "nic.test", "canary_proved_at": "2026-01-05T12:00:00Z", "dns_rcode": "NXDOMAIN",
    "resolver": "127.0.0.1:53", "checked_at": "2026-01-06T00:00:00Z"}}'::jsonb,
  'history rows, oldest first, with the evidence of the available');
select is(jsonb_array_length(public.domain_detail('shared-ar.test') -> 'alerts'), 2,
  'the transition''s own event and the inserted one; test sends are not the name''s');
select is(public.domain_detail('shared-ar.test') -> 'alerts' -> 1,
  '{"event_id": "evt_ar_one", "type": "domain.available", "created_at": "2026-01-06T00:00:01+00:00",
     "deliveries": [{"channel": "webhook", "status": "delivered", "attempts": 2,
                     "last_attempt_at": "2026-01-06T00:01:00+00:00", "delivered_at": "2026-01-06T00:01:00+00:00",
                     "last_response_status": 204}]}'::jsonb,
  'alerts newest first, with their deliveries');

-- 10,000 names: every page answers quickly -------------------------------------------------------------
select tests.authenticate_as('ar-dave@test.local');
select (public.add_watchlist_domains(
  (select array_agg(format('name-%s-ar.test', lpad(g::text, 5, '0'))) from generate_series(1, 10000) g))).added
  as dave_added \gset
select tests.clear_authentication();
update public.domains set status = (array['registered', 'pending_delete', 'available', 'unknown'])[1 + (id % 4)::integer],
                          last_checked_at = now()
 where name like 'name-%-ar.test';
analyze public.watchlist_entries;
analyze public.domains;

create function tests.best_of_three_ms(p_status text, p_search text, p_limit integer, p_offset integer)
returns numeric
language plpgsql
as $$
declare
  v_best numeric;
  v_start timestamptz;
  v_elapsed numeric;
begin
  for i in 1..3 loop
    v_start := clock_timestamp();
    -- The name order (the radar's urgency order is timed in 36_drop_radar.test.sql).
    perform public.watchlist_page(p_status, p_search, p_limit, p_offset, 'name');
    v_elapsed := extract(epoch from clock_timestamp() - v_start) * 1000;
    v_best := least(coalesce(v_best, v_elapsed), v_elapsed);
  end loop;
  return round(v_best, 2);
end
$$;
grant execute on function tests.best_of_three_ms(text, text, integer, integer) to authenticated;
create temporary table page_timings (variant text, ms numeric);
grant insert, select on page_timings to authenticated;

select tests.authenticate_as('ar-dave@test.local');
select is(:dave_added, 10000, '10,000 names watched');
select is((public.watchlist_page(null, null, 50, 9990) -> 'total')::integer, 10000, 'the last page counts all');
insert into page_timings values
  ('first page', tests.best_of_three_ms(null, null, 50, 0)),
  ('last page', tests.best_of_three_ms(null, null, 50, 9950)),
  ('status filter', tests.best_of_three_ms('pending_delete', null, 50, 0)),
  ('status filter, last page', tests.best_of_three_ms('pending_delete', null, 50, 2450)),
  ('search', tests.best_of_three_ms(null, '-09', 50, 0)),
  ('search without match', tests.best_of_three_ms(null, 'zzz', 50, 0)),
  ('status and search, 200 rows', tests.best_of_three_ms('available', 'name', 200, 0));
select diag(string_agg(format('watchlist_page at 10,000 names, %s: %s ms', variant, ms), E'\n'))
  from page_timings;
select ok((select max(ms) < 100 from page_timings), 'every variant answers in under 100 ms at 10,000 names');

select * from tests.finish();
rollback;
