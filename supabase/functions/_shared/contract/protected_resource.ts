/**
 * The OAuth 2.0 Protected Resource Metadata (RFC 9728) of the MCP endpoint: which authorization server
 * issues its access tokens. MCP clients read it to start the OAuth flow (MCP authorization, 2025-11-25).
 * Pure.
 */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  resource_name: string;
  resource_documentation: string;
}

/**
 * `baseUrl` is `{base_url}`; `authorizationServer` is the issuer of the project's Supabase Auth
 * (`<AUTH_BASE_URL or SUPABASE_URL>/auth/v1`). No `scopes_supported`: Supabase Auth's scopes (openid, email,
 * profile, phone) say nothing about this API, and a client that finds none asks for the server's default.
 */
export function protectedResourceMetadata(
  baseUrl: string,
  authorizationServer: string,
): ProtectedResourceMetadata {
  return {
    resource: `${baseUrl}/mcp`,
    authorization_servers: [authorizationServer],
    bearer_methods_supported: ["header"],
    resource_name: "Domain Watchlist MCP tool server",
    resource_documentation: `${baseUrl}/openapi.json`,
  };
}
