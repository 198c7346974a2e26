/** Account: profile, plan and limits, export (export-account, a JSON download), the calendar feed. */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import { download, ErrorNote, formatTime, Notice, useAction } from "../ui/components.tsx";
import { Upgrade } from "../ui/upgrade.tsx";
import { CalendarFeedSection } from "./account_calendar.tsx";

export function Account({ session, overview, refreshOverview }: ScreenProps) {
  const [name, setName] = useState("");
  const [since, setSince] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const profile = useAction();
  const exporting = useAction();
  useEffect(() => {
    profile.act(async () => {
      const row = await api.profile(session.user.id);
      setName(row?.display_name ?? "");
      setSince(row?.created_at ?? null);
    });
  }, []);

  return (
    <section>
      <h1>Account</h1>
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          profile.act(async () => {
            await api.setDisplayName(session.user.id, name);
            setNote("Profile saved.");
            refreshOverview();
          });
        }}
      >
        <h2>Profile</h2>
        <p>
          Email: <strong>{session.user.email}</strong>
          {since ? <span class="muted">&nbsp;· member since {formatTime(since)}</span> : null}
        </p>
        <label>
          Display name
          <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={profile.busy}>Save profile</button>
        <ErrorNote error={profile.error} />
        {note ? <Notice>{note}</Notice> : null}
      </form>
      <div class="card">
        <h2>Plan and limits</h2>
        {overview
          ? (
            <dl class="facts">
              <div>
                <dt>Plan</dt>
                <dd>{overview.plan}</dd>
              </div>
              <div>
                <dt>Watchlist</dt>
                <dd>
                  {overview.watchlist_used} of {overview.watchlist_quota} names
                </dd>
              </div>
              <div>
                <dt>API and MCP</dt>
                <dd>
                  {overview.api_access
                    ? overview.daily_request_limit === null
                      ? "yes, no daily limit"
                      : `yes, ${overview.daily_request_limit} requests a day`
                    : "no (Pro and higher)"}
                </dd>
              </div>
              <div>
                <dt>Webhooks, Slack, Discord</dt>
                <dd>{overview.webhooks_allowed ? "yes" : "no (Pro and higher)"}</dd>
              </div>
            </dl>
          )
          : null}
        <p class="row">
          <Upgrade />
        </p>
      </div>
      <div class="card">
        <h2>Your data</h2>
        <p>
          Download everything the service keeps about your account as JSON (never keys, webhook addresses or
          secrets).
        </p>
        <button
          type="button"
          disabled={exporting.busy}
          onClick={() =>
            exporting.act(async () => {
              const file = await api.exportAccount();
              download(file.blob, file.filename);
            })}
        >
          Export account
        </button>
        <ErrorNote error={exporting.error} />
      </div>
      <CalendarFeedSection />
    </section>
  );
}
