/** admin preflight's Auth security settings check (scripts/lib/preflight_auth_settings.ts), without I/O. */
import {
  authSettingsFindings,
  projectRefOf,
  readAuthSettings,
  requiredAuthSettings,
} from "../../scripts/lib/preflight_auth_settings.ts";
import { assert, assertEquals } from "../support/assert.ts";

const good = Object.fromEntries(requiredAuthSettings.map((setting) => [setting.name, setting.value]));

Deno.test("auth settings: the shipped values pass", () => {
  const finding = authSettingsFindings(good);
  assertEquals([finding.ok, finding.unknown], [true, undefined]);
});

Deno.test("auth settings: each wrong value is named with what to set", () => {
  for (const setting of requiredAuthSettings) {
    const finding = authSettingsFindings({ ...good, [setting.name]: !setting.value });
    assertEquals(finding.ok, false);
    assert(
      finding.detail.includes(`${setting.name} is ${!setting.value}, set ${setting.value}`),
      finding.detail,
    );
  }
  const missing = authSettingsFindings({});
  assertEquals(missing.ok, false);
  assert(missing.detail.includes("security_update_password_require_current_password is null"));
});

Deno.test("auth settings: unreadable is unknown, not missing, and says why", async () => {
  const noToken = await readAuthSettings("abcdefghijklmnopqrst", undefined);
  assertEquals([noToken.ok, noToken.unknown], [true, true]);
  assert(noToken.detail.includes("SUPABASE_ACCESS_TOKEN"));
  const noRef = await readAuthSettings(undefined, "token");
  assert(noRef.detail.includes("--project-ref"));
});

Deno.test("auth settings: read from a Management API answer", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (request.headers.get("authorization") !== "Bearer sbp_test") {
      return new Response(null, { status: 401 });
    }
    if (url.pathname !== "/v1/projects/abcdefghijklmnopqrst/config/auth") {
      return new Response(null, { status: 404 });
    }
    return Response.json({ ...good, mailer_secure_email_change_enabled: false });
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const read = await readAuthSettings("abcdefghijklmnopqrst", "sbp_test", base);
    assertEquals(read.ok, false);
    assert(read.detail.includes("mailer_secure_email_change_enabled is false"));
    const refused = await readAuthSettings("abcdefghijklmnopqrst", "wrong", base);
    assertEquals([refused.unknown, refused.detail.includes("401")], [true, true]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("auth settings: the project ref of a hosted URL", () => {
  assertEquals(projectRefOf("https://abcdefghijklmnopqrst.supabase.co/functions/v1"), "abcdefghijklmnopqrst");
  assertEquals(projectRefOf("http://127.0.0.1:54321"), undefined);
  assertEquals(projectRefOf(undefined), undefined);
});
