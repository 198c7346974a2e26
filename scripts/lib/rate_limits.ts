/**
 * Per-host overrides of the project-wide RDAP host limiter (`public.rate_limit_keys`, class `rdap_host`),
 * for local fakes that may be asked faster than a real registry (tests, the demo).
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";

/** Sets the request starts per second (and optionally the in-flight cap) of the RDAP host of `url`. */
export async function setRdapHostLimit(
  sql: postgres.Sql,
  url: string,
  ratePerSecond: number,
  concurrency: number | null = null,
): Promise<void> {
  const host = new URL(url).host;
  await sql`
    insert into public.rate_limit_keys (class, key, rate_per_second, concurrency)
    values ('rdap_host', ${host}, ${ratePerSecond}, ${concurrency})
    on conflict (class, key) do update
      set rate_per_second = excluded.rate_per_second, concurrency = excluded.concurrency,
          paused_until = null, pause_reason = null, consecutive_failures = 0`;
}
