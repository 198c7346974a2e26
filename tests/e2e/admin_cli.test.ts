/** `deno task admin`: one JSON line per command, against the database in SUPABASE_DB_URL. */
import { decodeJwt } from "jose";
import { repoRoot } from "../../scripts/local/paths.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { databaseUrl, uniqueEmail } from "../support/stack.ts";

async function admin(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: repoRoot,
    env: { SUPABASE_DB_URL: databaseUrl(), SUPABASE_URL: "http://127.0.0.1:54321" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(result.code === 0 ? result.stdout : result.stderr).trim();
  return { code: result.code, json: JSON.parse(text.split("\n").at(-1)!) };
}

Deno.test("admin create-account, session-token, add-webhook and set-telegram", async () => {
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

  const webhook = await admin("add-webhook", "--email", email, "--url", "https://hooks.example.com/in");
  assertEquals(webhook.code, 0);
  assertMatch(
    String(webhook.json.secret),
    /^whsec_[A-Za-z0-9+/]{43}=$/,
    "whsec_ + base64 of 32 random bytes",
  );
  const telegram = await admin("set-telegram", "--email", email, "--chat-id", "4242");
  assertEquals(telegram.json.telegram_configured, true);
  const refused = await admin("add-webhook", "--email", email, "--url", "http://10.0.0.1/hook");
  assert(refused.code === 2, "a private target is refused");
});
