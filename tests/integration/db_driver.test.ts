/**
 * The driver (supabase/functions/_shared/db/sql.ts) against the real database: the values the code base
 * relies on, transactions, the one retry on a fresh connection after a lost session, and the statement
 * timeout. Needs SUPABASE_DB_URL (set by `deno task test`).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { DatabaseUnavailableError } from "../../supabase/functions/_shared/db/failures.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("values come back as the code base expects them", options, async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1 });
  try {
    const at = new Date("2026-11-23T10:00:00.123Z");
    const [row] = await sql`
      select ${at}::timestamptz as at, 9007199254740993::int8 as big, 1.50::numeric as price, 42 as n,
             true as yes, null::text as nothing, '{"a":[1,"b"]}'::jsonb as doc, ${["x", "y"]}::text[] as list,
             '2026-11-23'::date as day, ${
      sql.json({ k: "v" })
    }::jsonb as sent, ${null}::text is null as null_in`;
    assertEquals(row.at, at);
    assertEquals(row.big, "9007199254740993");
    assertEquals(row.price, "1.50");
    assertEquals(row.n, 42);
    assertEquals(row.yes, true);
    assertEquals(row.nothing, null);
    assertEquals(row.doc, { a: [1, "b"] });
    assertEquals(row.list, ["x", "y"]);
    assertEquals(row.day, new Date("2026-11-23T00:00:00Z"));
    assertEquals(row.sent, { k: "v" });
    assertEquals(row.null_in, true);
  } finally {
    await sql.end();
  }
});

Deno.test("begin commits on success and rolls back when the work throws", options, async () => {
  const sql = postgres.connect(databaseUrl(), { max: 2 });
  try {
    const table = `driver_probe_${crypto.randomUUID().slice(0, 8)}`;
    await sql.unsafe(`create table public.${table} (n int)`);
    try {
      await sql.begin((tx) => tx.unsafe(`insert into public.${table} values (1)`));
      const failed = await sql.begin(async (tx) => {
        await tx.unsafe(`insert into public.${table} values (2)`);
        throw new Error("no");
      }).catch((error) => error);
      assertEquals((failed as Error).message, "no");
      const rows = await sql.unsafe(`select n from public.${table} order by n`);
      assertEquals(rows.map((row) => row.n), [1]);
    } finally {
      await sql.unsafe(`drop table public.${table}`);
    }
  } finally {
    await sql.end();
  }
});

Deno.test("savepoints started side by side in one transaction run one after another", options, async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1 });
  try {
    const results = await sql.begin((tx) =>
      Promise.all([1, 2, 3].map((n) =>
        tx.savepoint(async (inner) => {
          const [row] = await inner<{ n: number }[]>`select ${n}::int as n`;
          // A nested savepoint does not wait for the one it is inside.
          const [nested] = await inner.savepoint((deeper) =>
            deeper<{ m: number }[]>`select ${n * 10}::int as m`
          );
          return row.n + nested.m;
        })
      ))
    );
    assertEquals(results, [11, 22, 33]);
    // One that fails rolls back to its own savepoint; the others keep their work.
    const kept = await sql.begin(async (tx) => {
      await tx`create temporary table side_by_side (n int) on commit drop`;
      const outcomes = await Promise.allSettled([1, 2, 3].map((n) =>
        tx.savepoint(async (inner) => {
          await inner`insert into side_by_side values (${n})`;
          if (n === 2) throw new Error("two fails");
        })
      ));
      assertEquals(outcomes.map((outcome) => outcome.status), ["fulfilled", "rejected", "fulfilled"]);
      return (await tx<{ n: number }[]>`select n from side_by_side order by n`).map((row) => row.n);
    });
    assertEquals(kept, [1, 3]);
  } finally {
    await sql.end();
  }
});

Deno.test("a session ended by the server is replaced once, transparently", options, async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1 });
  const admin = postgres.connect(databaseUrl(), { max: 1 });
  try {
    const [{ pid }] = await sql`select pg_backend_pid() as pid`;
    await admin`select pg_terminate_backend(${pid})`;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The pooled connection is gone (idle, or found dead at BEGIN): the work runs on a fresh one.
    const [again] = await sql.begin((tx) => tx`select pg_backend_pid() as pid`);
    assert(again.pid !== pid);

    // Lost in the middle of the work, before COMMIT: the whole work runs once more on a fresh connection.
    let attempts = 0;
    const result = await sql.begin(async (tx) => {
      attempts++;
      const [{ pid: current }] = await tx`select pg_backend_pid() as pid`;
      if (attempts === 1) await admin`select pg_terminate_backend(${current})`;
      const [{ n }] = await tx`select 7 as n`;
      return n;
    });
    assertEquals(result, 7);
    assertEquals(attempts, 2);

    // Lost twice: a DatabaseUnavailableError (503), not a third try.
    attempts = 0;
    const error = await sql.begin(async (tx) => {
      attempts++;
      const [{ pid: current }] = await tx`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${current})`;
      await tx`select 1`;
    }).catch((caught) => caught);
    assert(error instanceof DatabaseUnavailableError, String(error));
    assertEquals(attempts, 2);
  } finally {
    await sql.end();
    await admin.end();
  }
});

Deno.test(
  "statement_timeout bounds a transaction's statement; the answer is 'unavailable'",
  options,
  async () => {
    const sql = postgres.connect(databaseUrl(), { max: 1, statementTimeoutMs: 300 });
    try {
      const startedAt = Date.now();
      const error = await sql.begin((tx) => tx`select pg_sleep(3)`).catch((caught) => caught);
      assert(error instanceof DatabaseUnavailableError, String(error));
      assert(Date.now() - startedAt < 2_000, "the statement ran past its timeout");
      // The connection is usable again right after.
      const [row] = await sql.begin((tx) => tx`select 1 as one`);
      assertEquals(row.one, 1);
    } finally {
      await sql.end();
    }
  },
);

Deno.test(
  "a database that refuses connections is 'unavailable' within the connect bound",
  options,
  async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const sql = postgres.connect(`postgresql://postgres:postgres@127.0.0.1:${port}/postgres`, {
      connectTimeoutMs: 1_000,
    });
    try {
      const startedAt = Date.now();
      const error = await sql.begin((tx) => tx`select 1`).catch((caught) => caught);
      assert(error instanceof DatabaseUnavailableError, String(error));
      assert(Date.now() - startedAt < 3_000);
    } finally {
      await sql.end();
    }
  },
);
