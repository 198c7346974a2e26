/**
 * Local stand-in for pg_net's background worker. The bootstrap's `net.http_post` queues a request in
 * `net.http_request_queue` and notifies `net_http_request`; this worker takes queued requests (also on a
 * timer, in case a notification is missed) and sends them, as pg_net does on Supabase.
 */
import postgres from "postgres";

interface QueuedRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string> | null;
  body: unknown;
  timeout_milliseconds: number | null;
}

export interface NetWorker {
  /** Sends everything queued (side by side), and what is queued meanwhile; resolves when all completed. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

export async function startNetWorker(databaseUrl: string, pollMs = 2_000): Promise<NetWorker> {
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  let draining: Promise<number> | undefined;

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
        signal: AbortSignal.timeout(request.timeout_milliseconds ?? 5_000),
      });
      await response.body?.cancel();
    } catch (error) {
      console.error(`pg_net stand-in: request ${request.id} failed: ${(error as Error).message}`);
    }
  }

  function drain(): Promise<number> {
    draining ??= (async () => {
      let sent = 0;
      // Requests run side by side, as pg_net's are (a delivery run must not wait for a poller run).
      const inFlight = new Set<Promise<void>>();
      try {
        for (;;) {
          const request = await takeNext();
          if (request) {
            const sending: Promise<void> = send(request).finally(() => inFlight.delete(sending));
            inFlight.add(sending);
            sent++;
            continue;
          }
          if (inFlight.size === 0) break;
          await Promise.race([...inFlight, new Promise((resolve) => setTimeout(resolve, 100))]);
        }
      } finally {
        draining = undefined;
      }
      return sent;
    })();
    return draining;
  }

  const listener = await sql.listen("net_http_request", () => void drain().catch(() => {}));
  const timer = setInterval(() => void drain().catch(() => {}), pollMs);
  return {
    drain,
    async close() {
      clearInterval(timer);
      await listener.unlisten();
      await draining?.catch(() => {});
      await sql.end({ timeout: 2 });
    },
  };
}
