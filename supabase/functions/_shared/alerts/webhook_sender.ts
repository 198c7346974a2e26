/**
 * One webhook POST to a target the outbound policy judged, connected to an address it judged
 * (`net/judged_fetch.ts`): the receiver must accept the connection (TCP and TLS) within the connect
 * timeout and answer 2xx within the whole timeout (connect included). Redirects are not followed (a 3xx is
 * a failure). The response body is not read beyond what closing the connection needs. Error texts are
 * fixed words (`connect_timeout`, `connect_failed`, `timeout`, `network_error`, `http_<status>`,
 * `redirect_not_followed`): never an address or a URL.
 */
import { type JudgedFetch, judgedFetch, OutboundConnectError } from "../net/judged_fetch.ts";
import type { JudgedTarget } from "../net/url_policy.ts";

export type WebhookOutcome =
  | { kind: "delivered"; httpStatus: number }
  | { kind: "failed"; httpStatus: number | null; error: string };

export interface WebhookTimeouts {
  connectMs: number;
  totalMs: number;
}

export const DEFAULT_WEBHOOK_TIMEOUTS: WebhookTimeouts = { connectMs: 3_000, totalMs: 10_000 };

export async function postWebhook(
  target: JudgedTarget,
  body: string,
  headers: Record<string, string>,
  timeouts: WebhookTimeouts = DEFAULT_WEBHOOK_TIMEOUTS,
  send: JudgedFetch = judgedFetch,
): Promise<WebhookOutcome> {
  let response: Response;
  try {
    response = await send(target, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeouts.totalMs),
      connectTimeoutMs: Math.min(timeouts.connectMs, timeouts.totalMs),
    });
  } catch (error) {
    if (error instanceof OutboundConnectError) return { kind: "failed", httpStatus: null, error: error.kind };
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
