-- "Check now" in the app (docs/session-endpoints.md, check-now): a live check on every plan, counted in a
-- daily allowance per plan. plans.app_checks_per_day: a number = the app's own daily allowance, counted in
-- app_check_counters (Free 20); null = the app's checks share the plan's API daily limit: each one is one
-- request in api_request_counters, the counter REST and MCP use (Pro 1,000, Business 5,000 a day together
-- with the API; Enterprise unlimited). Per UTC day, as the API's limit.

alter table public.plans
  add column app_checks_per_day integer
    constraint plans_app_checks_per_day_check check (app_checks_per_day is null or app_checks_per_day >= 0);

comment on column public.plans.app_checks_per_day is
  'Live checks per UTC day from the app (check-now). null: they share the plan''s API daily limit '
  '(requests_per_day, counted in api_request_counters with REST and MCP; unlimited when that is null).';

update public.plans set app_checks_per_day = 20 where id = 'free';

create table public.app_check_counters (
  user_id uuid not null references public.profiles (id) on delete cascade,
  day date not null,
  check_count integer not null check (check_count >= 0),
  primary key (user_id, day)
);

comment on table public.app_check_counters is
  'Checks from the app per account and UTC day, for plans with their own app_checks_per_day. Written only '
  'by private.consume_app_check (service_role).';

alter table public.app_check_counters enable row level security;

create policy "Users can read their own app check counts"
  on public.app_check_counters for select to authenticated
  using (user_id = (select auth.uid()) and not (select public.is_oauth_client_token()));

grant select on table public.app_check_counters to authenticated;
grant select, insert, update, delete on table public.app_check_counters to service_role;

-- ---------------------------------------------------------------------------------------------------
-- consume_app_check: counts one check from the app for the account, atomically (concurrent calls queue on
-- the counter row and re-check the condition against the latest count, so the allowance is exact).
--   allowed, check_limit (null: unlimited), remaining (null: unlimited), reset_at (the next 00:00:00Z),
--   shared_with_api (true: counted in the API's daily counter).
-- A plan with neither its own allowance nor API access gets none (check_limit 0).
-- ---------------------------------------------------------------------------------------------------
create function private.consume_app_check(p_user_id uuid)
returns table (
  allowed boolean,
  check_limit integer,
  remaining integer,
  reset_at timestamptz,
  shared_with_api boolean
)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_day date := (now() at time zone 'UTC')::date;
  v_reset_at timestamptz := ((now() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC';
  v_own integer;
  v_api_access boolean;
  v_api_limit integer;
  v_count integer;
begin
  select pl.app_checks_per_day, pl.api_access, pl.requests_per_day
    into v_own, v_api_access, v_api_limit
    from public.profiles as p
    join public.plans as pl on pl.id = p.plan_id
   where p.id = p_user_id;
  if not found then
    raise exception using errcode = 'DW401', message = 'DW401: Unknown account.';
  end if;

  if v_own is null then
    if not v_api_access then
      return query select false, 0, 0, v_reset_at, false;
      return;
    end if;
    return query select c.allowed, c.request_limit, c.remaining, c.reset_at, true
                   from private.count_api_request(p_user_id, v_api_limit) as c;
    return;
  end if;

  if v_own > 0 then
    insert into public.app_check_counters as c (user_id, day, check_count)
    values (p_user_id, v_day, 1)
    on conflict (user_id, day) do update
       set check_count = c.check_count + 1
     where c.check_count < v_own
    returning c.check_count into v_count;
    if found then
      return query select true, v_own, v_own - v_count, v_reset_at, false;
      return;
    end if;
  end if;
  return query select false, v_own, 0, v_reset_at, false;
end
$$;
revoke all on function private.consume_app_check(uuid) from public, anon, authenticated, service_role;
grant execute on function private.consume_app_check(uuid) to service_role;
