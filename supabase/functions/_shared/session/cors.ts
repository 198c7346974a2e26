/**
 * CORS for the session endpoints, which the browser app calls with supabase-js. Only the configured app
 * origins (`APP_ORIGINS`, default `APP_URL`'s origin) get CORS headers; everyone else gets none.
 */
import { config } from "../config.ts";

export const allowedMethods = "POST, OPTIONS";
/** The request headers supabase-js sends to edge functions. */
export const allowedRequestHeaders = "authorization, x-client-info, apikey, content-type";
/** Response headers the app may read (the download's file name, rate-limit details). */
export const exposedResponseHeaders =
  "Content-Disposition, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id";
export const preflightMaxAgeSeconds = 86_400;

/** The request's Origin when it is one of the configured app origins. */
export function allowedOrigin(origin: string | null | undefined): string | undefined {
  if (!origin) return undefined;
  return config.appOrigins().includes(origin) ? origin : undefined;
}

/** Headers of a successful preflight answer for an allowed origin. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": allowedMethods,
    "Access-Control-Allow-Headers": allowedRequestHeaders,
    "Access-Control-Max-Age": String(preflightMaxAgeSeconds),
    "Vary": "Origin",
  };
}

/** Headers added to every actual response for an allowed origin. */
export function responseHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": exposedResponseHeaders,
    "Vary": "Origin",
  };
}
