-- Shared helpers for the pgTAP tests. Include right after `begin;` and the pgtap extension:
--   \ir _helpers.sql
-- Everything here is created inside the test's transaction and disappears with its rollback.

create schema tests;
grant usage on schema tests to anon, authenticated, service_role;

-- Create an auth.users row (the trigger makes the profile) on the given plan; returns its id.
create function tests.create_user(p_email text, p_plan text default 'free')
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into auth.users (email, email_confirmed_at, raw_user_meta_data)
  values (p_email, now(), jsonb_build_object('display_name', split_part(p_email, '@', 1)))
  returning id into v_id;
  update public.profiles set plan_id = p_plan where id = v_id;
  return v_id;
end
$$;

-- The id of a test user by email (works whatever the current role is).
create function tests.user_id(p_email text)
returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select u.id from auth.users as u where u.email = p_email
$$;

-- Act as the account, like the edge functions do: role authenticated plus request.jwt.claims.
create function tests.authenticate_as(p_email text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid := tests.user_id(p_email);
begin
  if v_id is null then
    raise exception 'tests.authenticate_as: no user %', p_email;
  end if;
  perform set_config('request.jwt.claims',
    jsonb_build_object('sub', v_id, 'role', 'authenticated', 'email', p_email)::text, true);
  perform set_config('role', 'authenticated', true);
end
$$;

create function tests.authenticate_as_anon()
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform set_config('request.jwt.claims', '{"role": "anon"}', true);
  perform set_config('role', 'anon', true);
end
$$;

create function tests.authenticate_as_service_role()
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform set_config('request.jwt.claims', '{"role": "service_role"}', true);
  perform set_config('role', 'service_role', true);
end
$$;

-- Back to the superuser that runs the test, with no JWT claims.
create function tests.clear_authentication()
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform set_config('request.jwt.claims', '', true);
  perform set_config('role', 'none', true);
end
$$;

-- finish() that makes psql fail (exit status 3 with ON_ERROR_STOP) when a test failed or the plan count
-- is wrong, so a runner can rely on the exit status. Use: select * from tests.finish();
create function tests.finish()
returns setof text
language plpgsql
set search_path = extensions
as $$
declare
  v_lines text[];
begin
  select coalesce(array_agg(f), '{}') into v_lines from extensions.finish() as f;
  if exists (select 1 from unnest(v_lines) as l where l like '# Looks like%') then
    raise exception 'pgTAP: %', array_to_string(v_lines, ' ');
  end if;
  return query select unnest(v_lines);
end
$$;

-- Every helper above, finish() included, is called under each role (new functions are executable by nobody
-- until granted: 20261124000800_default_function_privileges.sql).
grant execute on all functions in schema tests to anon, authenticated, service_role;
