-- Organizations' watchlists (issue 42, docs/organizations.md): every role against every new table and
-- function. Roles: the owner (olga, Free plan first, then Pro), an admin (adam), a member (mia), a removed
-- member (rem), a stranger (sam, owner of another organization) and an assistant's token of the member.
\ir _setup.psql

select plan(46);

select tests.create_user('olga@test.local', 'free') as olga \gset
select tests.create_user('adam@test.local', 'pro') as adam \gset
select tests.create_user('mia@test.local', 'free') as mia \gset
select tests.create_user('rem@test.local', 'free') as rem \gset
select tests.create_user('sam@test.local', 'business') as sam \gset

select tests.authenticate_as('olga@test.local');
select public.create_organization('Acme') as org \gset
select tests.authenticate_as('sam@test.local');
select public.create_organization('Other') as other \gset
select public.add_organization_watchlist_domains(:'other', array['secret-of-other.com']);
select tests.clear_authentication();
insert into public.organization_members (organization_id, user_id, role) values
  (:'org', :'adam', 'admin'), (:'org', :'mia', 'member'), (:'org', :'rem', 'member');

-- What a call does as someone (optionally with an assistant's token), undone afterwards: 'ok' or the
-- SQLSTATE. The block's final raise rolls the call back, and the caller is the superuser again.
create function pg_temp.outcome(p_email text, p_call text, p_client boolean default false)
returns text
language plpgsql
as $$
declare
  v_claims jsonb := jsonb_build_object('sub', tests.user_id(p_email), 'role', 'authenticated',
    'aud', 'authenticated', 'email', p_email);
begin
  if p_client then
    v_claims := v_claims || '{"client_id": "9f1c0a44-assistant"}';
  end if;
  begin
    perform set_config('request.jwt.claims', v_claims::text, true);
    perform set_config('role', 'authenticated', true);
    execute p_call;
    raise exception using errcode = 'P0T01';
  exception
    when sqlstate 'P0T01' then return 'ok';
    when others then return sqlstate;
  end;
end
$$;

-- How many rows someone sees (same undoing).
create function pg_temp.seen(p_email text, p_statement text, p_client boolean default false)
returns integer
language plpgsql
as $$
declare
  v_claims jsonb := jsonb_build_object('sub', tests.user_id(p_email), 'role', 'authenticated',
    'aud', 'authenticated', 'email', p_email);
  v_count integer;
begin
  if p_client then
    v_claims := v_claims || '{"client_id": "9f1c0a44-assistant"}';
  end if;
  begin
    perform set_config('request.jwt.claims', v_claims::text, true);
    perform set_config('role', 'authenticated', true);
    execute p_statement;
    get diagnostics v_count = row_count;
    raise exception using errcode = 'P0T01', detail = v_count::text;
  exception
    when sqlstate 'P0T01' then
      get stacked diagnostics v_count = pg_exception_detail;
      return v_count;
  end;
end
$$;

-- Adding: the quota is the owner's plan's (Free: 10), counted for the organization alone -------------
select tests.authenticate_as('mia@test.local');
select public.add_watchlist_domains(array['mine-1.com', 'mine-2.com', 'mine-3.com']);
select results_eq(
  format($$ select * from public.add_organization_watchlist_domains(%L, array['a1.com','a2.com','a3.com','mine-1.com']) $$, :'org'),
  $$ values (4, 0, 0, 6) $$,
  'a member adds names; the quota is the owner''s Free plan (10), the member''s personal names do not count');
select tests.authenticate_as('adam@test.local');
select results_eq(
  format($$ select * from public.add_organization_watchlist_domains(%L, array['a1.com','b1.com','b2.com','b3.com','b4.com','b5.com','b6.com','b7.com']) $$, :'org'),
  $$ values (6, 1, 1, 0) $$,
  'an admin (Pro himself) adds up to the owner''s plan''s quota: a duplicate skipped, one over the limit');
select tests.authenticate_as('olga@test.local');
select results_eq(
  format($$ select * from public.add_organization_watchlist_domains(%L, array['c1.com']) $$, :'org'),
  $$ values (0, 0, 1, 0) $$, 'the owner is held to the same quota');
select tests.clear_authentication();
update public.profiles set plan_id = 'pro' where id = :'olga';
select tests.authenticate_as('olga@test.local');
select results_eq(
  format($$ select * from public.add_organization_watchlist_domains(%L, array['c1.com']) $$, :'org'),
  $$ values (1, 0, 0, 989) $$, 'the owner''s upgrade raises the organization''s quota at once');
select is(
  (select count(*)::integer from public.watchlist_entries where user_id = :'olga'), 0,
  'organization names are not on anyone''s personal list');
select tests.clear_authentication();
select is((select count(*)::integer from public.domains where name in ('a1.com', 'mine-1.com')), 2,
  'a name on personal and organization lists at once has one domains row');

select is(pg_temp.outcome('sam@test.local', format($$ select public.add_organization_watchlist_domains(%L, array['x.com']) $$, :'org')),
  'DW404', 'a stranger cannot add (DW404: the organization is not found for them)');
select is(pg_temp.outcome('mia@test.local', format($$ select public.add_organization_watchlist_domains(%L, array['x.com']) $$, :'org'), true),
  '42501', 'an assistant''s token of a member cannot add');
select is(pg_temp.outcome('mia@test.local', format($$ select public.add_organization_watchlist_domains(%L, array['Not valid']) $$, :'org')),
  'DW400', 'invalid names are refused with DW400 before anything is written');
select is(pg_temp.outcome('mia@test.local', format($$ select public.add_organization_watchlist_domains(%L, null) $$, :'org')),
  'DW400', 'a missing list is DW400');

-- Reading: every member, nobody else ------------------------------------------------------------------
select is(pg_temp.seen('olga@test.local', format('select 1 from public.organization_watchlist_entries where organization_id = %L and deleted_at is null', :'org')), 11, 'the owner reads the organization''s entries');
select is(pg_temp.seen('adam@test.local', 'select 1 from public.organization_watchlist_entries where deleted_at is null'), 11, 'an admin reads them (and nothing of other organizations)');
select is(pg_temp.seen('mia@test.local', 'select 1 from public.organization_watchlist_entries where deleted_at is null'), 11, 'a member reads them');
select is(pg_temp.seen('sam@test.local', format('select 1 from public.organization_watchlist_entries where organization_id = %L', :'org')), 0, 'a stranger reads none');
select is(pg_temp.seen('mia@test.local', 'select 1 from public.organization_watchlist_entries', true), 0, 'an assistant''s token reads none');
select is(pg_temp.outcome('mia@test.local', format('select public.organization_watchlist_page(%L)', :'org')), 'ok', 'a member reads the page');
select is(pg_temp.outcome('sam@test.local', format('select public.organization_watchlist_page(%L)', :'org')), 'DW404', 'a stranger gets DW404 from the page');
select is(pg_temp.outcome('mia@test.local', format('select public.organization_watchlist_page(%L)', :'org'), true), '42501', 'an assistant''s token is refused the page');
select is(pg_temp.outcome('mia@test.local', format('select public.organization_watchlist_page(%L, p_limit => 0)', :'org')), '22023', 'the page''s bounds are checked (22023)');

select tests.authenticate_as('mia@test.local');
select is((public.organization_watchlist_page(:'org', null, 'a1', 10, 0)) -> 'domains' -> 0 -> 'added_by' ->> 'name', 'mia',
  'each row says who added the name');
select results_eq(format($$ select (p ->> 'total')::int, (p ->> 'used')::int, (p ->> 'quota')::int from public.organization_watchlist_page(%L) as p $$, :'org'),
  $$ values (11, 11, 1000) $$, 'the page tells the total, the organization''s use and its quota');
select tests.clear_authentication();

-- Removing: every member may; strangers and assistants not ---------------------------------------------
select tests.clear_authentication();
select is(pg_temp.outcome('sam@test.local', format($$ select public.remove_organization_watchlist_domain(%L, 'a1.com') $$, :'org')), 'DW404', 'a stranger cannot remove');
select is(pg_temp.outcome('mia@test.local', format($$ select public.remove_organization_watchlist_domain(%L, 'a1.com') $$, :'org'), true), '42501', 'an assistant''s token cannot remove');
select tests.authenticate_as('mia@test.local');
select is(public.remove_organization_watchlist_domain(:'org', 'b1.com'), true, 'a member removes a name');
select is(public.remove_organization_watchlist_domain(:'org', 'b1.com'), false, 'removing it again is false');
select tests.authenticate_as('mia@test.local');
select is((select count(*)::integer from public.watchlist_entries where user_id = :'mia' and deleted_at is null), 3,
  'the member''s personal list is untouched by the organization''s changes');

-- A removed member loses access at once, in the same session ------------------------------------------
select tests.authenticate_as('rem@test.local');
select is((select count(*)::integer from public.organization_watchlist_entries where deleted_at is null), 10, 'before removal the member reads the list');
select tests.clear_authentication();
select tests.authenticate_as('adam@test.local');
delete from public.organization_members where organization_id = :'org' and user_id = :'rem';
select tests.authenticate_as('rem@test.local');
select is((select count(*)::integer from public.organization_watchlist_entries), 0,
  'after the admin removes them, the same claims (an open session) read nothing');
select tests.clear_authentication();
select is(pg_temp.outcome('rem@test.local', format($$ select public.add_organization_watchlist_domains(%L, array['z.com']) $$, :'org')), 'DW404', 'a removed member cannot add');
select is(pg_temp.outcome('rem@test.local', format($$ select public.remove_organization_watchlist_domain(%L, 'a1.com') $$, :'org')), 'DW404', 'a removed member cannot remove');
select is(pg_temp.outcome('rem@test.local', format('select public.organization_watchlist_page(%L)', :'org')), 'DW404', 'a removed member cannot read the page');
select is(pg_temp.seen('rem@test.local', 'select 1 from public.organization_activity'), 0, 'a removed member reads no log');
select tests.clear_authentication();

-- No direct writes ------------------------------------------------------------------------------------
select is(pg_temp.outcome('olga@test.local', format($$ insert into public.organization_watchlist_entries (organization_id, domain_name) values (%L, 'a1.com') $$, :'org')), '42501', 'nobody inserts entries directly');
select is(pg_temp.outcome('olga@test.local', 'update public.organization_watchlist_entries set deleted_at = now()'), '42501', 'nobody updates entries directly');
select is(pg_temp.outcome('olga@test.local', 'delete from public.organization_activity'), '42501', 'nobody deletes the log');
select is(pg_temp.outcome('olga@test.local', format($$ insert into public.organization_activity (organization_id, action) values (%L, 'name.added') $$, :'org')), '42501', 'nobody writes the log');
select is(pg_temp.outcome('olga@test.local', format($$ insert into public.organization_claims (organization_id, domain_name, claimed_by) values (%L, 'a1.com', %L) $$, :'org', :'olga')), '42501', 'nobody inserts claims directly');

-- The log ---------------------------------------------------------------------------------------------
select tests.clear_authentication();
select results_eq(format($$ select action, count(*)::int from public.organization_activity where organization_id = %L group by action order by action $$, :'org'),
  $$ values ('member.joined'::text, 4), ('member.removed', 1), ('name.added', 11), ('name.removed', 1) $$,
  'the log has the joins, the removal, every added name and the removed one');
select results_eq(format($$ select actor_name, subject_name from public.organization_activity where organization_id = %L and action = 'member.removed' $$, :'org'),
  $$ values ('adam'::text, 'rem'::text) $$, 'the removal names who removed whom');
select is(pg_temp.seen('mia@test.local', format('select 1 from public.organization_activity where organization_id = %L', :'org')), 17, 'a member reads the whole log');
select is(pg_temp.seen('sam@test.local', format('select 1 from public.organization_activity where organization_id = %L', :'org')), 0, 'a stranger reads none of it');
select is(pg_temp.seen('mia@test.local', 'select 1 from public.organization_activity', true), 0, 'an assistant''s token reads none of it');

-- The poller checks each name once, whoever watches it ------------------------------------------------
update public.domains set next_check_at = now() - interval '1 minute', lease_until = null;
select is((select count(*)::integer from private.claim_due_domains(1000, 60) where domain_name in ('a1.com', 'mine-1.com', 'secret-of-other.com')), 3,
  'claim_due_domains claims organization names, and a name on several lists once');
select is((select count(*)::integer from private.claim_due_domains(1000, 60)), 0, 'leased names are not claimed twice');
select tests.authenticate_as('sam@test.local');
select public.remove_organization_watchlist_domain(:'other', 'secret-of-other.com');
select tests.clear_authentication();
update public.domains set next_check_at = now() - interval '1 minute', lease_until = null;
select is((select count(*)::integer from private.claim_due_domains(1000, 60) where domain_name = 'secret-of-other.com'), 0,
  'a name nobody watches any more is not checked');

-- Deleting the organization removes its list, claims and log -----------------------------------------
select tests.authenticate_as('olga@test.local');
select public.claim_organization_domain(:'org', 'a2.com');
delete from public.organizations where id = :'org';
select tests.clear_authentication();
select results_eq(format($$ select (select count(*)::int from public.organization_watchlist_entries where organization_id = %1$L),
                                   (select count(*)::int from public.organization_claims where organization_id = %1$L),
                                   (select count(*)::int from public.organization_activity where organization_id = %1$L) $$, :'org'),
  $$ values (0, 0, 0) $$, 'deleting the organization removes its list, its claims and its log');

select * from tests.finish();
rollback;
