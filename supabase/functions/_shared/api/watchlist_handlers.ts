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
import { authorizeAndReadPage } from "./api_access.ts";
import type { ApiContext } from "./context.ts";
import { admitAuthorized, admitCounted } from "./middleware.ts";
import { addDomainsBody, listQuery } from "../contract/schemas.ts";

/**
 * GET /domains admits the account itself (its route has no `admitRequest`): it checks the key, counts the
 * request and reads the page for the account in one round trip and one call (`authorizeAndReadPage`). A
 * query that is not valid is answered as on every other route: the admission first (401/403/429), then the
 * 400.
 */
export async function listDomainsHandler(c: ApiContext): Promise<Response> {
  let page: ListStatement;
  try {
    page = listWatchlistStatement(
      parseWith(listQuery, c.req.query(), "query"),
      c.get("credential").organizationKey,
    );
  } catch (error) {
    await admitCounted(c);
    throw error;
  }
  const result = await inDatabase(() => authorizeAndReadPage(c.get("credential"), page));
  admitAuthorized(c, result.authorized);
  return c.json(watchlistPageFrom(result.rows, page.limit));
}

export async function addDomainsHandler(c: ApiContext): Promise<Response> {
  const body = parseWith(addDomainsBody, await readJsonBody(c.req.raw), "body");
  return c.json(await addDomains(c.get("account"), body.domains));
}

export async function removeDomainHandler(c: ApiContext): Promise<Response> {
  return c.json(await removeDomain(c.get("account"), c.req.param("name") ?? ""));
}
