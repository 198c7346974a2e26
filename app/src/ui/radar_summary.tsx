/** The radar's summary strip: each count is a button that filters the list to those names. */
import type { RadarFocus, WatchlistSummary } from "../data/types.ts";

export const focusLabels: Record<RadarFocus, string> = {
  available_now: "Available now",
  dropping_within_7_days: "Dropping within 7 days",
  expiring_within_30_days: "Expiring within 30 days",
  unknown: "Unknown",
};

export function RadarSummary(
  { summary, focus, onFocus }: {
    summary: WatchlistSummary | null;
    focus: RadarFocus | null;
    onFocus: (focus: RadarFocus | null) => void;
  },
) {
  // Shown once the database has counted (a count of 0 that is really "not known" would mislead).
  if (!summary) return null;
  return (
    <div class="radar-summary" role="group" aria-label="Summary">
      {(Object.keys(focusLabels) as RadarFocus[]).map((key) => {
        const count = summary[key];
        const pressed = focus === key;
        return (
          <button
            key={key}
            type="button"
            class={`summary-${key}${pressed ? " pressed" : ""}`}
            aria-pressed={pressed}
            aria-label={`${focusLabels[key]}: ${count}${
              pressed ? " (showing only these; press to show all)" : ""
            }`}
            onClick={() => onFocus(pressed ? null : key)}
          >
            <strong>{count}</strong>
            <span>{focusLabels[key]}</span>
          </button>
        );
      })}
    </div>
  );
}
