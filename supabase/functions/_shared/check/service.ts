/** The live check of one name, shared by REST (`GET /check/{domain}`) and MCP (`check_domain`). */
import { liveCheck } from "../availability/live_check.ts";
import type { CheckResult } from "../contract/schemas.ts";
import { normalizeDomainName } from "../domain/normalize.ts";
import { ApiError } from "../http/errors.ts";

/** `account`: the caller's account id (live checks keep a share of each registry host per account). */
export function checkDomainName(input: string, account: string): Promise<CheckResult> {
  const normalized = normalizeDomainName(input);
  if (!normalized.ok) {
    throw new ApiError("invalid_request", `"${input.slice(0, 300)}" ${normalized.reason}.`, {
      details: [{ field: "domain", message: normalized.reason }],
    });
  }
  return liveCheck(normalized.domainName, normalized.unicodeName, account);
}
