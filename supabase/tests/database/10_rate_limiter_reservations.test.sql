-- rate_limit_reserve: start times handed out 1 / rate apart, a lead ahead of now, within the in-flight cap,
-- one start beyond the cap for an urgent caller (where starts are spaced from the previous end),
-- refused during a pause (which voids the starts still ahead) or beyond the caller's budget.
-- rate_limit_settle: the final start, 1 / rate after the previous request's recorded end (space_from_end);
-- rate_limit_release_at: the end as the caller saw it, clamped to the slot's start and now.
\ir _setup.psql

select plan(29);

select ok(
  not has_function_privilege('anon', 'private.rate_limit_reserve(text, text, integer, boolean, text)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_reserve(text, text, integer, boolean, text)', 'EXECUTE')
  and has_function_privilege('service_role', 'private.rate_limit_reserve(text, text, integer, boolean, text)', 'EXECUTE')
  and not has_function_privilege('authenticated', 'private.rate_limit_settle(uuid)', 'EXECUTE')
  and not has_function_privilege('anon', 'private.rate_limit_release_at(uuid, timestamptz, boolean)', 'EXECUTE')
  and has_function_privilege('service_role', 'private.rate_limit_settle(uuid)', 'EXECUTE')
  and has_function_privilege('service_role', 'private.rate_limit_release_at(uuid, timestamptz, boolean)', 'EXECUTE'),
  'only the service role may reserve, settle and release starts'
);

insert into public.rate_limit_classes (class, rate_per_second, concurrency, reserve_lead_ms, late_start_ms)
values ('tapr', 2, 3, 100, 25);
insert into public.rate_limit_classes (class, rate_per_second, concurrency, reserve_lead_ms, late_start_ms,
                                       space_from_end)
values ('taps', 2, 3, 100, 25, false);

select tests.authenticate_as_service_role();
select throws_ok($$ select * from private.rate_limit_reserve('nope', 'k', 100) $$, 'DW400', null, 'unknown class');
select throws_ok($$ select * from private.rate_limit_reserve('tapr', '', 100) $$, 'DW400', null, 'empty key');

create temporary table r as select 1 as n, * from private.rate_limit_reserve('tapr', 'h1', 5000);
select is(
  (select format('%s %s %s %s', granted, starts_at - db_now, wait_ms, coalesce(late_start_ms::text, 'none'))
     from r where n = 1),
  't 00:00:00.1 100 1000',
  'the first start is the lead ahead of now; spaced from the previous end, a start may be sent up to '
  || 'in_flight_wait_ms − 2 / rate late'
);
insert into r select 2, * from private.rate_limit_reserve('tapr', 'h1', 5000);
insert into r select 3, * from private.rate_limit_reserve('tapr', 'h1', 5000);
select is(
  (select array_agg(starts_at - (select starts_at from r where n = 1) order by n) from r where granted),
  array[interval '0', interval '500 ms', interval '1 s'],
  'the next starts are exactly 1 / rate apart'
);
select is((select count(*)::int from public.rate_limit_slots where class = 'tapr' and key = 'h1'), 3,
  'each reserved start holds an in-flight slot');
select ok((select bool_and(expires_at = starts_at + interval '2 s') from public.rate_limit_slots
            where class = 'tapr' and key = 'h1'),
  'until settled, a reservation lapses in_flight_wait_ms after its start (a dead caller does not hold it long)');

insert into r select 4, * from private.rate_limit_reserve('tapr', 'h1', 5000);
select ok((select not granted and reason = 'busy' and retry_ms between 25 and 1000 and token is null from r where n = 4),
  'beyond the in-flight cap: busy, with when to ask again');

select private.rate_limit_release((select token from r where n = 1));
insert into r select 5, * from private.rate_limit_reserve('tapr', 'h1', 5000);
select is((select starts_at - (select starts_at from r where n = 1) from r where n = 5), interval '1.5 s',
  'a released slot lets the next start in, still spaced after the last one reserved');

insert into r select 6, * from private.rate_limit_reserve('tapr', 'h1', 100);
select ok((select not granted and reason = 'busy' from r where n = 6),
  'busy when the cap is reached, whatever the budget');
select private.rate_limit_release(token) from r where n in (2, 3);
insert into r select 7, * from private.rate_limit_reserve('tapr', 'h1', 500);
select ok((select not granted and reason = 'busy' and retry_ms is null from r where n = 7),
  'a start later than the budget allows is refused, with no retry');

-- A 429 pauses the key: the reserved start still ahead is void, and new reservations are refused.
select private.rate_limit_pause('tapr', 'h1', clock_timestamp() + interval '60 s', 'rate_limited');
select is((select count(*)::int from public.rate_limit_slots where class = 'tapr' and key = 'h1'), 0,
  'a pause voids the starts reserved ahead');
insert into r select 8, * from private.rate_limit_reserve('tapr', 'h1', 5000);
select ok((select not granted and reason = 'rate_limited' and paused_until > clock_timestamp() + interval '50 s'
           from r where n = 8), 'a paused key refuses, saying until when');

-- A short pause within the budget is waited out: the start comes after it.
select private.rate_limit_pause('tapr', 'h2', clock_timestamp() + interval '2 s', 'rate_limited');
insert into r select 9, * from private.rate_limit_reserve('tapr', 'h2', 5000);
select ok((select granted and starts_at >= (select paused_until from public.rate_limit_keys
                                             where class = 'tapr' and key = 'h2') from r where n = 9),
  'a short pause within the budget: the start is after it');
insert into r select 10, * from private.rate_limit_reserve('tapr', 'h2', 1000);
select ok((select not granted and reason = 'rate_limited' from r where n = 10),
  'a pause longer than the budget refuses');

-- Backed-off keys refuse too (rate_limit_report counts the failures).
select private.rate_limit_report('tapr', 'h3', false) from generate_series(1, 3);
insert into r select 11, * from private.rate_limit_reserve('tapr', 'h3', 5000);
select ok((select not granted and reason = 'backoff' and consecutive_failures = 3 from r where n = 11),
  'a backed-off key refuses with the failure count');

-- Keys of one class are independent.
insert into r select 12, * from private.rate_limit_reserve('tapr', 'h4', 5000);
select ok((select granted and wait_ms between 100 and 101 from r where n = 12), 'another key starts at once');

-- Settling: the final start comes after the previous request's end.
insert into r select 20, * from private.rate_limit_reserve('tapr', 'h5', 5000);
insert into r select 21, * from private.rate_limit_reserve('tapr', 'h5', 5000);
create temporary table st as select 20 as n, * from private.rate_limit_settle((select token from r where n = 20));
select ok((select start_at >= db_now and start_at < db_now + interval '5 ms' from st where n = 20),
  'the first request of a key starts now (spaced from the previous end, the reserved time is when to ask)');
insert into st select 21, * from private.rate_limit_settle((select token from r where n = 21));
select ok((select start_at is null and retry_ms between 25 and 1000 from st where n = 21),
  'while the request before it is in flight (or about to start), ask again');
select pg_sleep(0.15);
select private.rate_limit_release_at((select token from r where n = 20), clock_timestamp() + interval '1 hour');
select ok((select last_finished_at <= clock_timestamp() and last_finished_at > (select start_at from st where n = 20)
             from public.rate_limit_keys where class = 'tapr' and key = 'h5'),
  'an end reported in the future is recorded as now');
insert into st select 22, * from private.rate_limit_settle((select token from r where n = 21));
select is((select start_at from st where n = 22),
  (select last_finished_at + interval '500 ms' from public.rate_limit_keys where class = 'tapr' and key = 'h5'),
  'the next start is 1 / rate after the previous end');
select pg_sleep(0.7);
select private.rate_limit_release_at((select token from r where n = 21), clock_timestamp() - interval '1 day');
select is((select last_finished_at from public.rate_limit_keys where class = 'tapr' and key = 'h5'),
  (select start_at from st where n = 22), 'an end reported before the start is recorded as the start');

insert into r select 23, * from private.rate_limit_reserve('tapr', 'h5', 5000);
select private.rate_limit_pause('tapr', 'h5', clock_timestamp() + interval '60 s', 'rate_limited');
insert into st select 23, * from private.rate_limit_settle((select token from r where n = 23));
select ok((select start_at is null and retry_ms is null from st where n = 23),
  'a slot voided by a pause settles to nothing (reserve again)');
insert into r select 25, * from private.rate_limit_reserve('tapr', 'h8', 5000);
insert into st select 25, * from private.rate_limit_settle((select token from r where n = 25));
select private.rate_limit_pause('tapr', 'h8', clock_timestamp() + interval '60 s', 'rate_limited');
select ok(exists (select 1 from public.rate_limit_slots where token = (select token from r where n = 25)),
  'a settled start is not voided by a pause (its caller sends without asking again): it holds the next one');
insert into r select 24, * from private.rate_limit_reserve('tapr', 'h7', 5000);
select pg_sleep(0.15);
select private.rate_limit_pause('tapr', 'h7', clock_timestamp() + interval '60 s', 'rate_limited');
insert into st select 24, * from private.rate_limit_settle((select token from r where n = 24));
select ok((select start_at is null and retry_ms is null from st where n = 24),
  'a slot whose reserved time had passed when the key was paused settles to nothing too');

-- Urgent callers: one reservation beyond the in-flight cap, queued after the starts already reserved.
insert into r select 51, * from private.rate_limit_reserve('tapr', 'h9', 5000);
insert into r select 52, * from private.rate_limit_reserve('tapr', 'h9', 5000);
insert into r select 53, * from private.rate_limit_reserve('tapr', 'h9', 5000);
insert into r select 54, * from private.rate_limit_reserve('tapr', 'h9', 5000, true);
select ok(
  (select granted and starts_at = (select starts_at from r where n = 53) + interval '500 ms' from r where n = 54),
  'with the cap taken by routine starts, an urgent caller still reserves, right after them'
);
insert into r select 55, * from private.rate_limit_reserve('tapr', 'h9', 5000, true);
select ok((select not granted and reason = 'busy' and retry_ms between 25 and 1000 from r where n = 55),
  'only one start beyond the cap: a second urgent caller is busy');
insert into r select 61, * from private.rate_limit_reserve('taps', 'h9', 5000);
insert into r select 62, * from private.rate_limit_reserve('taps', 'h9', 5000);
insert into r select 63, * from private.rate_limit_reserve('taps', 'h9', 5000);
insert into r select 64, * from private.rate_limit_reserve('taps', 'h9', 5000, true);
select ok((select not granted and reason = 'busy' from r where n = 64),
  'without space_from_end the cap is the in-flight cap, urgent or not');

-- Without space_from_end: the reserved start stands, with the late-start tolerance for the caller.
insert into r select 30, * from private.rate_limit_reserve('taps', 'h6', 5000);
insert into r select 31, * from private.rate_limit_reserve('taps', 'h6', 5000);
insert into st select 30, * from private.rate_limit_settle((select token from r where n = 30));
insert into st select 31, * from private.rate_limit_settle((select token from r where n = 31));
select ok(
  (select bool_and(late_start_ms = 25) from r where n in (30, 31))
  and (select start_at from st where n = 31) = (select starts_at from r where n = 31)
  and (select starts_at from r where n = 31) - (select starts_at from r where n = 30) = interval '500 ms',
  'without space_from_end the reserved starts stand, 1 / rate apart, with a late-start tolerance'
);

select * from tests.finish();
rollback;
