/**
 * `deno task suites:auth <supabase-js checkout> [--verbose] [test file…]`: auth-js's own test suite, from a
 * supabase-js checkout you fetched (`git clone https://github.com/supabase/supabase-js`), run unmodified
 * against the local Auth stand-in on a throwaway cluster, with the counts of the cases that reach the server
 * by feature (docs/runtime.md, "auth-js's suite"). Needs node and npm. How: scripts/lib/suites/auth_js.ts.
 */
import { withThrowawayDatabase } from "../platform/postgres/throwaway.ts";
import { startGateway } from "../platform/gateway.ts";
import { startMailbox } from "../platform/mailbox/server.ts";
import { applyFunctionEnvironment } from "../platform/stack.ts";
import { pointAt, prepareSuite, runSuite, summary } from "./lib/suites/auth_js.ts";

const args = Deno.args.filter((arg) => !arg.startsWith("--"));
const verbose = Deno.args.includes("--verbose");
const checkout = args[0] ?? Deno.env.get("SUPABASE_JS_DIR");
if (!checkout) {
  console.error("usage: deno task suites:auth <path of a supabase-js checkout> [--verbose] [test file…]");
  Deno.exit(2);
}

let suite;
try {
  suite = await prepareSuite(checkout, (line) => console.log(line));
} catch (error) {
  console.error((error as Error).message);
  Deno.exit(1);
}
try {
  await withThrowawayDatabase(async () => {
    // The keys and settings the suite expects of `supabase start --workdir test`, nothing else.
    Deno.env.set("SUPABASE_ANON_KEY", suite.anonKey);
    Deno.env.set("SUPABASE_SERVICE_ROLE_KEY", suite.serviceRoleKey);
    Deno.env.set("GOTRUE_JWT_KEYS", suite.signingKeys);
    Deno.env.set("AUTH_CONFIG_TOML", suite.configToml);
    const mailbox = startMailbox({ port: 0 });
    const gateway = await startGateway({ port: 0 });
    await applyFunctionEnvironment({
      supabaseUrl: gateway.url,
      databaseUrl: Deno.env.get("SUPABASE_DB_URL")!,
    });
    Deno.env.set("SUPABASE_URL", gateway.url);
    try {
      console.log(`Auth stand-in at ${gateway.url}/auth/v1, mailbox at ${mailbox.url}; running jest …`);
      await pointAt(suite, gateway.url);
      const cases = await runSuite(suite, gateway.url, args.slice(1));
      console.log(summary(cases, verbose));
    } finally {
      await gateway.close();
      await mailbox.close();
    }
  });
} finally {
  await Deno.remove(suite.root, { recursive: true }).catch(() => {});
}
