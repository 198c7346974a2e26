import { checkDomainName } from "../check/service.ts";
import type { ApiContext } from "./context.ts";

export async function checkDomainHandler(c: ApiContext): Promise<Response> {
  return c.json(await checkDomainName(c.req.param("domain") ?? "", c.get("account").userId));
}
