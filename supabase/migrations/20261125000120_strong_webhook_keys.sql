-- Strong Standard Webhooks keys (docs/webhooks.md "Secrets"): a `whsec_` secret must be `whsec_` and the
-- base64 of 24-64 bytes (the Standard Webhooks key size); any other secret stays 16-256 characters. One rule,
-- webhook_secret_problem, for every write path: the app's functions (validated_webhook_secret) and direct
-- table writes (a trigger). Its TypeScript twin is webhookSecretProblem (_shared/alerts/webhook_secret.ts);
-- tests/integration/webhook_secret_parity.test.ts runs one table of cases through both.
--
-- Replaces:
--   * public.validated_webhook_secret(text) (20261122000930_alert_settings.sql): same signature, the rule
--     from webhook_secret_problem.
--   * constraint webhook_endpoints_secret_length on public.webhook_endpoints
--     (20261123001800_server_owned_rules.sql): dropped, replaced by the trigger webhook_endpoints_check_secret.
-- Adds:
--   * public.webhook_secret_problem(text), public.check_webhook_endpoint_secret(), trigger
--     webhook_endpoints_check_secret.
-- A secret stored before this migration stays usable (the sender signs with it) until it is written again:
-- the trigger checks writes of the secret column only, so other edits of such a webhook still work.

-- Null when the secret may be saved (null: no secret), else why not.
create function public.webhook_secret_problem(p_secret text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select case
    when p_secret is null then null
    when starts_with(p_secret, 'whsec_') then
      -- CASE, not OR: decode() must only see text that is base64.
      case
        when substr(p_secret, 7) !~ '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'
        then 'A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.'
        when octet_length(decode(substr(p_secret, 7), 'base64')) not between 24 and 64
        then 'A whsec_ secret must be whsec_ followed by the base64 of 24-64 bytes.'
      end
    when char_length(p_secret) not between 16 and 256 then 'A webhook secret must be 16-256 characters.'
  end
$$;

revoke all on function public.webhook_secret_problem(text) from public, anon, authenticated, service_role;
grant execute on function public.webhook_secret_problem(text) to service_role;

create or replace function public.validated_webhook_secret(p_secret text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_problem text := public.webhook_secret_problem(p_secret);
begin
  if v_problem is not null then
    raise exception using errcode = 'DW400', message = 'DW400: ' || v_problem;
  end if;
  return p_secret;
end
$$;

revoke all on function public.validated_webhook_secret(text) from public, anon, authenticated, service_role;

-- Every write of a secret is checked, whoever writes it. A check violation (23514), as the length
-- constraint it replaces raised; the app's functions refuse with DW400 before the row is written.
create function public.check_webhook_endpoint_secret()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_problem text := public.webhook_secret_problem(new.secret);
begin
  if v_problem is not null then
    raise exception using errcode = 'check_violation', message = v_problem,
      constraint = 'webhook_endpoints_check_secret';
  end if;
  return new;
end
$$;

revoke all on function public.check_webhook_endpoint_secret() from public, anon, authenticated, service_role;

alter table public.webhook_endpoints drop constraint webhook_endpoints_secret_length;

create trigger webhook_endpoints_check_secret
  before insert or update of secret on public.webhook_endpoints
  for each row execute function public.check_webhook_endpoint_secret();
