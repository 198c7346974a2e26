/**
 * GoTrue's identity linking under `/user/identities` (supabase/auth `internal/api/identity.go`, routed behind
 * requireAuthentication and requireManualLinkingEnabled): with `enable_manual_linking` off (this project's
 * setting and the suite's) every path is 404 `manual_linking_disabled` "Manual linking is disabled". With it
 * on, `DELETE /user/identities/{id}` unlinks one of the caller's identities (at least one must stay: 422
 * `single_identity_not_deletable`; another user's or none: 422 `identity_not_found`), and linking an OAuth
 * provider (`GET /user/identities/authorize`) is 400 `provider_disabled` as no external provider is on here.
 */
import { authenticatedCaller } from "./caller.ts";
import { authDatabase } from "./database.ts";
import { AuthError, badRequest, jsonResponse, unprocessable } from "./errors.ts";
import { authSettings } from "./project_settings.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function handleIdentities(request: Request, path: string): Promise<Response | undefined> {
  const match = path.match(/^\/user\/identities\/([^/]+)\/?$/);
  if (!match) return undefined;
  const sql = authDatabase();
  const caller = await authenticatedCaller(sql, request);
  if (!authSettings().manualLinking) {
    throw new AuthError(404, "manual_linking_disabled", "Manual linking is disabled");
  }
  const id = decodeURIComponent(match[1]);
  if (id === "authorize" && request.method === "GET") {
    const provider = new URL(request.url).searchParams.get("provider") ?? "";
    throw badRequest("validation_failed", `Unsupported provider: ${provider}`);
  }
  if (request.method !== "DELETE") return undefined;
  if (!uuidPattern.test(id)) throw new AuthError(404, "validation_failed", "identity_id must be an UUID");
  const identities = await sql<{ id: string; provider: string }[]>`
    select id, provider from auth.identities where user_id = ${caller.user.id}`;
  if (identities.length <= 1) {
    throw unprocessable(
      "single_identity_not_deletable",
      "User must have at least 1 identity after unlinking",
    );
  }
  const identity = identities.find((one) => one.id === id.toLowerCase());
  if (!identity) throw unprocessable("identity_not_found", "Identity doesn't exist");
  await sql`delete from auth.identities where id = ${identity.id}`;
  return jsonResponse(request, {});
}
