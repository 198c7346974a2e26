/**
 * The Alerts screen's Email section: the account's own address (on by default, every plan) and, on Pro and
 * higher, up to 5 extra addresses, each pending until the link mailed to it is followed. Each address has
 * its events, reminder days, a test, a delivery log with redelivery, and says when it stopped and why
 * (unsubscribed from a mail, or its mails bounced). A Free account sees what Pro adds, without a form.
 * Extra addresses are only ever shown masked (a•••@example.com); the own address comes from the session.
 */
import type { Session } from "@supabase/supabase-js";
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { operatorPlanChange } from "../data/errors.ts";
import type { EmailChannel, EmailChannels, EmailDeliveryPage } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, EventTypePicker, formatTime, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { ReminderDaysForm } from "../ui/reminder_days.tsx";
import { Table } from "../ui/table.tsx";

/** What the address's state means, in one sentence. */
export function emailStateText(channel: EmailChannel): string {
  if (channel.status === "stopped") {
    return channel.stopped_reason === "bounced"
      ? `Stopped ${formatTime(channel.stopped_at)}: its mail server refused our mails 3 times in a row. ` +
        "Check the address, then switch it on again."
      : `Stopped ${formatTime(channel.stopped_at)}: someone unsubscribed it from a mail.` +
        (channel.is_account
          ? " Switch it on again to get alerts here."
          : " Switching it on mails a new link.");
  }
  if (channel.status === "pending") {
    return channel.confirmation_sent_at
      ? `Waiting for confirmation: we mailed a link to it (it works until ${
        formatTime(channel.confirmation_expires_at)
      }).`
      : "Waiting for confirmation: the link is being mailed to it.";
  }
  return channel.enabled ? "Alerts are on." : "Alerts are switched off.";
}

function EmailLog({ channel, title }: { channel: EmailChannel; title: string }) {
  const [page, setPage] = useState<EmailDeliveryPage | null>(null);
  const { error, act } = useAction();
  const load = () => act(async () => setPage(await api.emailDeliveries(channel.id)));
  useEffect(() => void load(), [channel.id]);
  return (
    <div class="log">
      <h4>Delivery log of {title}</h4>
      <ErrorNote error={error} />
      {page && page.deliveries.length === 0 ? <p class="empty">No mails yet.</p> : null}
      {page && page.deliveries.length > 0
        ? (
          <Table columns={["Event", "Name", "Status", "Last attempt"]} actions>
            {page.deliveries.map((d) => {
              const last = d.attempts?.[0];
              return (
                <tr key={d.id}>
                  <td>{d.event_type}</td>
                  <td>{String(d.domain_name ?? "—")}</td>
                  <td>{d.status}</td>
                  <td>
                    {last
                      ? `${last.outcome}${last.smtp_code ? ` (SMTP ${last.smtp_code})` : ""}, ${
                        formatTime(last.attempted_at)
                      }`
                      : "—"}
                  </td>
                  <td>
                    <ActButton
                      act={act}
                      variant="link"
                      label={`Send again ${d.event_type} of ${formatTime(d.created_at)}`}
                      run={async () => {
                        await api.redeliverEmail(d.id);
                        await load();
                      }}
                    >
                      Send again
                    </ActButton>
                  </td>
                </tr>
              );
            })}
          </Table>
        )
        : null}
      <button type="button" class="link" onClick={load}>Refresh the log</button>
    </div>
  );
}

function EmailCard(
  { channel, title, eventTypes, onChange }: {
    channel: EmailChannel;
    title: string;
    eventTypes: string[];
    onChange: () => void;
  },
) {
  const [days, setDays] = useState(channel.expiring_days.join(", "));
  const [note, setNote] = useState<string | null>(null);
  const [showLog, setShowLog] = useState(false);
  const { busy, error, act } = useAction();
  const switchedOn = channel.enabled && channel.status !== "stopped";
  return (
    <li class="card">
      <h3>{title}</h3>
      <p class="muted" role="status">{emailStateText(channel)}</p>
      <ErrorNote error={error} />
      {note ? <Notice>{note}</Notice> : null}
      <EventTypePicker
        legend={`Email events for ${title}`}
        all={eventTypes}
        chosen={channel.event_types}
        onChange={(next) =>
          act(async () => {
            await api.updateEmailAddress(channel.id, { eventTypes: next });
            onChange();
          })}
      />
      <ReminderDaysForm
        label={`Expiry reminders for ${title} (days before)`}
        days={days}
        onDays={setDays}
        busy={busy}
        onSave={(list) =>
          act(async () => {
            await api.updateEmailAddress(channel.id, { expiringDays: list });
            setNote("Reminder days saved.");
          })}
      />
      <div class="row">
        {channel.status === "active"
          ? (
            <ActButton
              act={act}
              busy={busy}
              label={`Send test mail to ${title}`}
              run={async () => {
                await api.sendEmailTest(channel.id);
                setNote(
                  "Test mail queued: it arrives within about 5 minutes (mails are gathered into digests).",
                );
              }}
            >
              Send test mail
            </ActButton>
          )
          : null}
        {channel.status === "pending"
          ? (
            <ActButton
              act={act}
              busy={busy}
              label={`Mail the confirmation link to ${title} again`}
              run={async () => {
                await api.resendEmailConfirmation(channel.id);
                setNote("A new confirmation link is on its way.");
                onChange();
              }}
            >
              Resend link
            </ActButton>
          )
          : null}
        <ActButton
          act={act}
          busy={busy}
          label={`${switchedOn ? "Switch off" : "Switch on"} email alerts to ${title}`}
          run={async () => {
            await api.updateEmailAddress(channel.id, { enabled: !switchedOn });
            onChange();
          }}
        >
          {switchedOn ? "Switch off" : "Switch on"}
        </ActButton>
        <button
          type="button"
          class="secondary"
          aria-expanded={showLog}
          aria-label={`Delivery log of ${title}`}
          onClick={() => setShowLog(!showLog)}
        >
          Delivery log
        </button>
        {channel.is_account ? null : (
          <ActButton
            act={act}
            busy={busy}
            variant="secondary danger"
            label={`Remove ${title}`}
            run={async () => {
              await api.deleteEmailAddress(channel.id);
              onChange();
            }}
          >
            Remove
          </ActButton>
        )}
      </div>
      {showLog ? <EmailLog channel={channel} title={title} /> : null}
    </li>
  );
}

export function EmailAlerts({ session, eventTypes }: { session: Session; eventTypes: string[] }) {
  const [data, setData] = useState<EmailChannels | null>(null);
  const [address, setAddress] = useState("");
  const [chosen, setChosen] = useState<string[]>(["domain.available"]);
  const [added, setAdded] = useState<string | null>(null);
  const load = useAction();
  const add = useAction();
  const reload = () => load.act(async () => setData(await api.emailChannels()));
  useEffect(() => void reload(), []);

  const own = data?.channels.find((channel) => channel.is_account);
  const extra = data?.channels.filter((channel) => !channel.is_account) ?? [];
  return (
    <div>
      <h2>Email</h2>
      <ErrorNote error={load.error} />
      <p>
        Alerts by email on every plan. Events for one address within 5 minutes arrive as one mail, and every
        mail has a one-click unsubscribe link.
      </p>
      <ul class="plain">
        {own
          ? (
            <EmailCard
              key={own.id + own.status + own.enabled + own.event_types.join()}
              channel={own}
              title={`Your address ${session.user.email ?? ""}`.trim()}
              eventTypes={eventTypes}
              onChange={reload}
            />
          )
          : null}
        {extra.map((channel) => (
          <EmailCard
            key={channel.id + channel.status + channel.enabled + channel.event_types.join()}
            channel={channel}
            title={channel.address_masked ?? "Extra address"}
            eventTypes={eventTypes}
            onChange={reload}
          />
        ))}
      </ul>
      {data && data.extra_allowed === 0
        ? (
          <div class="note upsell">
            <strong>More addresses come with Pro.</strong>
            <span>
              Pro sends email alerts to up to 5 more addresses (a team inbox, a colleague), each after its
              owner confirms it from a link we mail. {operatorPlanChange}
            </span>
          </div>
        )
        : null}
      {data && data.extra_allowed > 0
        ? (
          extra.length >= data.extra_allowed
            ? <p class="muted">You have {data.extra_allowed} extra addresses, the most your plan allows.</p>
            : (
              <Form
                class="card"
                onSubmit={() =>
                  add.act(async () => {
                    setAdded(null);
                    const channel = await api.addEmailAddress(address, chosen);
                    setAdded(channel.address_masked);
                    setAddress("");
                    reload();
                  })}
              >
                <h3>Add an address</h3>
                <p class="muted">
                  We mail a confirmation link to it; alerts go there once its owner follows the link (within
                  24 hours). Up to {data.extra_allowed} extra addresses.
                </p>
                <Field label="Email address" type="email" value={address} onValue={setAddress} required />
                <EventTypePicker
                  legend="Events for the new address"
                  all={eventTypes}
                  chosen={chosen}
                  onChange={setChosen}
                />
                <button type="submit" disabled={add.busy}>Add address</button>
                <ErrorNote error={add.error} />
                {added ? <Notice>Confirmation link mailed to {added}.</Notice> : null}
              </Form>
            )
        )
        : null}
    </div>
  );
}
