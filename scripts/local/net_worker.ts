/**
 * Local stand-in for pg_net's background worker. The bootstrap's `net.http_post` queues a request in
 * `net.http_request_queue` and notifies `net_http_request`; this worker takes queued requests (also on a
 * timer, in case a notification is missed) and sends them, as pg_net does on Supabase.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

interface QueuedRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string> | null;
  body: unknown;
  timeout_milliseconds: number | null;
}

export interface NetWorker {
  /** Sends everything queued now; resolves when those requests have completed. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

export async function startNetWorker(databaseUrl: string, pollMs = 2_000): Promise<NetWorker> {
  const sql = postgres.connect(databaseUrl, { max: 2, onnotice: () => {}, connectTimeoutMs: 3_000 });
  let draining: Promise<number> | undefined;
  let closed = false;
  // Closing abandons requests in flight (a poller run can take its whole time budget), as a stopped
  // pg_net worker would; the poller's leases make an abandoned run safe.
  const inFlight = new AbortController();

  async function takeNext(): Promise<QueuedRequest | undefined> {
    const [request] = await sql<QueuedRequest[]>`
      delete from net.http_request_queue
      where id = (select id from net.http_request_queue order by id for update skip locked limit 1)
      returning id, method, url, headers, body, timeout_milliseconds`;
    return request;
  }

  async function send(request: QueuedRequest): Promise<void> {
    try {
      const response = await fetch(request.url, {
        method: request.method || "POST",
        headers: request.headers ?? { "Content-Type": "application/json" },
        body: request.body === null ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.any([
          inFlight.signal,
          AbortSignal.timeout(request.timeout_milliseconds ?? 5_000),
        ]),
      });
      await response.body?.cancel();
    } catch (error) {
      console.error(`pg_net stand-in: request ${request.id} failed: ${(error as Error).message}`);
    }
  }

  function drain(): Promise<number> {
    draining ??= (async () => {
      let sent = 0;
      try {
        for (let request = await takeNext(); request && !closed; request = await takeNext()) {
          await send(request);
          sent++;
        }
      } finally {
        draining = undefined;
      }
      return sent;
    })();
    return draining;
  }

  const drainQuietly = () => {
    if (!closed) void drain().catch(() => {});
  };
  const listener = await sql.listen("net_http_request", drainQuietly);
  const timer = setInterval(drainQuietly, pollMs);
  return {
    drain,
    async close() {
      closed = true;
      clearInterval(timer);
      inFlight.abort();
      await listener.unlisten();
      await draining?.catch(() => {});
      await sql.end({ timeout: 1 });
    },
  };
}
