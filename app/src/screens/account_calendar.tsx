/**
 * The Account screen's calendar feed section: make, renew or revoke the account's secret calendar URL, its
 * reminder days, and how to add it to Google Calendar, Apple Calendar and Outlook. The URL is shown once,
 * when made (only its hash is kept); every rule is the database's (20261206000150_calendar_feed.sql).
 */
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { ErrorNote, formatTime, Notice, useAction } from "../ui/components.tsx";
import { ReminderDaysForm } from "../ui/reminder_days.tsx";
import { ShownOnce } from "../ui/secret_box.tsx";

export function CalendarFeedSection() {
  const [feed, setFeed] = useState<api.CalendarFeedState | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [days, setDays] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();

  const load = () =>
    action.act(async () => {
      const state = await api.calendarFeed();
      setFeed(state);
      setDays(state.reminder_days.join(", "));
    });
  useEffect(() => {
    load();
  }, []);

  const make = () =>
    action.act(async () => {
      setUrl(await api.createCalendarFeed());
      setNote(null);
      await load();
    });

  return (
    <section class="card" aria-labelledby="calendar-feed-heading">
      <h2 id="calendar-feed-heading">Calendar feed</h2>
      <p>
        A private calendar URL with every watched name's expiry date (an all-day event) and each predicted
        drop, with reminders before each. Anyone with the URL sees your watchlist's names and dates: keep it
        to yourself, and renew or revoke it if it leaks.
      </p>
      {url ? <ShownOnce label="Your calendar URL" value={url} /> : null}
      {feed?.active
        ? (
          <>
            <p>
              A calendar URL is active since {formatTime(feed.created_at)}
              {url
                ? "."
                : ". It was shown when it was made; renew it to get a new one (the current one then stops working)."}
            </p>
            <div class="row">
              <button type="button" class="secondary" disabled={action.busy} onClick={make}>
                Renew calendar URL
              </button>
              <button
                type="button"
                class="secondary"
                disabled={action.busy}
                onClick={() =>
                  action.act(async () => {
                    await api.revokeCalendarFeed();
                    setUrl(null);
                    setNote("Calendar URL revoked.");
                    await load();
                  })}
              >
                Revoke calendar URL
              </button>
            </div>
            <ReminderDaysForm
              label="Calendar reminders (days before, e.g. 30, 7, 1)"
              days={days}
              onDays={setDays}
              busy={action.busy}
              onSave={(list) =>
                action.act(async () => {
                  await api.setCalendarReminderDays(list);
                  setNote("Reminder days saved.");
                  await load();
                })}
            />
          </>
        )
        : feed
        ? (
          <button type="button" disabled={action.busy} onClick={make}>
            Create calendar URL
          </button>
        )
        : null}
      <ErrorNote error={action.error} />
      {note ? <Notice>{note}</Notice> : null}
      <details>
        <summary>How to add it to your calendar</summary>
        <ul>
          <li>
            <strong>Google Calendar</strong>{" "}
            (on the web): Other calendars → + → From URL, paste the URL, Add calendar.
          </li>
          <li>
            <strong>Apple Calendar</strong>: File → New Calendar Subscription (on iPhone: Settings → Calendar
            → Accounts → Add Account → Other → Add Subscribed Calendar), paste the URL.
          </li>
          <li>
            <strong>Outlook</strong> (on the web): Add calendar → Subscribe from web, paste the URL, Import.
          </li>
        </ul>
        <p class="muted">
          Calendar apps fetch the feed every few hours, so a change shows there a little later than here.
        </p>
      </details>
    </section>
  );
}
