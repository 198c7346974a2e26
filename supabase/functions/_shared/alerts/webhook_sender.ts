/**
 * One webhook POST: the receiver must accept a TCP connection within the connect timeout (checked with a
 * connection of its own first, as fetch has no connect timeout) and answer 2xx within the whole timeout
 * (connect included). Redirects are not followed (a 3xx is a failure). The response body is not read
 * beyond what closing the connection needs.
 */

export type WebhookOutcome =
  | { kind: "delivered"; httpStatus: number }
  | { kind: "failed"; httpStatus: number | null; error: string };

export interface WebhookTimeouts {
  connectMs: number;
  totalMs: number;
}

export const DEFAULT_WEBHOOK_TIMEOUTS: WebhookTimeouts = { connectMs: 3_000, totalMs: 10_000 };

export type Connect = (options: { hostname: string; port: number }) => Promise<{ close(): void }>;

export interface WebhookTransport {
  fetch: typeof fetch;
  /** Opens (and the sender closes at once) a TCP connection; null skips the connect check. */
  connect: Connect | null;
}

const defaultTransport = (): WebhookTransport => ({ fetch, connect: (options) => Deno.connect(options) });

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeouts: WebhookTimeouts = DEFAULT_WEBHOOK_TIMEOUTS,
  transport: WebhookTransport = defaultTransport(),
): Promise<WebhookOutcome> {
  const startedAt = Date.now();
  if (transport.connect !== null && timeouts.connectMs < timeouts.totalMs) {
    const connected = await probeConnect(url, timeouts.connectMs, transport.connect);
    if (connected !== "ok") return { kind: "failed", httpStatus: null, error: connected };
  }
  const remainingMs = Math.max(1, timeouts.totalMs - (Date.now() - startedAt));
  let response: Response;
  try {
    response = await transport.fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(remainingMs),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException &&
      (error.name === "TimeoutError" || error.name === "AbortError");
    return { kind: "failed", httpStatus: null, error: timedOut ? "timeout" : "network_error" };
  }
  await response.body?.cancel().catch(() => {});
  if (response.status >= 200 && response.status < 300) {
    return { kind: "delivered", httpStatus: response.status };
  }
  if (response.status >= 300 && response.status < 400) {
    return { kind: "failed", httpStatus: response.status, error: "redirect_not_followed" };
  }
  return { kind: "failed", httpStatus: response.status, error: `http_${response.status}` };
}

/** `ok`, `connect_timeout` or `connect_failed` (refused, unreachable, no address). */
export async function probeConnect(
  url: string,
  timeoutMs: number,
  connect: Connect,
): Promise<"ok" | "connect_timeout" | "connect_failed"> {
  let target: { hostname: string; port: number };
  try {
    const parsed = new URL(url);
    const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    target = { hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
  } catch {
    return "connect_failed";
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = connect(target).then(
    (connection) => {
      connection.close();
      return "ok" as const;
    },
    () => "connect_failed" as const,
  );
  const timeout = new Promise<"connect_timeout">((resolve) => {
    timer = setTimeout(() => resolve("connect_timeout"), timeoutMs);
  });
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
