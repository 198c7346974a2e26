// api-v1: the REST API and the MCP tool server. Wiring only: each route names what guards it.
import { Hono } from "hono";
import type { ApiEnv } from "../_shared/api/context.ts";
import {
  admitRequest,
  oauthChallenge,
  requireApiKey,
  requireApiKeyOrToken,
} from "../_shared/api/middleware.ts";
import { errorHandler, methodNotAllowed, notFound, requestId } from "../_shared/http/pipeline.ts";
import { checkDomainHandler } from "../_shared/api/check_handler.ts";
import { mcpHandler, mcpTransportRules } from "../_shared/api/mcp_handler.ts";
import { openApiHandler } from "../_shared/api/openapi_handler.ts";
import { protectedResourceHandler } from "../_shared/api/protected_resource.ts";
import {
  addDomainsHandler,
  listDomainsHandler,
  removeDomainHandler,
} from "../_shared/api/watchlist_handlers.ts";

const app = new Hono<ApiEnv>().basePath("/api-v1");

app.use("*", requestId());
app.onError(errorHandler("api-v1"));
app.notFound(notFound());

// Public: the contract, and (public by nature, RFC 9728) where MCP clients learn which authorization
// server issues access tokens for /mcp.
app.get("/openapi.json", openApiHandler);
app.get("/.well-known/oauth-protected-resource", protectedResourceHandler);
app.get("/.well-known/oauth-protected-resource/mcp", protectedResourceHandler);

// MCP: method and Origin first, then an API key or an OAuth access token; the handler admits the account
// in the same round trip as a list_watchlist page. Every 401 carries the OAuth challenge.
app.all("/mcp", mcpTransportRules, oauthChallenge, requireApiKeyOrToken, mcpHandler);

// REST: an API key. GET /domains admits the account in the same round trip as the page.
app.get("/domains", requireApiKey, listDomainsHandler);
app.post("/domains", requireApiKey, admitRequest, addDomainsHandler);
app.all("/domains", requireApiKey, admitRequest, methodNotAllowed(["GET", "POST"]));
app.delete("/domains/:name", requireApiKey, admitRequest, removeDomainHandler);
app.all("/domains/:name", requireApiKey, admitRequest, methodNotAllowed(["DELETE"]));
app.get("/check/:domain", requireApiKey, admitRequest, checkDomainHandler);
app.all("/check/:domain", requireApiKey, admitRequest, methodNotAllowed(["GET"]));
// Any other path: the key is checked (and the request counted) before the 404, as on every API route.
app.use("*", requireApiKey, admitRequest);

Deno.serve(app.fetch);
