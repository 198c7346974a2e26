/** `deno task admin`: one JSON line per command, against the database in SUPABASE_DB_URL. */
import { decodeJwt } from "jose";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { repoRoot } from "../../platform/paths.ts";
import { setTelegramBotUsername } from "../../platform/postgres/vault.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { databaseUrl, uniqueEmail } from "../support/stack.ts";

async function admin(
  ...args: string[]
): Promise<{ code: number; json: Record<string, unknown> }> {
  return await adminWith({}, ...args);
}

/** `deno task admin` is a tool: it runs on the tools' Deno (TOOLS_DENO from `deno task test`). */
async function adminWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; json: Record<string, unknown> }> {
  const result = await new Deno.Command(Deno.env.get("TOOLS_DENO") ?? Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: repoRoot,
    env: {
      SUPABASE_DB_URL: databaseUrl(),
      SUPABASE_URL: "http://127.0.0.1:54321",
      AUTH_BASE_URL: "",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(result.code === 0 ? result.stdout : result.stderr).trim();
  return { code: result.code, json: JSON.parse(text.split("\n").at(-1)!) };
}

Deno.test("admin create-account, session-token, add-webhook and link-telegram", async () => {
  const email = uniqueEmail("admin");
  const pro = await admin("create-account", "--email", email, "--plan", "pro");
  assertEquals(pro.code, 0);
  assertEquals(Object.keys(pro.json).sort(), ["api_key", "email", "plan", "user_id"]);
  assertEquals(pro.json.plan, "pro");
  assertMatch(String(pro.json.api_key), /^dwl_[0-9a-f]{48}$/);

  const free = await admin("create-account", "--email", uniqueEmail("admin-free"), "--plan", "free");
  assertEquals(free.json.api_key, null);

  const again = await admin("create-account", "--email", email, "--plan", "pro");
  assertEquals(again.code, 2);
  assertEquals(again.json.error, "invalid_request");
  assertEquals((await admin("create-account", "--email", uniqueEmail(), "--plan", "gold")).code, 2);

  const session = await admin("session-token", "--email", email);
  const claims = decodeJwt(String(session.json.access_token));
  assertEquals(claims.sub, pro.json.user_id);
  assertEquals(claims.aud, "authenticated");
  assertEquals(claims.iss, "http://127.0.0.1:54321/auth/v1");
  const viaAuthBase = await adminWith(
    { AUTH_BASE_URL: "https://auth.example.test" },
    "session-token",
    "--email",
    email,
  );
  assertEquals(
    decodeJwt(String(viaAuthBase.json.access_token)).iss,
    "https://auth.example.test/auth/v1",
    "AUTH_BASE_URL, when set, is the issuer the functions verify",
  );

  const webhook = await admin("add-webhook", "--email", email, "--url", "https://hooks.example.com/in");
  assertEquals(webhook.code, 0);
  assertMatch(
    String(webhook.json.secret),
    /^whsec_[A-Za-z0-9+/]{43}=$/,
    "whsec_ + base64 of 32 random bytes",
  );
  // A chat is linked only through the bot: the command gives the account's one-time deep link.
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  await setTelegramBotUsername(sql, "AdminCliTestBot").finally(() => sql.end());
  const link = await admin("link-telegram", "--email", email);
  assertEquals(link.code, 0);
  assertMatch(String(link.json.url), /^https:\/\/t\.me\/[A-Za-z][A-Za-z0-9_]+\?start=[0-9a-f]{48}$/);
  assert(
    (await admin("set-telegram", "--email", email, "--chat-id", "4242")).code !== 0,
    "no hand-typed chat",
  );
  const refused = await admin("add-webhook", "--email", email, "--url", "http://10.0.0.1/hook");
  assert(refused.code === 2, "a private target is refused");
  const slackHook = await admin(
    "add-webhook",
    "--email",
    email,
    "--url",
    "https://hooks.slack.com/services/T1/B2/admin",
    "--kind",
    "slack",
    "--events",
    "domain.pending_delete,domain.available",
  );
  assertEquals(slackHook.code, 0);
  assertEquals(slackHook.json.kind, "slack");
  assertEquals(slackHook.json.event_types, ["domain.available", "domain.pending_delete"]);
  assertEquals(slackHook.json.secret, null, "Slack does not verify signatures: no secret generated");
  const notSlack = await admin(
    "add-webhook",
    "--email",
    email,
    "--url",
    "https://hooks.example.com/services/T1/B2/x",
    "--kind",
    "slack",
  );
  assert(notSlack.code === 2, "a non-Slack host is refused for kind slack");
});

Deno.test("admin drop-accuracy reports seeded observations per registry and basis", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  const registry = `acc${crypto.randomUUID().slice(0, 8)}`;
  try {
    // Ten drops of one registry, 2 minutes early to 7 minutes late of their prediction.
    await sql`
      insert into public.drop_observations (domain_name, registry, basis, predicted_drop_at, observed_at)
      select 'n' || i || '.' || ${registry}, ${registry}, 'pending_delete_period', '2026-11-01T00:00:00Z',
             '2026-11-01T00:00:00Z'::timestamptz + make_interval(mins => i - 3)
        from generate_series(1, 10) as i`;
    const report = await admin("drop-accuracy");
    assertEquals(report.code, 0);
    const rows = (report.json.drop_accuracy as Record<string, unknown>[]).filter((row) =>
      row.registry === registry
    );
    assertEquals(rows, [{
      registry,
      basis: "pending_delete_period",
      observations: 10,
      median_seconds: 150,
      p90_seconds: 366,
      early: 2,
      correction_seconds: null,
      correction_source: null,
    }]);
  } finally {
    await sql`delete from public.drop_observations where registry = ${registry}`;
    await sql.end({ timeout: 2 });
  }
});

Deno.test("admin set-plan moves an account between the plans of the plans table", async () => {
  const email = uniqueEmail("set-plan");
  const created = await admin("create-account", "--email", email, "--plan", "free");
  assertEquals(created.code, 0);

  const upgraded = await admin("set-plan", "--email", email.toUpperCase(), "--plan", "pro");
  assertEquals(upgraded.code, 0, JSON.stringify(upgraded.json));
  assertEquals(upgraded.json, { user_id: created.json.user_id, email, plan: "pro", previous_plan: "free" });
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const [profile] = await sql<{ plan_id: string }[]>`
      select plan_id from public.profiles where id = ${String(created.json.user_id)}`;
    assertEquals(profile.plan_id, "pro");

    const back = await admin("set-plan", "--email", email, "--plan", "free");
    assertEquals(back.json.previous_plan, "pro");
    assertEquals(back.json.plan, "free");

    const unknownPlan = await admin("set-plan", "--email", email, "--plan", "gold");
    assertEquals(unknownPlan.code, 2);
    assertEquals(unknownPlan.json.error, "invalid_request");
    assertEquals(
      unknownPlan.json.message,
      'unknown plan "gold": --plan must be one of free, pro, business, enterprise',
    );
    const unknownEmail = await admin("set-plan", "--email", uniqueEmail("nobody"), "--plan", "pro");
    assertEquals(unknownEmail.code, 2);
    assertMatch(String(unknownEmail.json.message), /^no account with email /);
    assertEquals((await admin("set-plan", "--email", email)).code, 2, "--plan is required");
    assertEquals((await admin("set-plan", "--plan", "pro")).code, 2, "--email is required");
    const [after] = await sql<{ plan_id: string }[]>`
      select plan_id from public.profiles where id = ${String(created.json.user_id)}`;
    assertEquals(after.plan_id, "free", "a refused change changes nothing");
  } finally {
    await sql.end({ timeout: 2 });
  }
});
