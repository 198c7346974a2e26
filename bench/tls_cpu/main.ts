/**
 * `deno task bench:tls`: the poller's CPU with real TLS. Three HTTPS registry fakes and a DNS-over-HTTPS
 * fake (self-signed: a throwaway local CA the poller trusts through DENO_CERT), a throwaway cluster whose
 * migrations the supabase CLI applied, and `names` watched names, due now (70 % delegated: DNS alone; the
 * rest asked over RDAP). The real rdap-poller function runs in a Deno 2.1.4 child process with the hosted
 * defaults (POLLER_MAX_CHECKS_PER_RUN, DoH, one connection per pool; pass --per-run to try another cap); each invocation's CPU is
 * measured in that process. The first run pays for the module start and the TLS handshakes of a fresh
 * isolate. Usage: `deno task bench:tls [--names 1200] [--runs 3] [--per-run <checks>]`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { clusterAt, freePort, stopCluster } from "../../platform/postgres/cluster.ts";
import { prepareDatabase } from "../../platform/stack.ts";
import { hostedDenoEnv, hostedDenoPath } from "../../scripts/lib/hosted_deno.ts";
import { issueServerCertificate, makeCertificateAuthority } from "../../platform/postgres/tls.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { repoRoot } from "../../platform/paths.ts";
import { startFakeDns } from "../../tests/fakes/dns_server.ts";
import { type FakeRdap, startFakeRdap } from "../../tests/fakes/rdap_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    names: { type: "string", default: "1200" },
    runs: { type: "string", default: "3" },
    "per-run": { type: "string", default: "" },
  },
});
const names = Number(values.names);
const runs = Number(values.runs);
const tlds = ["tlsa", "tlsb", "tlsc"];
const delegatedShare = 0.7;

const dir = await Deno.makeTempDir({ prefix: "watchlist-bench-tls-" });
await Deno.chmod(dir, 0o755);
const cluster = clusterAt(join(dir, "postgres"), freePort());
const authority = await makeCertificateAuthority(join(dir, "ca"));
const certificate = await issueServerCertificate(authority, {
  certFile: join(dir, "fakes.crt"),
  keyFile: join(dir, "fakes.key"),
});
const tls = {
  cert: await Deno.readTextFile(certificate.certFile),
  key: await Deno.readTextFile(certificate.keyFile),
};

const nameOf = (i: number) => `n${i}.${tlds[i % tlds.length]}`;
const delegated = Object.fromEntries(
  Array.from({ length: names }, (_, i) => i)
    .filter((i) => (i * 7919) % 100 < delegatedShare * 100)
    .map((i) => [nameOf(i), ["a.ns.example.net", "b.ns.example.net"]]),
);
const dns = await startFakeDns({ tls, delegated });
const registries: FakeRdap[] = [];
for (const tld of tlds) {
  const registry = await startFakeRdap({ tls, tlds: [tld] });
  registry.setDomain(`nic.${tld}`, { status: 200 });
  for (let i = 0; i < names; i++) {
    if (nameOf(i).endsWith(`.${tld}`) && !delegated[nameOf(i)]) {
      registry.setDomain(nameOf(i), { status: 200 });
    }
  }
  registries.push(registry);
}
const bootstrap = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...tls },
  () =>
    Response.json({
      description: "bench",
      publication: "2026-01-30T00:00:01Z",
      services: registries.map((registry, i) => [[tlds[i]], [registry.url]]),
      version: "1.0",
    }),
);

try {
  await prepareDatabase(cluster);
  const sql = postgres.connect(cluster.url, { max: 2, onnotice: () => {} });
  for (const registry of registries) await setRdapHostLimit(sql, registry.url, 10_000);
  await sql`insert into auth.users (email, email_confirmed_at) values ('bench-tls@bench.test', now())`;
  const all = Array.from({ length: names }, (_, i) => nameOf(i));
  // After the first registry pass (poller/dns_first.ts): a delegated name's registry is not asked again.
  await sql`insert into public.domains (name, status, last_checked_at, next_check_at, expires_at, registry_asked_at)
            select n, 'registered', now() - interval '7 days', now() - interval '1 hour',
                   now() + interval '200 days', now() - interval '7 days'
              from unnest(${all}::text[]) as n`;
  await sql`insert into public.watchlist_entries (user_id, domain_name)
            select u.id, n from auth.users as u, unnest(${all}::text[]) as n where u.email = 'bench-tls@bench.test'`;
  await sql.end();

  const child = await new Deno.Command(await hostedDenoPath(), {
    args: ["run", "-A", "--lock=deno.lock", "--frozen", "bench/tls_cpu/poller_child.ts", String(runs)],
    cwd: repoRoot,
    env: {
      ...hostedDenoEnv,
      DENO_CERT: authority.caFile,
      SUPABASE_DB_URL: cluster.url,
      RDAP_BOOTSTRAP_URL: `https://127.0.0.1:${bootstrap.addr.port}/dns.json`,
      DNS_DOH_URL: dns.dohUrl,
      DNS_NAMESERVER: "",
      DNS_QUERY_RATE_PER_SECOND: "0",
      DB_POOL_SIZE: "1",
      DB_LIMITER_POOL_SIZE: "1",
      POLLER_TIME_BUDGET_MS: "25000",
      POLLER_MAX_CHECKS_PER_RUN: values["per-run"] ?? "",
    },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const lines = new TextDecoder().decode(child.stdout).trim().split("\n").filter((line) =>
    line.startsWith("{")
  );
  const rdapRequests = registries.reduce((sum, registry) => sum + registry.requests.length, 0);
  console.log(
    `\nbench:tls — ${names} names (${Object.keys(delegated).length} delegated), HTTPS registries ×3, DoH`,
  );
  let totalCpu = 0;
  let totalChecked = 0;
  for (const line of lines) {
    const { run, status, wallMs, cpuMs, summary } = JSON.parse(line);
    const checked = summary.checked ?? 0;
    totalCpu += run > 0 ? cpuMs : 0;
    totalChecked += run > 0 ? checked : 0;
    console.log(
      `  run ${run}: HTTP ${status}, checked ${checked} (${summary.registered_by_dns} by DNS alone), ` +
        `${cpuMs.toFixed(0)} ms CPU, ${
          (cpuMs / Math.max(1, checked)).toFixed(2)
        } ms CPU per check, ${wallMs} ms wall`,
    );
  }
  if (totalChecked > 0) {
    console.log(`  warm runs: ${(totalCpu / totalChecked).toFixed(2)} ms CPU per check`);
  }
  console.log(`  RDAP requests over HTTPS: ${rdapRequests}; DoH queries: ${dns.queries?.length ?? "n/a"}`);
  if (!child.success) throw new Error(`the poller child failed (exit ${child.code})`);
} finally {
  await bootstrap.shutdown();
  await Promise.all([dns.close(), ...registries.map((registry) => registry.close())]);
  await stopCluster(cluster).catch(() => {});
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
