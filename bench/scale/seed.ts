/** Fills the bench database: accounts, names (with their state and due times), watch entries. */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import type { ScaleParams } from "./world.ts";

export async function seed(sql: postgres.Sql, params: ScaleParams, dropping: number[]): Promise<void> {
  const { names, hosts, accounts } = params;
  const perAccount = Math.ceil(params.entries / accounts);
  const step = Math.floor(names / accounts);
  const delegatedBelow = params.delegatedShare * 1000;
  const pendingBelow = (params.delegatedShare + params.pendingDeleteShare) * 1000;

  await sql`
    insert into auth.users (email, email_confirmed_at)
    select 'bench' || k || '@bench.test', now() from generate_series(0, ${accounts - 1}::int) as k`;
  // How overdue each name is: (i × 104729) mod this many seconds. With 3600 (as first written) the order of the
  // backlog went registry by registry (20 divides 3600, so i mod 3600 fixes the registry), starving the
  // others; 3599 (coprime to the number of registries) spreads every second of the backlog over them.
  const overdueSpreadS = params.hosts > 0 && 3600 % params.hosts === 0 ? 3599 : 3600;
  // Every name is due (a backlog, overdue by up to an hour), except names in pending delete that do not
  // drop during the run: those are spread over their 30-minute cadence, as in a steady state. Spread over
  // 1799 s rather than 1800 for the same reason as above: with 1800 the names coming due in any one second
  // were all of one registry (a burst of ~3 urgent checks there every 20 s, which the bench's traces showed
  // holding a dropping name of that registry back for up to 30 s).
  const pendingSpreadS = params.hosts > 0 && 1800 % params.hosts === 0 ? 1799 : 1800;
  await sql`
    insert into public.domains (name, status, last_checked_at, next_check_at)
    select 'n' || i || '.scale' || (i % ${hosts}::int),
           case when (i * 7919) % 1000 >= ${delegatedBelow}::float8 and (i * 7919) % 1000 < ${pendingBelow}::float8
                then 'pending_delete' else 'registered' end,
           now() - interval '7 days',
           case when (i * 7919) % 1000 >= ${delegatedBelow}::float8 and (i * 7919) % 1000 < ${pendingBelow}::float8
                then now() + make_interval(secs => (i % ${pendingSpreadS}::int)::float8)
                else now() - make_interval(secs => ((i * 104729) % ${overdueSpreadS}::int)::float8) end
      from generate_series(0::bigint, ${names - 1}::bigint) as i`;
  await sql`update public.domains set next_check_at = now() - interval '2 hours'
            where name = any(${dropping.map((i) => `n${i}.scale${i % hosts}`)})`;
  if (params.registryPass) {
    // After the first registry pass: each delegated name's expiry (spread over the next 365 days by a
    // permutation of the index), its registrar, and the registry asked at its last check (7 days ago).
    await sql`
      update public.domains
         set expires_at = now() + make_interval(days => (((substring(name from 2 for position('.' in name) - 2))::bigint
                                                           * 7907) % 365 + 1)::int),
             registrar = 'Bench Registrar',
             registry_asked_at = last_checked_at
       where status = 'registered'
         and ((substring(name from 2 for position('.' in name) - 2))::bigint * 7919) % 1000 < ${delegatedBelow}::float8`;
  }
  await sql`
    insert into public.watchlist_entries (user_id, domain_name)
    select u.id, 'n' || ((u.k * ${step}::int + j) % ${names}::int) || '.scale' || (((u.k * ${step}::int + j) % ${names}::int) % ${hosts}::int)
      from (select id, (row_number() over (order by email) - 1)::int as k
              from auth.users where email like 'bench%@bench.test') as u,
           generate_series(0, ${perAccount - 1}::int) as j
     where u.k * ${perAccount}::int + j < ${params.entries}::int`;
  // Reminder channels (domain.expiring, days 30, 7, 1): a Telegram chat for the first share of accounts.
  await sql`
    insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at, telegram_event_types)
    select u.id, '1000' || u.k, now(), array['domain.available', 'domain.expiring']
      from (select id, (row_number() over (order by email) - 1)::int as k
              from auth.users where email like 'bench%@bench.test') as u
     where u.k < ${Math.round(params.expiringShare * accounts)}::int
    on conflict (user_id) do update set telegram_chat_id = excluded.telegram_chat_id,
      telegram_linked_at = excluded.telegram_linked_at, telegram_event_types = excluded.telegram_event_types`;
  await sql`analyze`;
}
