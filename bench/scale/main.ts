/**
 * `deno task bench:scale [--flag value …]`: the polling design at scale, on this machine. A throwaway
 * PostgreSQL with N watch entries over M names, fake RDAP registries that enforce a per-host limit (429 on
 * any excess), and several poller processes in parallel sharing the project-wide host limiter. Prints,
 * from one run: RDAP request rate ÷ the politeness ceiling (hosts × per-host rate), checks per second, the
 * share of RDAP requests saved by DNS, 429s sent, drop-to-alert delay (median, max), and claim and
 * database time per check. Flags: see `DEFAULT_PARAMS` in world.ts (e.g. `--names 30000 --entries 100000`).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { join } from "node:path";
import { repoRoot } from "../../platform/paths.ts";
import { clusterAt, freePort, stopCluster } from "../../platform/postgres/cluster.ts";
import { prepareDatabase } from "../../platform/stack.ts";
import { startFakeRegistries } from "./fake_registries.ts";
import { seed } from "./seed.ts";
import { droppingIndexes, dropTimes, nameOf, parseParams } from "./world.ts";

interface ProcessTotals {
  runs: number;
  checked: number;
  registered_by_dns: number;
  registry_questions: number;
  askedDelegated: string[];
  deferred: number;
  became_available: number;
  errors: number;
  claimMs: number;
  claims: number;
  recordMs: number;
  limiterMs: number;
  limiterCalls: number;
  reservations: number;
  urgentReserves: number;
  urgentGranted: number;
  dnsQueries: Record<string, number>;
  events: [string, number, string][];
  hostEvents: [string, number, string][];
  cpuMs: number | null;
}

const params = parseParams(Deno.args);
const log = (text: string) => console.log(`[bench:scale] ${text}`);
const fixed = (value: number, digits = 2) => value.toFixed(digits);

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(share * (sorted.length - 1) + 0.5))];
}

async function main(): Promise<void> {
  log(`parameters ${JSON.stringify(params)}`);
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-bench-scale-" });
  const cluster = clusterAt(baseDir, freePort());
  let sql: postgres.Sql | undefined;
  let fakes: ReturnType<typeof startFakeRegistries> | undefined;
  try {
    let started = performance.now();
    await prepareDatabase(cluster);
    sql = postgres.connect(cluster.url, { max: 4, onnotice: () => {} });
    // A server setting needs the cluster's superuser (the project's `postgres` is not one, as on Supabase).
    const admin = postgres.connect(cluster.adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin`alter system set synchronous_commit = off`;
      await admin`select pg_reload_conf()`;
    } finally {
      await admin.end({ timeout: 2 });
    }
    const dropping = droppingIndexes(params);
    await seed(sql, params, dropping);
    const [counts] = await sql<{ names: number; entries: number }[]>`
      select (select count(*) from public.domains)::int as names,
             (select count(*) from public.watchlist_entries)::int as entries`;
    log(
      `seeded ${counts.entries} watch entries over ${counts.names} names in ${
        fixed((performance.now() - started) / 1000, 1)
      } s`,
    );

    // The project-wide limiter runs a little under the registries' limit (the margin absorbs timer jitter).
    await sql`update public.rate_limit_classes
              set rate_per_second = ${
      params.hostRate * (1 - params.margin)
    }, concurrency = ${params.hostConcurrency}
              where class = 'rdap_host'`;

    const startAt = Date.now() + 3_000;
    const stopAt = startAt + params.duration * 1000;
    const drops = dropTimes(params, startAt);
    fakes = startFakeRegistries(params, drops);
    log(
      `${params.hosts} fake registries at ${params.hostRate}/s and ${params.hostConcurrency} in flight each, ` +
        `${params.rdapLatencyMs} ms latency; ${params.pollers} poller processes × ${params.workers} workers for ${params.duration} s`,
    );

    const children = Array.from({ length: params.pollers }, () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--no-check",
          join(repoRoot, "bench/scale/poller_process.ts"),
          JSON.stringify(params),
          String(stopAt),
        ],
        cwd: repoRoot,
        env: {
          SUPABASE_DB_URL: cluster.url,
          RDAP_BOOTSTRAP_URL: fakes!.bootstrapUrl,
          DB_POOL_SIZE: String(Math.max(4, params.workers)),
          // On a loaded machine a new connection can take seconds; the default 3 s would end a run early.
          DB_CONNECT_TIMEOUT_MS: "20000",
        },
        stdout: "piped",
        stderr: "inherit",
      }).spawn());
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
    started = performance.now();
    const outputs = await Promise.all(children.map(async (child) => {
      const output = await child.output();
      const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
      return JSON.parse(lines[lines.length - 1]) as ProcessTotals;
    }));
    const elapsedS = (performance.now() - started) / 1000;

    // Figures.
    const sum = (pick: (totals: ProcessTotals) => number) => outputs.reduce((total, o) => total + pick(o), 0);
    const checked = sum((o) => o.checked);
    const byDns = sum((o) => o.registered_by_dns);
    const rdapRequests = fakes.perHost.reduce((total, n) => total + n, 0);
    const ceiling = params.hosts * params.hostRate;
    const windowStart = startAt + 10_000;
    const windowEnd = stopAt - 5_000;
    const inWindow = fakes.accepted.filter((at) => at >= windowStart && at < windowEnd).length;
    const rdapRate = inWindow / ((windowEnd - windowStart) / 1000);

    const alerts = await sql<{ domain_name: string; first: Date }[]>`
      select domain_name, min(created_at) as first from public.alert_events
       where type = 'domain.available' group by domain_name`;
    const alertAt = new Map(alerts.map((row) => [row.domain_name, row.first.getTime()]));
    const delays: number[] = [];
    const slowest: { name: string; dropAt: number; delay: number }[] = [];
    let missed = 0;
    for (const [index, dropAt] of drops) {
      const name = nameOf(index, params);
      const at = alertAt.get(name);
      if (at === undefined) missed++;
      else delays.push((at - dropAt) / 1000);
      slowest.push({ name, dropAt, delay: at === undefined ? Infinity : (at - dropAt) / 1000 });
    }
    delays.sort((a, b) => a - b);
    slowest.sort((a, b) => b.delay - a.delay);
    const falseAlerts = alerts.filter((row) => {
      const match = row.domain_name.match(/^n(\d+)\./);
      return !match || !drops.has(Number(match[1]));
    }).length;
    const dnsQueries = sum((o) => Object.values(o.dnsQueries).reduce((t, n) => t + n, 0));

    console.log("");
    console.log(`deno task bench:scale ${Deno.args.join(" ")}`.trim());
    console.log(
      `  world                  ${counts.entries} entries over ${counts.names} names, ${params.hosts} registries, ` +
        `${params.pollers} pollers × ${params.workers} workers, ${fixed(elapsedS, 0)} s`,
    );
    console.log(
      `  RDAP rate ÷ ceiling    ${fixed(rdapRate)}/s ÷ ${ceiling}/s = ${fixed(rdapRate / ceiling)}  ` +
        `(limiter set to ${fixed(1 - params.margin)} of the ceiling; window ${
          fixed((windowEnd - windowStart) / 1000, 0)
        } s)`,
    );
    console.log(
      `  checks per second      ${fixed(checked / elapsedS, 1)}  (${checked} checks, ${
        fixed(checked / elapsedS / ceiling, 2)
      } × ceiling)`,
    );
    console.log(
      `  RDAP saved by DNS      ${fixed(100 * (1 - rdapRequests / Math.max(1, checked)), 1)} %  ` +
        `(${rdapRequests} RDAP requests for ${checked} checks; ${byDns} by DNS alone)`,
    );
    // The DNS-first rule (poller/dns_first.ts): of the names it looked at, how many DNS decided alone.
    const questions = sum((o) => o.registry_questions);
    console.log(
      `  decided by DNS         ${fixed(100 * byDns / Math.max(1, byDns + questions), 1)} % of the rule's ` +
        `decisions (${byDns} by DNS alone, ${questions} sent to the registry; ${
          params.registryPass ? "after the first registry pass" : "first registry pass"
        }); ${fixed(100 * byDns / Math.max(1, checked), 1)} % of recorded checks`,
    );
    // Only delegated names can be decided by DNS: the rule's share among them (each name about once here).
    const askedDelegated = new Set(outputs.flatMap((o) => o.askedDelegated)).size;
    console.log(
      `  delegated names        ${
        fixed(100 * byDns / Math.max(1, byDns + askedDelegated), 1)
      } % by DNS alone ` +
        `(${byDns} checks by DNS alone; ${askedDelegated} distinct delegated names sent to their registry)`,
    );
    const [pass] = await sql<{ never: number; per_host_max: number }[]>`
      select coalesce(sum(n), 0)::int as never, coalesce(max(n), 0)::int as per_host_max
        from (select split_part(name, '.', 2) as host, count(*) as n from public.domains
               where registry_asked_at is null and status = 'registered'
                 and ((substring(name from 2 for position('.' in name) - 2))::bigint * 7919) % 1000
                     < ${params.delegatedShare * 1000}::float8
               group by 1) as h`;
    const [asked] = await sql<{ n: number }[]>`
      select count(*)::int as n from public.domains where registry_asked_at > now() - interval '1 hour'`;
    console.log(
      `  first registry pass    ${pass.never} delegated names never asked at the end (most at one registry: ` +
        `${pass.per_host_max}, ${
          fixed(pass.per_host_max / params.hostRate / 3600, 2)
        } h at ${params.hostRate}/s); ` +
        `${asked.n} registry answers recorded in the run (${fixed(asked.n / elapsedS, 2)}/s)`,
    );
    // Gaps between consecutive answered arrivals at each host, within the window: where the time goes.
    const hostGaps = fakes.acceptedPerHost.flatMap((arrivals) => {
      const inside = arrivals.filter((at) => at >= windowStart && at < windowEnd);
      return inside.slice(1).map((at, i) => at - inside[i]);
    }).sort((a, b) => a - b);
    console.log(
      `  gaps at a host         p10 ${percentile(hostGaps, 0.1)} ms, median ${
        percentile(hostGaps, 0.5)
      } ms, ` +
        `p90 ${percentile(hostGaps, 0.9)} ms, max ${hostGaps[hostGaps.length - 1] ?? NaN} ms ` +
        `(${hostGaps.filter((gap) => gap > 2000).length} gaps over 2 s)`,
    );
    const gaps = [...fakes.tooManyGaps].sort((a, b) => a - b);
    console.log(
      `  429s sent by fakes     ${fakes.tooMany}` +
        (gaps.length
          ? ` (ms since the previous arrival at that host: min ${gaps[0]}, median ${percentile(gaps, 0.5)})`
          : ""),
    );
    console.log(
      `  drop → alert           median ${fixed(percentile(delays, 0.5), 1)} s, max ${
        fixed(delays[delays.length - 1] ?? NaN, 1)
      } s ` +
        `(${delays.length} of ${drops.size} drops alerted${
          missed ? `, ${missed} not` : ""
        }; ${falseAlerts} other alerts)`,
    );
    // Where the slowest alerts lost their time: each request for the name at its registry (s from the drop).
    for (const { name, dropAt, delay } of slowest.slice(0, 3)) {
      const tld = name.split(".")[1];
      const seen = (trace: { at: number; status: number }[] | undefined) =>
        (trace ?? []).map(({ at, status }) => `${fixed((at - dropAt) / 1000, 1)}:${status}`).join(" ");
      console.log(
        `    ${name} alerted ${fixed(delay, 1)} s after its drop; its requests ${
          seen(fakes.traces.get(name))
        }; canary nic.${tld} ${seen(fakes.traces.get(`nic.${tld}`))}`,
      );
      const happened = outputs.flatMap((o, poller) =>
        o.events.filter(([of]) => of === name).map(([, at, what]) => ({ at, what: `p${poller} ${what}` }))
      ).sort((a, b) => a.at - b.at);
      console.log(
        `      ${happened.map(({ at, what }) => `${fixed((at - dropAt) / 1000, 1)} ${what}`).join("; ")}`,
      );
      // The urgent callers' limiter answers at that registry from the drop to the alert.
      const host = new URL(fakes.urls[Number(tld.replace("scale", ""))]).host;
      const limiterSaid = outputs.flatMap((o, poller) =>
        o.hostEvents.filter(([of, at]) => of === host && at >= dropAt && at <= dropAt + delay * 1000)
          .map(([, at, what]) => ({ at, what: `p${poller} ${what}` }))
      ).sort((a, b) => a.at - b.at);
      console.log(
        `      urgent at ${host}: ${
          limiterSaid.slice(0, 40).map(({ at, what }) => `${fixed((at - dropAt) / 1000, 1)} ${what}`).join(
            "; ",
          )
        }`,
      );
    }
    console.log(
      `  claim time per check   ${fixed(sum((o) => o.claimMs) / Math.max(1, checked))} ms ` +
        `(${
          fixed(sum((o) => o.claimMs) / Math.max(1, sum((o) => o.claims)), 1)
        } ms per claim of ≤ ${params.batch})`,
    );
    console.log(
      `  DB time per check      ${
        fixed(
          (sum((o) => o.claimMs) + sum((o) => o.recordMs) + sum((o) => o.limiterMs)) / Math.max(1, checked),
        )
      } ms ` +
        `(claim + record + limiter; limiter ${
          fixed(sum((o) => o.limiterMs) / Math.max(1, rdapRequests))
        } ms and ` +
        `${fixed(sum((o) => o.limiterCalls) / Math.max(1, rdapRequests), 1)} calls per RDAP request)`,
    );
    const reservations = sum((o) => o.reservations ?? 0);
    if (reservations > 0) {
      console.log(
        `  reserved starts        ${reservations} for ${rdapRequests} RDAP requests ` +
          `(${reservations - rdapRequests} given up: woke too late, paused meanwhile, or out of budget); ` +
          `urgent: ${sum((o) => o.urgentGranted)} granted of ${sum((o) => o.urgentReserves)} asked`,
      );
    }
    console.log(
      `  DNS queries            ${dnsQueries} (${
        fixed(dnsQueries / elapsedS, 1)
      }/s over ${params.pollers} processes)`,
    );
    const cpu = sum((o) => o.cpuMs ?? 0);
    if (cpu > 0) console.log(`  poller CPU per check   ${fixed(cpu / Math.max(1, checked))} ms`);
    console.log(`  errors / deferred      ${sum((o) => o.errors)} / ${sum((o) => o.deferred)}`);
  } finally {
    await fakes?.close();
    await sql?.end({ timeout: 2 });
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(baseDir, { recursive: true }).catch(() => {});
  }
}

await main();
