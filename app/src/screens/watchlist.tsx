/**
 * The watchlist as a drop radar: ordered by urgency (watchlist_page), a summary strip whose counts filter the
 * list (watchlist_summary), other orders, keyset pages of 50, filters (status, search, tag), relative times,
 * why a name is unknown, Check now, bulk add (paste or CSV with tags and notes), bulk select (remove, tag)
 * with undo, remove, CSV export.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import { detailsFromCsv, type ImportedDetails, namesFromText, watchlistCsv } from "../data/csv.ts";
import { domainInput } from "../data/domain_input.ts";
import { overQuotaNext } from "../data/errors.ts";
import { relativeTime } from "../data/relative_time.ts";
import { explainUnknown } from "../data/unknown_reason.ts";
import type {
  AddResult,
  RadarFocus,
  RadarOrder,
  WatchedDomain,
  WatchlistPage,
  WatchlistSummary,
} from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { CheckNowButton } from "../ui/check_now.tsx";
import { RadarSummary } from "../ui/radar_summary.tsx";
import { UndoNote, useUndo } from "../ui/undo.tsx";
import { ListSwitcher } from "../ui/list_switcher.tsx";
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

const pageSize = 50;

function AddForm({ onAdded }: { onAdded: () => void }) {
  const [text, setText] = useState("");
  const [result, setResult] = useState<AddResult | null>(null);
  // Tags and notes of an imported CSV (the export's columns), set once the names are added.
  const [imported, setImported] = useState<ImportedDetails[]>([]);
  const { busy, error, act } = useAction();

  const submit = () =>
    act(async () => {
      setResult(null);
      const names = namesFromText(text);
      if (names.length === 0) return;
      const added = await api.addDomains(names);
      if (imported.length > 0) {
        await api.setDetails(
          imported.map((item) => ({ ...item, domain_name: domainInput(item.domain_name) })),
        );
        setImported([]);
      }
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
              if (!file) return;
              const content = await file.text();
              const details = detailsFromCsv(content);
              setImported(details ?? []);
              const names = details ? details.map((d) => d.domain_name) : namesFromText(content);
              setText((text ? text + "\n" : "") + names.join("\n"));
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

const orders: [RadarOrder, string][] = [
  ["urgency", "Most urgent first"],
  ["name", "Name"],
  ["expiry", "Expiry date"],
  ["added", "Recently added"],
];

/** A date with its relative time beside it ("expires in 12 days"). */
function When({ iso, kind, now }: { iso: string | null; kind: "drop" | "expiry"; now: Date }) {
  if (!iso) return <>—</>;
  return (
    <>
      {kind === "drop" ? formatTime(iso) : formatDate(iso)}
      <span class="relative">{relativeTime(iso, now, kind)}</span>
    </>
  );
}

function TagChips({ tags, onTag }: { tags: string[]; onTag: (tag: string) => void }) {
  if (tags.length === 0) return null;
  return (
    <span class="tags">
      {tags.map((tag) => (
        <button
          key={tag}
          type="button"
          class="tag"
          aria-label={`Show names tagged ${tag}`}
          onClick={() => onTag(tag)}
        >
          {tag}
        </button>
      ))}
    </span>
  );
}

export function Watchlist({ session, refreshOverview }: ScreenProps) {
  const [status, setStatus] = useState("");
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [order, setOrder] = useState<RadarOrder>("urgency");
  const [focus, setFocus] = useState<RadarFocus | null>(null);
  const [tag, setTag] = useState("");
  // Keyset paging: the cursor of each page seen so far (null: the first page).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<WatchlistPage | null>(null);
  const [summary, setSummary] = useState<WatchlistSummary | null>(null);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkTag, setBulkTag] = useState("");
  const { offer, offerUndo, dismiss } = useUndo();
  const load = useAction();
  const row = useAction();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const now = new Date();

  const firstPage = () => setCursors([null]);

  useEffect(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setQuery(search.trim());
      firstPage();
    }, 200);
  }, [search]);

  const after = cursors[cursors.length - 1];
  useEffect(() => {
    let current = true;
    load.act(async () => {
      const answer = await api.watchlistPage({
        status,
        search: query,
        limit: pageSize,
        order,
        after,
        focus,
        tag: tag.trim(),
      });
      if (!current) return;
      setPage(answer);
      setSelected(new Set());
    });
    return () => void (current = false);
  }, [status, query, order, focus, tag, after, version]);

  // The summary counts the whole watchlist: read when it may have changed, not on every page or filter, and
  // beside the page (the first rows never wait for it).
  useEffect(() => {
    let current = true;
    api.watchlistSummary().then((counts) => current && setSummary(counts), () => {});
    return () => void (current = false);
  }, [version]);

  const reload = () => {
    setVersion((v) => v + 1);
    refreshOverview();
  };

  const toggle = (name: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(name);
    else next.delete(name);
    setSelected(next);
  };

  const removeSelected = async () => {
    const names = [...selected];
    for (const name of names) await api.removeDomain(name);
    offerUndo({
      message: `Removed ${names.length} name${names.length === 1 ? "" : "s"}.`,
      label: "Undo",
      // A removed entry keeps its tags and note: adding the names again restores them.
      undo: async () => void await api.addDomains(names),
    });
    reload();
  };

  const tagSelected = async () => {
    const label = bulkTag.trim();
    if (!label) return;
    const names = [...selected];
    const before = (page?.domains ?? []).filter((d) => selected.has(d.domain_name))
      .map((d) => ({ domain_name: d.domain_name, tags: d.tags }));
    await api.tagDomains(names, [label]);
    setBulkTag("");
    offerUndo({
      message: `Tagged ${names.length} name${names.length === 1 ? "" : "s"} "${label}".`,
      label: "Undo",
      undo: async () => void await api.setDetails(before),
    });
    reload();
  };

  const total = page?.total ?? 0;
  const start = (cursors.length - 1) * pageSize;
  const rows: WatchedDomain[] = page?.domains ?? [];
  const allSelected = rows.length > 0 && rows.every((d) => selected.has(d.domain_name));
  return (
    <section>
      <div class="title-row">
        <h1>Watchlist</h1>
        <ActButton
          act={row.act}
          run={async () => {
            const all = await api.wholeWatchlist();
            download(new Blob([watchlistCsv(all)], { type: "text/csv" }), "watchlist.csv");
          }}
        >
          Export CSV
        </ActButton>
      </div>
      <ListSwitcher userId={session.user.id} current={null} />
      <RadarSummary
        summary={summary}
        focus={focus}
        onFocus={(next) => {
          setFocus(next);
          firstPage();
        }}
      />
      <AddForm onAdded={reload} />
      <div class="filters" role="search">
        <label>
          Order
          <select
            value={order}
            onChange={(e) => {
              setOrder((e.target as HTMLSelectElement).value as RadarOrder);
              firstPage();
            }}
          >
            {orders.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              firstPage();
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
        <label>
          Tag
          <input
            type="search"
            value={tag}
            maxLength={32}
            onInput={(e) => {
              setTag((e.target as HTMLInputElement).value);
              firstPage();
            }}
          />
        </label>
      </div>
      <UndoNote
        offer={offer}
        busy={row.busy}
        onUndo={(taken) => {
          dismiss();
          row.act(async () => {
            await taken.undo();
            reload();
          });
        }}
      />
      <div class="bulk" role="group" aria-label="Selected names">
        <label class="inline">
          <input
            type="checkbox"
            checked={allSelected}
            onChange={(e) =>
              setSelected(
                (e.target as HTMLInputElement).checked ? new Set(rows.map((d) => d.domain_name)) : new Set(),
              )}
          />
          Select all on this page
        </label>
        {selected.size > 0
          ? (
            <>
              <span>{selected.size} selected</span>
              <ActButton act={row.act} variant="secondary danger" run={removeSelected}>
                Remove selected
              </ActButton>
              <label class="inline">
                Tag to add
                <input
                  value={bulkTag}
                  maxLength={32}
                  onInput={(e) => setBulkTag((e.target as HTMLInputElement).value)}
                />
              </label>
              <ActButton act={row.act} run={tagSelected}>Tag selected</ActButton>
            </>
          )
          : null}
      </div>
      <ErrorNote error={load.error ?? row.error} />
      <Table
        caption="Watched domain names"
        compact
        columns={["Select", "Name", "Status", "Expires", "Predicted drop", "Registrar", "Last checked"]}
        actions
      >
        {rows.map((domain) => {
          const unknown = domain.status === "unknown" ? explainUnknown(domain.unknown_reason) : null;
          return (
            <tr key={domain.domain_name}>
              <td data-label="Select">
                <input
                  type="checkbox"
                  aria-label={`Select ${domain.domain_name}`}
                  checked={selected.has(domain.domain_name)}
                  onChange={(e) => toggle(domain.domain_name, (e.target as HTMLInputElement).checked)}
                />
              </td>
              <th scope="row">
                <a href={`/domains/${encodeURIComponent(domain.domain_name)}`}>
                  {domain.unicode_name ?? domain.domain_name}
                </a>
                <TagChips
                  tags={domain.tags ?? []}
                  onTag={(t) => {
                    setTag(t);
                    firstPage();
                  }}
                />
                {domain.note ? <span class="row-note">{domain.note}</span> : null}
              </th>
              <td data-label="Status">
                <StatusBadge status={domain.status} />
                {unknown
                  ? (
                    <span class="why">
                      {unknown.why} {unknown.next}
                      {domain.next_check_at ? ` Next check: ${formatTime(domain.next_check_at)}.` : ""}
                    </span>
                  )
                  : null}
              </td>
              <td data-label="Expires" class={domain.expires_at ? undefined : "none"}>
                <When iso={domain.expires_at} kind="expiry" now={now} />
              </td>
              <td
                data-label="Predicted drop"
                class={domain.status === "pending_delete" && domain.predicted_drop_at ? undefined : "none"}
              >
                {domain.status === "pending_delete"
                  ? <When iso={domain.predicted_drop_at} kind="drop" now={now} />
                  : "—"}
              </td>
              <td data-label="Registrar" class="wide-only">{domain.registrar ?? "—"}</td>
              <td data-label="Last checked" class="wide-only">{formatTime(domain.last_checked_at)}</td>
              <td class="actions">
                <CheckNowButton name={domain.domain_name} onChecked={() => setVersion((v) => v + 1)} />
                <ActButton
                  act={row.act}
                  variant="link danger"
                  label={`Remove ${domain.domain_name}`}
                  run={async () => {
                    await api.removeDomain(domain.domain_name);
                    reload();
                    // Undo adds the name back through the server (its quota and rules apply as to any add;
                    // a removed entry keeps its tags and note).
                    offerUndo({
                      message: `Removed ${domain.unicode_name ?? domain.domain_name}`,
                      label: `Undo removing ${domain.domain_name}`,
                      undo: async () => void await api.addDomains([domain.domain_name]),
                    });
                  }}
                >
                  Remove
                </ActButton>
              </td>
            </tr>
          );
        })}
      </Table>
      {page && page.domains.length === 0
        ? (
          <p class="empty">
            {query || status || focus || tag ? "No names match." : "No names yet: add some above."}
          </p>
        )
        : null}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous
        </button>
        <span aria-live="polite">
          {total === 0 ? "0" : `${start + 1}–${Math.min(start + pageSize, total)}`} of {total}
        </span>
        <button
          type="button"
          class="secondary"
          disabled={!page?.next_cursor}
          onClick={() => page?.next_cursor && setCursors([...cursors, page.next_cursor])}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
