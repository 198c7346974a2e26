/** One name: its state history, the evidence behind `available`, the drop prediction, the alerts sent. */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import type { DomainDetail } from "../data/types.ts";
import {
  ErrorNote,
  formatDate,
  formatTime,
  StatusBadge,
  statusLabels,
  useAction,
} from "../ui/components.tsx";
import { Table } from "../ui/table.tsx";
import { eventLabel } from "../ui/event_labels.ts";
import { TeamClaims } from "../ui/team_claims.tsx";

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
  const { error, act } = useAction();
  useEffect(() => {
    act(async () => setDetail(await api.domainDetail(name)));
  }, [name]);

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
  return (
    <section>
      <p>
        <a href="/">← Watchlist</a>
      </p>
      <h1>{domain.unicode_name ?? domain.domain_name}</h1>
      <TeamClaims userId={session.user.id} name={domain.domain_name} />
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={domain.status} />
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatDate(domain.expires_at)}</dd>
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
              Expected to drop around <strong>{formatTime(domain.predicted_drop_at)}</strong>.
            </p>
            {domain.prediction_basis
              ? <p class="muted">Basis: {basisText[domain.prediction_basis] ?? domain.prediction_basis}.</p>
              : null}
          </div>
        )
        : null}
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
