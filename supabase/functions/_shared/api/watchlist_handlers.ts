/** REST handlers for the watchlist: HTTP in, service call, JSON out. */
import { inDatabase } from "../http/in_database.ts";
import { readJsonBody } from "../http/json_body.ts";
import { parseWith } from "../http/validation.ts";
import {
  addDomains,
  type ListStatement,
  listWatchlistStatement,
  removeDomain,
  watchlistPageFrom,
} from "../watchlist/service.ts";
import { authorizeAndQuery } from "./api_access.ts";
import type { ApiContext } from "./context.ts";
import { admitAuthorized, authorizeRequest } from "./middleware.ts";
import { addDomainsBody, listQuery } from "../contract/schemas.ts";

/**
 * GET /domains, wired before the shared `authorizeRequest` middleware: it checks the key, counts the
 * request and reads the page as the account in one round trip (`authorizeAndQuery`). A query that is not
 * valid is answered as on every other route: the key check first (401/403/429), then the 400.
 */
export async function listDomainsHandler(c: ApiContext): Promise<Response> {
  let page: ListStatement;
  try {
    page = listWatchlistStatement(parseWith(listQuery, c.req.query(), "query"));
  } catch (error) {
    await authorizeRequest(c, () => Promise.resolve());
    throw error;
  }
  const result = await inDatabase(() => authorizeAndQuery(c.req.header("x-api-key"), page.statement));
  admitAuthorized(c, result.authorized);
  return c.json(watchlistPageFrom(result.rows, page.limit));
}

export async function addDomainsHandler(c: ApiContext): Promise<Response> {
  const body = parseWith(addDomainsBody, await readJsonBody(c.req.raw), "body");
  return c.json(await addDomains(c.get("account").userId, body.domains));
}

export async function removeDomainHandler(c: ApiContext): Promise<Response> {
  return c.json(await removeDomain(c.get("account").userId, c.req.param("name") ?? ""));
}
