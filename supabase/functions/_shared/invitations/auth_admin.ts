/**
 * The one call send-org-invite makes to Supabase Auth's admin API: `inviteUserByEmail`, through supabase-js
 * with the service-role key (`POST <AUTH_BASE_URL>/auth/v1/invite`). The answer is reduced to what the
 * caller decides on; nothing secret is logged.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { config } from "../config.ts";

export type AuthInviteResult = "sent" | "existing_account" | "failed";

export interface AuthInviteRequest {
  email: string;
  redirectTo: string;
  data: Record<string, unknown>;
}

/** How long one call to Auth may take before it counts as a failed send. */
export const authTimeoutMs = 10_000;

let cached: { url: string; key: string; client: SupabaseClient } | undefined;

function adminClient(url: string, key: string): SupabaseClient {
  if (cached?.url === url && cached.key === key) return cached.client;
  const client = createClient(url, key, {
    auth: { autoRefreshToken: false, persistSession: false },
    global: {
      fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(authTimeoutMs) }),
    },
  });
  cached = { url, key, client };
  return client;
}

/** Asks Auth to email an invitation. `existing_account` when the address is already registered. */
export async function inviteUserByEmail(request: AuthInviteRequest): Promise<AuthInviteResult> {
  const serviceRoleKey = config.serviceRoleKey();
  if (!serviceRoleKey) {
    console.error("[send-org-invite] SUPABASE_SERVICE_ROLE_KEY is not set; cannot call Supabase Auth");
    return "failed";
  }
  try {
    const { error } = await adminClient(config.authBaseUrl(), serviceRoleKey).auth.admin.inviteUserByEmail(
      request.email,
      { redirectTo: request.redirectTo, data: request.data },
    );
    if (!error) return "sent";
    if (error.status === 422 && error.code === "email_exists") return "existing_account";
    console.error(
      `[send-org-invite] Auth refused the invite for ${request.email}: ` +
        `status ${error.status ?? "none"}, code ${error.code ?? "none"}, ${error.message}`,
    );
    return "failed";
  } catch (error) {
    console.error(
      `[send-org-invite] Auth call for ${request.email} failed: ${(error as Error)?.message ?? error}`,
    );
    return "failed";
  }
}
