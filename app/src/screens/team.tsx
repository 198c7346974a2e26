/**
 * An organization's page (issue 42, docs/organizations.md): its watchlist (the team radar) with who added each
 * name and its claim (Claim / Release), the activity log, team channels (webhooks here; email addresses and the
 * Telegram group in ./team_channels.tsx; managed by owners and admins) and the member's
 * own opt-in to the organization's alerts. Every rule is the database's; this screen shows its answers.
 */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import { namesFromText } from "../data/csv.ts";
import type { ActivityEntry, AddResult, ApiKey, Organization, TeamPage, TeamWebhook } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, formatDate, formatTime, Notice, StatusBadge, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { ListSwitcher } from "../ui/list_switcher.tsx";
import { ShownOnce } from "../ui/secret_box.tsx";
import { Table } from "../ui/table.tsx";
import { TeamEmailAddresses, TeamTelegram } from "./team_channels.tsx";

const pageSize = 50;

/** One log line in words. */
export function activityText(entry: ActivityEntry): string {
  const who = entry.actor_name ?? (entry.detail.via === "api_key" ? "An API key" : "Someone");
  const name = entry.domain_name ?? "";
  const subject = entry.subject_name ?? "a former member";
  switch (entry.action) {
    case "name.added":
      return `${who} added ${name}${entry.detail.via === "api_key" ? " (API key)" : ""}`;
    case "name.removed":
      return `${who} removed ${name}${entry.detail.via === "api_key" ? " (API key)" : ""}`;
    case "claim.taken":
      return `${who} claimed ${name}`;
    case "claim.released":
      return entry.actor_name === entry.subject_name
        ? `${who} released the claim on ${name}`
        : `${who} released ${subject}'s claim on ${name}`;
    case "member.joined":
      return `${subject} joined as ${String(entry.detail.role ?? "member")}`;
    case "member.left":
      return `${subject} left`;
    case "member.removed":
      return `${who} removed ${subject}`;
    case "member.role_changed":
      return `${who} made ${subject} ${String(entry.detail.to ?? "")}`;
    case "channel.added":
    case "channel.changed":
    case "channel.removed":
      return channelText(entry, who);
    case "api_key.created":
      return `${who} created the API key ${String(entry.detail.name ?? entry.detail.prefix ?? "")}`;
    case "api_key.revoked":
      return `${who} revoked the API key ${String(entry.detail.prefix ?? "")}`;
    default:
      return `${who}: ${entry.action}`;
  }
}

/** A team channel's log line: a webhook, an email address or the Telegram group (never its address). */
function channelText(entry: ActivityEntry, who: string): string {
  const channel = String(entry.detail.channel ?? "webhook");
  const switched = typeof entry.detail.enabled === "boolean" ? ` ${entry.detail.enabled ? "on" : "off"}` : "";
  if (channel === "email") {
    if (entry.action === "channel.added") return `${who} added a team email address`;
    if (entry.action === "channel.removed") return `${who} removed a team email address`;
    return switched
      ? `${who} switched a team email address${switched}`
      : `${who} changed a team email address`;
  }
  if (channel === "telegram_group") {
    if (entry.action === "channel.added") return `${who} linked a Telegram group`;
    if (entry.action === "channel.removed") {
      if (entry.detail.via === "telegram") return "The Telegram group was unlinked from Telegram (/stop)";
      if (entry.detail.via === "linked_elsewhere") {
        return "The Telegram group was linked to another organization";
      }
      return `${who} unlinked the Telegram group`;
    }
    return switched
      ? `${who} switched the Telegram group${switched}`
      : `${who} linked another Telegram group`;
  }
  if (entry.action === "channel.added") {
    return `${who} added a team ${String(entry.detail.kind ?? "")} webhook`;
  }
  if (entry.action === "channel.removed") return `${who} removed a team webhook`;
  return `${who} switched a team webhook${switched}`;
}

function TeamAddForm({ org, onAdded }: { org: Organization; onAdded: () => void }) {
  const [text, setText] = useState("");
  const [result, setResult] = useState<AddResult | null>(null);
  const { busy, error, act } = useAction();
  return (
    <Form
      class="card"
      onSubmit={() =>
        act(async () => {
          setResult(null);
          const names = namesFromText(text);
          if (names.length === 0) return;
          const added = await api.addTeamDomains(org.id, names);
          setResult(added);
          setText(added.rejected_names.join("\n"));
          onAdded();
        })}
    >
      <h2>Add names to {org.name}'s list</h2>
      <label>
        Domain names (one a line, or separated by commas)
        <textarea rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      </label>
      <button type="submit" disabled={busy}>Add</button>
      <ErrorNote error={error} />
      {result
        ? (
          <Notice>
            Added {result.added}, skipped {result.skipped_duplicates} duplicate(s), rejected{" "}
            {result.rejected_over_limit} over the organization's quota; {result.remaining_quota} left.
          </Notice>
        )
        : null}
    </Form>
  );
}

function TeamList({ org, userId, onChange }: { org: Organization; userId: string; onChange: () => void }) {
  const [page, setPage] = useState<TeamPage | null>(null);
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const load = useAction();
  const row = useAction();
  useEffect(() => {
    let current = true;
    load.act(async () => {
      const answer = await api.teamWatchlistPage(org.id, { status: "", search: "", limit: pageSize, offset });
      if (current) setPage(answer);
    });
    return () => void (current = false);
  }, [org.id, offset, version]);
  const reload = () => {
    setVersion((v) => v + 1);
    onChange();
  };
  const manages = org.role === "owner" || org.role === "admin";
  return (
    <>
      <TeamAddForm org={org} onAdded={reload} />
      <ErrorNote error={load.error ?? row.error} />
      {page ? <p>{page.used} of {page.quota} names (the owner's plan).</p> : null}
      <Table
        caption={`${org.name}'s watched names`}
        columns={["Name", "Status", "Expires", "Added by", "Claim"]}
        actions
      >
        {page?.domains.map((domain) => {
          const name = domain.unicode_name ?? domain.domain_name;
          const mine = domain.claim?.user_id === userId;
          return (
            <tr key={domain.domain_name}>
              <th scope="row">
                <a href={`/domains/${encodeURIComponent(domain.domain_name)}`}>{name}</a>
              </th>
              <td data-label="Status">
                <StatusBadge status={domain.status} />
              </td>
              <td data-label="Expires">{formatDate(domain.expires_at)}</td>
              <td data-label="Added by">{domain.added_by?.name ?? "an API key"}</td>
              <td data-label="Claim">
                {domain.claim
                  ? <span class="claim">Claimed by {mine ? "you" : domain.claim.name ?? "a member"}</span>
                  : <span class="muted">Not claimed</span>}
              </td>
              <td>
                <div class="row">
                  {domain.claim
                    ? (mine || manages
                      ? (
                        <ActButton
                          act={row.act}
                          label={`Release the claim on ${domain.domain_name}`}
                          run={async () => {
                            await api.releaseTeamClaim(org.id, domain.domain_name);
                            reload();
                          }}
                        >
                          Release
                        </ActButton>
                      )
                      : null)
                    : (
                      <ActButton
                        act={row.act}
                        label={`Claim ${domain.domain_name}`}
                        run={async () => {
                          try {
                            await api.claimTeamDomain(org.id, domain.domain_name);
                          } finally {
                            reload();
                          }
                        }}
                      >
                        Claim
                      </ActButton>
                    )}
                  <ActButton
                    act={row.act}
                    variant="link danger"
                    label={`Remove ${domain.domain_name} from ${org.name}'s list`}
                    run={async () => {
                      await api.removeTeamDomain(org.id, domain.domain_name);
                      reload();
                    }}
                  >
                    Remove
                  </ActButton>
                </div>
              </td>
            </tr>
          );
        })}
      </Table>
      {page && page.domains.length === 0 ? <p class="empty">No names yet: add some above.</p> : null}
      {page && page.total > pageSize
        ? (
          <nav class="pager" aria-label="Pages">
            <button
              type="button"
              class="secondary"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - pageSize))}
            >
              Previous
            </button>
            <span aria-live="polite">
              {offset + 1}–{Math.min(offset + pageSize, page.total)} of {page.total}
            </span>
            <button
              type="button"
              class="secondary"
              disabled={offset + pageSize >= page.total}
              onClick={() => setOffset(offset + pageSize)}
            >
              Next
            </button>
          </nav>
        )
        : null}
    </>
  );
}

function ActivityLog({ org, version }: { org: Organization; version: number }) {
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  const { error, act } = useAction();
  useEffect(() => void act(async () => setEntries(await api.teamActivity(org.id))), [org.id, version]);
  return (
    <section class="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <ErrorNote error={error} />
      {entries.length === 0 ? <p class="empty">Nothing yet.</p> : null}
      <ol class="plain activity">
        {entries.map((entry) => (
          <li key={entry.id}>
            <time dateTime={entry.created_at}>{formatTime(entry.created_at)}</time> {activityText(entry)}
          </li>
        ))}
      </ol>
    </section>
  );
}

function TeamChannels({ org }: { org: Organization }) {
  const [hooks, setHooks] = useState<TeamWebhook[]>([]);
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState("generic");
  const { busy, error, act } = useAction();
  const reload = () => act(async () => setHooks(await api.teamWebhooks(org.id)));
  useEffect(() => void reload(), [org.id]);
  const manages = org.role === "owner" || org.role === "admin";
  return (
    <section class="card" aria-labelledby="channels-title">
      <h2 id="channels-title">Team channels</h2>
      <ul class="plain">
        {hooks.map((hook) => (
          <li key={hook.id} class="row">
            <span>
              {hook.kind} webhook {hook.url_masked} · {hook.event_types.join(", ")}
              {hook.enabled ? "" : " (off)"}
            </span>
            {manages
              ? (
                <ActButton
                  act={act}
                  busy={busy}
                  variant="link danger"
                  label={`Delete the team webhook ${hook.url_masked}`}
                  run={async () => {
                    await api.deleteTeamWebhook(org.id, hook.id);
                    await reload();
                  }}
                >
                  Delete
                </ActButton>
              )
              : null}
          </li>
        ))}
      </ul>
      {hooks.length === 0 ? <p class="empty">No team webhook yet.</p> : null}
      {manages
        ? (
          <Form
            class="row"
            onSubmit={() =>
              act(async () => {
                await api.createTeamWebhook(org.id, url, kind, ["domain.available", "domain.pending_delete"]);
                setUrl("");
                await reload();
              })}
          >
            <Field label="Team webhook URL" type="url" value={url} onValue={setUrl} />
            <label class="short">
              Kind
              <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
                <option value="generic">generic</option>
                <option value="slack">Slack</option>
                <option value="discord">Discord</option>
              </select>
            </label>
            <button type="submit" disabled={busy}>Add team webhook</button>
          </Form>
        )
        : null}
      <ErrorNote error={error} />
      <TeamEmailAddresses org={org} />
      <TeamTelegram org={org} />
    </section>
  );
}

function TeamApiKeys({ org }: { org: Organization }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const { busy, error, act } = useAction();
  const reload = () => act(async () => setKeys(await api.teamApiKeys(org.id)));
  useEffect(() => void reload(), [org.id]);
  return (
    <section class="card" aria-labelledby="team-keys-title">
      <h2 id="team-keys-title">{org.name}'s API keys</h2>
      <p class="muted">
        A key for the organization reads and changes only its list, through the same REST endpoints and MCP
        tools, on the owner's plan with its own daily count.
      </p>
      <ul class="plain">
        {keys.map((key) => (
          <li key={key.id} class="row">
            <span>
              <strong>{key.name}</strong> <code>{key.prefix}…</code> · made {formatTime(key.created_at)}
            </span>
            <ActButton
              act={act}
              busy={busy}
              variant="link danger"
              label={`Revoke the organization key ${key.name}`}
              run={async () => {
                await api.revokeTeamApiKey(org.id, key.id);
                await reload();
              }}
            >
              Revoke
            </ActButton>
          </li>
        ))}
      </ul>
      <Form
        class="row"
        onSubmit={() =>
          act(async () => {
            const made = await api.createTeamApiKey(org.id, name);
            setCreated(made.api_key);
            setName("");
            await reload();
          })}
      >
        <Field label="Organization key name" value={name} onValue={setName} />
        <button type="submit" disabled={busy}>Create organization key</button>
      </Form>
      {created ? <ShownOnce label="The organization's new API key" value={created} /> : null}
      <ErrorNote error={error} />
    </section>
  );
}

function PersonalAlerts({ org, userId }: { org: Organization; userId: string }) {
  const [on, setOn] = useState(false);
  const { busy, error, act } = useAction();
  useEffect(() => void act(async () => setOn(await api.personalTeamAlerts(org.id, userId))), [org.id]);
  return (
    <div class="card">
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={busy}
          onChange={(e) => {
            const next = (e.target as HTMLInputElement).checked;
            act(async () => {
              await api.setPersonalTeamAlerts(org.id, next);
              setOn(next);
            });
          }}
        />
        Also alert me on my own channels about {org.name}'s names
      </label>
      <ErrorNote error={error} />
    </div>
  );
}

export function TeamScreen({ session, organizationId }: ScreenProps & { organizationId: string }) {
  const [org, setOrg] = useState<Organization | null | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const { error, act } = useAction();
  useEffect(() => {
    act(async () => {
      const orgs = await api.organizations(session.user.id);
      setOrg(orgs.find((o) => o.id === organizationId) ?? null);
    });
  }, [organizationId]);
  if (org === undefined) return <ErrorNote error={error} />;
  if (org === null) {
    return (
      <section>
        <h1>Organization not found</h1>
        <p>You are not a member of this organization (any more).</p>
        <a href="/organizations">Organizations</a>
      </section>
    );
  }
  return (
    <section>
      <div class="title-row">
        <h1>{org.name}</h1>
        <span>Your role: {org.role}</span>
      </div>
      <ListSwitcher userId={session.user.id} current={org.id} />
      <TeamList org={org} userId={session.user.id} onChange={() => setVersion((v) => v + 1)} />
      <PersonalAlerts org={org} userId={session.user.id} />
      <TeamChannels org={org} />
      {org.role === "owner" || org.role === "admin" ? <TeamApiKeys org={org} /> : null}
      <ActivityLog org={org} version={version} />
    </section>
  );
}
