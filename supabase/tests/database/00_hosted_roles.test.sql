-- The database is set up as hosted Supabase is today (platform/postgres/bootstrap.sql): the tests, like the
-- migrations, run as `postgres`, which is not a superuser, and nothing in public is granted by default.
\ir _setup.psql

select plan(8);

select is(current_user::text, 'postgres', 'tests run as postgres, as supabase test db does');
select results_eq(
  $$ select rolsuper, rolbypassrls, rolcreaterole, rolcreatedb from pg_roles where rolname = 'postgres' $$,
  $$ values (false, true, true, true) $$,
  'postgres is NOSUPERUSER BYPASSRLS CREATEROLE CREATEDB'
);
select ok(
  pg_has_role('postgres', 'anon', 'member') and pg_has_role('postgres', 'authenticated', 'member')
  and pg_has_role('postgres', 'service_role', 'member'),
  'postgres is a member of anon, authenticated and service_role'
);
select is(
  (select string_agg(rolname, ',' order by rolname) from pg_roles where rolsuper),
  'supabase_admin',
  'the only superuser is Supabase''s own'
);
select is_empty(
  $$ select d.defaclrole::regrole::text, d.defaclobjtype::text, a.grantee::regrole::text
       from pg_default_acl d
       left join pg_namespace n on n.oid = d.defaclnamespace
       cross join lateral aclexplode(d.defaclacl) a
      where (n.nspname = 'public' or d.defaclnamespace = 0)
        and a.grantee in ('anon'::regrole, 'authenticated'::regrole, 'service_role'::regrole) $$,
  'no default privileges give new objects to anon, authenticated or service_role'
);
select is_empty(
  $$ select c.relname from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relrowsecurity $$,
  'row-level security is on for every table in public'
);
select is_empty(
  $$ select c.relname from pg_class c, aclexplode(c.relacl) a
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'S', 'v', 'm')
        and a.grantee = 'anon'::regrole $$,
  'anon holds no privilege on any table, view or sequence in public'
);
select throws_ok($$ create extension if not exists file_fdw $$, '42501', null,
  'postgres cannot create an untrusted extension that Supabase does not offer it (file_fdw)');

select * from tests.finish();
rollback;
