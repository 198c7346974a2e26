/**
 * send-org-invite: emails a pending organisation invitation through Supabase Auth.
 *
 * The database decides who may send (`invitation_for_sending`: owners and admins, pending and unexpired
 * only; 403 for a plain member of the organisation, 404 for everything else), then reserves one invite mail
 * under the per-account daily and project-wide hourly caps (`reserve_invite_mail`; over a cap the answer is
 * `rate_limited` and Auth is not called), and records the send (`mark_invitation_emailed`) only after Auth
 * accepted it. When the address is already registered or Auth fails, the invitation stays a copy-link and
 * the reservation is kept: an `existing_account` answer tells whether an address has an account, so such a
 * probe uses the allowance as a sent mail does. The mail bookkeeping runs as service_role with the
 * verified JWT's account: a user has no reason to call those functions.
 */
import { z } from "zod";
import { config } from "../config.ts";
import { asAccount, asService } from "../db/client.ts";
import { inDatabase } from "../http/in_database.ts";
import { readJsonBody } from "../http/json_body.ts";
import { parseWith } from "../http/validation.ts";
import type { SessionContext } from "../session/middleware.ts";
import { type AuthInviteRequest, type AuthInviteResult, inviteUserByEmail } from "./auth_admin.ts";

export const sendInviteBody = z.object({
  invitationId: z.guid({ message: "must be an invitation id (a UUID)" }),
});

export type SendInviteOutcome =
  | { sent: true }
  | { sent: false; reason: "existing_account" | "send_failed" | "rate_limited" };

interface SendableInvitation {
  id: string;
  organization_id: string;
  email: string;
  token: string;
}

function invitationForSending(userId: string, invitationId: string): Promise<SendableInvitation> {
  return inDatabase(async () => {
    const [row] = await asAccount(userId, (tx) =>
      tx<SendableInvitation[]>`
        select id, organization_id, email, token from public.invitation_for_sending(${invitationId})`);
    return row;
  });
}

/** One invite mail under both caps, or false when a cap is reached. */
function reserveInviteMail(userId: string, invitationId: string): Promise<boolean> {
  return inDatabase(async () => {
    const [row] = await asService((tx) =>
      tx<{ reserved: boolean }[]>`select private.reserve_invite_mail(${userId}, ${invitationId}) as reserved`
    );
    return row.reserved;
  });
}

function markInvitationEmailed(userId: string, invitationId: string): Promise<void> {
  return inDatabase(async () => {
    await asService((tx) => tx`select private.mark_invitation_emailed(${userId}, ${invitationId})`);
  });
}

/** The app's accept page for an invitation token, e.g. `https://app.example/accept-invite?token=…`. */
export function acceptInvitationLink(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, "")}/accept-invite?token=${encodeURIComponent(token)}`;
}

export async function sendOrganizationInvite(
  userId: string,
  invitationId: string,
  invite: (request: AuthInviteRequest) => Promise<AuthInviteResult> = inviteUserByEmail,
): Promise<SendInviteOutcome> {
  const invitation = await invitationForSending(userId, invitationId);
  const appUrl = config.appUrl();
  if (!appUrl) {
    console.error("[send-org-invite] APP_URL is not set; cannot build the invitation link");
    return { sent: false, reason: "send_failed" };
  }
  if (!await reserveInviteMail(userId, invitation.id)) return { sent: false, reason: "rate_limited" };
  const result = await invite({
    email: invitation.email,
    redirectTo: acceptInvitationLink(appUrl, invitation.token),
    data: { organization_id: invitation.organization_id, invitation_id: invitation.id },
  });
  // The answer helps the inviter, and it tells whether an address has an account: such a probe uses the
  // allowance as a sent mail does (the reservation is kept).
  if (result === "existing_account") return { sent: false, reason: "existing_account" };
  if (result !== "sent") return { sent: false, reason: "send_failed" };
  await markInvitationEmailed(userId, invitation.id);
  return { sent: true };
}

export async function sendOrgInviteHandler(c: SessionContext): Promise<Response> {
  const body = parseWith(sendInviteBody, await readJsonBody(c.req.raw), "body");
  return c.json(await sendOrganizationInvite(c.get("userId"), body.invitationId));
}
