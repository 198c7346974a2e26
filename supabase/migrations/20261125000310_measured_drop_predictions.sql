-- Measured drop predictions (docs/alerts.md, "Measured drop predictions"): every drop that had a prediction
-- is kept with the prediction, its basis, the registry and the observed drop time; the report
-- (`deno task admin drop-accuracy`) and a per-registry correction learnt from at least 20 of them, which
-- new predictions use.
--
-- Replaces or alters:
--   * public.note_drop_prediction(text, timestamptz, timestamptz, text) (20261124000100): now also keeps the
--     prediction on the domain row; a five-argument form takes the correction the prediction includes.
--   * public.domains: predicted_drop_at, prediction_basis, prediction_correction_seconds.
-- New: drop_observations, drop_prediction_corrections, registry_of, reset_drop_prediction (+ trigger
--   domains_reset_drop_prediction), record_drop_observation (+ trigger domains_record_drop_observation),
--   refresh_drop_prediction_correction, drop_accuracy_report.

-- ---------------------------------------------------------------------------------------------------
-- The prediction in force, on the domain row
-- ---------------------------------------------------------------------------------------------------
alter table public.domains
  add column predicted_drop_at timestamptz,
  add column prediction_basis text
    constraint domains_prediction_basis_check
    check (prediction_basis in ('redemption_period', 'pending_delete_period', 'unknown')),
  add column prediction_correction_seconds integer not null default 0;

comment on column public.domains.predicted_drop_at is
  'While in pending delete: the latest predicted drop time (the poller''s, correction included), or null.';
comment on column public.domains.prediction_correction_seconds is
  'The registry correction included in predicted_drop_at (drop_prediction_corrections), 0 for none.';

-- The registry a name belongs to, for drop statistics: its top-level domain (one registry per TLD).
create function public.registry_of(p_domain_name text)
returns text
language sql
immutable
parallel safe
set search_path = ''
as $$
  select substring(p_domain_name from '[^.]+$')
$$;

revoke all on function public.registry_of(text) from public, anon, authenticated, service_role;
grant execute on function public.registry_of(text) to service_role;

-- Entering pending delete starts without a prediction: the check that records the transition adds its own
-- (note_drop_prediction, same transaction), so a prediction from an earlier cycle is never measured.
create function public.reset_drop_prediction()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.predicted_drop_at := null;
  new.prediction_basis := null;
  new.prediction_correction_seconds := 0;
  return new;
end
$$;

revoke all on function public.reset_drop_prediction() from public, anon, authenticated, service_role;

create trigger domains_reset_drop_prediction
  before update of status on public.domains
  for each row
  when (new.status = 'pending_delete' and old.status is distinct from 'pending_delete')
  execute function public.reset_drop_prediction();

-- p_correction_seconds: the registry correction included in p_predicted_drop_at. The events of the
-- transition recorded at p_checked_at get the prediction (only those still without one, so what was sent
-- is never rewritten); the domain row keeps the latest, when this check is the row's latest.
create function public.note_drop_prediction(
  p_domain_name text,
  p_checked_at timestamptz,
  p_predicted_drop_at timestamptz,
  p_basis text,
  p_correction_seconds integer
)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_basis is null or p_basis not in ('redemption_period', 'pending_delete_period', 'unknown') then
    raise exception using errcode = 'DW400', message = 'DW400: note_drop_prediction: invalid basis.';
  end if;
  update public.alert_events as ev
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis
   where ev.type = 'domain.pending_delete'
     and ev.domain_name = p_domain_name
     and ev.checked_at = p_checked_at
     and ev.prediction_basis is null;
  update public.domains as d
     set predicted_drop_at = case when p_basis = 'unknown' then null else p_predicted_drop_at end,
         prediction_basis = p_basis,
         prediction_correction_seconds = case when p_basis = 'unknown' then 0
                                              else coalesce(p_correction_seconds, 0) end
   where d.name = p_domain_name
     and d.status = 'pending_delete'
     and d.last_checked_at = p_checked_at;
end
$$;

revoke all on function public.note_drop_prediction(text, timestamptz, timestamptz, text, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.note_drop_prediction(text, timestamptz, timestamptz, text, integer)
  to service_role;

-- The four-argument form: a prediction without a correction.
create or replace function public.note_drop_prediction(
  p_domain_name text,
  p_checked_at timestamptz,
  p_predicted_drop_at timestamptz,
  p_basis text
)
returns void
language sql
security definer
set search_path = ''
as $$
  select public.note_drop_prediction(p_domain_name, p_checked_at, p_predicted_drop_at, p_basis, 0)
$$;

-- ---------------------------------------------------------------------------------------------------
-- drop_observations: one row per drop that had a prediction. Not tied to the watchlist or the domain row
-- (no foreign key): kept when nobody watches the name any more.
--   observed_at: the check that first saw the name available; last_pending_at: the check before it, the
--   last that saw it in pending delete (the drop happened between the two).
--   raw = predicted_drop_at - correction_seconds: the prediction before any correction (what a
--   correction is learnt from).
-- ---------------------------------------------------------------------------------------------------
create table public.drop_observations (
  id bigint generated always as identity primary key,
  domain_name text not null,
  registry text not null,
  basis text not null check (basis in ('redemption_period', 'pending_delete_period')),
  predicted_drop_at timestamptz not null,
  correction_seconds integer not null default 0,
  last_pending_at timestamptz,
  observed_at timestamptz not null,
  created_at timestamptz not null default now()
);

comment on table public.drop_observations is
  'Each drop that had a prediction: the prediction in force (correction included), its basis, the registry '
  '(TLD) and when the drop was observed. Kept when nobody watches the name any more.';

create index drop_observations_registry_idx on public.drop_observations (registry, basis, observed_at desc);

alter table public.drop_observations enable row level security;
revoke all on table public.drop_observations from anon, authenticated;
grant select, insert, update, delete on table public.drop_observations to service_role;
grant usage, select on sequence public.drop_observations_id_seq to service_role;

-- ---------------------------------------------------------------------------------------------------
-- drop_prediction_corrections: per registry and basis, the offset new predictions add. Data with its source:
-- `measured` rows are learnt from at least 20 observations (refresh_drop_prediction_correction, after each
-- one); an operator may add or edit a row (measured = false, source saying where the figure comes from),
-- which measurement then leaves alone.
-- ---------------------------------------------------------------------------------------------------
create table public.drop_prediction_corrections (
  registry text not null,
  basis text not null check (basis in ('redemption_period', 'pending_delete_period')),
  offset_seconds integer not null check (offset_seconds between -604800 and 604800),
  observations integer not null default 0,
  measured boolean not null default false,
  source text not null check (char_length(source) between 1 and 500),
  updated_at timestamptz not null default now(),
  primary key (registry, basis)
);

comment on table public.drop_prediction_corrections is
  'Per registry (TLD) and basis: seconds added to new drop predictions. measured rows: the median offset '
  'of the latest (up to 100) observed drops, from 20 on; operator rows (measured = false) are never '
  'overwritten. source says where the figure comes from.';

alter table public.drop_prediction_corrections enable row level security;
revoke all on table public.drop_prediction_corrections from anon, authenticated;
grant select, insert, update, delete on table public.drop_prediction_corrections to service_role;

-- The measured correction of one registry and basis: the median of (observed - raw prediction) over its
-- latest 100 observations, once there are at least 20.
create function public.refresh_drop_prediction_correction(p_registry text, p_basis text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
  v_offset double precision;
  v_first timestamptz;
  v_last timestamptz;
begin
  select count(*)::integer,
         percentile_cont(0.5) within group (
           order by extract(epoch from o.observed_at - (o.predicted_drop_at
                                                         - make_interval(secs => o.correction_seconds)))),
         min(o.observed_at), max(o.observed_at)
    into v_count, v_offset, v_first, v_last
    from (select * from public.drop_observations as x
           where x.registry = p_registry and x.basis = p_basis
           order by x.observed_at desc limit 100) as o;
  if v_count < 20 then
    return;
  end if;
  insert into public.drop_prediction_corrections as c
    (registry, basis, offset_seconds, observations, measured, source, updated_at)
  values (p_registry, p_basis, greatest(-604800, least(604800, round(v_offset)::integer)), v_count, true,
          format('measured: median of (observed - predicted) over %s observed drops, %s to %s (drop_observations)',
                 v_count, to_char(v_first at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"'),
                 to_char(v_last at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"')),
          now())
  on conflict (registry, basis) do update
    set offset_seconds = excluded.offset_seconds,
        observations = excluded.observations,
        source = excluded.source,
        updated_at = excluded.updated_at
    where c.measured;
end
$$;

revoke all on function public.refresh_drop_prediction_correction(text, text) from public, anon, authenticated, service_role;
grant execute on function public.refresh_drop_prediction_correction(text, text) to service_role;

-- A name in pending delete with a prediction became available: keep the observation, learn from it.
create function public.record_drop_observation()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.drop_observations
    (domain_name, registry, basis, predicted_drop_at, correction_seconds, last_pending_at, observed_at)
  values (new.name, public.registry_of(new.name), old.prediction_basis, old.predicted_drop_at,
          old.prediction_correction_seconds, old.last_checked_at, coalesce(new.last_checked_at, now()));
  perform public.refresh_drop_prediction_correction(public.registry_of(new.name), old.prediction_basis);
  return null;
end
$$;

revoke all on function public.record_drop_observation() from public, anon, authenticated, service_role;

create trigger domains_record_drop_observation
  after update of status on public.domains
  for each row
  when (new.status = 'available' and old.status = 'pending_delete' and old.predicted_drop_at is not null
        and old.prediction_basis in ('redemption_period', 'pending_delete_period'))
  execute function public.record_drop_observation();

-- ---------------------------------------------------------------------------------------------------
-- The accuracy report: per registry and basis, the count, the median and p90 of (observed - predicted) in
-- seconds (the prediction as it was made, correction included), how many drops came before their
-- prediction, and the correction in force.
-- ---------------------------------------------------------------------------------------------------
create function public.drop_accuracy_report()
returns table (
  registry text,
  basis text,
  observations integer,
  median_seconds integer,
  p90_seconds integer,
  early integer,
  correction_seconds integer,
  correction_source text
)
language sql
stable
security definer
set search_path = ''
as $$
  select o.registry, o.basis, count(*)::integer,
         round(percentile_cont(0.5) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         round(percentile_cont(0.9) within group (order by extract(epoch from o.observed_at - o.predicted_drop_at)))::integer,
         (count(*) filter (where o.observed_at < o.predicted_drop_at))::integer,
         c.offset_seconds, c.source
    from public.drop_observations as o
    left join public.drop_prediction_corrections as c on c.registry = o.registry and c.basis = o.basis
   group by o.registry, o.basis, c.offset_seconds, c.source
   order by o.registry, o.basis
$$;

revoke all on function public.drop_accuracy_report() from public, anon, authenticated, service_role;
grant execute on function public.drop_accuracy_report() to service_role;
