-- authorize_account_request (an OAuth access token's account) admits exactly as authorize_api_request (an
-- API key of the same account): one table of cases, both credentials.
\ir _setup.psql

select plan(9);

insert into public.plans (id, api_access, requests_per_day, watchlist_quota, webhooks, sort_order)
values ('tiny', true, 1, 10, false, 99);

select tests.create_user('tia@test.local', 'tiny') as tia \gset
select tests.create_user('eve@test.local', 'enterprise') as eve \gset
select tests.create_user('fay@test.local', 'free') as fay \gset

-- One key per account (a Free account's key is one made before it went Free).
insert into public.api_keys (user_id, name, prefix, key_hash)
select id, 'k', 'dwl_k', encode(sha256(convert_to(id::text, 'UTF8')), 'hex')
  from (values (:'tia'::uuid), (:'eve'::uuid), (:'fay'::uuid)) as accounts (id);

-- Each case runs twice on fresh counters: once by key, once by account; the rows must be the same.
create temporary table cases (label text, user_id uuid, count boolean, calls integer);
insert into cases values
  ('limited plan, first counted request', :'tia', true, 1),
  ('limited plan, one over the limit', :'tia', true, 2),
  ('limited plan, not counted', :'tia', false, 1),
  ('unlimited plan', :'eve', true, 1),
  ('plan without API access', :'fay', true, 1);

create function pg_temp.last_answer(p_by text, p_user_id uuid, p_count boolean, p_calls integer)
returns table (outcome text, user_id uuid, plan_id text, allowed boolean, request_limit integer,
               remaining integer, reset_at timestamptz)
language plpgsql as $$
begin
  delete from public.api_request_counters as c where c.user_id = p_user_id;
  for i in 1 .. p_calls - 1 loop
    perform private.authorize_account_request(p_user_id, true);
  end loop;
  if p_by = 'key' then
    -- (organization_id, the last column, is null for a personal key: docs/organizations.md)
    return query select a.outcome, a.user_id, a.plan_id, a.allowed, a.request_limit, a.remaining, a.reset_at
      from private.authorize_api_request(encode(sha256(convert_to(p_user_id::text, 'UTF8')), 'hex'), p_count) as a;
  else
    return query select * from private.authorize_account_request(p_user_id, p_count);
  end if;
end
$$;

select results_eq(
  format('select * from pg_temp.last_answer(''account'', %L, %L, %s)', user_id, count, calls),
  format('select * from pg_temp.last_answer(''key'', %L, %L, %s)', user_id, count, calls),
  'same answer by account as by key: ' || label)
  from cases order by label;

select results_eq(format($$ select outcome, allowed from private.authorize_account_request(%L) $$, :'tia'),
  $$ values ('ok'::text, false) $$, 'the account''s counter is the keys'' counter (still over the limit)');
select results_eq($$ select outcome, user_id from private.authorize_account_request(gen_random_uuid()) $$,
  $$ values ('unauthorized'::text, null::uuid) $$, 'an account that does not exist is unauthorized');
select is_empty(format('select 1 from public.api_request_counters where user_id = %L', :'fay'),
  'a plan without API access counts nothing');

select tests.authenticate_as('tia@test.local');
select throws_ok(format('select * from private.authorize_account_request(%L)', :'tia'), '42501', null,
  'authenticated cannot call authorize_account_request');

select * from tests.finish();
rollback;
