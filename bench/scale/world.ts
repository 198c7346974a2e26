/**
 * The simulated world of `deno task bench:scale`, shared by the orchestrator, the fake registries and the
 * poller processes: its parameters, and which name is what (pure functions of the name's index).
 */

export interface ScaleParams {
  /** Distinct watched names. */
  names: number;
  /** Watch entries (over `accounts` accounts). */
  entries: number;
  accounts: number;
  /** Fake RDAP registries (one TLD and one `host:port` each). */
  hosts: number;
  /** Requests per second each fake registry accepts (whole number); more in any 1 s window → 429. */
  hostRate: number;
  /** Requests in flight each fake registry accepts; more → 429. */
  hostConcurrency: number;
  /**
   * The project limiter is set to hostRate × (1 − margin). Starts are spaced from the previous request's end
   * (docs/rate-limits.md), so the margin covers only the error of each process's estimate of the database's
   * clock and the rounding of timestamps to the millisecond, not scheduling jitter.
   */
  margin: number;
  rdapLatencyMs: number;
  dnsLatencyMs: number;
  /** DNS queries per second per poller process (the DNS rate limit; 0 = none). */
  dnsRate: number;
  delegatedShare: number;
  pendingDeleteShare: number;
  /** Names in pending delete that drop during the run. */
  drops: number;
  pollers: number;
  /**
   * Workers per poller process (POLLER_CONCURRENCY, whose default is 4). A worker claims, asks DNS and records;
   * it never waits for a registry, so a few keep every registry's line full. (16, the default before the
   * workers stopped waiting, now makes 64 claimers that hold the database's 2 cores at 100 %.)
   */
  workers: number;
  batch: number;
  /** Seconds of polling. */
  duration: number;
  /** Wall time of one poller invocation (POLLER_TIME_BUDGET_MS), ms. */
  runBudgetMs: number;
  /** Names of one poller run that may wait for one registry (POLLER_HOST_QUEUE). */
  hostQueue: number;
  /**
   * 1: the delegated names are seeded as the first registry pass left them (expiry spread over the next
   * year, registrar known, the registry last asked at their last check, 7 days ago), so the run measures the
   * steady state of the DNS-first rule (poller/dns_first.ts). 0: never asked (the first pass itself).
   */
  registryPass: number;
  /** Share of accounts with a channel asking for `domain.expiring` (reminder days 30, 7, 1). */
  expiringShare: number;
}

export const DEFAULT_PARAMS: ScaleParams = {
  names: 300_000,
  entries: 1_000_000,
  accounts: 1_000,
  hosts: 20,
  hostRate: 1,
  hostConcurrency: 2,
  margin: 0.01,
  rdapLatencyMs: 50,
  dnsLatencyMs: 5,
  dnsRate: 0,
  delegatedShare: 0.9,
  pendingDeleteShare: 0.02,
  drops: 40,
  pollers: 4,
  workers: 4,
  batch: 10,
  duration: 180,
  runBudgetMs: 25_000,
  hostQueue: 3,
  registryPass: 1,
  expiringShare: 1,
};

export type NameKind = "delegated" | "pending_delete" | "undelegated";

/** A stable pseudo-random permille of the index (the same in SQL: `(i * 7919) % 1000`). */
export function permille(index: number): number {
  return (index * 7919) % 1000;
}

export function kindOf(index: number, params: ScaleParams): NameKind {
  const p = permille(index);
  if (p < params.delegatedShare * 1000) return "delegated";
  if (p < (params.delegatedShare + params.pendingDeleteShare) * 1000) return "pending_delete";
  return "undelegated";
}

export function tldOf(index: number): string {
  return `scale${index}`;
}

export function nameOf(index: number, params: ScaleParams): string {
  return `n${index}.${tldOf(index % params.hosts)}`;
}

/** The index of a bench name (`n<index>.scale<k>`), or null. */
export function indexOf(name: string): number | null {
  const match = name.match(/^n(\d+)\.scale\d+$/);
  return match ? Number(match[1]) : null;
}

/** The indexes of the names in pending delete that drop during the run: the first `drops` of them. */
export function droppingIndexes(params: ScaleParams): number[] {
  const found: number[] = [];
  for (let i = 0; i < params.names && found.length < params.drops; i++) {
    if (kindOf(i, params) === "pending_delete") found.push(i);
  }
  return found;
}

/** When each dropping name drops (epoch ms): spread from 20 s into the run to 70 s before its end. */
export function dropTimes(params: ScaleParams, startAt: number): Map<number, number> {
  const indexes = droppingIndexes(params);
  const first = startAt + 20_000;
  const last = Math.max(first, startAt + params.duration * 1000 - 70_000);
  return new Map(indexes.map((index, k) => [
    index,
    first + Math.round((last - first) * (indexes.length === 1 ? 0 : k / (indexes.length - 1))),
  ]));
}

/** Parses `--name value` flags over the defaults. */
export function parseParams(args: string[]): ScaleParams {
  const params: ScaleParams = { ...DEFAULT_PARAMS };
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (!(key in params)) {
      throw new Error(`unknown flag ${args[i]} (known: ${Object.keys(params).join(", ")})`);
    }
    const value = Number(args[i + 1]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${args[i]} needs a number`);
    (params as unknown as Record<string, number>)[key] = value;
  }
  if (!Number.isInteger(params.hostRate) || params.hostRate < 1) {
    throw new Error("--host-rate must be a whole number ≥ 1");
  }
  if (params.entries / params.accounts > params.names) throw new Error("more entries per account than names");
  return params;
}
