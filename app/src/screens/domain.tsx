/**
 * One name: where it is in its lifecycle, Check now, its tags and note, its state history, the evidence
 * behind `available`, the drop prediction, the alerts sent.
 */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import { lifecycleStage } from "../data/lifecycle.ts";
import { relativeTime } from "../data/relative_time.ts";
import type { DomainDetail, WatchedDomain } from "../data/types.ts";
import { explainUnknown } from "../data/unknown_reason.ts";
import { CheckNowButton } from "../ui/check_now.tsx";
import {
  ErrorNote,
  formatDate,
  formatTime,
  Notice,
  StatusBadge,
  statusLabels,
  useAction,
} from "../ui/components.tsx";
import { Form } from "../ui/form.tsx";
import { LifecycleSteps } from "../ui/lifecycle_steps.tsx";
import { Table } from "../ui/table.tsx";
import { eventLabel } from "../ui/event_labels.ts";
import { TeamClaims } from "../ui/team_claims.tsx";

/** Tags (comma-separated) and a note for the name (set_watchlist_details; the database holds the limits). */
function TagsAndNote({ domain, onSaved }: { domain: WatchedDomain; onSaved: () => void }) {
  const [tags, setTags] = useState((domain.tags ?? []).join(", "));
  const [note, setNote] = useState(domain.note ?? "");
  const [saved, setSaved] = useState(false);
  const { busy, error, act } = useAction();
  return (
    <Form
      class="card"
      onSubmit={() =>
        act(async () => {
          setSaved(false);
          await api.setDetails([{
            domain_name: domain.domain_name,
            tags: tags.split(",").map((t) => t.trim()).filter(Boolean),
            note: note.trim() || null,
          }]);
          setSaved(true);
          onSaved();
        })}
    >
      <h2>Tags and note</h2>
      <label>
        Tags (separated by commas; up to 10, each up to 32 characters)
        <input value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Note (up to 500 characters)
        <textarea rows={3} value={note} onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)} />
      </label>
      <div class="row">
        <button type="submit" disabled={busy}>Save tags and note</button>
      </div>
      <ErrorNote error={error} />
      {saved ? <Notice>Saved.</Notice> : null}
    </Form>
  );
}

function Evidence({ evidence }: { evidence: Record<string, unknown> }) {
  return (
    <dl class="evidence">
      {Object.entries(evidence).map(([key, value]) => (
        <div key={key}>
          <dt>{key.replace(/_/g, " ")}</dt>
          <dd>
            <code>{typeof value === "string" ? value : JSON.stringify(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What each prediction basis (domains.prediction_basis) means, in words. */
const basisText: Record<string, string> = {
  pending_delete_period:
    "from when the name entered pending delete, plus the registry's pending-delete period",
  redemption_period:
    "from when the name entered its redemption period, plus the registry's redemption and pending-delete periods",
  unknown: "not enough is known to predict the drop",
};

function changeLabel(previous: string | null, status: string): string {
  if (previous === null) return `First seen: ${statusLabels[status] ?? status}`;
  if (previous === "pending_delete" && status === "registered") return "Restored";
  return `${statusLabels[previous] ?? previous} → ${statusLabels[status] ?? status}`;
}

export function DomainPage({ session, name }: ScreenProps & { name: string }) {
  const [detail, setDetail] = useState<DomainDetail | null>(null);
  const [version, setVersion] = useState(0);
  const { error, act } = useAction();
  useEffect(() => {
    act(async () => setDetail(await api.domainDetail(name)));
  }, [name, version]);

  if (!detail) {
    return (
      <section>
        <p>
          <a href="/">← Watchlist</a>
        </p>
        <h1>{name}</h1>
        <TeamClaims userId={session.user.id} name={name} />
        <ErrorNote error={error} />
      </section>
    );
  }
  const domain = detail.domain;
  const now = new Date();
  const unknown = domain.status === "unknown" ? explainUnknown(domain.unknown_reason) : null;
  return (
    <section>
      <p>
        <a href="/">← Watchlist</a>
      </p>
      <div class="title-row">
        <h1>{domain.unicode_name ?? domain.domain_name}</h1>
        <CheckNowButton name={domain.domain_name} onChecked={() => setVersion((v) => v + 1)} />
      </div>
      <TeamClaims userId={session.user.id} name={domain.domain_name} />
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={domain.status} />
            {unknown
              ? (
                <span class="why">
                  {unknown.why} {unknown.next}
                  {domain.next_check_at ? ` Next check: ${formatTime(domain.next_check_at)}.` : ""}
                </span>
              )
              : null}
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            {formatDate(domain.expires_at)}
            {domain.expires_at
              ? <span class="relative">{relativeTime(domain.expires_at, now, "expiry")}</span>
              : null}
          </dd>
        </div>
        <div>
          <dt>Registrar</dt>
          <dd>{domain.registrar ?? "—"}</dd>
        </div>
        <div>
          <dt>Last checked</dt>
          <dd>{formatTime(domain.last_checked_at)}</dd>
        </div>
        <div>
          <dt>Watched since</dt>
          <dd>{formatTime(domain.added_at)}</dd>
        </div>
      </dl>
      {domain.registry_unreadable_at
        ? (
          <p class="note" role="status">
            The registry's answer could not be read (last tried{" "}
            {formatTime(domain.registry_unreadable_at)}): the name stays undecided and is asked again later.
          </p>
        )
        : null}
      {domain.predicted_drop_at
        ? (
          <div class="card">
            <h2>Drop prediction</h2>
            <p>
              Expected to drop around <strong>{formatTime(domain.predicted_drop_at)}</strong>{" "}
              ({relativeTime(domain.predicted_drop_at, now, "drop")}).
            </p>
            {domain.prediction_basis
              ? <p class="muted">Basis: {basisText[domain.prediction_basis] ?? domain.prediction_basis}.</p>
              : null}
          </div>
        )
        : null}
      <LifecycleSteps stage={lifecycleStage(domain, now)} />
      <TagsAndNote
        key={domain.domain_name}
        domain={domain}
        onSaved={() => setVersion((v) => v + 1)}
      />
      <h2>History</h2>
      {detail.history.length === 0
        ? (
          <p class="empty">
            {domain.status === "unknown"
              ? "No decided check yet: the poller checks new names within minutes."
              : "No change since you started watching this name."}
          </p>
        )
        : (
          <ol class="timeline">
            {detail.history.map((change, index) => (
              <li key={index}>
                <time dateTime={change.changed_at}>{formatTime(change.changed_at)}</time>
                <strong>{changeLabel(change.previous_status, change.status)}</strong>
                <span class="muted">({change.source === "live" ? "live check" : "scheduled check"})</span>
                {change.evidence ? <Evidence evidence={change.evidence} /> : null}
              </li>
            ))}
          </ol>
        )}
      <h2>Alerts</h2>
      {detail.alerts.length === 0
        ? <p class="empty">No alerts for this name yet.</p>
        : (
          <Table columns={["Event", "When", "Deliveries"]}>
            {detail.alerts.map((alert) => (
              <tr key={alert.event_id}>
                <td data-label="Event">{eventLabel(alert.type)}</td>
                <td data-label="When">{formatTime(alert.created_at)}</td>
                <td data-label="Deliveries">
                  {alert.deliveries.length === 0 ? "—" : (
                    <ul class="plain">
                      {alert.deliveries.map((d, i) => (
                        <li key={i}>
                          {d.channel}: <strong>{d.status}</strong>
                          {d.attempts ? `, ${d.attempts} attempt(s)` : ""}
                          {d.last_response_status
                            ? `, ${d.channel === "email" ? "SMTP" : "HTTP"} ${d.last_response_status}`
                            : ""}
                          {d.delivered_at ? `, delivered ${formatTime(d.delivered_at)}` : ""}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
    </section>
  );
}
