/**
 * Shutdown: Ctrl-C (SIGINT) on `deno task start` during a poller run stops the whole stack within 5 s and
 * leaves nothing listening. The stack runs as its own process on free ports with its own state folder
 * (START_GATEWAY_PORT, START_DB_PORT, START_STATE_DIR), never on the fixed 54321/54322. The poller run is
 * kept in flight by an RDAP bootstrap server that never answers.
 */
import { join } from "node:path";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount, createAccount } from "../../scripts/lib/accounts.ts";
import { repoRoot } from "../../platform/paths.ts";
import { freePort, isRunning } from "../../platform/postgres/cluster.ts";
import { clusterAt, stopCluster } from "../../platform/postgres/cluster.ts";
import { localPollerSecret, localPublishableKey, localSecretKey } from "../../platform/secrets.ts";
import { assert } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** Environment for the child: ours without what would point it at the test suite's own database. */
function childEnvironment(extra: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) {
    if (name.startsWith("SUPABASE_") || name.startsWith("DB_") || name === "AUTH_BASE_URL") delete env[name];
  }
  return { ...env, ...extra, NO_COLOR: "1" };
}

async function refusesConnections(port: number): Promise<boolean> {
  try {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    connection.close();
    return false;
  } catch {
    return true;
  }
}

Deno.test("Ctrl-C during a poller run stops the stack within 5 s", options, async () => {
  const stateDir = await Deno.makeTempDir({ prefix: "watchlist-start-" });
  // The cluster lives in <stateDir>/postgres, owned by user postgres, who must be able to reach it.
  await Deno.chmod(stateDir, 0o755);
  const gatewayPort = freePort();
  const databasePort = freePort();
  const mailboxPort = freePort();
  const appPort = freePort();
  const cluster = clusterAt(join(stateDir, "postgres"), databasePort);
  let bootstrapAsked = false;
  const hanging = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    bootstrapAsked = true;
    return new Promise<Response>((resolve) => {
      request.signal.addEventListener("abort", () => resolve(new Response(null, { status: 499 })));
    });
  });
  const dns = await startFakeDns();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/start.ts"],
    cwd: repoRoot,
    clearEnv: true,
    env: childEnvironment({
      START_GATEWAY_PORT: String(gatewayPort),
      START_DB_PORT: String(databasePort),
      START_MAILBOX_PORT: String(mailboxPort),
      START_APP_PORT: String(appPort),
      START_STATE_DIR: stateDir,
      RDAP_BOOTSTRAP_URL: `http://127.0.0.1:${hanging.addr.port}/dns.json`,
      RDAP_TIMEOUT_MS: "60000",
      POLLER_TIME_BUDGET_MS: "60000",
      DNS_NAMESERVER: dns.address,
    }),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let output = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) output += decoder.decode(chunk, { stream: true });
  })();
  let exited = false;
  const status = child.status.then((value) => {
    exited = true;
    return value;
  });
  try {
    const readyBy = Date.now() + 180_000;
    while (!output.includes("Press Ctrl-C to stop.")) {
      assert(!exited, `start.ts exited early:\n${output}`);
      assert(Date.now() < readyBy, `start.ts was not ready in time:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // What a client needs, printed as `supabase start` prints it (decisions.md); a sign-up with the
    // publishable key works (README's quickstart) and the mailbox answers Mailpit's API.
    const lines = output.split("\n");
    for (
      const expected of [
        `API URL: http://127.0.0.1:${gatewayPort}`,
        `Publishable key: ${localPublishableKey}`,
        `Secret key: ${localSecretKey}`,
        `App URL: http://localhost:${appPort}`,
        `Mailbox: http://127.0.0.1:${mailboxPort}`,
      ]
    ) assert(lines.includes(expected), `start.ts did not print ${expected}:\n${output}`);
    // The app is served there, pointed at this stack.
    const appConfig = await (await fetch(`http://localhost:${appPort}/config.json`)).json();
    assert(appConfig.supabaseUrl === `http://127.0.0.1:${gatewayPort}`, JSON.stringify(appConfig));
    const signedUp = await fetch(`http://127.0.0.1:${gatewayPort}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: localPublishableKey, "content-type": "application/json" },
      body: JSON.stringify({
        email: `quickstart-${crypto.randomUUID().slice(0, 8)}@example.test`,
        password: "a-password-1",
      }),
    });
    const signUpAnswer = await signedUp.text();
    assert(signedUp.status === 200 && JSON.parse(signUpAnswer).access_token, `sign-up: ${signUpAnswer}`);
    const mails = await fetch(`http://127.0.0.1:${mailboxPort}/api/v1/messages`);
    assert(mails.status === 200 && typeof (await mails.json()).total === "number", "the mailbox answers");

    // One watched name, due now; a poller run then waits on the bootstrap server.
    const sql = postgres.connect(cluster.url, { max: 1 });
    try {
      const account = await createAccount(
        sql,
        `ctrl-c-${crypto.randomUUID().slice(0, 8)}@example.test`,
        "pro",
      );
      await asAccount(
        sql,
        account.user_id,
        (tx) => tx`select * from public.add_watchlist_domains(${["ctrl-c-test.com"]})`,
      );
      await sql`update public.domains set next_check_at = now() - interval '1 minute', lease_until = null
                where name = 'ctrl-c-test.com'`;
    } finally {
      await sql.end({ timeout: 1 });
    }
    const run = fetch(`http://127.0.0.1:${gatewayPort}/functions/v1/rdap-poller`, {
      method: "POST",
      headers: { authorization: `Bearer ${localPollerSecret}` },
    }).then((response) => response.body?.cancel(), () => {});
    const askedBy = Date.now() + 20_000;
    while (!bootstrapAsked) {
      assert(Date.now() < askedBy, "the poller run never reached the registry");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const pressedAt = Date.now();
    child.kill("SIGINT");
    const result = await Promise.race([
      status,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
    ]);
    const tookMs = Date.now() - pressedAt;
    console.log(`stopped in ${tookMs} ms (exit ${result?.code})`);
    assert(result !== null, "the stack was still running 10 s after Ctrl-C");
    assert(tookMs <= 5_000, `stopping took ${tookMs} ms`);
    assert(result.code === 0, `start.ts exited with ${result.code}:\n${output}`);
    await run;
    assert(await refusesConnections(gatewayPort), "the gateway still listens");
    assert(await refusesConnections(databasePort), "PostgreSQL still listens");
    assert(!(await isRunning(cluster)), "PostgreSQL is still running");
  } finally {
    if (!exited) child.kill("SIGKILL");
    await status;
    await reading.catch(() => {});
    await stopCluster(cluster).catch(() => {});
    await hanging.shutdown();
    await dns.close();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
});
