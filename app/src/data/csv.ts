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
  "tags",
  "note",
] as const;

/** The watchlist as CSV; `tags` are joined with commas in one cell (a tag never holds a comma). */
export function watchlistCsv(rows: WatchedDomain[]): string {
  const lines = [csvColumns.join(",")];
  for (const row of rows) {
    lines.push(
      csvColumns.map((column) =>
        cell(column === "tags" ? (row.tags ?? []).join(",") : row[column] as string | null)
      ).join(","),
    );
  }
  return lines.join("\r\n") + "\r\n";
}

/** The rows of a CSV text (RFC 4180: quoted cells may hold commas, quotes as "" and line breaks). */
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let value = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        value += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        value += char;
      }
    } else if (char === '"') {
      quoted = true;
    } else if (char === ",") {
      record.push(value);
      value = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      record.push(value);
      records.push(record);
      record = [];
      value = "";
    } else {
      value += char;
    }
  }
  if (value !== "" || record.length > 0) {
    record.push(value);
    records.push(record);
  }
  return records.filter((row) => row.some((c) => c.trim() !== ""));
}

export interface ImportedDetails {
  domain_name: string;
  tags?: string[];
  note?: string | null;
}

/**
 * A CSV with a header naming the name column (`domain_name`, `domain` or `name`) and `tags` and/or `note`
 * (as the export writes it): each row's name with its tags (comma-separated in the cell) and note. Null
 * for any other text (then only names are read, by namesFromText).
 */
export function detailsFromCsv(text: string): ImportedDetails[] | null {
  const [header, ...rows] = csvRecords(text);
  if (!header) return null;
  const columns = header.map((c) => c.trim().toLowerCase());
  const nameAt = columns.findIndex((c) => headerWords.has(c));
  const tagsAt = columns.indexOf("tags");
  const noteAt = columns.indexOf("note");
  if (nameAt < 0 || (tagsAt < 0 && noteAt < 0)) return null;
  const details: ImportedDetails[] = [];
  for (const row of rows) {
    const name = (row[nameAt] ?? "").trim();
    if (!name) continue;
    const item: ImportedDetails = { domain_name: name };
    if (tagsAt >= 0) item.tags = (row[tagsAt] ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    if (noteAt >= 0) item.note = (row[noteAt] ?? "").trim() || null;
    details.push(item);
  }
  return details;
}
