-- Explicit grants for service_role, the server's own role (BYPASSRLS; the functions' `asService` runs as
-- it, and so does anything holding the service-role or secret key).
--
-- Until 2026-05-30 (new projects) and 2026-10-30 (all projects) Supabase granted every new table,
-- sequence and function in public to anon, authenticated and service_role by default privileges. It no
-- longer does: every object has exactly the grants its migration gives it. The migrations before this one
-- already grant anon nothing and authenticated exactly what its policies are written for (their
-- `revoke all ... from anon, authenticated` lines are now no-ops, kept as a statement of intent);
-- service_role, which used to get ALL by default, is granted here, table by table. Functions each grant
-- their own EXECUTE in their migration. Later migrations grant their own objects explicitly.
--
-- service_role reads and writes every table of the app (row-level security does not apply to it): the
-- functions' service paths, the operator's admin tooling and the tests run as it. It gets no TRUNCATE,
-- REFERENCES or TRIGGER. (public.webhook_target_policy keeps the select and update of its own migration:
-- it is one row.)

grant select, insert, update, delete on table
  public.plans,
  public.profiles,
  public.api_keys,
  public.domains,
  public.watchlist_entries,
  public.organizations,
  public.organization_members,
  public.invitations,
  public.notification_settings,
  public.webhook_endpoints,
  public.api_request_counters,
  public.session_request_log,
  public.rdap_bootstrap_cache,
  public.rdap_server_overrides,
  public.live_check_cache,
  public.alert_events,
  public.alert_deliveries,
  public.alert_delivery_attempts
to service_role;

-- The identity columns' sequences (inserting a row as service_role needs them).
grant usage, select on sequence
  public.watchlist_entries_id_seq,
  public.session_request_log_id_seq,
  public.alert_delivery_attempts_id_seq
to service_role;
