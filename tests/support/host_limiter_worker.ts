/**
 * A separate process asking one RDAP server about names through the project-wide (database) host limiter,
 * as an edge function isolate does. Usage: `deno run -A host_limiter_worker.ts <rdapBaseUrl> <maxWaitMs>
 * <name>…` with SUPABASE_DB_URL set; prints one JSON line per name: `{ name, outcome, reason }`.
 */
import { createRdapClient } from "../../supabase/functions/_shared/rdap/client.ts";
import { createDatabaseHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { database } from "../../supabase/functions/_shared/db/client.ts";

const [baseUrl, maxWait, ...names] = Deno.args;
// Warm the HTTP client up first (outside the limiter: the fake's bootstrap path is not counted), so the
// first counted request does not arrive late and crowd the next one.
await (await fetch(new URL("dns.json", baseUrl))).body?.cancel();
const rdap = createRdapClient({
  limiter: createDatabaseHostLimiter(),
  timeoutMs: 5_000,
  // The fake listens on loopback and is the only server asked (no redirects).
  outbound: {
    allowPrivateTargets: true,
    resolve: () => Promise.reject(new Error("the fake is reached by IP address")),
    isListedServer: () => Promise.resolve(true),
  },
});
await Promise.all(names.map(async (name) => {
  const lookup = await rdap.lookupDomain(baseUrl, name, { maxWaitMs: Number(maxWait) });
  const reason = lookup.outcome === "failed" || lookup.outcome === "refused" ? lookup.reason : null;
  console.log(JSON.stringify({ name, outcome: lookup.outcome, reason }));
}));
await database().end({ timeout: 2 });
