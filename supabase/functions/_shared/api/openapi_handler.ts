import type { ApiContext } from "./context.ts";
import { openApiDocument } from "../contract/openapi.ts";

/** Serves the OpenAPI document with the server URL this request came through. */
export function openApiHandler(c: ApiContext): Response {
  const url = new URL(c.req.url);
  const forwardedHost = c.req.header("x-forwarded-host");
  const origin = forwardedHost
    ? `${c.req.header("x-forwarded-proto") ?? "https"}://${forwardedHost}`
    : url.origin;
  const base = `${origin}/functions/v1/api-v1`;
  return c.json(openApiDocument(base));
}
