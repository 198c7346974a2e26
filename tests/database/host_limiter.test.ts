/**
 * The RDAP host limiter is one per host for the whole project: separate processes (as separate edge
 * function isolates) share its allowance and its pauses, measured at a fake registry.
 *
 * Needs SUPABASE_DB_URL (a migrated database; `deno task test` provides one); fails without it.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { repoRoot } from "../../platform/paths.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

interface WorkerLine {
  name: string;
  outcome: string;
  reason: string | null;
}

async function runWorker(baseUrl: string, maxWaitMs: number, names: string[]): Promise<WorkerLine[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-check",
      "tests/support/host_limiter_worker.ts",
      baseUrl,
      String(maxWaitMs),
      ...names,
    ],
    cwd: repoRoot,
    env: { SUPABASE_DB_URL: databaseUrl() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  return text.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as WorkerLine);
}

Deno.test(
  "two processes on one host keep their combined request starts within the host's rate",
  options,
  async () => {
    const rdap = await startFakeRdap();
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {} });
    try {
      const rate = 4;
      await setRdapHostLimit(sql, rdap.url, rate, 2);
      const names = (process: string) => Array.from({ length: 8 }, (_, i) => `n${i}-${process}.limitertest`);
      const results = await Promise.all([
        runWorker(rdap.url, 60_000, names("a")),
        runWorker(rdap.url, 60_000, names("b")),
      ]);
      const lines = results.flat();
      assertEquals(lines.length, 16);
      assert(lines.every((line) => line.outcome === "not_found"), JSON.stringify(lines));

      const starts = rdap.requests.filter((request) => request.path.startsWith("/domain/")).map((r) => r.at)
        .sort();
      assertEquals(starts.length, 16);
      // Spaced 250 ms apart by the database: any `rate` + 1 consecutive starts span at least a second (less a
      // little scheduling jitter between the decision and the request reaching the fake).
      for (let i = 0; i + rate < starts.length; i++) {
        const span = starts[i + rate] - starts[i];
        assert(span >= 1000 - 60, `starts ${i}..${i + rate} within ${span} ms: ${JSON.stringify(starts)}`);
      }
    } finally {
      await sql.end({ timeout: 2 });
      await rdap.close();
    }
  },
);

Deno.test(
  "with answers slower than 1 / rate, the next start still waits for the previous end (never 2 in 1 / rate)",
  options,
  async () => {
    const rdap = await startFakeRdap();
    const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {} });
    try {
      const rate = 4;
      const slowMs = 400;
      await setRdapHostLimit(sql, rdap.url, rate, 2);
      const names = (process: string) => Array.from({ length: 4 }, (_, i) => `s${i}-${process}.limitertest`);
      for (const name of [...names("a"), ...names("b")]) {
        rdap.setDomain(name, { status: 404, delayMs: slowMs });
      }
      const results = await Promise.all([
        runWorker(rdap.url, 60_000, names("a")),
        runWorker(rdap.url, 60_000, names("b")),
      ]);
      assert(results.flat().every((line) => line.outcome === "not_found"), JSON.stringify(results));
      const starts = rdap.requests.filter((request) => request.path.startsWith("/domain/")).map((r) => r.at)
        .sort();
      assertEquals(starts.length, 8);
      // Each start comes 1 / rate after the previous answer (which took `slowMs`), never 1 / rate after the
      // previous start alone; less a little scheduling jitter.
      for (let i = 1; i < starts.length; i++) {
        const gap = starts[i] - starts[i - 1];
        assert(
          gap >= slowMs + 1000 / rate - 60,
          `starts ${i - 1}, ${i} ${gap} ms apart: ${JSON.stringify(starts)}`,
        );
      }
    } finally {
      await sql.end({ timeout: 2 });
      await rdap.close();
    }
  },
);

Deno.test("a 429 seen by one process pauses the host for the other", options, async () => {
  const rdap = await startFakeRdap();
  const sql = postgres.connect(databaseUrl(), { max: 2, onnotice: () => {} });
  try {
    await setRdapHostLimit(sql, rdap.url, 50, 2);
    rdap.setDomain("busy.limitertest", { status: 429, retryAfter: 30 });
    const [first] = await runWorker(rdap.url, 10_000, ["busy.limitertest"]);
    assertEquals(first.reason, "rdap_rate_limited");

    const [second] = await runWorker(rdap.url, 10_000, ["other.limitertest"]);
    assertEquals(second, { name: "other.limitertest", outcome: "refused", reason: "rdap_rate_limited" });
    assertEquals(rdap.requests.filter((request) => request.path === "/domain/other.limitertest").length, 0);

    const [row] = await sql<{ paused_until: Date }[]>`
      select paused_until from public.rate_limit_keys where class = 'rdap_host' and key = ${
      new URL(rdap.url).host
    }`;
    const pausedFor = row.paused_until.getTime() - Date.now();
    assert(pausedFor > 20_000 && pausedFor <= 30_000, `paused for ${pausedFor} ms`);
  } finally {
    await sql`delete from public.rate_limit_keys where key = ${new URL(rdap.url).host}`;
    await sql.end({ timeout: 2 });
    await rdap.close();
  }
});
