-- The poller's checks per invocation, set from the CPU it costs with real TLS (docs/runtime.md, "CPU per
-- poller run"): about 2.5 ms of CPU per check in a fresh isolate (HTTPS to the registries, DNS over
-- HTTPS), so 400 checks keep one run near 1 s, half of edge-runtime's 2 s CPU limit per isolate.
-- Keep equal to the functions' POLLER_MAX_CHECKS_PER_RUN (default 400).
--
-- Alters: public.poller_settings.checks_per_invocation (its default, and the row while it still holds the
-- old default 1000).
alter table public.poller_settings alter column checks_per_invocation set default 400;
update public.poller_settings set checks_per_invocation = 400 where checks_per_invocation = 1000;
