/**
 * The bench's fake RDAP registries: one HTTP server per host, `latency` ms per answer, and a per-host
 * limit enforced at the fake: more than `hostRate` request arrivals in any 1 s window, or more than
 * `hostConcurrency` in flight, is answered 429 (Retry-After: 10). Plus one server for the RDAP bootstrap.
 */
import { indexOf, kindOf, type ScaleParams, tldOf } from "./world.ts";

export interface FakeRegistries {
  bootstrapUrl: string;
  urls: string[];
  /** Arrival times (epoch ms) of answered (non-429) domain requests, all hosts. */
  accepted: number[];
  tooMany: number;
  /** For each 429: ms since the same host's previous arrival (how close the excess came). */
  tooManyGaps: number[];
  /** Requests per host (accepted or not). */
  perHost: number[];
  /** Arrival times (epoch ms) of answered domain requests, per host. */
  acceptedPerHost: number[][];
  /** For each dropping name and each registry's canary: when a request arrived (epoch ms) and its answer. */
  traces: Map<string, { at: number; status: number }[]>;
  close(): Promise<void>;
}

const DAY = 86_400_000;

export function startFakeRegistries(params: ScaleParams, drops: Map<number, number>): FakeRegistries {
  const accepted: number[] = [];
  const perHost = new Array(params.hosts).fill(0);
  const acceptedPerHost: number[][] = Array.from({ length: params.hosts }, () => []);
  let tooMany = 0;
  const tooManyGaps: number[] = [];
  const servers: Deno.HttpServer[] = [];
  const traces = new Map<string, { at: number; status: number }[]>();
  const traced = (name: string) => {
    const index = indexOf(name);
    return name.startsWith("nic.") || (index !== null && drops.has(index));
  };
  const urls: string[] = [];

  for (let host = 0; host < params.hosts; host++) {
    const arrivals: number[] = [];
    let inFlight = 0;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
      const at = Date.now();
      perHost[host]++;
      const name = decodeURIComponent(new URL(request.url).pathname.replace(/^\/domain\//, "")).toLowerCase();
      const trace = traced(name) ? traces.get(name) ?? traces.set(name, []).get(name)! : null;
      while (arrivals.length > 0 && arrivals[0] <= at - 1000) arrivals.shift();
      arrivals.push(at);
      if (arrivals.length > params.hostRate || inFlight >= params.hostConcurrency) {
        tooMany++;
        tooManyGaps.push(arrivals.length > 1 ? at - arrivals[arrivals.length - 2] : -1);
        trace?.push({ at, status: 429 });
        return new Response(JSON.stringify({ errorCode: 429 }), {
          status: 429,
          headers: { "retry-after": "10", "content-type": "application/rdap+json" },
        });
      }
      accepted.push(at);
      acceptedPerHost[host].push(at);
      inFlight++;
      try {
        await new Promise((resolve) => setTimeout(resolve, params.rdapLatencyMs));
        const response = answer(name, params, drops);
        trace?.push({ at, status: response.status });
        return response;
      } finally {
        inFlight--;
      }
    });
    servers.push(server);
    urls.push(`http://127.0.0.1:${server.addr.port}/`);
  }

  const bootstrap = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () =>
    Response.json({
      description: "bench bootstrap",
      publication: "2026-01-01T00:00:00Z",
      version: "1.0",
      services: urls.map((url, host) => [[tldOf(host)], [url]]),
    }));

  return {
    bootstrapUrl: `http://127.0.0.1:${bootstrap.addr.port}/dns.json`,
    urls,
    accepted,
    get tooMany() {
      return tooMany;
    },
    tooManyGaps,
    perHost,
    acceptedPerHost,
    traces,
    async close() {
      await Promise.all([...servers, bootstrap].map((server) => server.shutdown()));
    },
  };
}

function answer(name: string, params: ScaleParams, drops: Map<number, number>): Response {
  const headers = { "content-type": "application/rdap+json" };
  // The registry's own name: the canary that proves its "not found" (docs/availability.md).
  if (name.startsWith("nic.")) {
    return Response.json({ objectClassName: "domain", ldhName: name, status: ["active"] }, { headers });
  }
  const index = indexOf(name);
  if (index === null) return new Response("", { status: 404 });
  const kind = kindOf(index, params);
  const dropAt = drops.get(index);
  if (dropAt !== undefined && Date.now() >= dropAt) return new Response("", { status: 404, headers });
  if (kind === "pending_delete") {
    // Dropping names: last changed 5 days before their drop (the drop is predicted); the others: 1 day ago.
    const changedAt = dropAt !== undefined ? dropAt - 5 * DAY : Date.now() - DAY;
    return Response.json({
      objectClassName: "domain",
      ldhName: name,
      status: ["pending delete"],
      events: [
        { eventAction: "last changed", eventDate: new Date(changedAt).toISOString() },
        { eventAction: "expiration", eventDate: new Date(changedAt - 35 * DAY).toISOString() },
      ],
    }, { headers });
  }
  return Response.json({
    objectClassName: "domain",
    ldhName: name,
    status: ["active"],
    events: [{ eventAction: "expiration", eventDate: new Date(Date.now() + 365 * DAY).toISOString() }],
  }, { headers });
}
