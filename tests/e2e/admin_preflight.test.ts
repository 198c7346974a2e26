/**
 * `deno task admin preflight --db-url <url>` against the test cluster (over TLS, as against a hosted
 * pooler): a complete target passes every check; an incomplete one is told exactly what is missing.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { repoRoot } from "../../platform/paths.ts";
import { freePort } from "../../platform/postgres/cluster.ts";
import { migrationFiles } from "../../platform/postgres/migrate.ts";
import { removePollerVaultSecrets, storePollerVaultSecrets } from "../../platform/postgres/vault.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { tlsDatabaseUrl } from "../support/database.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function preflight(...args: string[]): Promise<{ code: number; lines: string[] }> {
  const result = await new Deno.Command(Deno.env.get("TOOLS_DENO") ?? Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", "preflight", ...args],
    cwd: repoRoot,
    env: { SUPABASE_DB_URL: "", SUPABASE_ACCESS_TOKEN: "", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  return { code: result.code, lines: text.trim().split("\n") };
}

function line(lines: string[], check: string): string {
  return lines.find((text) => text.includes(` ${check}: `)) ?? `(no ${check} line in ${lines.join(" | ")})`;
}

Deno.test("preflight: a complete target passes every check", options, async () => {
  const stack = await startStack();
  const [saved] = await stack.sql<{ count: string }[]>`
    select count(*)::text as count from vault.secrets where name in ('project_url', 'poller_secret')`;
  try {
    await storePollerVaultSecrets(stack.sql, {
      projectUrl: stack.gateway.url,
      pollerSecret: "preflight-secret",
    });
    const { code, lines } = await preflight("--db-url", tlsDatabaseUrl());
    assertEquals(code, 0, lines.join("\n"));
    const files = await migrationFiles();
    assertEquals(line(lines, "migrations"), `ok      migrations: ${files.length} of ${files.length} applied`);
    assert(line(lines, "vault").startsWith("ok "), line(lines, "vault"));
    for (const job of ["rdap-poller", "alert-delivery", "purge-expired-rows", "dwl-prune-request-limits"]) {
      assert(line(lines, "cron").includes(job), line(lines, "cron"));
    }
    assert(line(lines, "functions").startsWith("ok "), line(lines, "functions"));
    for (const name of ["api-v1", "export-account", "send-org-invite", "rdap-poller", "telegram-bot"]) {
      assert(line(lines, "functions").includes(name), line(lines, "functions"));
    }
    assert(
      line(lines, "oauth").startsWith(
        `ok      oauth: ${stack.gateway.url}/.well-known/oauth-authorization-server/auth/v1: issuer ${stack.gateway.url}/auth/v1, registration_endpoint ${stack.gateway.url}/auth/v1/oauth/clients/register`,
      ),
      line(lines, "oauth"),
    );
    assert(
      line(lines, "jwks").startsWith(
        `ok      jwks: ${stack.gateway.url}/auth/v1/.well-known/jwks.json: ES256`,
      ),
      line(lines, "jwks"),
    );
    // What a first deploy meets (scripts/lib/preflight_deploy.ts): the extensions the migrations created, and
    // the signing key's type; the pooler and SMTP cannot be read here (a local URL, no access token).
    assertEquals(line(lines, "extensions"), "ok      extensions: pg_cron, pg_net created");
    assert(line(lines, "pooler").startsWith("skip    pooler: 127.0.0.1 is not a Supabase pooler host"));
    assert(
      line(lines, "smtp").startsWith("skip    smtp: not checked: set SUPABASE_ACCESS_TOKEN"),
      line(lines, "smtp"),
    );
    assert(
      line(lines, "signing-key").startsWith("ok      signing-key: ECC (P-256) ES256"),
      line(lines, "signing-key"),
    );
    assert(!lines.join("\n").includes("preflight-secret"), "never a secret's value");
    // Without a personal access token the Auth security settings cannot be read: said, not failed.
    assert(
      line(lines, "auth-settings").startsWith(
        "unknown auth-settings: cannot read the project's Auth settings",
      ),
      line(lines, "auth-settings"),
    );
  } finally {
    if (saved.count === "0") await removePollerVaultSecrets(stack.sql);
    await stack.close();
  }
});

Deno.test(
  "preflight: without the Vault secrets, the jobs would send nothing and no functions URL is known",
  options,
  async () => {
    const stack = await startStack();
    const saved = await stack.sql<{ name: string; value: string }[]>`
    select name, decrypted_secret as value from vault.decrypted_secrets where name in ('project_url', 'poller_secret')`;
    try {
      await removePollerVaultSecrets(stack.sql);
      const { code, lines } = await preflight("--db-url", tlsDatabaseUrl());
      assertEquals(code, 1, lines.join("\n"));
      assert(line(lines, "migrations").startsWith("ok "), line(lines, "migrations"));
      assert(line(lines, "cron").startsWith("ok "), line(lines, "cron"));
      assertEquals(
        line(lines, "vault"),
        "MISSING vault: missing: project_url, poller_secret (the pg_cron jobs send nothing until both exist)",
      );
      assert(
        line(lines, "functions").startsWith("MISSING functions: no functions URL"),
        line(lines, "functions"),
      );
      assert(line(lines, "oauth").startsWith("MISSING oauth: no project URL"), line(lines, "oauth"));
      assert(line(lines, "jwks").startsWith("MISSING jwks: no project URL"), line(lines, "jwks"));
    } finally {
      const byName = Object.fromEntries(saved.map((row) => [row.name, row.value]));
      if (byName.project_url && byName.poller_secret) {
        await storePollerVaultSecrets(stack.sql, {
          projectUrl: byName.project_url,
          pollerSecret: byName.poller_secret,
        });
      }
      await stack.close();
    }
  },
);

Deno.test(
  "preflight: an empty database and functions that do not answer: everything is missing",
  options,
  async () => {
    const name = `preflight_${crypto.randomUUID().slice(0, 8)}`;
    const admin = postgres.connect(tlsDatabaseUrl().replace("sslmode=require", "sslmode=disable"), {
      max: 1,
    });
    await admin.unsafe(`create database ${name}`);
    try {
      const url = new URL(tlsDatabaseUrl());
      url.pathname = `/${name}`;
      const nowhere = `http://127.0.0.1:${freePort()}/functions/v1`;
      const { code, lines } = await preflight("--db-url", url.toString(), "--functions-url", nowhere);
      assertEquals(code, 1, lines.join("\n"));
      assertEquals(
        line(lines, "migrations"),
        "MISSING migrations: supabase_migrations.schema_migrations does not exist: run `supabase db push`",
      );
      assert(line(lines, "vault").startsWith("MISSING vault: Vault cannot be read"), line(lines, "vault"));
      assert(line(lines, "cron").startsWith("MISSING cron: cron.job cannot be read"), line(lines, "cron"));
      const functions = line(lines, "functions");
      assert(functions.startsWith("MISSING functions: not answering: api-v1 (no answer"), functions);
      assert(functions.includes("telegram-bot (no answer"), functions);
      const origin = new URL(nowhere).origin;
      assertEquals(
        line(lines, "oauth"),
        `MISSING oauth: no OAuth 2.1 server discovery document (no answer from ${origin}/.well-known/oauth-authorization-server/auth/v1): enable the OAuth 2.1 server (Authentication → OAuth Server)`,
      );
      assert(
        line(lines, "jwks").startsWith("MISSING jwks: no JSON Web Key Set (no answer"),
        line(lines, "jwks"),
      );
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 1 });
    }
  },
);

Deno.test(
  "preflight: Auth without the OAuth server, without dynamic registration, or with HS256 keys only",
  options,
  async () => {
    const stack = await startStack();
    const functionsUrl = `${stack.gateway.url}/functions/v1`;
    try {
      Deno.env.set("GOTRUE_OAUTH_SERVER_ENABLED", "false");
      const disabled = await preflight("--db-url", tlsDatabaseUrl(), "--functions-url", functionsUrl);
      assertEquals(disabled.code, 1, disabled.lines.join("\n"));
      assertEquals(
        line(disabled.lines, "oauth"),
        `MISSING oauth: no OAuth 2.1 server discovery document (404 from ${stack.gateway.url}/.well-known/oauth-authorization-server/auth/v1): enable the OAuth 2.1 server (Authentication → OAuth Server)`,
      );
      assert(line(disabled.lines, "jwks").startsWith("ok "), "the JWKS is served either way");

      Deno.env.set("GOTRUE_OAUTH_SERVER_ENABLED", "true");
      Deno.env.set("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", "false");
      const closed = await preflight("--db-url", tlsDatabaseUrl(), "--functions-url", functionsUrl);
      assertEquals(closed.code, 1, closed.lines.join("\n"));
      assertEquals(
        line(closed.lines, "oauth"),
        "MISSING oauth: no registration_endpoint: allow dynamic client registration (Authentication → OAuth Server); Claude and ChatGPT register themselves",
      );
    } finally {
      Deno.env.delete("GOTRUE_OAUTH_SERVER_ENABLED");
      Deno.env.delete("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION");
      await stack.close();
    }

    // A project still on the legacy JWT secret: its JWKS has no asymmetric key (an HS256 'oct' key at most).
    const controller = new AbortController();
    let base = "";
    const legacy = Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      signal: controller.signal,
      onListen: () => {},
    }, (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/.well-known/oauth-authorization-server/auth/v1") {
        return Response.json({
          issuer: `${base}/auth/v1`,
          authorization_endpoint: `${base}/auth/v1/oauth/authorize`,
          token_endpoint: `${base}/auth/v1/oauth/token`,
          registration_endpoint: `${base}/auth/v1/oauth/clients/register`,
          jwks_uri: `${base}/auth/v1/.well-known/jwks.json`,
          code_challenge_methods_supported: ["S256", "plain"],
        });
      }
      if (path === "/auth/v1/.well-known/jwks.json") {
        return Response.json({ keys: [{ kty: "oct", alg: "HS256" }] });
      }
      return new Response("not found", { status: 404 });
    });
    base = `http://127.0.0.1:${legacy.addr.port}`;
    try {
      const { code, lines } = await preflight("--db-url", tlsDatabaseUrl(), "--auth-url", base);
      assertEquals(code, 1, lines.join("\n"));
      assert(line(lines, "oauth").startsWith(`ok      oauth: ${base}/.well-known/`), line(lines, "oauth"));
      assertEquals(
        line(lines, "jwks"),
        `MISSING jwks: ${base}/auth/v1/.well-known/jwks.json has no asymmetric key (HS256 only): switch to asymmetric JWT signing keys (Project Settings → JWT Keys); /mcp refuses HS256 tokens`,
      );
    } finally {
      controller.abort();
      await legacy.finished;
    }
  },
);
