import type { ApiContext } from "./context.ts";
import { openApiDocument } from "../contract/openapi.ts";
import { publicBaseUrl } from "./public_url.ts";

/** Serves the OpenAPI document with the configured public URL as its server. */
export function openApiHandler(c: ApiContext): Response {
  return c.json(openApiDocument(publicBaseUrl()));
}
