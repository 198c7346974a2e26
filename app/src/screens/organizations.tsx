/** Organizations: create, members and roles, invitations by email (send-org-invite) or by copied link. */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import type { Invitation, Member, Organization } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, formatTime, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { SecretValue } from "../ui/secret_box.tsx";

const sendReasons: Record<string, string> = {
  existing_account: "That address already has an account: send the link yourself.",
  send_failed: "The invitation mail could not be sent: send the link yourself.",
  rate_limited: "Too many invitation mails for now: send the link yourself.",
};

function InvitationRow({ invitation, onChange }: { invitation: Invitation; onChange: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const { busy, error, act } = useAction();
  return (
    <li>
      <span>
        <strong>{invitation.email}</strong> ({invitation.role}) · until {formatTime(invitation.expires_at)}
        {invitation.emailed_at ? ` · emailed ${formatTime(invitation.emailed_at)}` : ""}
      </span>
      <div class="row">
        <ActButton
          act={act}
          busy={busy}
          label={`Send the invitation to ${invitation.email} by email`}
          run={async () => {
            const answer = await api.sendInvitation(invitation.id);
            // sent: the mail is on its way; otherwise the link is the way (copy-link fallback).
            if (answer.sent) {
              setNote(`Invitation mailed to ${invitation.email}.`);
              onChange();
            } else {
              setNote(sendReasons[answer.reason ?? "send_failed"] ?? sendReasons.send_failed);
              setLink(await api.invitationLink(invitation.id));
            }
          }}
        >
          Send by email
        </ActButton>
        <ActButton
          act={act}
          busy={busy}
          label={`Show link for ${invitation.email}`}
          run={async () => setLink(await api.invitationLink(invitation.id))}
        >
          Show link
        </ActButton>
        <ActButton
          act={act}
          busy={busy}
          variant="secondary danger"
          label={`Revoke the invitation of ${invitation.email}`}
          run={async () => {
            await api.revokeInvitation(invitation.id);
            onChange();
          }}
        >
          Revoke
        </ActButton>
      </div>
      <ErrorNote error={error} />
      {note ? <Notice>{note}</Notice> : null}
      {link
        ? <SecretValue label={`Invitation link for ${invitation.email}`} value={link} copyLabel="Copy link" />
        : null}
    </li>
  );
}

function OrganizationCard({ org, userId }: { org: Organization; userId: string }) {
  const [people, setPeople] = useState<Member[]>([]);
  const [pending, setPending] = useState<Invitation[]>([]);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const { busy, error, act } = useAction();
  const manages = org.role === "owner" || org.role === "admin";
  const reload = () =>
    act(async () => {
      setPeople(await api.members(org.id));
      setPending(manages ? await api.invitations(org.id) : []);
    });
  useEffect(() => void reload(), [org.id]);

  return (
    <li class="card">
      <h2>{org.name}</h2>
      <p class="muted">Your role: {org.role}</p>
      <p>
        <a href={`/organizations/${org.id}`}>Open {org.name}'s watchlist, claims and activity</a>
      </p>
      <ErrorNote error={error} />
      <h3>Members</h3>
      <ul class="plain members">
        {people.map((person) => (
          <li key={person.user_id}>
            <span>{person.display_name || person.email || person.user_id}</span>
            {org.role === "owner" && person.user_id !== userId
              ? (
                <label>
                  <span class="visually-hidden">Role of {person.email}</span>
                  <select
                    value={person.role}
                    onChange={(e) =>
                      act(async () => {
                        await api.setMemberRole(
                          org.id,
                          person.user_id,
                          (e.target as HTMLSelectElement).value,
                        );
                        await reload();
                      })}
                  >
                    <option value="owner">owner</option>
                    <option value="admin">admin</option>
                    <option value="member">member</option>
                  </select>
                </label>
              )
              : <span class="badge">{person.role}</span>}
            {(manages && person.user_id !== userId) || person.user_id === userId
              ? (
                <ActButton
                  act={act}
                  busy={busy}
                  variant="link danger"
                  run={async () => {
                    await api.removeMember(org.id, person.user_id);
                    await reload();
                  }}
                >
                  {person.user_id === userId ? "Leave" : `Remove ${person.email ?? ""}`}
                </ActButton>
              )
              : null}
          </li>
        ))}
      </ul>
      {manages
        ? (
          <>
            <h3>Invitations</h3>
            <Form
              class="row"
              onSubmit={() =>
                act(async () => {
                  const id = await api.createInvitation(org.id, email, role);
                  setEmail("");
                  await reload();
                  return id;
                })}
            >
              <Field label="Invite by email" type="email" value={email} onValue={setEmail} />
              <label class="short">
                Role
                <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              </label>
              <button type="submit" disabled={busy}>Invite</button>
            </Form>
            <ul class="plain invitations">
              {pending.map((invitation) => (
                <InvitationRow key={invitation.id} invitation={invitation} onChange={reload} />
              ))}
            </ul>
          </>
        )
        : null}
    </li>
  );
}

export function Organizations({ session }: ScreenProps) {
  const [list, setList] = useState<Organization[]>([]);
  const [name, setName] = useState("");
  const { busy, error, act } = useAction();
  const reload = () => act(async () => setList(await api.organizations(session.user.id)));
  useEffect(() => void reload(), []);
  return (
    <section>
      <h1>Organizations</h1>
      <Form
        class="card row"
        onSubmit={() =>
          act(async () => {
            await api.createOrganization(name);
            setName("");
            setList(await api.organizations(session.user.id));
          })}
      >
        <Field label="Organization name" value={name} onValue={setName} />
        <button type="submit" disabled={busy}>Create organization</button>
      </Form>
      <ErrorNote error={error} />
      {list.length === 0 ? <p class="empty">You are in no organization yet.</p> : null}
      <ul class="plain">
        {list.map((org) => <OrganizationCard key={org.id} org={org} userId={session.user.id} />)}
      </ul>
    </section>
  );
}
