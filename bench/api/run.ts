/**
 * `deno task bench`: the end-to-end API benchmark. Starts its own throwaway PostgreSQL cluster
 * (migrated like `deno task test`), fills 100,000 names for an Enterprise account, runs the raw ceiling
 * server (raw_server.ts) and the API (api_server.ts) side by side and loads both with wrk, alternating
 * rounds so that both see the same machine. Prints one table and writes bench/results.json.
 *
 * Env: BENCH_SECONDS (per wrk run, default 5), BENCH_ROUNDS (default 8), BENCH_CONNECTIONS (default 16),
 * BENCH_V8_FLAGS (passed to the servers, e.g. `--prof`), BENCH_CASES (comma-separated load cases, e.g.
 * `api limit=1,raw limit=1`: only those are loaded and their rates and CPU printed; nothing else is measured
 * and no table is written — for looking at one figure while changing it).
 */
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { createAccount } from "../../scripts/lib/accounts.ts";
import { repoRoot } from "../../platform/paths.ts";
import { clusterAt, freePort, stopCluster } from "../../platform/postgres/cluster.ts";
import { prepareDatabase } from "../../platform/stack.ts";
import {
  atLeast,
  atMost,
  check,
  formatTable,
  type Measurement,
  median,
  mib,
  ms,
  perSecond,
} from "./report.ts";
import { startRoundTripProxy } from "./round_trips.ts";
import { hostedDenoEnv, hostedDenoPath, hostedLockfile } from "../../scripts/lib/hosted_deno.ts";
import { ensureWrk, type LoadResult, type LoadSpec, runWrk } from "./wrk.ts";

const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? 5);
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 8);
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 16);
const onlyCases = Deno.env.get("BENCH_CASES")?.split(",").map((name) => name.trim()).filter(Boolean);
const watchlistSize = 100_000;
const memoryRequests = 100_000;
const hostedDeno = hostedDenoPath();
const hostedLock = [`--lock=${hostedLockfile}`, "--frozen"];

interface Server {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a bench server on Deno 2.1.4, the Deno of hosted Edge Functions, on a port chosen here, and waits
 * until it answers. Its standard output is discarded: on hosted Supabase the runtime hands a function's log
 * lines to the platform's log pipeline, outside the function; read here through a JavaScript stream, the
 * API's per-request log line (`/mcp` logs its credential kind) cost this machine's two cores more than
 * writing it costs the function. Writing it still counts (its CPU is the server's); errors go to stderr.
 */
async function startServer(script: string, env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(await hostedDeno, {
    // BENCH_V8_FLAGS (e.g. --prof) goes to the servers' V8, to see where their time goes.
    args: [
      "run",
      "-A",
      "--no-check",
      ...hostedLock,
      ...(Deno.env.get("BENCH_V8_FLAGS") ? [`--v8-flags=${Deno.env.get("BENCH_V8_FLAGS")}`] : []),
      join(repoRoot, "bench", "api", script),
    ],
    cwd: repoRoot,
    env: { ...env, ...hostedDenoEnv, BENCH_PORT: String(port) },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  for (let attempt = 0;; attempt++) {
    const ended = await Promise.race([
      child.status,
      new Promise<null>((resolve) => setTimeout(resolve, 100, null)),
    ]);
    if (ended) throw new Error(`${script} exited before listening (code ${ended.code})`);
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      if (attempt > 600) throw new Error(`${script} did not listen on ${port} within a minute`);
    }
  }
  return {
    port,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
    },
  };
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? NaN);
  return { rss: kib("VmRSS") * 1024, peak: kib("VmHWM") * 1024 };
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux /proc, 100 ticks a second). */
async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of every process of the cluster (postmaster and backends), in milliseconds (Linux /proc). */
async function clusterCpuMs(dataDir: string): Promise<number> {
  const postmaster = Number((await Deno.readTextFile(join(dataDir, "postmaster.pid"))).split("\n")[0]);
  let total = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const fields = (await Deno.readTextFile(`/proc/${entry.name}/stat`)).split(") ")[1].split(" ");
      if (Number(entry.name) === postmaster || Number(fields[1]) === postmaster) {
        total += (Number(fields[11]) + Number(fields[12])) * 10;
      }
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function fillWatchlist(sql: postgres.Sql, userId: string): Promise<void> {
  await sql`
    insert into public.domains (name, status, last_checked_at, registrar, next_check_at)
    select format('bench-%s.com', lpad(i::text, 6, '0')),
           case when i % 7 = 0 then 'available' else 'registered' end,
           now() - interval '1 hour', 'Example Registrar', now() + interval '1 year'
      from generate_series(1, ${watchlistSize}) as i`;
  await sql`
    insert into public.watchlist_entries (user_id, domain_name)
    select ${userId}, format('bench-%s.com', lpad(i::text, 6, '0')) from generate_series(1, ${watchlistSize}) as i`;
  // As autovacuum leaves an insert-only table: every page marked all-visible, so that index-only scans (the
  // offset skip) need no heap visits. A vacuum that runs while another transaction is still open (the
  // cluster's cron jobs) cannot mark them yet, so it is repeated until it could.
  for (let attempt = 1; attempt <= 20; attempt++) {
    await sql`vacuum analyze public.domains, public.watchlist_entries`;
    const [pages] = await sql<{ all_visible: boolean }[]>`
      select bool_and(relallvisible >= relpages) as all_visible from pg_class
       where oid in ('public.domains'::regclass, 'public.watchlist_entries'::regclass)`;
    if (pages.all_visible) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  console.warn("  (the tables are not all-visible after 20 vacuums; index-only scans will visit the heap)");
}

/** Median latency of each URL, sampled round-robin so that changing load on the machine hits all alike. */
async function latenciesMs(urls: string[], headers: Record<string, string>, samples = 40): Promise<number[]> {
  const times: number[][] = urls.map(() => []);
  for (let i = 0; i < samples + 5; i++) {
    for (const [index, url] of urls.entries()) {
      const started = performance.now();
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      if (i >= 5) times[index].push(performance.now() - started);
    }
  }
  return times.map(median);
}

async function main(): Promise<void> {
  const wrk = await ensureWrk();
  const baseDir = await Deno.makeTempDir({ prefix: "watchlist-bench-db-" });
  const cluster = clusterAt(baseDir, freePort());
  const servers: Server[] = [];
  let sql: postgres.Sql | undefined;
  try {
    console.log(`▶ PostgreSQL throwaway cluster on 127.0.0.1:${cluster.port}`);
    await prepareDatabase(cluster);
    sql = postgres.connect(cluster.url, { max: 2, onnotice: () => {} });
    const owner = await createAccount(sql, "bench-enterprise@example.test", "enterprise");
    const adder = await createAccount(sql, "bench-business@example.test", "business");
    // The batch-add latency: the API adds for one account, the bare statement for another, each 500 new names.
    const batchAdder = await createAccount(sql, "bench-batch@example.test", "business");
    const bareAdder = await createAccount(sql, "bench-bare@example.test", "business");
    console.log(`▶ Filling ${watchlistSize.toLocaleString("en-US")} names`);
    await fillWatchlist(sql, owner.user_id);

    const raw = await startServer("raw_server.ts", {
      BENCH_DB_URL: cluster.url,
      BENCH_USER_ID: owner.user_id,
      BENCH_INSERT_USER_ID: bareAdder.user_id,
    });
    servers.push(raw);
    // The OAuth case: an access token as Supabase Auth's OAuth server issues it (ES256, client_id), verified
    // by the API against this key set, as it would be against the project's JWKS.
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256" }] });
    const authBaseUrl = "http://auth.bench.test";
    const accessToken = await new SignJWT({
      sub: owner.user_id,
      role: "authenticated",
      aud: "authenticated",
      client_id: crypto.randomUUID(),
    }).setProtectedHeader({ alg: "ES256", kid: "bench", typ: "JWT" }).setIssuer(`${authBaseUrl}/auth/v1`)
      .setIssuedAt().setExpirationTime("2h").sign(privateKey);
    const api = await startServer("api_server.ts", {
      SUPABASE_DB_URL: cluster.url,
      SUPABASE_JWKS: jwks,
      AUTH_BASE_URL: authBaseUrl,
    });
    servers.push(api);
    const key = { "x-api-key": owner.api_key! };
    const apiBase = `http://127.0.0.1:${api.port}/api-v1`;
    const rawBase = `http://127.0.0.1:${raw.port}`;
    const mcpBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_watchlist", arguments: { limit: 200 } },
    });
    const mcpHeaders = {
      ...key,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
    const { "x-api-key": _key, ...withoutKey } = mcpHeaders;
    const mcpOAuthHeaders = { ...withoutKey, Authorization: `Bearer ${accessToken}` };
    for (const headers of [mcpHeaders, mcpOAuthHeaders]) {
      const mcpCheck = await fetch(`${apiBase}/mcp`, { method: "POST", headers, body: mcpBody });
      const mcpResult = await mcpCheck.json();
      if (mcpResult.result?.structuredContent?.domains?.length !== 200) {
        throw new Error(
          `MCP list_watchlist did not return 200 rows: ${JSON.stringify(mcpResult).slice(0, 300)}`,
        );
      }
    }

    // The last full page of the keyset: a cursor 200 names before the end.
    const [endCursor] = await sql<{ domain_name: string }[]>`
      select domain_name from public.watchlist_entries where user_id = ${owner.user_id}
      order by domain_name collate "C" offset ${watchlistSize - 201} limit 1`;
    const cursorQuery = `limit=200&cursor=${encodeURIComponent(endCursor.domain_name)}`;
    // Each compared pair sits side by side, and every other round runs in reverse order (A B … B A), so
    // that a machine whose speed drifts during a round favours neither side.
    const mcpSpec = (headers: Record<string, string>): LoadSpec => ({
      url: `${apiBase}/mcp`,
      headers,
      body: mcpBody,
      connections,
      seconds,
    });
    const cases: Record<string, LoadSpec> = {
      "raw limit=1": { url: `${rawBase}/domains?limit=1`, connections, seconds },
      "api limit=1": { url: `${apiBase}/domains?limit=1`, headers: key, connections, seconds },
      "raw cursor end": { url: `${rawBase}/domains?${cursorQuery}`, connections, seconds },
      "api cursor end": { url: `${apiBase}/domains?${cursorQuery}`, headers: key, connections, seconds },
      "raw limit=200": { url: `${rawBase}/domains?limit=200`, connections, seconds },
      "mcp list_watchlist limit=200": mcpSpec(mcpHeaders),
      "api limit=200": { url: `${apiBase}/domains?limit=200`, headers: key, connections, seconds },
      "mcp oauth list_watchlist limit=200": mcpSpec(mcpOAuthHeaders),
    };
    if (onlyCases) {
      for (const name of Object.keys(cases)) if (!onlyCases.includes(name)) delete cases[name];
    }
    let apiRequests = 0;
    const memory: { afterRequests: number; rss: number }[] = [];
    const sampleMemory = async () =>
      memory.push({ afterRequests: apiRequests, ...(await memoryOf(api.pid)) });

    console.log("▶ Warm-up");
    for (const [name, spec] of Object.entries(cases)) {
      const result = await runWrk(wrk, { ...spec, seconds: 2 });
      if (!name.startsWith("raw")) apiRequests += result.requests;
    }
    await sampleMemory();

    const results: Record<string, LoadResult[]> = Object.fromEntries(
      Object.keys(cases).map((name) => [name, []]),
    );
    // CPU time of the serving process per request: less sensitive to other load on the machine.
    const cpuPerRequest: Record<string, number[]> = Object.fromEntries(
      Object.keys(cases).map((name) => [name, []]),
    );
    // CPU time of PostgreSQL per request (the backends serving it): the other half of where the time goes.
    const pgCpuPerRequest: Record<string, number[]> = Object.fromEntries(
      Object.keys(cases).map((name) => [name, []]),
    );
    for (let round = 1; round <= rounds; round++) {
      const order = Object.entries(cases);
      if (round % 2 === 0) order.reverse();
      for (const [name, spec] of order) {
        const server = name.startsWith("raw") ? raw : api;
        const cpuBefore = await cpuMsOf(server.pid);
        const pgCpuBefore = await clusterCpuMs(cluster.dataDir);
        const result = await runWrk(wrk, spec);
        if (result.failed > 0) throw new Error(`${name}: ${result.failed} responses were not 2xx`);
        results[name].push(result);
        cpuPerRequest[name].push((await cpuMsOf(server.pid) - cpuBefore) / result.requests);
        pgCpuPerRequest[name].push((await clusterCpuMs(cluster.dataDir) - pgCpuBefore) / result.requests);
        if (!name.startsWith("raw")) apiRequests += result.requests;
        console.log(
          `  round ${round} ${name.padEnd(30)} ${
            perSecond(result.requestsPerSecond).padStart(12)
          }  CPU per request: ${ms(cpuPerRequest[name][round - 1])} server, ${
            ms(pgCpuPerRequest[name][round - 1])
          } PostgreSQL`,
        );
      }
      await sampleMemory();
    }
    const rate = (name: string) => median(results[name].map((result) => result.requestsPerSecond));
    // A ratio is the median of the rounds' own ratios: each round's two runs were side by side.
    const ratio = (name: string, reference: string) =>
      median(
        results[name].map((result, round) =>
          result.requestsPerSecond / results[reference][round].requestsPerSecond
        ),
      );
    if (onlyCases) {
      console.log("\nRate and CPU per request (median): serving process, PostgreSQL");
      for (const name of Object.keys(cases)) {
        console.log(
          `  ${name.padEnd(36)} ${perSecond(rate(name)).padStart(12)}  ${ms(median(cpuPerRequest[name]))}, ${
            ms(median(pgCpuPerRequest[name]))
          }`,
        );
      }
      for (
        const [name, reference] of [
          ["api limit=1", "raw limit=1"],
          ["api limit=200", "raw limit=200"],
          ["api cursor end", "raw cursor end"],
          ["mcp list_watchlist limit=200", "api limit=200"],
          ["mcp oauth list_watchlist limit=200", "api limit=200"],
        ]
      ) {
        if (cases[name] && cases[reference]) {
          console.log(`  ${name} / ${reference}: ${ratio(name, reference).toFixed(2)} (median of rounds)`);
        }
      }
      return;
    }

    console.log("▶ Paging latency (one client, median of 40)");
    const names = await sql<{ domain_name: string }[]>`
      select domain_name from public.watchlist_entries where user_id = ${owner.user_id}
      order by domain_name collate "C" offset ${watchlistSize - 201} limit 1`;
    const nearEnd = watchlistSize - 200;
    const [firstPage, cursorPage, offsetPage] = await latenciesMs([
      `${apiBase}/domains?limit=200`,
      `${apiBase}/domains?limit=200&cursor=${encodeURIComponent(names[0].domain_name)}`,
      `${apiBase}/domains?limit=200&offset=${nearEnd}`,
    ], key);
    apiRequests += 3 * 45;

    console.log(
      "▶ POST /domains of 500 new names vs the bare insert … on conflict (one client, alternating)",
    );
    const batchLatency = { api: [] as number[], bare: [] as number[] };
    const batchRounds = 15;
    for (let i = 0; i < batchRounds + 2; i++) {
      const names = (prefix: string) =>
        JSON.stringify({ domains: Array.from({ length: 500 }, (_, n) => `${prefix}-${i}-${n}.com`) });
      const timed = async (url: string, headers: Record<string, string>, body: string) => {
        const started = performance.now();
        const response = await fetch(url, { method: "POST", headers, body });
        const result = await response.json();
        if (result.added !== 500) throw new Error(`${url}: ${JSON.stringify(result).slice(0, 300)}`);
        return performance.now() - started;
      };
      const apiMs = await timed(
        `${apiBase}/domains`,
        { "x-api-key": batchAdder.api_key!, "Content-Type": "application/json" },
        names("batch"),
      );
      const bareMs = await timed(
        `${rawBase}/bare-insert`,
        { "Content-Type": "application/json" },
        names("bare"),
      );
      // The first two rounds warm both up.
      if (i >= 2) {
        batchLatency.api.push(apiMs);
        batchLatency.bare.push(bareMs);
      }
    }
    const batchApi = median(batchLatency.api);
    const batchBare = median(batchLatency.bare);

    console.log("▶ POST /domains round trips (API through a counting proxy, pool of one connection)");
    const proxy = startRoundTripProxy({ hostname: "127.0.0.1", port: cluster.port });
    const counted = await startServer("api_server.ts", {
      SUPABASE_DB_URL: cluster.url.replace(`:${cluster.port}/`, `:${proxy.port}/`),
      DB_POOL_SIZE: "1",
    });
    servers.push(counted);
    const adderKey = { "x-api-key": adder.api_key!, "Content-Type": "application/json" };
    const countedBase = `http://127.0.0.1:${counted.port}/api-v1`;
    const roundTrips: Record<string, number> = {};
    let batchNumber = 0;
    for (const size of [1, 100, 500]) {
      batchNumber++;
      await (await fetch(`${countedBase}/domains?limit=1`, { headers: adderKey })).arrayBuffer();
      const domains = Array.from({ length: size }, (_, i) => `new-${batchNumber}-${i}.com`);
      const before = proxy.roundTrips();
      const response = await fetch(`${countedBase}/domains`, {
        method: "POST",
        headers: adderKey,
        body: JSON.stringify({ domains }),
      });
      const body = await response.json();
      if (body.added !== size) {
        throw new Error(`POST of ${size} names: ${JSON.stringify(body).slice(0, 300)}`);
      }
      roundTrips[size] = proxy.roundTrips() - before;
    }
    proxy.close();

    console.log("▶ Memory: topping the API up to 100,000 requests");
    while (apiRequests < memoryRequests) {
      const result = await runWrk(wrk, { ...cases["api limit=1"], seconds: 15 });
      apiRequests += result.requests;
      await sampleMemory();
    }
    const { peak } = await memoryOf(api.pid);
    // Flat: the highest RSS of the second half of the requests is within 10% of the first half's.
    const half = apiRequests / 2;
    const firstHalf = Math.max(...memory.filter((sample) => sample.afterRequests <= half).map((s) => s.rss));
    const secondHalf = Math.max(...memory.filter((sample) => sample.afterRequests > half).map((s) => s.rss));
    const lastRss = memory[memory.length - 1].rss;

    const table: Measurement[] = [
      atMost(
        "POST /domains, 500 new names: API vs bare insert … on conflict (median latency)",
        `${ms(batchApi)} vs ${ms(batchBare)}`,
        batchApi / batchBare,
        1.5,
      ),
      atLeast(
        "GET /domains?limit=200: API vs raw ceiling",
        `${perSecond(rate("api limit=200"))} vs ${perSecond(rate("raw limit=200"))}`,
        ratio("api limit=200", "raw limit=200"),
        0.9,
      ),
      atLeast(
        "GET /domains?limit=1: API vs raw ceiling",
        `${perSecond(rate("api limit=1"))} vs ${perSecond(rate("raw limit=1"))}`,
        ratio("api limit=1", "raw limit=1"),
        0.7,
      ),
      atLeast(
        "GET /domains cursor page at the end (limit=200): API vs raw ceiling",
        `${perSecond(rate("api cursor end"))} vs ${perSecond(rate("raw cursor end"))}`,
        ratio("api cursor end", "raw cursor end"),
        0.8,
      ),
      atMost(
        "cursor page near the end vs first page (limit=200)",
        `${ms(cursorPage)} vs ${ms(firstPage)}`,
        cursorPage / firstPage,
        1.5,
      ),
      atMost(
        `offset=${nearEnd} page vs first page (limit=200)`,
        `${ms(offsetPage)} vs ${ms(firstPage)}`,
        offsetPage / firstPage,
        5,
      ),
      atLeast(
        "MCP tools/call list_watchlist vs REST (limit=200), API key",
        `${perSecond(rate("mcp list_watchlist limit=200"))} vs ${perSecond(rate("api limit=200"))}`,
        ratio("mcp list_watchlist limit=200", "api limit=200"),
        0.95,
      ),
      atLeast(
        "MCP tools/call list_watchlist vs REST (limit=200), OAuth token",
        `${perSecond(rate("mcp oauth list_watchlist limit=200"))} vs ${perSecond(rate("api limit=200"))}`,
        ratio("mcp oauth list_watchlist limit=200", "api limit=200"),
        0.95,
      ),
      check(
        "POST /domains round trips to PostgreSQL for 1 / 100 / 500 new names",
        `${roundTrips[1]} / ${roundTrips[100]} / ${roundTrips[500]}`,
        "constant",
        roundTrips[1] === roundTrips[100] && roundTrips[100] === roundTrips[500],
      ),
      check(
        `API process memory across ${apiRequests.toLocaleString("en-US")} requests`,
        `highest RSS ${mib(firstHalf)} in the first half, ${mib(secondHalf)} in the second; ${
          mib(lastRss)
        } at the end; peak ${mib(peak)}`,
        "flat (2nd half ≤ 1.1× 1st)",
        secondHalf <= firstHalf * 1.1,
      ),
    ];
    const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown";
    const machine = `${navigator.hardwareConcurrency} cores, ${cpu}; load average ${
      Deno.loadavg().map((n) => n.toFixed(2)).join(" ")
    } at the end`;
    console.log("\nCPU per request (median): serving process, PostgreSQL");
    for (const [name, values] of Object.entries(cpuPerRequest)) {
      console.log(`  ${name.padEnd(30)} ${ms(median(values))}, ${ms(median(pgCpuPerRequest[name]))}`);
    }
    console.log(
      `\n${
        formatTable(table)
      }\n\n${machine}; wrk ${connections} connections, ${rounds} rounds of ${seconds} s, medians`,
    );
    await Deno.writeTextFile(
      join(repoRoot, "bench", "results.json"),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine,
          settings: { connections, seconds, rounds, watchlistSize },
          table,
          throughput: results,
          serverCpuMsPerRequest: Object.fromEntries(
            Object.entries(cpuPerRequest).map(([name, values]) => [name, median(values)]),
          ),
          postgresCpuMsPerRequest: Object.fromEntries(
            Object.entries(pgCpuPerRequest).map(([name, values]) => [name, median(values)]),
          ),
          latencyMs: { firstPage, cursorPage, offsetPage, batchApi, batchBare },
          postRoundTrips: roundTrips,
          memory: { samples: memory, peak },
        },
        null,
        2,
      ) + "\n",
    );
    console.log("Written to bench/results.json");
  } finally {
    for (const server of servers) await server.stop();
    await sql?.end({ timeout: 2 });
    await stopCluster(cluster).catch(() => {});
    await Deno.remove(baseDir, { recursive: true }).catch(() => {});
  }
}

await main();
