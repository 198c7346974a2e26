-- The poller's schedule: the pg_cron job and private.invoke_rdap_poller() (Vault + pg_net; locally the
-- bootstrap's stand-ins). Queued pg_net requests are read back only inside this test's own open
-- transaction: pg_net's worker sees committed rows only, and deletes each one once it takes it.
\ir _setup.psql

select plan(13);

select results_eq(
  $$ select schedule, btrim(command), active from cron.job where jobname = 'rdap-poller' $$,
  $$ values ('* * * * *'::text, 'select private.invoke_rdap_poller()'::text, true) $$,
  'pg_cron runs the poller every minute'
);
select has_function('private', 'invoke_rdap_poller', array[]::text[]);
select ok(
  not has_function_privilege('authenticated', 'private.invoke_rdap_poller()', 'EXECUTE')
  and not has_function_privilege('anon', 'private.invoke_rdap_poller()', 'EXECUTE')
  and not has_function_privilege('service_role', 'private.invoke_rdap_poller()', 'EXECUTE'),
  'only the job''s owner runs it'
);

-- Without the Vault secrets it does nothing.
delete from vault.secrets where name in ('project_url', 'poller_secret');
select count(*) as queued_before from net.http_request_queue \gset
select is(private.invoke_rdap_poller(), null, 'no secrets: returns null');
select is((select count(*) from net.http_request_queue), :'queued_before'::bigint, 'and sends nothing');

select vault.create_secret('https://project-ref.supabase.co/', 'project_url') as ignored \gset
select is(private.invoke_rdap_poller(), null, 'one secret missing: still nothing');

select vault.create_secret('poller-secret-for-tests', 'poller_secret') as ignored \gset
select ok(private.invoke_rdap_poller() is not null, 'with both secrets it returns the pg_net request id');
select results_eq(
  $$ select method::text, url, convert_from(body, 'UTF8')::jsonb, timeout_milliseconds
       from net.http_request_queue order by id desc limit 1 $$,
  $$ values ('POST'::text, 'https://project-ref.supabase.co/functions/v1/rdap-poller'::text, '{}'::jsonb, 60000) $$,
  'POST to the rdap-poller function (no double slash), with an empty JSON body'
);
select is(
  (select headers ->> 'Authorization' from net.http_request_queue order by id desc limit 1),
  'Bearer poller-secret-for-tests',
  'the bearer secret comes from Vault'
);
select is(
  (select headers ->> 'Content-Type' from net.http_request_queue order by id desc limit 1),
  'application/json',
  'as JSON'
);

-- The job's command, as pg_cron runs it.
select count(*) as queued_before from net.http_request_queue \gset
select lives_ok((select command from cron.job where jobname = 'rdap-poller'), 'the job''s command runs');
select is((select count(*) from net.http_request_queue), :'queued_before'::bigint + 1, 'and queues one request');

select tests.authenticate_as_service_role();
select throws_ok($$ select private.invoke_rdap_poller() $$, '42501', null, 'service_role cannot invoke it');

select * from tests.finish();
rollback;
