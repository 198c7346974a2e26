/**
 * The calls send-org-invite makes to Supabase Auth's admin API, through supabase-js with the project's
 * secret key (SUPABASE_SECRET_KEYS, else the legacy service-role key; service_key.ts): first `generateLink({ type: "invite" })` (`POST
 * <AUTH_BASE_URL>/auth/v1/admin/generate_link`, which sends nothing) to learn which redirect Auth would
 * really use, then `inviteUserByEmail` (`POST .../invite`), which sends the email.
 *
 * Why the first call: Auth honours `redirect_to` only when it matches the Site URL or an entry of its
 * redirect allow list, and otherwise silently falls back to the Site URL — the email would go out without
 * the invitation's `?token=`. So a redirect Auth would not honour is reported (`redirect_not_allowed`,
 * which the caller answers as `send_failed`) and no email is sent. The answer is reduced to what the
 * caller decides on; nothing secret or personal (keys, the invitation token, the invitee's address) is
 * logged: Auth's own messages pass through `errorForLog`.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { config } from "../config.ts";
import { errorForLog } from "../log_text.ts";
import { serviceKeyNotice } from "../service_key.ts";

export type AuthInviteResult = "sent" | "existing_account" | "redirect_not_allowed" | "failed";

export interface AuthInviteRequest {
  email: string;
  redirectTo: string;
  data: Record<string, unknown>;
}

/** How long one call to Auth may take before it counts as a failed send. */
export const authTimeoutMs = 10_000;

let announced = false;

/** Logs, once per isolate (at the function's start), which secret key it uses: the name, never the key. */
export function announceServiceKey(): void {
  if (announced) return;
  announced = true;
  console.log(serviceKeyNotice(config.serviceKey()));
}

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

/** A URL without its query and fragment, for logs (the invitation token is in the query). */
function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/, "");
}

/**
 * Asks Auth to email an invitation. `existing_account` when the address is already registered,
 * `redirect_not_allowed` when Auth would not send the invitee to `redirectTo` (nothing is sent then).
 */
export async function inviteUserByEmail(request: AuthInviteRequest): Promise<AuthInviteResult> {
  const serviceKey = config.serviceKey();
  if (!serviceKey) {
    console.error(
      "[send-org-invite] neither SUPABASE_SECRET_KEYS nor SUPABASE_SERVICE_ROLE_KEY is set; cannot call Supabase Auth",
    );
    return "failed";
  }
  try {
    const admin = adminClient(config.authBaseUrl(), serviceKey.key).auth.admin;
    const link = await admin.generateLink({
      type: "invite",
      email: request.email,
      options: { redirectTo: request.redirectTo, data: request.data },
    });
    if (link.error) {
      if (link.error.status === 422 && link.error.code === "email_exists") return "existing_account";
      console.error(
        `[send-org-invite] Auth refused the invite link: ` +
          `status ${link.error.status ?? "none"}, code ${link.error.code ?? "none"}, ${
            errorForLog(link.error)
          }`,
      );
      return "failed";
    }
    const redirectUsed = link.data.properties?.redirect_to ?? "";
    if (redirectUsed !== request.redirectTo) {
      console.error(
        `[send-org-invite] Auth would redirect the invitee to ${withoutQuery(redirectUsed) || "(nothing)"} ` +
          `instead of ${withoutQuery(request.redirectTo)}, losing the invitation token: add ` +
          `${
            withoutQuery(request.redirectTo)
          }** to Auth's Redirect URLs (or make APP_URL's origin its Site ` +
          "URL). Nothing was sent.",
      );
      return "redirect_not_allowed";
    }
    const { error } = await admin.inviteUserByEmail(
      request.email,
      { redirectTo: request.redirectTo, data: request.data },
    );
    if (!error) return "sent";
    if (error.status === 422 && error.code === "email_exists") return "existing_account";
    console.error(
      `[send-org-invite] Auth refused the invite: ` +
        `status ${error.status ?? "none"}, code ${error.code ?? "none"}, ${errorForLog(error)}`,
    );
    return "failed";
  } catch (error) {
    console.error(
      `[send-org-invite] the Auth call failed: ${errorForLog(error)}`,
    );
    return "failed";
  }
}
