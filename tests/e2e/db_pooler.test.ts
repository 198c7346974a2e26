/**
 * The functions behind a transaction-mode pooler (DB_POOLER_URL), over TLS as on hosted. PgBouncer in
 * `pool_mode = transaction` with two server connections stands in for Supavisor: every request's
 * transaction may land on a server connection another account used just before, so any session state
 * that leaked (role, JWT claims, statement_timeout, a named prepared statement) would show here. It accepts
 * TLS clients only (a certificate from a throwaway local CA) and reaches PostgreSQL over TLS; the functions
 * connect with `sslmode=require` and the CA in DB_SSL_ROOT_CERT, on Deno 2.1, which verifies it.
 * PgBouncer is installed with apt-get when missing, like PostgreSQL itself (platform/postgres/cluster.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { freePort } from "../../platform/postgres/cluster.ts";
import { run } from "../../platform/run.ts";
import { issueServerCertificate, makeCertificateAuthority } from "../../platform/postgres/tls.ts";
import { sessionToken } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { setEnvironment } from "../support/outage.ts";
import { databaseUrl, startStack } from "../support/stack.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const pgbouncerBin = "/usr/sbin/pgbouncer";

async function ensurePgbouncer(): Promise<void> {
  if (existsSync(pgbouncerBin)) return;
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], { env, quiet: true });
  await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "pgbouncer"], {
    env,
    quiet: true,
  });
}

interface Pooler {
  /** With `sslmode=require`. */
  url: string;
  /** The authority that signed the pooler's certificate (PEM). */
  caCertificate: string;
  close(): Promise<void>;
}

/** PgBouncer in transaction mode in front of `upstream`, two server connections at most, TLS both ways. */
async function startPooler(upstream: string): Promise<Pooler> {
  await ensurePgbouncer();
  const target = new URL(upstream);
  const dir = await Deno.makeTempDir({ prefix: "watchlist-pgbouncer-" });
  await Deno.chmod(dir, 0o777);
  const authority = await makeCertificateAuthority(join(dir, "ca"));
  const certificate = await issueServerCertificate(authority, {
    certFile: join(dir, "pooler.crt"),
    keyFile: join(dir, "pooler.key"),
  });
  await run("chown", ["-R", "postgres:postgres", dir]);
  const port = freePort();
  await Deno.writeTextFile(
    join(dir, "pgbouncer.ini"),
    `[databases]
postgres = host=${target.hostname} port=${target.port} dbname=postgres user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 2
max_client_conn = 200
ignore_startup_parameters = extra_float_digits,options
pidfile = ${dir}/pgbouncer.pid
client_tls_sslmode = require
client_tls_cert_file = ${certificate.certFile}
client_tls_key_file = ${certificate.keyFile}
server_tls_sslmode = require
`,
  );
  // PgBouncer refuses to run as root.
  const child = new Deno.Command("runuser", {
    args: ["-u", "postgres", "--", pgbouncerBin, join(dir, "pgbouncer.ini")],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=require`;
  const readyBy = Date.now() + 15_000;
  for (;;) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      break;
    } catch {
      if (Date.now() > readyBy) throw new Error("PgBouncer did not start");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    caCertificate: await Deno.readTextFile(authority.caFile),
    async close() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.stderr.cancel().catch(() => {});
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

Deno.test(
  "every function is correct behind a transaction-mode pooler over TLS (DB_POOLER_URL)",
  options,
  async () => {
    const pooler = await startPooler(databaseUrl());
    const dns = await startFakeDns();
    const rdap = await startFakeRdap({ tlds: ["com"] });
    const restoreEnvironment = setEnvironment({
      DB_POOLER_URL: pooler.url,
      DB_SSL_ROOT_CERT: pooler.caCertificate,
      DB_POOL_SIZE: "6",
      RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
      DNS_NAMESERVER: dns.address,
    });
    const stack = await startStack();
    try {
      await setRdapHostLimit(stack.sql, rdap.url, 50);
      const alice = await stack.account("pro");
      const bob = await stack.account("pro");
      const api = (key: string, path: string, init: RequestInit = {}) =>
        fetch(`${stack.apiBase}${path}`, {
          ...init,
          headers: { "x-api-key": key, "content-type": "application/json", ...init.headers },
        });
      const tag = crypto.randomUUID().slice(0, 6);
      const mine = (who: string, n: number) => Array.from({ length: n }, (_, i) => `${who}-${tag}-${i}.com`);

      // Both accounts at once, many transactions over two server connections.
      const adds = await Promise.all([
        ...mine("alice", 6).map((name) =>
          api(alice.api_key!, "/domains", { method: "POST", body: JSON.stringify({ domains: [name] }) })
        ),
        ...mine("bob", 6).map((name) =>
          api(bob.api_key!, "/domains", { method: "POST", body: JSON.stringify({ domains: [name] }) })
        ),
      ]);
      for (const response of adds) assertEquals(response.status, 200, await response.text());

      const lists = await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) => api(i % 2 === 0 ? alice.api_key! : bob.api_key!, "/domains?limit=200"),
        ),
      );
      for (const [i, response] of lists.entries()) {
        const body = await response.json();
        assertEquals(response.status, 200, JSON.stringify(body));
        const who = i % 2 === 0 ? "alice" : "bob";
        const names = (body.domains as { domain_name: string }[]).map((domain) => domain.domain_name);
        assertEquals(names, mine(who, 6).sort(), `${who} sees exactly her own names`);
      }

      const removed = await api(alice.api_key!, `/domains/${mine("alice", 6)[0]}`, { method: "DELETE" });
      assertEquals(removed.status, 200, await removed.text());

      const mcp = await api(alice.api_key!, "/mcp", {
        method: "POST",
        headers: { accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_watchlist", arguments: {} },
        }),
      });
      const mcpBody = await mcp.json();
      assertEquals(mcp.status, 200, JSON.stringify(mcpBody));
      assertEquals(mcpBody.result.structuredContent.domains.length, 5);

      const token = await sessionToken({ id: alice.user_id, email: alice.email }, {
        secret: Deno.env.get("AUTH_JWT_SECRET")!,
        supabaseUrl: Deno.env.get("AUTH_BASE_URL") ?? stack.gateway.url,
      });
      const exported = await fetch(`${stack.functionsBase}/export-account`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      const document = await exported.json();
      assertEquals(exported.status, 200, JSON.stringify(document));
      assert(JSON.stringify(document).includes(mine("alice", 6)[1]));
      assert(!JSON.stringify(document).includes(`bob-${tag}`), "no other account's data");

      const poller = await fetch(`${stack.functionsBase}/rdap-poller`, {
        method: "POST",
        headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}` },
      });
      const summary = await poller.json();
      assertEquals(poller.status, 200, JSON.stringify(summary));
      assertEquals(summary.errors, 0, JSON.stringify(summary));

      // The pooler takes TLS clients only, so every answer above came over TLS; a plain client is refused.
      const plain = postgres.connect(pooler.url.replace("?sslmode=require", ""), { max: 1 });
      const refused = await plain`select 1`.then(() => "", (error) => String(error.message ?? error));
      await plain.end({ timeout: 1 }).catch(() => {});
      assert(refused !== "", "a plain connection to the pooler must be refused");
      // And PgBouncer reached PostgreSQL over TLS (server_tls_sslmode = require): its server connections are
      // the only TLS sessions here (this test's own connection is plain).
      const [upstream] = await stack.sql<{ tls: string }[]>`
      select count(*)::text as tls from pg_stat_ssl where ssl and pid <> pg_backend_pid()`;
      assert(Number(upstream.tls) >= 1, "the pooler's server connections use TLS");

      // Nothing the requests set outlived their transactions on the pooled server connections.
      const probe = postgres.connect(pooler.url, { max: 1, sslRootCert: pooler.caCertificate });
      try {
        for (let i = 0; i < 4; i++) {
          const [row] =
            await probe`select current_user as role, current_setting('statement_timeout') as timeout,
          coalesce(current_setting('request.jwt.claims', true), '') as claims,
          (select count(*) from pg_prepared_statements) as prepared`;
          assertEquals(row, { role: "postgres", timeout: "0", claims: "", prepared: "0" });
        }
      } finally {
        await probe.end();
      }
    } finally {
      await stack.close();
      await pooler.close();
      await Promise.all([dns.close(), rdap.close()]);
      restoreEnvironment();
    }
  },
);
