/** Runs wrk (installed with apt-get when missing) and reads its summary. */
import { existsSync } from "node:fs";
import { run } from "../../platform/run.ts";

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  /** Responses that were not 2xx. */
  failed: number;
  /** Connect, read, write errors and timeouts (wrk's timeout is 30 s here). */
  socketErrors: number;
  latencyMs: { p50: number; p99: number };
}

export async function ensureWrk(): Promise<string> {
  for (const path of ["/usr/bin/wrk", "/usr/local/bin/wrk"]) if (existsSync(path)) return path;
  console.log("Installing wrk with apt-get (first run only)…");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], { env, quiet: true });
  await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "wrk"], { env, quiet: true });
  return "/usr/bin/wrk";
}

function milliseconds(value: string, unit: string): number {
  const factor: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
  return Number(value) * (factor[unit] ?? NaN);
}

/** Reads wrk's text summary (run with --latency). Pure. */
export function parseWrk(output: string): LoadResult {
  const rate = output.match(/Requests\/sec:\s+([\d.]+)/);
  const total = output.match(/(\d+) requests in/);
  if (!rate || !total) throw new Error(`Unexpected wrk output:\n${output}`);
  const non2xx = Number(output.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  const socket = output.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const percentile = (p: string) => {
    const match = output.match(new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m"));
    return match ? milliseconds(match[1], match[2]) : NaN;
  };
  return {
    requestsPerSecond: Number(rate[1]),
    requests: Number(total[1]),
    failed: non2xx,
    socketErrors,
    latencyMs: { p50: percentile("50"), p99: percentile("99") },
  };
}

export interface LoadSpec {
  url: string;
  headers?: Record<string, string>;
  /** POST body (JSON text); GET without. */
  body?: string;
  connections: number;
  seconds: number;
}

export async function runWrk(wrk: string, spec: LoadSpec): Promise<LoadResult> {
  const args = [
    "-t",
    "2",
    "-c",
    String(spec.connections),
    "-d",
    `${spec.seconds}s`,
    "--timeout",
    "30s",
    "--latency",
  ];
  let script: string | undefined;
  if (spec.body !== undefined) {
    script = await Deno.makeTempFile({ suffix: ".lua" });
    const headers = Object.entries(spec.headers ?? {})
      .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
      .join("\n");
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = ${JSON.stringify(spec.body)}\n${headers}\n`,
    );
    args.push("-s", script);
  } else {
    for (const [name, value] of Object.entries(spec.headers ?? {})) args.push("-H", `${name}: ${value}`);
  }
  try {
    return parseWrk(await run(wrk, [...args, spec.url], { quiet: true }));
  } finally {
    if (script) await Deno.remove(script).catch(() => {});
  }
}
