/** The table `deno task bench` prints and writes to bench/results.json: figures, ratios and targets. Pure. */

export interface Measurement {
  name: string;
  /** What was measured, e.g. "1,234 req/s vs 1,500 req/s". */
  figures: string;
  /** The ratio compared with the target (null when the check is not a ratio). */
  ratio: number | null;
  target: string;
  met: boolean;
}

export function atLeast(name: string, figures: string, ratio: number, minimum: number): Measurement {
  return { name, figures, ratio, target: `≥ ${minimum}`, met: ratio >= minimum };
}

export function atMost(name: string, figures: string, ratio: number, maximum: number): Measurement {
  return { name, figures, ratio, target: `≤ ${maximum}×`, met: ratio <= maximum };
}

export function check(name: string, figures: string, target: string, met: boolean): Measurement {
  return { name, figures, ratio: null, target, met };
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")} req/s`;
export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A Markdown table (it reads fine in a terminal and pastes into the README). */
export function formatTable(rows: Measurement[]): string {
  const lines = [
    "| measurement | figures | ratio | target | met |",
    "|---|---|---|---|---|",
    ...rows.map((row) =>
      `| ${row.name} | ${row.figures} | ${
        row.ratio === null ? "–" : row.ratio.toFixed(2)
      } | ${row.target} | ${row.met ? "yes" : "**no**"} |`
    ),
  ];
  return lines.join("\n");
}
