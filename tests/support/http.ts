/** Small HTTP helpers for end-to-end tests. */

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  init: RequestInit & { apiKey?: string; json?: unknown } = {},
): Promise<JsonResponse<T>> {
  const headers = new Headers(init.headers);
  if (init.apiKey) headers.set("x-api-key", init.apiKey);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { raw: text };
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}
