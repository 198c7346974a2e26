/**
 * What the database-outage tests share: a cluster of their own (so restarting it disturbs no other test),
 * clients that call the gateway in a loop and record every answer, and the checks an outage must pass.
 */
import { type Cluster, clusterAt, freePort, psql } from "../../platform/postgres/cluster.ts";
import { prepareDatabase } from "../../platform/stack.ts";
import { assert } from "./assert.ts";

export interface OwnCluster {
  cluster: Cluster;
  remove(): Promise<void>;
}

/** A fresh migrated cluster on a free port, in a temporary folder. */
export async function ownCluster(): Promise<OwnCluster> {
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-outage-db-" });
  const cluster = clusterAt(baseDir, freePort());
  await prepareDatabase(cluster);
  return {
    cluster,
    async remove() {
      const { stopCluster } = await import("../../platform/postgres/cluster.ts");
      await stopCluster(cluster).catch(() => {});
      await Deno.remove(baseDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Ends every client session of the cluster's database (what a pooler or a failover does to them). */
export async function terminateClientSessions(cluster: Cluster): Promise<number> {
  const out = await psql(cluster, {
    sql: `select count(pg_terminate_backend(pid)) from pg_stat_activity
          where pid <> pg_backend_pid() and backend_type = 'client backend'`,
  });
  return Number(out.trim().split(/\s+/).find((word) => /^\d+$/.test(word)) ?? 0);
}

export interface Answer {
  startedAt: number;
  endedAt: number;
  status: number;
  retryAfter: string | null;
  error: string | null;
  /** Set when the request itself failed (no HTTP answer at all). */
  failure?: string;
}

/** `clients` loops calling `request()` until `stopAt`, recording every answer. */
export async function load(
  clients: number,
  stopAt: number,
  request: () => Promise<Response>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(Array.from({ length: clients }, async () => {
    while (Date.now() < stopAt) {
      const startedAt = Date.now();
      try {
        const response = await request();
        const text = await response.text();
        let error: string | null = null;
        try {
          error = (JSON.parse(text) as { error?: string }).error ?? null;
        } catch {
          error = `not JSON: ${text.slice(0, 80)}`;
        }
        answers.push({
          startedAt,
          endedAt: Date.now(),
          status: response.status,
          retryAfter: response.headers.get("retry-after"),
          error: response.status === 200 ? null : error,
        });
      } catch (failure) {
        answers.push({
          startedAt,
          endedAt: Date.now(),
          status: 0,
          retryAfter: null,
          error: null,
          failure: String(failure),
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }));
  return answers;
}

export interface LoadReport {
  total: number;
  byStatus: Record<string, number>;
  slowestMs: number;
}

export function report(answers: Answer[]): LoadReport {
  const byStatus: Record<string, number> = {};
  for (const answer of answers) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
  return {
    total: answers.length,
    byStatus,
    slowestMs: Math.max(0, ...answers.map((answer) => answer.endedAt - answer.startedAt)),
  };
}

/**
 * What an outage must look like: only 200 and 503; every 503 is JSON `service_unavailable` with `Retry-After`;
 * no answer slower than 10 s; only 200s for requests started `settleMs` after `recoveredAt`.
 */
export function assertOutageAnswers(answers: Answer[], recoveredAt: number, settleMs = 5_000): void {
  const summary = JSON.stringify(report(answers));
  assert(answers.length > 0, "no answers recorded");
  for (const answer of answers) {
    const seen = JSON.stringify(answer);
    assert(
      answer.status === 200 || answer.status === 503,
      `only 200 and 503 expected, got ${seen}; ${summary}`,
    );
    if (answer.status === 503) {
      assert(answer.error === "service_unavailable", `a 503 must be service_unavailable JSON: ${seen}`);
      assert(
        answer.retryAfter !== null && /^\d+$/.test(answer.retryAfter),
        `a 503 needs Retry-After: ${seen}`,
      );
    }
    assert(answer.endedAt - answer.startedAt <= 10_000, `an answer took more than 10 s: ${seen}`);
    if (answer.startedAt >= recoveredAt + settleMs) {
      assert(answer.status === 200, `only 200s ${settleMs} ms after recovery, got ${seen}; ${summary}`);
    }
  }
}

/**
 * Sets environment variables for one test file and returns what puts the previous values back: test
 * files share one process, so a pooler URL or a short lease left behind would reach the next file.
 */
export function setEnvironment(values: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, Deno.env.get(name)]));
  for (const [name, value] of Object.entries(values)) Deno.env.set(name, value);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
}
