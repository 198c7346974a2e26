-- Live checks' share of a key (issue 33): live starts at least 1 / (rate × live_share) apart, so the poller
-- always keeps the rest; one account within live_account_share of that (a burst of live_account_window_ms'
-- worth); a live caller that must wait for its share holds no slot meanwhile.
-- A start given up unsent is not spent (issue 34, point 0): rate_limit_release_at(…, sent => false) hands
-- the key's turn and the live share back. The shipped classes let a caller send a moment after its start.
\ir _setup.psql

select plan(16);

insert into public.rate_limit_classes (class, rate_per_second, concurrency, reserve_lead_ms, live_share,
                                       live_account_share, live_account_window_ms)
values ('tapl', 1, 3, 100, 0.5, 0.5, 8000),
       -- live_share 1: only the account's part limits; 1 start/s per account, a burst of 3.
       ('tapa', 10, 10, 100, 1, 0.1, 3000),
       ('tapg', 1, 3, 100, 0.5, 0.5, 8000);

select tests.authenticate_as_service_role();

-- Live spacing: a second live start waits for the live share's turn, holding no slot meanwhile.
create temporary table r as select 1 as n, * from private.rate_limit_reserve('tapl', 'k1', 5000, false, 'acct-a');
insert into r select 2, * from private.rate_limit_reserve('tapl', 'k1', 5000, false, 'acct-b');
select ok((select granted and wait_ms between 100 and 101 from r where n = 1), 'a first live start goes at once');
select ok(
  (select not granted and reason = 'busy' and retry_ms between 2000 and 2101 from r where n = 2),
  'the next live start (any account) must wait 1 / (rate × live_share) after it: busy, ask again then'
);
select is((select count(*)::int from public.rate_limit_slots where class = 'tapl' and key = 'k1'), 1,
  'a live caller waiting for its share holds no slot (the poller''s starts are not held back)');
insert into r select 3, * from private.rate_limit_reserve('tapl', 'k1', 5000);
select ok(
  (select granted and starts_at = (select starts_at from r where n = 1) + interval '1 s' from r where n = 3),
  'the poller takes the very next start'
);
insert into r select 4, * from private.rate_limit_reserve('tapl', 'k1', 1000, false, 'acct-b');
select ok((select not granted and reason = 'busy' and retry_ms is null from r where n = 4),
  'a live start beyond the caller''s budget: busy without a retry');
select is(
  (select live_next_start_at - (select starts_at from r where n = 1) from public.rate_limit_keys
    where class = 'tapl' and key = 'k1'),
  interval '2 s', 'the key remembers the next live start'
);

-- Settled ahead of its reserved start (as callers do, ~450 ms before), a live start still goes at its time.
insert into r select 5, * from private.rate_limit_reserve('tapl', 'k5', 5000, false, 'acct-a');
create temporary table st5 as select * from private.rate_limit_settle((select token from r where n = 5));
select ok((select start_at = (select starts_at from r where n = 5) from st5),
  'a live start settled early still starts at its reserved time, not before');

-- One account's part: a burst of window / (1 / (rate × live_share × account_share)) = 3, then 1 per second.
insert into r select 11, * from private.rate_limit_reserve('tapa', 'k2', 5000, false, 'acct-a');
insert into r select 12, * from private.rate_limit_reserve('tapa', 'k2', 5000, false, 'acct-a');
insert into r select 13, * from private.rate_limit_reserve('tapa', 'k2', 5000, false, 'acct-a');
insert into r select 14, * from private.rate_limit_reserve('tapa', 'k2', 5000, false, 'acct-a');
insert into r select 15, * from private.rate_limit_reserve('tapa', 'k2', 5000, false, 'acct-b');
select ok((select bool_and(granted) from r where n between 11 and 13), 'one account''s burst is served');
select ok((select not granted and reason = 'busy' and retry_ms between 900 and 1101 from r where n = 14),
  'beyond its burst the account waits for its part of the share');
select ok((select granted from r where n = 15), 'another account still has its own part');
select is((select count(*)::int from public.rate_limit_live_accounts where class = 'tapa' and key = 'k2'), 2,
  'each account''s use is kept per key');

-- Given up unsent: the turn is not spent.
insert into r select 20, * from private.rate_limit_reserve('tapg', 'k3', 5000, false, 'acct-a');
create temporary table st as select 20 as n, * from private.rate_limit_settle((select token from r where n = 20));
select private.rate_limit_release_at((select token from r where n = 20), clock_timestamp(), false);
insert into r select 21, * from private.rate_limit_reserve('tapg', 'k3', 5000, false, 'acct-b');
select ok((select granted and wait_ms between 99 and 101 from r where n = 21),
  'a settled start given up unsent hands its turn and the live share back: the next one goes at once');
select is(
  (select tat from public.rate_limit_live_accounts where class = 'tapg' and key = 'k3' and account = 'acct-a'),
  (select starts_at from r where n = 20),
  'the account''s part is handed back too'
);
insert into st select 21, * from private.rate_limit_settle((select token from r where n = 21));
select pg_sleep(0.15);
select private.rate_limit_release_at((select token from r where n = 21), clock_timestamp());
insert into r select 22, * from private.rate_limit_reserve('tapg', 'k3', 5000);
select ok(
  (select granted and starts_at >= (select last_finished_at + interval '1 s' from public.rate_limit_keys
                                      where class = 'tapg' and key = 'k3') from r where n = 22),
  'a start that was sent is spent: the next one is 1 / rate after its end'
);
insert into r select 23, * from private.rate_limit_reserve('tapg', 'k4', 5000);
select private.rate_limit_release_at((select token from r where n = 23), clock_timestamp(), false);
insert into r select 24, * from private.rate_limit_reserve('tapg', 'k4', 5000);
select ok((select granted and wait_ms between 99 and 101 from r where n = 24),
  'a reservation given up before settling is not spent either');

-- The shipped classes: a caller may send a moment after its settled start (was 0 ms for whois_host: every
-- caller woke a millisecond "late", gave its start up unsent and answered whois_host_busy).
reset role;
select ok(
  (select bool_and(private.rate_limit_late_start_ms(c, c.rate_per_second) >= 1000)
     from public.rate_limit_classes as c where c.class in ('rdap_host', 'whois_host')),
  'rdap_host and whois_host let a caller send at least 1 s after its settled start'
);

select * from tests.finish();
rollback;
