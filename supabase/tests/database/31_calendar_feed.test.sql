-- The calendar feed (20261206000150_calendar_feed.sql): one secret token per account, stored hashed, made,
-- renewed and revoked by the account; the feed's document holds only the account's own watched names.
-- (An assistant's token is refused: 28_oauth_client_tokens.test.sql.)
\ir _setup.psql

select plan(19);

select tests.create_user('cal-ann@test.local') as ann \gset
select tests.create_user('cal-ben@test.local') as ben \gset

insert into public.domains (name, status, expires_at) values ('ann-expiring.com', 'registered', '2027-03-01T00:00:00Z');
insert into public.domains (name, status, predicted_drop_at) values ('ann-dropping.com', 'pending_delete', '2026-12-10T18:30:00Z');
insert into public.domains (name, status) values ('ann-removed.com', 'registered'), ('ben-only.com', 'registered');
insert into public.watchlist_entries (user_id, domain_name) values
  (:'ann', 'ann-expiring.com'), (:'ann', 'ann-dropping.com'), (:'ben', 'ben-only.com');
insert into public.watchlist_entries (user_id, domain_name, deleted_at) values (:'ann', 'ann-removed.com', now());

select tests.authenticate_as('cal-ann@test.local');
select results_eq($$ select active, reminder_days from public.calendar_feed() $$,
  $$ values (false, '{30,7,1}'::integer[]) $$, 'no feed at first (30, 7 and 1 days are the default)');
select public.create_calendar_feed() as token \gset
select matches(:'token'::text, '^dwcal_[0-9a-f]{48}$', 'create_calendar_feed returns a random token (dwcal_ and 48 hex)');
select results_eq($$ select active from public.calendar_feed() $$, $$ values (true) $$, 'the feed is active');
select throws_ok($$ select token_hash from public.calendar_feeds $$, '42501', null,
  'the account cannot read the table, not even its hash');
select throws_ok($$ select private.calendar_feed_document('x') $$, '42501', null,
  'nor read a feed''s document by a hash');
select throws_ok($$ select public.create_calendar_feed(array[0]) $$, 'DW400', null, 'reminder days out of range: DW400');
select is(public.set_calendar_reminder_days(array[1, 14, 14]), '{14,1}'::integer[], 'reminder days are saved sorted, once each');

select tests.clear_authentication();
select is((select token_hash from public.calendar_feeds where user_id = :'ann'),
  encode(extensions.digest(:'token', 'sha256'), 'hex'), 'only the token''s SHA-256 is stored');

select tests.authenticate_as_service_role();
select private.calendar_feed_document(encode(extensions.digest(:'token', 'sha256'), 'hex')) as doc \gset
select is((:'doc'::jsonb) -> 'reminder_days', '[14, 1]'::jsonb, 'the document carries the reminder days');
select is(
  (select string_agg(n ->> 'domain_name', ',') from jsonb_array_elements((:'doc'::jsonb) -> 'names') as n),
  'ann-dropping.com,ann-expiring.com',
  'and only the account''s own names, without removed ones');
select is(
  (select n ->> 'predicted_drop_at' from jsonb_array_elements((:'doc'::jsonb) -> 'names') as n
    where n ->> 'domain_name' = 'ann-dropping.com'),
  '2026-12-10T18:30:00+00:00', 'with the predicted drop of a pending-delete name');
select is(
  (select n ->> 'expires_at' from jsonb_array_elements((:'doc'::jsonb) -> 'names') as n
    where n ->> 'domain_name' = 'ann-expiring.com'),
  '2027-03-01T00:00:00+00:00', 'and the expiry date of a registered one');
select is(private.calendar_feed_document(encode(extensions.digest('unknown', 'sha256'), 'hex')), null,
  'an unknown token has no document');

-- Renewing gives a new token; the old one stops working at once.
select tests.authenticate_as('cal-ann@test.local');
select public.create_calendar_feed() as renewed \gset
select isnt(:'renewed'::text, :'token'::text, 'renewing gives a new token');
select is((select reminder_days from public.calendar_feed()), '{14,1}'::integer[], 'and keeps the reminder days');
select tests.authenticate_as_service_role();
select is(private.calendar_feed_document(encode(extensions.digest(:'token', 'sha256'), 'hex')), null,
  'the old token answers nothing');
select isnt(private.calendar_feed_document(encode(extensions.digest(:'renewed', 'sha256'), 'hex')), null,
  'the new one does');

-- Revoking.
select tests.authenticate_as('cal-ann@test.local');
select ok(public.revoke_calendar_feed(), 'revoke_calendar_feed revokes the feed');
select tests.authenticate_as_service_role();
select is(private.calendar_feed_document(encode(extensions.digest(:'renewed', 'sha256'), 'hex')), null,
  'a revoked token answers nothing');

select * from tests.finish();
rollback;
