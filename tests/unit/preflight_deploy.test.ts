/**
 * The preflight's checks of what a first deploy meets (scripts/lib/preflight_deploy.ts): the extensions the
 * migrations create, the pooler URL that `supabase db push --db-url` needs, Auth's custom SMTP through the
 * Management API (a local fake here), and an ECC (P-256) signing key.
 */
import {
  extensionsFinding,
  poolerFinding,
  projectRefOf,
  readAuthMailConfig,
  signingKeyFinding,
  smtpFinding,
} from "../../scripts/lib/preflight_deploy.ts";
import { assert, assertEquals } from "../support/assert.ts";

const ref = "abcdefghijklmnopqrst";

Deno.test("preflight extensions: pg_cron and pg_net must exist after db push", () => {
  assertEquals(extensionsFinding(["pg_cron", "pg_net", "plpgsql"]).ok, true);
  assertEquals(extensionsFinding(["plpgsql", "pg_net"]), {
    check: "extensions",
    ok: false,
    detail: "not created: pg_cron (the migrations create them: run `supabase db push`)",
  });
  assertEquals(extensionsFinding(null).ok, false);
});

Deno.test("preflight pooler: db push --db-url needs the session pooler as postgres.<ref>", () => {
  const session = poolerFinding(
    `postgresql://postgres.${ref}:pw@aws-0-eu-central-1.pooler.supabase.com:5432/postgres`,
  );
  assertEquals([session.ok, session.unchecked], [true, undefined]);
  const newer = poolerFinding(
    `postgresql://postgres.${ref}:pw@aws-1-us-east-1.pooler.supabase.com:5432/postgres`,
  );
  assertEquals(newer.ok, true);
  const transaction = poolerFinding(
    `postgresql://postgres.${ref}:pw@aws-0-eu-central-1.pooler.supabase.com:6543/postgres`,
  );
  assertEquals([transaction.ok, transaction.unchecked], [true, true]);
  assert(transaction.detail.includes("port 5432"), transaction.detail);
  const plainUser = poolerFinding(
    "postgresql://postgres:pw@aws-0-eu-central-1.pooler.supabase.com:5432/postgres",
  );
  assertEquals(plainUser.ok, false);
  assert(plainUser.detail.includes("postgres.<project ref>"), plainUser.detail);
  assertEquals(poolerFinding("postgresql://postgres:pw@127.0.0.1:54322/postgres").unchecked, true);
  assertEquals(poolerFinding("not a url").ok, false);
});

Deno.test("preflight: the project ref comes from the pooler user, the direct host or the project URL", () => {
  assertEquals(
    projectRefOf(`postgresql://postgres.${ref}:x@aws-0-eu-west-2.pooler.supabase.com:5432/postgres`),
    ref,
  );
  assertEquals(projectRefOf(`postgresql://postgres:x@db.${ref}.supabase.co:5432/postgres`), ref);
  assertEquals(
    projectRefOf("postgresql://postgres:x@127.0.0.1:5432/postgres", `https://${ref}.supabase.co`),
    ref,
  );
  assertEquals(projectRefOf("postgresql://postgres:x@127.0.0.1:5432/postgres", undefined), null);
});

Deno.test("preflight smtp: the default sender fails, custom SMTP passes, unreadable is a skip", () => {
  assertEquals(smtpFinding({ smtpHost: null, smtpPort: null }).ok, false);
  assertEquals(smtpFinding({ smtpHost: "smtp.example.com", smtpPort: "465" }), {
    check: "smtp",
    ok: true,
    detail: "custom SMTP smtp.example.com:465",
  });
  assertEquals(smtpFinding({ unreadable: "not checked" }).unchecked, true);
});

Deno.test("preflight signing-key: an ECC (P-256) key in the JWKS", () => {
  assertEquals(
    signingKeyFinding([{ kty: "EC", crv: "P-256", alg: "ES256", kid: "k1" }], "u").detail,
    "ECC (P-256) ES256 k1",
  );
  const rsa = signingKeyFinding([{ kty: "RSA", alg: "RS256" }], "https://x/jwks.json");
  assertEquals(rsa.ok, false);
  assert(rsa.detail.includes("RS256 but no ECC (P-256) key"), rsa.detail);
  assertEquals(signingKeyFinding([], "u").ok, false);
  assertEquals(signingKeyFinding(null, null).ok, false);
});

Deno.test("preflight smtp: read through the Management API with the access token; host and port only", async () => {
  const controller = new AbortController();
  const seen: string[] = [];
  let smtp: Record<string, unknown> = {
    smtp_host: "smtp.example.com",
    smtp_port: "465",
    smtp_user: "u",
    smtp_admin_email: "ops@example.com",
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    (request) => {
      seen.push(`${new URL(request.url).pathname} ${request.headers.get("authorization")}`);
      if (request.headers.get("authorization") !== "Bearer sbp_test") {
        return Response.json({
          message: "Unauthorized",
        }, { status: 401 });
      }
      return Response.json(smtp);
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    assertEquals(await readAuthMailConfig(ref, "sbp_test", base), {
      smtpHost: "smtp.example.com",
      smtpPort: "465",
    });
    assertEquals(seen, [`/v1/projects/${ref}/config/auth Bearer sbp_test`]);
    smtp = { smtp_host: "", smtp_port: null };
    assertEquals(await readAuthMailConfig(ref, "sbp_test", base), { smtpHost: null, smtpPort: null });
    assertEquals(await readAuthMailConfig(ref, "wrong", base), {
      unreadable: "not checked: the Management API answered 401",
    });
    assert("unreadable" in await readAuthMailConfig(ref, undefined, base));
    assert("unreadable" in await readAuthMailConfig(null, "sbp_test", base));
  } finally {
    controller.abort();
    await server.finished;
  }
});
