/** REST handlers for the watchlist: HTTP in, service call, JSON out. */
import { readJsonBody } from "../http/json_body.ts";
import { parseWith } from "../http/validation.ts";
import { addDomains, listWatchlist, removeDomain } from "../watchlist/service.ts";
import type { ApiContext } from "./context.ts";
import { addDomainsBody, listQuery } from "../contract/schemas.ts";

export async function listDomainsHandler(c: ApiContext): Promise<Response> {
  const query = parseWith(listQuery, c.req.query(), "query");
  return c.json(await listWatchlist(c.get("account").userId, query));
}

export async function addDomainsHandler(c: ApiContext): Promise<Response> {
  const body = parseWith(addDomainsBody, await readJsonBody(c.req.raw), "body");
  return c.json(await addDomains(c.get("account").userId, body.domains));
}

export async function removeDomainHandler(c: ApiContext): Promise<Response> {
  return c.json(await removeDomain(c.get("account").userId, c.req.param("name") ?? ""));
}
