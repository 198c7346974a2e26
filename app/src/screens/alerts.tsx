/**
 * Alerts: email (./alerts_email.tsx) and Telegram (deep link, unlink, events, reminder days, test) for every plan; webhooks, Slack and
 * Discord for Pro and higher (create with the secret shown once, rotate, events, test, delivery log,
 * redeliver). A Free account sees what Pro adds.
 */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import type { NotificationSettings, Webhook, WebhookDeliveryPage } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, EventTypePicker, formatTime, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { ReminderDaysForm } from "../ui/reminder_days.tsx";
import { ShownOnce } from "../ui/secret_box.tsx";
import { Table } from "../ui/table.tsx";
import { Upgrade } from "../ui/upgrade.tsx";
import { eventLabel } from "../ui/event_labels.ts";
import { EmailAlerts } from "./alerts_email.tsx";

function Telegram({ userId, eventTypes }: { userId: string; eventTypes: string[] }) {
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const [days, setDays] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const { busy, error, act } = useAction();

  const reload = () =>
    act(async () => {
      const value = await api.notificationSettings();
      setSettings(value);
      setDays((value?.telegram_expiring_days ?? []).join(", "));
    });
  useEffect(() => void reload(), []);

  const linked = settings?.telegram_configured ?? false;
  return (
    <div class="card">
      <h2>Telegram</h2>
      <ErrorNote error={error} />
      {note ? <Notice>{note}</Notice> : null}
      {linked
        ? (
          <>
            <p>
              Linked {formatTime(settings!.telegram_linked_at)}.{" "}
              {settings!.telegram_enabled ? "Alerts are on." : "Alerts are paused."}
            </p>
            <EventTypePicker
              legend="Telegram events"
              all={eventTypes}
              chosen={settings!.telegram_event_types}
              onChange={(next) =>
                act(async () => {
                  await api.setTelegramEventTypes(next);
                  await reload();
                })}
            />
            <ReminderDaysForm
              label="Expiry reminders (days before, e.g. 30, 7, 1)"
              days={days}
              onDays={setDays}
              busy={busy}
              onSave={(list) =>
                act(async () => {
                  await api.setTelegramExpiringDays(list);
                  setNote("Reminder days saved.");
                  await reload();
                })}
            />
            <div class="row">
              <ActButton
                act={act}
                busy={busy}
                run={async () => {
                  await api.sendTelegramTest();
                  setNote("Test message queued: it arrives in Telegram within a minute.");
                }}
              >
                Send test message
              </ActButton>
              <ActButton
                act={act}
                busy={busy}
                run={async () => {
                  await api.setTelegramEnabled(!settings!.telegram_enabled);
                  await reload();
                }}
              >
                {settings!.telegram_enabled ? "Pause Telegram alerts" : "Resume Telegram alerts"}
              </ActButton>
              <ActButton
                act={act}
                busy={busy}
                variant="secondary danger"
                run={async () => {
                  await api.unlinkTelegram(userId);
                  setLink(null);
                  await reload();
                }}
              >
                Unlink Telegram
              </ActButton>
            </div>
          </>
        )
        : (
          <>
            <p>Get alerts in Telegram: open the link, press Start in the bot's chat, then come back here.</p>
            <div class="row">
              <ActButton
                act={act}
                busy={busy}
                variant=""
                run={async () => setLink(await api.createTelegramLink())}
              >
                Link Telegram
              </ActButton>
              <button type="button" class="secondary" disabled={busy} onClick={reload}>
                I pressed Start
              </button>
            </div>
            {link
              ? (
                <p>
                  <a href={link.url} target="_blank" rel="noopener">Open the bot in Telegram</a>{" "}
                  <span class="muted">(the link works once, until {formatTime(link.expires_at)})</span>
                </p>
              )
              : null}
          </>
        )}
    </div>
  );
}

function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const [page, setPage] = useState<WebhookDeliveryPage | null>(null);
  const { error, act } = useAction();
  const load = () => act(async () => setPage(await api.webhookDeliveries(webhook.id)));
  useEffect(() => void load(), [webhook.id]);
  return (
    <div class="log">
      <h4>Delivery log</h4>
      <ErrorNote error={error} />
      {page && page.deliveries.length === 0 ? <p class="empty">No deliveries yet.</p> : null}
      {page && page.deliveries.length > 0
        ? (
          <Table columns={["Event", "Name", "Status", "Last attempt"]} actions>
            {page.deliveries.map((d) => {
              const last = d.attempts?.[0];
              return (
                <tr key={d.id}>
                  <td>{eventLabel(d.event_type)}</td>
                  <td>{String(d.domain_name ?? "—")}</td>
                  <td>{d.status}</td>
                  <td>
                    {last
                      ? `${last.outcome}${last.http_status ? ` (HTTP ${last.http_status})` : ""}, ${
                        formatTime(last.attempted_at)
                      }`
                      : "—"}
                  </td>
                  <td>
                    <ActButton
                      act={act}
                      variant="link"
                      label={`Redeliver ${eventLabel(d.event_type)} of ${formatTime(d.created_at)}`}
                      run={async () => {
                        await api.redeliver(d.id);
                        await load();
                      }}
                    >
                      Redeliver
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

const kindLabels: Record<string, string> = { generic: "Webhook", slack: "Slack", discord: "Discord" };

function WebhookCard(
  { webhook, eventTypes, onChange }: { webhook: Webhook; eventTypes: string[]; onChange: () => void },
) {
  const [secret, setSecret] = useState<string | null>(null);
  const [days, setDays] = useState((webhook.expiring_days ?? []).join(", "));
  const [note, setNote] = useState<string | null>(null);
  const [showLog, setShowLog] = useState(false);
  const { busy, error, act } = useAction();
  const title = webhook.description || webhook.url_masked;
  return (
    <li class="card">
      <h3>{title}</h3>
      <p class="muted">
        {kindLabels[webhook.kind] ?? webhook.kind} · <code>{webhook.url_masked}</code> ·{" "}
        {webhook.enabled ? "on" : "off"}
        {webhook.kind === "generic" ? (webhook.secret_configured ? " · signed" : " · unsigned") : ""}
      </p>
      <ErrorNote error={error} />
      {note ? <Notice>{note}</Notice> : null}
      {secret ? <ShownOnce label="Signing secret" value={secret} /> : null}
      <EventTypePicker
        legend={`Events for ${title}`}
        all={eventTypes}
        chosen={webhook.event_types}
        onChange={(next) =>
          act(async () => {
            await api.updateWebhook(webhook.id, { eventTypes: next });
            onChange();
          })}
      />
      <ReminderDaysForm
        label="Expiry reminders (days before)"
        days={days}
        onDays={setDays}
        busy={busy}
        onSave={(list) =>
          act(async () => {
            await api.setWebhookExpiringDays(webhook.id, list);
            setNote("Reminder days saved.");
          })}
      />
      <div class="row">
        <ActButton
          act={act}
          busy={busy}
          label={`Send test to ${title}`}
          run={async () => {
            await api.sendWebhookTest(webhook.id);
            setNote("Test alert queued: see the delivery log.");
            setShowLog(true);
          }}
        >
          Send test
        </ActButton>
        {webhook.kind === "generic"
          ? (
            <ActButton
              act={act}
              busy={busy}
              label={`Rotate secret of ${title}`}
              run={async () => setSecret(await api.rotateWebhookSecret(webhook.id))}
            >
              Rotate secret
            </ActButton>
          )
          : null}
        <ActButton
          act={act}
          busy={busy}
          run={async () => {
            await api.updateWebhook(webhook.id, { enabled: !webhook.enabled });
            onChange();
          }}
        >
          {webhook.enabled ? "Switch off" : "Switch on"}
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
        <ActButton
          act={act}
          busy={busy}
          variant="secondary danger"
          label={`Delete ${title}`}
          run={async () => {
            await api.deleteWebhook(webhook.id);
            onChange();
          }}
        >
          Delete
        </ActButton>
      </div>
      {showLog ? <DeliveryLog webhook={webhook} /> : null}
    </li>
  );
}

function Webhooks({ eventTypes }: { eventTypes: string[] }) {
  const [list, setList] = useState<Webhook[]>([]);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [kind, setKind] = useState("generic");
  const [chosen, setChosen] = useState<string[]>(["domain.available"]);
  const [created, setCreated] = useState<{ secret: string | null } | null>(null);
  const load = useAction();
  const create = useAction();
  const reload = () => load.act(async () => setList(await api.webhooks()));
  useEffect(() => void reload(), []);

  return (
    <div>
      <h2>Webhooks, Slack and Discord</h2>
      <Form
        class="card"
        onSubmit={() =>
          create.act(async () => {
            setCreated(null);
            const made = await api.createWebhook({ url, description, kind, eventTypes: chosen });
            setCreated({ secret: made.secret });
            setUrl("");
            setDescription("");
            reload();
          })}
      >
        <h3>New webhook</h3>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            <option value="generic">Webhook (signed JSON)</option>
            <option value="slack">Slack incoming webhook</option>
            <option value="discord">Discord webhook</option>
          </select>
        </label>
        <Field label="URL" type="url" value={url} onValue={setUrl} />
        <Field label="Description" value={description} onValue={setDescription} />
        <EventTypePicker legend="Events" all={eventTypes} chosen={chosen} onChange={setChosen} />
        <button type="submit" disabled={create.busy}>Add webhook</button>
        <ErrorNote error={create.error} />
        {created?.secret ? <ShownOnce label="Signing secret" value={created.secret} /> : null}
        {created && !created.secret ? <Notice>Webhook added.</Notice> : null}
      </Form>
      <ErrorNote error={load.error} />
      <ul class="plain">
        {list.map((webhook) => (
          <WebhookCard
            key={webhook.id + webhook.event_types.join() + webhook.enabled}
            webhook={webhook}
            eventTypes={eventTypes}
            onChange={reload}
          />
        ))}
      </ul>
    </div>
  );
}

export function Alerts({ session, overview }: ScreenProps) {
  const [eventTypes, setEventTypes] = useState<string[]>([]);
  const { error, act } = useAction();
  useEffect(() => void act(async () => setEventTypes(await api.alertEventTypes())), []);
  return (
    <section>
      <h1>Alerts</h1>
      <ErrorNote error={error} />
      <EmailAlerts session={session} eventTypes={eventTypes} />
      <Telegram userId={session.user.id} eventTypes={eventTypes} />
      {overview && !overview.webhooks_allowed
        ? (
          <div class="note upsell">
            <strong>Webhooks, Slack and Discord come with Pro.</strong>
            <span>
              Pro sends signed webhooks to your own services and messages to Slack and Discord channels, with
              a delivery log and redelivery, and adds the REST API and MCP.
            </span>
            <span>
              <Upgrade />
            </span>
          </div>
        )
        : overview
        ? <Webhooks eventTypes={eventTypes} />
        : null}
    </section>
  );
}
