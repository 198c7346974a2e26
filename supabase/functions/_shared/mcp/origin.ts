/**
 * DNS-rebinding protection for the MCP endpoint: a request that carries an `Origin` header must come from
 * an allowed origin (APP_ORIGINS), or be the local server addressed by a loopback name as itself.
 * Requests without `Origin` (assistants, CLIs) are fine. Pure.
 */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isAllowedOrigin(origin: string | null, host: string | null, allowed: string[]): boolean {
  if (origin === null) return true;
  if (allowed.includes(origin)) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return loopbackHosts.has(parsed.hostname) && host !== null && parsed.host === host;
}
