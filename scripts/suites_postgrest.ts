/**
 * `deno task suites:postgrest [<supabase-js checkout>] [--ref <commit>] [--only <pattern>] [--verbose]`:
 * runs postgrest-js's own test suite against the local Data API stand-in and prints the server cases
 * passed by feature (scripts/lib/suites/postgrest_js.ts). The checkout is the argument or SUPABASE_JS_DIR:
 * a clone (`git clone https://github.com/supabase/supabase-js`) or a bare mirror of it. Never committed here.
 */
import { parseArgs } from "node:util";
import { runPostgrestSuite } from "./lib/suites/postgrest_js.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { ref: { type: "string" }, only: { type: "string" }, verbose: { type: "boolean" } },
});
const checkout = positionals[0] ?? Deno.env.get("SUPABASE_JS_DIR");
if (!checkout) {
  console.error(
    "Usage: deno task suites:postgrest <supabase-js checkout> (or SUPABASE_JS_DIR)\n" +
      "Get one with: git clone https://github.com/supabase/supabase-js /tmp/supabase-js",
  );
  Deno.exit(2);
}
Deno.exit(
  await runPostgrestSuite({
    checkout,
    ref: values.ref ?? Deno.env.get("SUPABASE_JS_REF") ?? "HEAD",
    verbose: values.verbose ?? false,
    only: values.only,
  }),
);
