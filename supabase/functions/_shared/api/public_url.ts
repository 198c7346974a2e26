import { config } from "../config.ts";

/**
 * `{base_url}`: api-v1's public URL, `<PROJECT_PUBLIC_URL or SUPABASE_URL>/functions/v1/api-v1`. Everything
 * this function publishes about itself (the OpenAPI servers, the MCP resource, its metadata and the
 * `WWW-Authenticate` challenge that names it) is built from configuration, never from a request's `Host` or
 * `X-Forwarded-Host`/`-Proto`: those are the caller's to write, and the metadata is cached for an hour.
 */
export function publicBaseUrl(): string {
  return `${config.projectPublicUrl().replace(/\/+$/, "")}/functions/v1/api-v1`;
}
