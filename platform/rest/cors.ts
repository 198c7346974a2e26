/**
 * CORS of the Data API as PostgREST answers it (`src/PostgREST/Cors.hs`, wai-cors) with no
 * `server-cors-allowed-origins` set, as on Supabase: any origin (`*`), the methods PostgREST serves, the
 * request headers the browser asks for plus `Authorization`, and the response headers supabase-js reads
 * (`Content-Range` for counts). A browser's preflight (OPTIONS) is answered here, before any key check,
 * as the gateway answers it. Pure.
 */
export const allowedMethods = "GET, POST, PATCH, PUT, DELETE, OPTIONS";
export const exposedHeaders =
  "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit";
export const maxAgeSeconds = 86_400;

/** Headers added to every answer of a request that carries `Origin`. */
export function corsHeaders(): Record<string, string> {
  return { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": exposedHeaders };
}

/** The answer to OPTIONS: a CORS preflight when it is one, else PostgREST's plain `Allow`. */
export function preflightResponse(request: Request): Response {
  const origin = request.headers.get("origin");
  const requestedMethod = request.headers.get("access-control-request-method");
  if (!origin || !requestedMethod) {
    return new Response(null, { status: 200, headers: { Allow: "OPTIONS,GET,HEAD,POST,PATCH,DELETE" } });
  }
  const requested = (request.headers.get("access-control-request-headers") ?? "")
    .split(",").map((name) => name.trim()).filter(Boolean);
  return new Response(null, {
    status: 200,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": allowedMethods,
      "Access-Control-Allow-Headers": ["Authorization", ...requested].join(", "),
      "Access-Control-Max-Age": String(maxAgeSeconds),
    },
  });
}
