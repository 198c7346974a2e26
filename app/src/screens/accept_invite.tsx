/** /accept-invite?token=…: sign in (or up) as the invited address, then accept. */
import type { Session } from "@supabase/supabase-js";
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";
import { SignIn } from "./sign_in.tsx";

export function AcceptInvite({ session, query }: { session: Session | null; query: URLSearchParams }) {
  const token = query.get("token") ?? "";
  const [accepted, setAccepted] = useState(false);
  const { busy, error, act } = useAction();
  // The invitation mail's link signs the invited address in (see api.sessionFromInvitationLink).
  useEffect(() => {
    if (!session) act(() => api.sessionFromInvitationLink());
  }, []);
  if (!token) {
    return (
      <section class="narrow">
        <h1>Accept an invitation</h1>
        <p>This link has no invitation in it: ask for the link again.</p>
      </section>
    );
  }
  if (!session) {
    return (
      <section class="narrow">
        <h1>Accept an invitation</h1>
        <p>Sign in, or sign up, with the address the invitation was sent to.</p>
        <SignIn embedded next={`/accept-invite?token=${encodeURIComponent(token)}`} />
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1>Accept an invitation</h1>
      <p>
        You are signed in as <strong>{session.user.email}</strong>.
      </p>
      <ErrorNote error={error} />
      {accepted
        ? (
          <Notice>
            You joined the organization. <a href="/organizations">See your organizations</a>
          </Notice>
        )
        : (
          <ActButton
            act={act}
            busy={busy}
            variant=""
            run={async () => {
              await api.acceptInvitation(token);
              setAccepted(true);
            }}
          >
            Accept invitation
          </ActButton>
        )}
    </section>
  );
}
