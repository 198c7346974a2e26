/** Small building blocks shared by the screens. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { AppError } from "../data/errors.ts";
import { RequestFailed } from "../data/api.ts";
import { eventLabel } from "./event_labels.ts";

export function errorOf(error: unknown): AppError {
  if (error instanceof RequestFailed) return error.failure;
  return { message: String((error as Error)?.message ?? error) };
}

/** An error with what to do next; announced to screen readers. */
export function ErrorNote({ error }: { error: AppError | null }) {
  if (!error) return null;
  return (
    <div class="note error" role="alert">
      <strong>{error.message}</strong>
      {error.next ? <span>{error.next}</span> : null}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <div class="note ok" role="status">{children}</div>;
}

/**
 * Runs an action with busy state and error capture; the form's values stay as typed whatever happens.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  async function act<T>(work: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (caught) {
      setError(errorOf(caught));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, act };
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, {
    dateStyle: "medium",
    timeStyle: "short",
  });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { dateStyle: "medium" });
}

export const statusLabels: Record<string, string> = {
  registered: "Registered",
  pending_delete: "Pending delete",
  available: "Available",
  unknown: "Unknown",
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status}`}>{statusLabels[status] ?? status}</span>;
}

/** Event types as check boxes. */
export function EventTypePicker(
  { legend, all, chosen, onChange }: {
    legend: string;
    all: string[];
    chosen: string[];
    onChange: (next: string[]) => void;
  },
) {
  return (
    <fieldset class="checks">
      <legend>{legend}</legend>
      {all.map((type) => (
        <label key={type}>
          <input
            type="checkbox"
            checked={chosen.includes(type)}
            onChange={(event) =>
              onChange(
                (event.target as HTMLInputElement).checked
                  ? [...chosen, type]
                  : chosen.filter((t) => t !== type),
              )}
          />
          {eventLabel(type)}
        </label>
      ))}
    </fieldset>
  );
}

export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
