-- Local seed, applied after supabase/local/bootstrap.sql and the migrations.
--
-- Intentionally (almost) empty: the plans are product data and live in
-- 20261122000100_plans_and_profiles.sql; tests and demos create their own accounts through auth.users
-- (the on_auth_user_created trigger makes the profile). Keep this file idempotent.
select 1 as seed_applied;
