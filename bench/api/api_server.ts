/**
 * The API side of `deno task bench`: the api-v1 edge function, loaded the way the local gateway loads it,
 * served on its own port in its own process (so its memory can be read) at `/api-v1/...`, without the
 * gateway's path rewriting in front. Env: SUPABASE_DB_URL, BENCH_PORT. Prints `listening <port>`.
 */
import { loadFunctions } from "../../platform/gateway.ts";
import { applyFunctionEnvironment } from "../../platform/stack.ts";

const port = Number(Deno.env.get("BENCH_PORT") ?? 0);
await applyFunctionEnvironment({
  supabaseUrl: `http://127.0.0.1:${port}`,
  databaseUrl: Deno.env.get("SUPABASE_DB_URL")!,
});
const handler = (await loadFunctions()).get("api-v1")!;

Deno.serve({
  port,
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`listening ${port}`),
}, (request, info) => handler(request, info as Deno.ServeHandlerInfo<Deno.NetAddr>));
