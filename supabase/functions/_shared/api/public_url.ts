import type { Context } from "hono";

/**
 * `{base_url}`: api-v1's URL as its callers address it (`<origin>/functions/v1/api-v1`), from the request's
 * own URL or the forwarding proxy's `X-Forwarded-Host` and `-Proto`. Everything this function publishes about
 * itself (the OpenAPI servers, the MCP resource and its metadata) is built from it.
 */
export function publicBaseUrl(c: Context): string {
  const forwardedHost = c.req.header("x-forwarded-host");
  const origin = forwardedHost
    ? `${c.req.header("x-forwarded-proto") ?? "https"}://${forwardedHost}`
    : new URL(c.req.url).origin;
  return `${origin}/functions/v1/api-v1`;
}
