-- Local seed, applied after platform/postgres/bootstrap.sql and the migrations.
--
-- Intentionally (almost) empty: the plans are product data and live in
-- 20261122000100_plans_and_profiles.sql; tests and demos create their own accounts through auth.users
-- (the on_auth_user_created trigger makes the profile). Keep this file idempotent.
select 1 as seed_applied;
-- Locally (never on hosted, where this file does not run), made-up top-level domains ending in `test` count
-- as known suffixes, so that tests and demos can watch the names the local fakes serve (x.followtest).
update private.domain_name_rules set local_test_tlds = true;
