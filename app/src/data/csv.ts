/** Names from pasted text or a CSV file, and the watchlist as CSV. Pure (tests/unit/app_csv.test.ts). */
import type { WatchedDomain } from "./types.ts";

const headerWords = new Set(["domain", "domain_name", "name", "domains"]);

/**
 * The names in a paste or a CSV: one a line, or separated by commas, semicolons or spaces; the first cell
 * of a CSV row when it has quotes; a header cell (`domain`, `domain_name`, `name`) is skipped. The
 * server judges each name; this only splits.
 */
export function namesFromText(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const cell of line.split(/[,;\s\t]+/)) {
      const name = cell.trim().replace(/^"(.*)"$/, "$1").trim();
      if (!name) continue;
      if (names.length === 0 && headerWords.has(name.toLowerCase())) continue;
      names.push(name);
    }
  }
  return names;
}

function cell(value: string | null | undefined): string {
  const text = value ?? "";
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvColumns = [
  "domain_name",
  "unicode_name",
  "status",
  "expires_at",
  "registrar",
  "last_checked_at",
  "predicted_drop_at",
  "added_at",
] as const;

export function watchlistCsv(rows: WatchedDomain[]): string {
  const lines = [csvColumns.join(",")];
  for (const row of rows) {
    lines.push(csvColumns.map((column) => cell(row[column] as string | null)).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}
