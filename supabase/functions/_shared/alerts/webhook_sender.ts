/**
 * One webhook POST: 10 s for the whole exchange, redirects not followed (a 3xx is a failure), success only
 * on 2xx. The response body is not read beyond what closing the connection needs.
 */

export type WebhookOutcome =
  | { kind: "delivered"; httpStatus: number }
  | { kind: "failed"; httpStatus: number | null; error: string };

export const WEBHOOK_TIMEOUT_MS = 10_000;

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<WebhookOutcome> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
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
