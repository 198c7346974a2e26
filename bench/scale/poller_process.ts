/**
 * One poller process of `deno task bench:scale`: runs poller invocations back to back (each with the
 * real claim, DNS-first check, RDAP client, project-wide host limiter and recording) until the run ends,
 * against the bench database and fake registries; DNS is answered in-process from the simulated world.
 * Prints one JSON line with its totals. Usage: `poller_process.ts <params JSON> <stopAt epoch ms>`.
 */
import process from "node:process";
import {
  checkDomain,
  type CheckOptions,
} from "../../supabase/functions/_shared/availability/check_domain.ts";
import { sharedBootstrapStore } from "../../supabase/functions/_shared/rdap/bootstrap_store.ts";
import { databaseServerProofStore } from "../../supabase/functions/_shared/availability/server_proof.ts";
import { closeDatabase } from "../../supabase/functions/_shared/db/client.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import { createRdapClient } from "../../supabase/functions/_shared/rdap/client.ts";
import { createDatabaseHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { type RateLimitStore, sqlRateLimitStore } from "../../supabase/functions/_shared/rate_limit/store.ts";
import {
  databaseDomainQueue,
  type DomainQueue,
} from "../../supabase/functions/_shared/poller/domain_queue.ts";
import { dnsQueryCounts, rateLimitedLookup } from "../../supabase/functions/_shared/poller/dns_rate_limit.ts";
import { type PollerDeps, runPoller } from "../../supabase/functions/_shared/poller/run_poller.ts";
import type { PollerSettings } from "../../supabase/functions/_shared/poller/settings.ts";
import { droppingIndexes, indexOf, kindOf, nameOf, type ScaleParams } from "./world.ts";

const params = JSON.parse(Deno.args[0]) as ScaleParams;
const stopAt = Number(Deno.args[1]);

/** What happened to each dropping name in this process (epoch ms, event), for main.ts's slowest-alert lines. */
const dropping = new Set(droppingIndexes(params).map((index) => nameOf(index, params)));
const events: [string, number, string][] = [];
const note = (name: string, what: string) => {
  if (dropping.has(name)) events.push([name, Date.now(), what]);
};

/** Urgent callers' limiter answers per host (host, epoch ms, what), for main.ts's slowest-alert lines. */
const hostEvents: [string, number, string][] = [];
const urgentTokens = new Map<string, string>();

const timing = {
  claimMs: 0,
  claims: 0,
  recordMs: 0,
  limiterMs: 0,
  limiterCalls: 0,
  reservations: 0,
  urgentReserves: 0,
  urgentGranted: 0,
};

async function timed<T>(work: () => Promise<T>, add: (ms: number) => void): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    add(performance.now() - started);
  }
}

function timedQueue(queue: DomainQueue): DomainQueue {
  const record = (ms: number) => timing.recordMs += ms;
  return {
    claim: async (limit, lease) => {
      const claimed = await timed(() => queue.claim(limit, lease), (ms) => {
        timing.claimMs += ms;
        timing.claims++;
      });
      for (const domain of claimed) note(domain.name, "claimed");
      return claimed;
    },
    recordCheck: (result, followUp) => {
      note(result.domain_name, `recorded ${result.status}${"reason" in result ? ` ${result.reason}` : ""}`);
      return timed(() => queue.recordCheck(result, followUp), record);
    },
    recordDelegated: (domain, at) => timed(() => queue.recordDelegated(domain, at), record),
    defer: (name, notBefore) => {
      note(name, `deferred to ${new Date(notBefore).toISOString()}`);
      return timed(() => queue.defer(name, notBefore), record);
    },
    deferBatch: (deferrals) => timed(() => queue.deferBatch!(deferrals), record),
  };
}

function timedStore(store: RateLimitStore): RateLimitStore {
  const add = (ms: number) => {
    timing.limiterMs += ms;
    timing.limiterCalls++;
  };
  const reserve = store.reserve?.bind(store);
  const settle = store.settle?.bind(store);
  const releaseAt = store.releaseAt?.bind(store);
  return {
    reserve: reserve &&
      (async (c, k, w, u) => {
        const answer = await timed(() => reserve(c, k, w, u), add);
        if (answer.granted) timing.reservations++;
        if (u) {
          timing.urgentReserves++;
          if (answer.granted) {
            timing.urgentGranted++;
            urgentTokens.set(answer.token, k);
          }
          hostEvents.push([
            k,
            Date.now(),
            answer.granted
              ? `reserved +${answer.startsAt - answer.dbNow}`
              : `busy ${answer.refusal} ${answer.retryMs}`,
          ]);
        }
        return answer;
      }),
    settle: settle && (async (t) => {
      const answer = await timed(() => settle(t), add);
      const host = urgentTokens.get(t);
      if (host) {
        hostEvents.push([
          host,
          Date.now(),
          answer.startAt === null
            ? `settle retry ${answer.retryMs}`
            : `settled +${answer.startAt - answer.dbNow}`,
        ]);
      }
      return answer;
    }),
    releaseAt: releaseAt && ((t, at) => timed(() => releaseAt(t, at), add)),
    acquire: (c, k, w) => timed(() => store.acquire(c, k, w), add),
    confirm: (t) => timed(() => store.confirm(t), add),
    release: (t) => timed(() => store.release(t), add),
    pause: (c, k, u, r) => timed(() => store.pause(c, k, u, r), add),
    report: (c, k, s) => timed(() => store.report(c, k, s), add),
  };
}

function fakeDns(name: string): Promise<DnsOutcome> {
  const index = indexOf(name);
  const delegated = index !== null && kindOf(index, params) === "delegated";
  return new Promise((resolve) =>
    setTimeout(
      () =>
        resolve(
          delegated
            ? { outcome: "delegated", nameservers: ["ns1.bench.example"], rcode: "NOERROR" }
            : { outcome: "not_delegated", rcode: "NXDOMAIN" },
        ),
      params.dnsLatencyMs,
    )
  );
}

/** Delegated names the DNS-first rule sent to their registry (a question that only learns more). */
const askedDelegated = new Set<string>();

const limiter = createDatabaseHostLimiter({ store: timedStore(sqlRateLimitStore()) });
const servers = sharedBootstrapStore();
const checkDeps = {
  servers,
  rdap: createRdapClient({
    limiter,
    timeoutMs: 10_000,
    // The fake registries listen on loopback (the local switch WEBHOOK_ALLOW_PRIVATE_TARGETS).
    outbound: {
      allowPrivateTargets: true,
      resolve: () => Promise.reject(new Error("the fakes are reached by IP address")),
      isListedServer: (url: string) => servers.isListedServer(url),
    },
  }),
  proof: databaseServerProofStore(),
};
const lookupDns = rateLimitedLookup(fakeDns, { resolver: "bench-resolver", ratePerSecond: params.dnsRate });
const deps = {
  domains: timedQueue(databaseDomainQueue()),
  check: {
    lookupDns,
    checkDomain: (name: string, dns: DnsOutcome, wait: CheckOptions) => {
      const index = indexOf(name);
      if (index !== null && kindOf(index, params) === "delegated") askedDelegated.add(name);
      return checkDomain({ ...checkDeps, dns: () => Promise.resolve(dns) }, name, null, wait);
    },
    hostPausedUntil: (serverUrl: string) => limiter.pausedUntil(new URL(serverUrl).host),
    now: Date.now,
  },
  // Delivery is not part of this bench (it has its own invocation).
  dispatch: () => Promise.resolve({ delivered: 0, retried: 0, failed: 0, deferred: 0 }),
  now: Date.now,
  sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
} as unknown as PollerDeps;

const totals = {
  runs: 0,
  checked: 0,
  registered_by_dns: 0,
  registry_questions: 0,
  deferred: 0,
  became_available: 0,
  errors: 0,
};
const cpuStart = process.cpuUsage();
while (stopAt - Date.now() > 2_000) {
  const settings = {
    timeBudgetMs: Math.min(params.runBudgetMs, stopAt - Date.now()),
    leaseSeconds: 120,
    batchSize: params.batch,
    concurrency: params.workers,
    maxChecksPerRun: 100_000,
    hostQueue: params.hostQueue,
    maxDeliveriesPerRun: 1,
  } as PollerSettings;
  let summary;
  try {
    summary = await runPoller(deps, settings);
  } catch (error) {
    // A run that fails (the database overloaded) is counted, and the next one starts.
    console.error(`[bench:scale] poller run failed: ${(error as Error).message}`);
    totals.errors++;
    continue;
  }
  totals.runs++;
  totals.checked += summary.checked;
  totals.registered_by_dns += summary.registered_by_dns;
  totals.registry_questions += summary.registry_questions;
  totals.deferred += summary.deferred;
  totals.became_available += summary.became_available;
  totals.errors += summary.errors;
  if (summary.stopped_because === "no_due_work") await new Promise((resolve) => setTimeout(resolve, 1_000));
}
const cpu = process.cpuUsage(cpuStart);
console.log(JSON.stringify({
  ...totals,
  ...timing,
  events,
  hostEvents,
  dnsQueries: dnsQueryCounts(),
  askedDelegated: [...askedDelegated],
  cpuMs: (cpu.user + cpu.system) / 1000,
}));
await closeDatabase(2);
