/**
 * Local stand-in for pg_net's background worker. The stand-in extension's `net.http_post` (pg_net--*.sql
 * here, which `create extension pg_net` installs) queues a request in `net.http_request_queue` and notifies
 * `net_http_request` (its `net.wake()`); this worker takes queued requests (also on a
 * timer, in case a notification is missed), deleting each from the queue as it takes it, sends it and
 * writes the outcome to `net._http_response` (kept 6 hours, pg_net's default `pg_net.ttl`), as pg_net
 * does on Supabase.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";

interface QueuedRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
  timeout_milliseconds: number;
}

interface Outcome {
  status: number | null;
  contentType: string | null;
  headers: Record<string, string> | null;
  content: string | null;
  timedOut: boolean;
  error: string | null;
}

export interface NetWorker {
  /** Sends everything queued (side by side), and what is queued meanwhile; resolves when all completed. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

export async function startNetWorker(databaseUrl: string, pollMs = 2_000): Promise<NetWorker> {
  const sql = postgres.connect(databaseUrl, {
    max: 2,
    onnotice: () => {},
    connectTimeoutMs: 3_000,
    // What net.check_worker_is_up() and net.wait_until_running() look for.
    applicationName: "pg_net worker",
  });
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

  async function send(request: QueuedRequest): Promise<Outcome> {
    try {
      const response = await fetch(request.url, {
        method: request.method.toUpperCase(),
        headers: request.headers ?? {},
        body: request.body === null ? undefined : new Uint8Array(request.body),
        signal: AbortSignal.any([inFlight.signal, AbortSignal.timeout(request.timeout_milliseconds)]),
      });
      return {
        status: response.status,
        contentType: response.headers.get("content-type"),
        headers: Object.fromEntries(response.headers),
        content: await response.text(),
        timedOut: false,
        error: null,
      };
    } catch (error) {
      const timedOut = (error as Error).name === "TimeoutError";
      console.error(`pg_net stand-in: request ${request.id} failed: ${(error as Error).message}`);
      return {
        status: null,
        contentType: null,
        headers: null,
        content: null,
        timedOut,
        error: timedOut ? "Timeout was reached" : (error as Error).message,
      };
    }
  }

  async function record(id: number, outcome: Outcome): Promise<void> {
    await sql`
      insert into net._http_response (id, status_code, content_type, headers, content, timed_out, error_msg)
      values (${id}, ${outcome.status}, ${outcome.contentType},
              ${outcome.headers ? sql.json(outcome.headers) : null}, ${outcome.content},
              ${outcome.timedOut}, ${outcome.error})`;
    await sql`delete from net._http_response where created < now() - interval '6 hours'`;
  }

  function drain(): Promise<number> {
    draining ??= (async () => {
      let sent = 0;
      // Requests run side by side, as pg_net's are (a delivery run must not wait for a poller run).
      const inFlight = new Set<Promise<void>>();
      try {
        for (;;) {
          const request = closed ? null : await takeNext();
          if (request) {
            const sending: Promise<void> = send(request)
              .then((outcome) => record(request.id, outcome))
              .catch((error) =>
                console.error(`pg_net stand-in: could not record response ${request.id}: ${error.message}`)
              )
              .finally(() => inFlight.delete(sending));
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
