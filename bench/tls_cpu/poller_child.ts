/**
 * The measured side of `deno task bench:tls` (on Deno 2.1.4, the hosted runtime's Deno): the real gateway
 * with the real rdap-poller function, invoked `runs` times back to back. Each invocation's CPU (user +
 * system time of every thread of this process, which serves nothing else, from /proc/self/stat: Deno 2.1
 * has no process.cpuUsage) and summary are printed as one JSON line. The fakes
 * run in the parent, so their TLS work is not counted. Usage: `poller_child.ts <runs>`.
 */
import { startGateway } from "../../platform/gateway.ts";
import { applyFunctionEnvironment } from "../../platform/stack.ts";
import { closeDatabase } from "../../supabase/functions/_shared/db/client.ts";

const runs = Number(Deno.args[0] ?? 3);
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** CPU milliseconds this process has used so far (user + system, all threads). */
function cpuMsSoFar(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command name: state is field 3, utime 14 and stime 15 (so indexes 11 and 12 here).
  return (Number(fields[11]) + Number(fields[12])) * 1000 / ticksPerSecond;
}
const gateway = await startGateway({ port: 0 });
const environment = await applyFunctionEnvironment({
  supabaseUrl: gateway.url,
  databaseUrl: Deno.env.get("SUPABASE_DB_URL")!,
});
for (let run = 0; run < runs; run++) {
  const cpuStart = cpuMsSoFar();
  const started = performance.now();
  const response = await fetch(`${gateway.url}/functions/v1/rdap-poller`, {
    method: "POST",
    headers: { authorization: `Bearer ${environment.POLLER_SECRET}` },
  });
  const summary = await response.json();
  const cpuMs = cpuMsSoFar() - cpuStart;
  console.log(JSON.stringify({
    run,
    status: response.status,
    wallMs: Math.round(performance.now() - started),
    cpuMs,
    summary,
  }));
}
await closeDatabase(1);
await gateway.close();
