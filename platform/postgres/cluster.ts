/**
 * A PostgreSQL 15 cluster from Debian's packages, with pg_cron preloaded: installed when missing,
 * started and stopped with pg_ctl. As on hosted Supabase, the cluster's superuser is `supabase_admin`
 * (it runs only the local bootstrap, i.e. what Supabase itself provides) and `postgres` is an ordinary
 * role (NOSUPERUSER, BYPASSRLS, member of anon, authenticated and service_role) that applies the
 * migrations and that SUPABASE_DB_URL connects as. Used by `deno task start` (a persistent
 * cluster in .local/) and `deno task test` (a throwaway cluster on a free port).
 *
 * TLS is on, as on hosted: a local certificate authority (`<base>/tls/ca.crt`, made once with openssl) signs
 * the server's certificate for 127.0.0.1 and localhost. `tlsUrl` says `sslmode=require`; on Deno 2.1 the
 * certificate is then verified as well (edge-runtime's node:tls always verifies), so a client gives
 * `caFile` as DB_SSL_ROOT_CERT.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { run } from "../run.ts";
import { issueServerCertificate, makeCertificateAuthority } from "./tls.ts";

const pgBin = "/usr/lib/postgresql/15/bin";
const requiredFiles = [
  join(pgBin, "postgres"),
  "/usr/lib/postgresql/15/lib/pg_cron.so",
  "/usr/share/postgresql/15/extension/pgtap.control",
  "/usr/bin/pg_prove",
];
const packages = [
  "postgresql-15",
  "postgresql-15-cron",
  "postgresql-15-pgtap",
  "libtap-parser-sourcehandler-pgtap-perl", // pg_prove, as `supabase test db` runs it
];

export interface Cluster {
  dataDir: string;
  port: number;
  socketDir: string;
  /** As `postgres` (not a superuser), like SUPABASE_DB_URL on Supabase. */
  url: string;
  /** As `postgres` over TLS (`sslmode=require`): what the supabase CLI and the local stack use. */
  tlsUrl: string;
  /** The local certificate authority that signed the server's certificate (PEM). */
  caFile: string;
  /** As the superuser `supabase_admin`: only for the local bootstrap. */
  adminUrl: string;
}

/** The superuser Supabase keeps for itself; the project's own role `postgres` is not one. */
export const superuser = "supabase_admin";

/** Installs the Debian packages the local stack needs, only when something is missing. */
export async function ensurePostgresPackages(): Promise<void> {
  if (requiredFiles.every((file) => existsSync(file))) return;
  console.log(`Installing ${packages.join(", ")} with apt-get (first run only)…`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], { env, quiet: true });
  await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], {
    env,
    quiet: true,
  });
  // Debian's package creates and starts a default cluster on 5432; the project does not use it.
  await run("pg_dropcluster", ["--stop", "15", "main"], { quiet: true }).catch(() => {});
}

function asPostgres(args: string[]): Promise<string> {
  return run("runuser", ["-u", "postgres", "--", ...args], { quiet: true });
}

export function clusterAt(baseDir: string, port: number): Cluster {
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    dataDir: join(baseDir, "data"),
    socketDir: join(baseDir, "run"),
    port,
    url,
    tlsUrl: `${url}?sslmode=require`,
    caFile: join(baseDir, "tls", "ca.crt"),
    adminUrl: `postgresql://${superuser}@127.0.0.1:${port}/postgres`,
  };
}

/** Creates the cluster when its data folder does not exist yet. Returns true when it was created. */
export async function ensureCluster(cluster: Cluster): Promise<boolean> {
  if (existsSync(join(cluster.dataDir, "PG_VERSION"))) return false;
  const baseDir = join(cluster.dataDir, "..");
  await Deno.mkdir(cluster.socketDir, { recursive: true });
  await run("chown", ["-R", "postgres:postgres", baseDir]);
  await asPostgres([
    join(pgBin, "initdb"),
    "-D",
    cluster.dataDir,
    "-U",
    superuser,
    "--auth=trust",
    "--encoding=UTF8",
    "--locale=C.UTF-8",
  ]);
  const settings = [
    "listen_addresses = '127.0.0.1'",
    `port = ${cluster.port}`,
    `unix_socket_directories = '${cluster.socketDir}'`,
    "shared_preload_libraries = 'pg_stat_statements, pg_cron'", // as on hosted
    "cron.database_name = 'postgres'",
    "cron.timezone = 'UTC'",
    "timezone = 'UTC'",
    "max_connections = 300",
    "fsync = off",
    "synchronous_commit = off",
  ];
  await Deno.writeTextFile(join(cluster.dataDir, "postgresql.conf"), `\n${settings.join("\n")}\n`, {
    append: true,
  });
  return true;
}

export async function isRunning(cluster: Cluster): Promise<boolean> {
  try {
    await asPostgres([join(pgBin, "pg_ctl"), "-D", cluster.dataDir, "status"]);
    return true;
  } catch {
    return false;
  }
}

/** The file names the server's certificate and key get in the data folder (PostgreSQL's defaults). */
const serverCertificate = "server.crt";
const serverKey = "server.key";

/**
 * Makes the local certificate authority and a server certificate it signs (127.0.0.1, localhost), and turns
 * TLS on, once per cluster (clusters made before TLS get it at their next start). Plain connections stay
 * allowed, as on hosted, where TLS is what the clients ask for.
 */
export async function ensureTls(cluster: Cluster): Promise<void> {
  const certFile = join(cluster.dataDir, serverCertificate);
  if (!existsSync(join(cluster.dataDir, "PG_VERSION"))) return;
  if (existsSync(certFile) && existsSync(cluster.caFile)) return;
  const authority = await makeCertificateAuthority(join(cluster.caFile, ".."));
  await issueServerCertificate(authority, { certFile, keyFile: join(cluster.dataDir, serverKey) });
  await Deno.writeTextFile(join(cluster.dataDir, "postgresql.conf"), "\nssl = on\n", { append: true });
  await run("chown", ["-R", "postgres:postgres", join(cluster.dataDir, "..")]);
  if (await isRunning(cluster)) await asPostgres([join(pgBin, "pg_ctl"), "-D", cluster.dataDir, "reload"]);
}

export async function startCluster(cluster: Cluster): Promise<void> {
  await ensureTls(cluster);
  if (await isRunning(cluster)) return;
  await run("chown", ["-R", "postgres:postgres", join(cluster.dataDir, "..")]);
  await asPostgres([
    join(pgBin, "pg_ctl"),
    "-D",
    cluster.dataDir,
    "-l",
    join(cluster.dataDir, "..", "postgres.log"),
    "-o",
    `-p ${cluster.port}`,
    "-w",
    "-t",
    "60",
    "start",
  ]);
}

export async function stopCluster(cluster: Cluster): Promise<void> {
  if (!(await isRunning(cluster))) return;
  await asPostgres([join(pgBin, "pg_ctl"), "-D", cluster.dataDir, "-m", "fast", "-w", "stop"]);
}

/**
 * Runs a SQL file (or inline SQL) through psql, stopping at the first error: as `postgres` (what
 * migrations, seed and tests get on Supabase), or with `asSuperuser` as `supabase_admin` (the bootstrap).
 */
export function psql(
  cluster: Cluster,
  source: { file: string } | { sql: string },
  options: { asSuperuser?: boolean } = {},
): Promise<string> {
  const target = "file" in source ? ["-f", source.file] : ["-c", source.sql];
  return run(join(pgBin, "psql"), [
    "-X",
    "-q",
    "-v",
    "ON_ERROR_STOP=1",
    "-d",
    options.asSuperuser ? cluster.adminUrl : cluster.url,
    ...target,
  ], { quiet: true });
}

/** An unused TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
