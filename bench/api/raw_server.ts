/**
 * The raw ceiling of `deno task bench`: bare Hono + the node-postgres layer (_shared/db/sql.ts) running the same keyset page query on the
 * same tables as `list_watchlist`, for one fixed account, with no API key, no limits and no row-level
 * security; and `POST /bare-insert`, the bare statement a batch add should cost close to: one
 * `insert … on conflict` of the names into `domains` and into an account's entries (BENCH_INSERT_USER_ID),
 * no validation, no quota. Env: BENCH_DB_URL, BENCH_USER_ID, BENCH_INSERT_USER_ID, BENCH_PORT. Prints
 * `listening <port>` when ready.
 */
import { Hono } from "hono";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

const sql = postgres.connect(Deno.env.get("BENCH_DB_URL")!, {
  max: Number(Deno.env.get("DB_POOL_SIZE") ?? 10),
  idle_timeout: 20,
  prepare: false,
  onnotice: () => {},
});
const userId = Deno.env.get("BENCH_USER_ID")!;

interface Row {
  domain_name: string;
  unicode_name: string | null;
  status: string;
  added_at: Date;
  last_checked_at: Date | null;
  status_changed_at: Date | null;
  expires_at: Date | null;
  registrar: string | null;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

function page(rows: Row[], limit: number) {
  const hasMore = rows.length > limit;
  const domains = (hasMore ? rows.slice(0, limit) : rows).map((row) => ({
    domain_name: row.domain_name,
    ...(row.unicode_name ? { unicode_name: row.unicode_name } : {}),
    status: row.status,
    added_at: iso(row.added_at),
    last_checked_at: iso(row.last_checked_at),
    status_changed_at: iso(row.status_changed_at),
    expires_at: iso(row.expires_at),
    registrar: row.registrar,
  }));
  return {
    domains,
    next_cursor: hasMore ? domains[domains.length - 1].domain_name : null,
    has_more: hasMore,
  };
}

const app = new Hono();
app.get("/domains", async (c) => {
  const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 50) || 50, 1), 200);
  const cursor = c.req.query("cursor") ?? "";
  const rows = await sql<Row[]>`
    select e.domain_name, e.unicode_name, d.status, e.added_at, d.last_checked_at, d.status_changed_at,
           d.expires_at, d.registrar
      from public.watchlist_entries as e
      join public.domains as d on d.name = e.domain_name
     where e.user_id = ${userId}
       and e.deleted_at is null
       and e.domain_name collate "C" > ${cursor} collate "C"
     order by e.domain_name collate "C"
     limit ${limit + 1}`;
  return c.json(page(rows, limit));
});

const insertUserId = Deno.env.get("BENCH_INSERT_USER_ID") ?? userId;
app.post("/bare-insert", async (c) => {
  const { domains } = await c.req.json() as { domains: string[] };
  const [row] = await sql<{ added: number }[]>`
    with new_domains as (
      insert into public.domains (name)
      select d.name from unnest(${domains}::text[]) as d (name) order by d.name
      on conflict (name) do nothing
    ), added as (
      insert into public.watchlist_entries (user_id, domain_name)
      select ${insertUserId}, d.name from unnest(${domains}::text[]) as d (name)
      on conflict (user_id, domain_name) do nothing
      returning 1
    )
    select count(*)::int as added from added`;
  return c.json(row);
});

Deno.serve({
  port: Number(Deno.env.get("BENCH_PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`listening ${port}`),
}, app.fetch);
