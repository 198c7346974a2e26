// api-v1: the REST API and the MCP tool server, authenticated by x-api-key. Wiring only.
import { Hono } from "hono";
import type { ApiEnv } from "../_shared/api/context.ts";
import { authorizeRequest } from "../_shared/api/middleware.ts";
import { errorHandler, methodNotAllowed, notFound, requestId } from "../_shared/http/pipeline.ts";
import { checkDomainHandler } from "../_shared/api/check_handler.ts";
import { mcpHandler } from "../_shared/api/mcp_handler.ts";
import { openApiHandler } from "../_shared/api/openapi_handler.ts";
import {
  addDomainsHandler,
  listDomainsHandler,
  removeDomainHandler,
} from "../_shared/api/watchlist_handlers.ts";

const app = new Hono<ApiEnv>().basePath("/api-v1");

app.use("*", requestId());
app.onError(errorHandler("api-v1"));
app.notFound(notFound());

app.get("/openapi.json", openApiHandler);
app.all("/mcp", mcpHandler);
// Checks the key and counts the request itself, in the same round trip as the page.
app.get("/domains", listDomainsHandler);

app.use("*", authorizeRequest);
app.post("/domains", addDomainsHandler);
app.all("/domains", methodNotAllowed(["GET", "POST"]));
app.delete("/domains/:name", removeDomainHandler);
app.all("/domains/:name", methodNotAllowed(["DELETE"]));
app.get("/check/:domain", checkDomainHandler);
app.all("/check/:domain", methodNotAllowed(["GET"]));

Deno.serve(app.fetch);
