-- The extensions the migrations create on a new project (it has neither pg_cron nor pg_net until then) are
-- the ones hosted Supabase gives, with its owners and grants; and the local pg_net stand-in's functions
-- answer as pg_net's (tests/e2e/fresh_project.test.ts applies the migrations to a fresh new project).
\ir _setup.psql

select plan(15);

select results_eq(
  $$ select e.extname::text collate "default", n.nspname::text collate "default" from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname in ('pg_cron', 'pg_net') order by 1 $$,
  $$ values ('pg_cron'::text, 'pg_catalog'::text), ('pg_net', 'extensions') $$,
  'the migrations made pg_cron (with schema pg_catalog) and pg_net (with schema extensions), as the dashboard does'
);
select is(
  (select string_agg(extowner::regrole::text, ',') from pg_extension where extname in ('pg_cron', 'pg_net')),
  'supabase_admin,supabase_admin',
  'both belong to the superuser, as supautils creates them on hosted'
);

select ok(
  not has_function_privilege('postgres', 'extensions.hand_extension_to_supabase_admin(name)', 'EXECUTE'),
  'postgres cannot call the local bootstrap''s catalog helper (only its event triggers do)');

-- pg_cron, as Supabase grants it to postgres.
select ok(has_schema_privilege('postgres', 'cron', 'USAGE'), 'postgres may use schema cron');
select ok(
  has_table_privilege('postgres', 'cron.job', 'SELECT')
  and not has_table_privilege('postgres', 'cron.job', 'INSERT')
  and not has_table_privilege('postgres', 'cron.job', 'UPDATE')
  and not has_table_privilege('postgres', 'cron.job', 'DELETE'),
  'postgres reads cron.job and writes it only through cron.schedule/unschedule'
);
select ok(
  has_table_privilege('postgres', 'cron.job_run_details', 'DELETE')
  and not has_table_privilege('postgres', 'cron.job_run_details', 'TRIGGER'),
  'postgres may delete from cron.job_run_details (retention) but not put a trigger on it'
);
select ok(not has_schema_privilege('authenticated', 'cron', 'USAGE'), 'authenticated may not use schema cron');
select lives_ok(
  $$ select cron.unschedule(cron.schedule('dwl-test-job', '0 0 1 1 *', 'select 1')) $$,
  'postgres schedules and unschedules a job'
);

-- pg_net (>= 0.12), as Supabase has it today.
select ok(has_schema_privilege('anon', 'net', 'USAGE'), 'schema net is usable by every role');
select ok(
  not (select prosecdef from pg_proc where oid = 'net.http_get(text, jsonb, jsonb, integer)'::regprocedure),
  'net.http_get runs as its caller'
);
select throws_ok(
  $$ select net.http_post('http://127.0.0.1:9/x', '{}'::jsonb, headers := '{"Content-Type": "text/plain"}') $$,
  'P0001', 'Content-Type header must be "application/json"',
  'net.http_post refuses a body that is not JSON'
);
select ok(net.http_get('http://127.0.0.1:9/p', '{"q": "a b&c", "é": "1"}'::jsonb) > 0, 'net.http_get queues a GET');
select is(
  (select method || ' ' || url from net.http_request_queue order by id desc limit 1),
  'GET http://127.0.0.1:9/p?q=a%20b%26c&%C3%A9=1',
  'with its parameters percent-encoded into the query'
);
select ok(net.http_delete('http://127.0.0.1:9/d?x=1', '{"y": "2"}'::jsonb) > 0, 'net.http_delete queues a DELETE');
select is(
  (select url from net.http_request_queue order by id desc limit 1),
  'http://127.0.0.1:9/d?x=1&y=2',
  'appending to a query the URL already has'
);

select * from tests.finish();
rollback;
