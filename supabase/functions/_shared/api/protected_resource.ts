/**
 * Where MCP clients discover how to get an access token for `{base_url}/mcp` (RFC 9728). A function cannot
 * serve the host's root `/.well-known/...`, so the document lives under `{base_url}`, and every 401 of /mcp
 * names it in its `WWW-Authenticate` challenge (the MCP SDK client fetches exactly that URL). It is served
 * at `{base_url}/.well-known/oauth-protected-resource/mcp` (the path-suffixed form RFC 9728 builds for the
 * resource `/mcp`, with `{base_url}` in place of the origin) and at `{base_url}/.well-known/oauth-protected-resource`.
 */
import { protectedResourceMetadata } from "../contract/protected_resource.ts";
import { sessionIssuer } from "../session/jwt.ts";
import type { ApiContext } from "./context.ts";
import { publicBaseUrl } from "./public_url.ts";

export function protectedResourceMetadataUrl(): string {
  return `${publicBaseUrl()}/.well-known/oauth-protected-resource/mcp`;
}

/** The metadata document; public, cacheable and readable from any origin (browser-based MCP clients). */
export function protectedResourceHandler(c: ApiContext): Response {
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(protectedResourceMetadata(publicBaseUrl(), sessionIssuer()));
}
