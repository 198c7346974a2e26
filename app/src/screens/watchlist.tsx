/** The watchlist: filter, search, pages of 50 (watchlist_page), bulk add, remove, CSV export. */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import { namesFromText, watchlistCsv } from "../data/csv.ts";
import { overQuotaNext } from "../data/errors.ts";
import type { AddResult, WatchlistPage } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import {
  download,
  ErrorNote,
  formatDate,
  formatTime,
  Notice,
  StatusBadge,
  statusLabels,
  useAction,
} from "../ui/components.tsx";
import { Form } from "../ui/form.tsx";
import { Table } from "../ui/table.tsx";
import { UndoNote, useUndo } from "../ui/undo.tsx";
import { ListSwitcher } from "../ui/list_switcher.tsx";

const pageSize = 50;

function AddForm({ onAdded }: { onAdded: () => void }) {
  const [text, setText] = useState("");
  const [result, setResult] = useState<AddResult | null>(null);
  const { busy, error, act } = useAction();

  const submit = () =>
    act(async () => {
      setResult(null);
      const names = namesFromText(text);
      if (names.length === 0) return;
      const added = await api.addDomains(names);
      setResult(added);
      // What the quota turned away stays in the box; everything else was handled.
      setText(added.rejected_names.join("\n"));
      onAdded();
    });

  return (
    <Form class="card" onSubmit={submit}>
      <h2>Add names</h2>
      <label>
        Domain names (one a line, or separated by commas)
        <textarea
          rows={4}
          value={text}
          placeholder="example.com, example.org"
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <div class="row">
        <button type="submit" disabled={busy}>Add</button>
        <label class="file">
          Import a CSV file
          <input
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            onChange={async (event) => {
              const file = (event.target as HTMLInputElement).files?.[0];
              if (file) setText((text ? text + "\n" : "") + namesFromText(await file.text()).join("\n"));
            }}
          />
        </label>
      </div>
      <ErrorNote error={error} />
      {result
        ? (
          <Notice>
            Added {result.added}, skipped {result.skipped_duplicates} duplicate(s), rejected{" "}
            {result.rejected_over_limit} over the quota; {result.remaining_quota} left.
            {overQuotaNext(result.rejected_over_limit)
              ? <span>{overQuotaNext(result.rejected_over_limit)}</span>
              : null}
          </Notice>
        )
        : null}
    </Form>
  );
}

export function Watchlist({ session, refreshOverview }: ScreenProps) {
  const [status, setStatus] = useState("");
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<WatchlistPage | null>(null);
  const [version, setVersion] = useState(0);
  const load = useAction();
  const row = useAction();
  const { offer, offerUndo, dismiss } = useUndo();
  const timer = useRef<ReturnType<typeof setTimeout>>();

  useEffect(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setQuery(search.trim());
      setOffset(0);
    }, 200);
  }, [search]);

  useEffect(() => {
    let current = true;
    load.act(async () => {
      const answer = await api.watchlistPage({ status, search: query, limit: pageSize, offset });
      if (current) setPage(answer);
    });
    return () => void (current = false);
  }, [status, query, offset, version]);

  const reload = () => {
    setVersion((v) => v + 1);
    refreshOverview();
  };

  const total = page?.total ?? 0;
  return (
    <section>
      <div class="title-row">
        <h1>Watchlist</h1>
        <ActButton
          act={row.act}
          run={async () => {
            const rows = await api.wholeWatchlist();
            download(new Blob([watchlistCsv(rows)], { type: "text/csv" }), "watchlist.csv");
          }}
        >
          Export CSV
        </ActButton>
      </div>
      <ListSwitcher userId={session.user.id} current={null} />
      <AddForm onAdded={reload} />
      <div class="filters" role="search">
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setOffset(0);
            }}
          >
            <option value="">All</option>
            {Object.entries(statusLabels).map(([value, label]) => (
              <option key={value} value={value}>{label}</option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <ErrorNote error={load.error ?? row.error} />
      <Table
        caption="Watched domain names"
        compact
        columns={["Name", "Status", "Expires", "Registrar", "Last checked", "Predicted drop"]}
        actions
      >
        {page?.domains.map((domain) => (
          <tr key={domain.domain_name}>
            <th scope="row">
              <a href={`/domains/${encodeURIComponent(domain.domain_name)}`}>
                {domain.unicode_name ?? domain.domain_name}
              </a>
            </th>
            <td data-label="Status">
              <StatusBadge status={domain.status} />
            </td>
            <td data-label="Expires" class={domain.expires_at ? undefined : "none"}>
              {formatDate(domain.expires_at)}
            </td>
            <td data-label="Registrar" class="wide-only">{domain.registrar ?? "—"}</td>
            <td data-label="Last checked" class="wide-only">{formatTime(domain.last_checked_at)}</td>
            <td
              data-label="Predicted drop"
              class={domain.status === "pending_delete" && domain.predicted_drop_at ? undefined : "none"}
            >
              {domain.status === "pending_delete" ? formatTime(domain.predicted_drop_at) : "—"}
            </td>
            <td class="actions">
              <ActButton
                act={row.act}
                variant="link danger"
                label={`Remove ${domain.domain_name}`}
                run={async () => {
                  await api.removeDomain(domain.domain_name);
                  reload();
                  // Undo adds the name back through the server (its quota and rules apply as to any add).
                  offerUndo({
                    message: `Removed ${domain.unicode_name ?? domain.domain_name}`,
                    label: `Undo removing ${domain.domain_name}`,
                    undo: async () => {
                      await api.addDomains([domain.domain_name]);
                      reload();
                    },
                  });
                }}
              >
                Remove
              </ActButton>
            </td>
          </tr>
        ))}
      </Table>
      <UndoNote
        offer={offer}
        busy={row.busy}
        onUndo={(taken) => {
          dismiss();
          row.act(taken.undo);
        }}
      />
      {page && page.domains.length === 0
        ? <p class="empty">{query || status ? "No names match." : "No names yet: add some above."}</p>
        : null}
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
          {total === 0 ? "0" : `${offset + 1}–${Math.min(offset + pageSize, total)}`} of {total}
        </span>
        <button
          type="button"
          class="secondary"
          disabled={offset + pageSize >= total}
          onClick={() => setOffset(offset + pageSize)}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
