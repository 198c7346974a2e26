/**
 * An organization's email addresses and Telegram group, on its page (issue 42, docs/organizations.md "Team
 * channels and alerts"). Every member sees them: addresses masked (a•••@example.com), the group without its
 * chat ID. Owners and admins add, switch, resend and remove addresses (each confirmed by the link mailed to
 * it), and link or unlink the group (a one-time group link: Telegram adds the bot to the group the person
 * picks). The database holds every rule (roles, the owner's plan's number of addresses); this shows its
 * answers.
 */
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import type { Organization, TeamEmailChannels, TeamTelegramGroup } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, formatTime, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { emailStateText } from "./alerts_email.tsx";

const managesOf = (org: Organization) => org.role === "owner" || org.role === "admin";

export function TeamEmailAddresses({ org }: { org: Organization }) {
  const [list, setList] = useState<TeamEmailChannels | null>(null);
  const [address, setAddress] = useState("");
  const { busy, error, act } = useAction();
  const reload = () => act(async () => setList(await api.teamEmailAddresses(org.id)));
  useEffect(() => void reload(), [org.id]);
  const manages = managesOf(org);
  const channels = list?.channels ?? [];
  return (
    <div aria-labelledby="team-email-title" role="group">
      <h3 id="team-email-title">Email addresses</h3>
      <ul class="plain">
        {channels.map((channel) => (
          <li key={channel.id} class="row">
            <span>
              {channel.address_masked} · {channel.event_types.join(", ")} · {emailStateText(channel)}
            </span>
            {manages && channel.status === "pending"
              ? (
                <ActButton
                  act={act}
                  busy={busy}
                  variant="link"
                  label={`Mail the confirmation link to ${channel.address_masked} again`}
                  run={async () => {
                    await api.resendTeamEmailConfirmation(org.id, channel.id);
                    await reload();
                  }}
                >
                  Resend link
                </ActButton>
              )
              : null}
            {manages && channel.status !== "pending"
              ? (
                <ActButton
                  act={act}
                  busy={busy}
                  variant="link"
                  label={`${
                    channel.enabled && channel.status === "active" ? "Switch off" : "Switch on"
                  } the team address ${channel.address_masked}`}
                  run={async () => {
                    await api.setTeamEmailEnabled(
                      org.id,
                      channel.id,
                      !(channel.enabled && channel.status === "active"),
                    );
                    await reload();
                  }}
                >
                  {channel.enabled && channel.status === "active" ? "Switch off" : "Switch on"}
                </ActButton>
              )
              : null}
            {manages
              ? (
                <ActButton
                  act={act}
                  busy={busy}
                  variant="link danger"
                  label={`Remove the team address ${channel.address_masked}`}
                  run={async () => {
                    await api.deleteTeamEmailAddress(org.id, channel.id);
                    await reload();
                  }}
                >
                  Remove
                </ActButton>
              )
              : null}
          </li>
        ))}
      </ul>
      {list && channels.length === 0 ? <p class="empty">No team email address yet.</p> : null}
      {manages && list
        ? (list.allowed === 0
          ? <p class="muted">Team email addresses come with the owner's Pro plan and higher.</p>
          : (
            <Form
              class="row"
              onSubmit={() =>
                act(async () => {
                  await api.addTeamEmailAddress(org.id, address);
                  setAddress("");
                  await reload();
                })}
            >
              <Field label="Team email address" type="email" value={address} onValue={setAddress} />
              <button type="submit" disabled={busy || channels.length >= list.allowed}>
                Add team address
              </button>
              <span class="muted">
                {channels.length} of {list.allowed}; each gets a confirmation link first.
              </span>
            </Form>
          ))
        : null}
      <ErrorNote error={error} />
    </div>
  );
}

export function TeamTelegram({ org }: { org: Organization }) {
  const [group, setGroup] = useState<TeamTelegramGroup | null | undefined>(undefined);
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const { busy, error, act } = useAction();
  const reload = () => act(async () => setGroup(await api.teamTelegramGroup(org.id)));
  useEffect(() => void reload(), [org.id]);
  const manages = managesOf(org);
  return (
    <div aria-labelledby="team-telegram-title" role="group">
      <h3 id="team-telegram-title">Telegram group</h3>
      {group
        ? (
          <div class="row">
            <span>
              A group is linked (by {group.linked_by ?? "a former member"}, {formatTime(group.linked_at)}) ·
              {" "}
              {group.event_types.join(", ")}
              {group.enabled ? "" : " (off)"}
            </span>
            {manages
              ? (
                <>
                  <ActButton
                    act={act}
                    busy={busy}
                    variant="link"
                    label={`${group.enabled ? "Switch off" : "Switch on"} the team's Telegram group`}
                    run={async () => {
                      await api.setTeamTelegramEnabled(org.id, !group.enabled);
                      await reload();
                    }}
                  >
                    {group.enabled ? "Switch off" : "Switch on"}
                  </ActButton>
                  <ActButton
                    act={act}
                    busy={busy}
                    variant="link danger"
                    label="Unlink the team's Telegram group"
                    run={async () => {
                      await api.unlinkTeamTelegramGroup(org.id);
                      await reload();
                    }}
                  >
                    Unlink
                  </ActButton>
                </>
              )
              : null}
          </div>
        )
        : group === null
        ? <p class="empty">No Telegram group is linked.</p>
        : null}
      {manages && group === null
        ? (
          <>
            <p>Open the link, pick the group and add the bot; the group gets {org.name}'s alerts.</p>
            <div class="row">
              <ActButton
                act={act}
                busy={busy}
                variant=""
                run={async () => setLink(await api.createTeamTelegramLink(org.id))}
              >
                Link a Telegram group
              </ActButton>
              <button type="button" class="secondary" disabled={busy} onClick={reload}>
                I added the bot
              </button>
            </div>
            {link
              ? (
                <p>
                  <a href={link.url} target="_blank" rel="noopener">Add the bot to a group in Telegram</a>
                  {" "}
                  <span class="muted">(the link works once, until {formatTime(link.expires_at)})</span>
                </p>
              )
              : null}
          </>
        )
        : null}
      <ErrorNote error={error} />
    </div>
  );
}
