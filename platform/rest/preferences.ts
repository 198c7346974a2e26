/**
 * The `Prefer` header (`src/PostgREST/ApiRequest/Preferences.hs`) and the `Range` header with `limit` /
 * `offset` (`src/PostgREST/RangeQuery.hs`), and the `Content-Range` PostgREST answers. Pure.
 */
import { pgrstErrors } from "./errors.ts";

export interface Preferences {
  return?: "minimal" | "representation" | "headers-only";
  /** `planned` and `estimated` are counted exactly by the stand-in. */
  count?: "exact" | "planned" | "estimated";
  resolution?: "merge-duplicates" | "ignore-duplicates";
  missing?: "default" | "null";
  handling?: "strict" | "lenient";
  /** `max-affected=N` (PostgREST 13): with `handling=strict`, a mutation touching more rows fails (PGRST124). */
  maxAffected?: number;
  /** The preferences understood, as `Preference-Applied` lists them. */
  applied: string[];
  /** The ones not understood (an error only with `handling=strict`). */
  invalid: string[];
}

const accepted: Record<string, readonly string[]> = {
  return: ["minimal", "representation", "headers-only"],
  count: ["exact", "planned", "estimated"],
  resolution: ["merge-duplicates", "ignore-duplicates"],
  missing: ["default", "null"],
  handling: ["strict", "lenient"],
  // Accepted and ignored, as PostgREST ignores `tx` unless `db-tx-end` allows overriding (Supabase does not).
  tx: ["commit", "rollback"],
};

/** Reads every `Prefer` header value (comma-separated; the first of a kind wins, as in PostgREST). */
export function parsePreferences(headerValues: string | null): Preferences {
  const preferences: Preferences = { applied: [], invalid: [] };
  const seen = new Set<string>();
  for (const raw of (headerValues ?? "").split(",")) {
    const token = raw.trim();
    if (!token) continue;
    const [name, value] = token.split("=", 2).map((part) => part.trim());
    if (name === "max-affected" && /^\d+$/.test(value ?? "")) {
      if (!seen.has(name)) preferences.maxAffected = Number(value);
      seen.add(name);
      continue;
    }
    if (!accepted[name]?.includes(value)) {
      preferences.invalid.push(token);
      continue;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    if (name !== "tx") (preferences as unknown as Record<string, string>)[name] = value;
  }
  if (preferences.handling === "strict" && preferences.invalid.length > 0) {
    throw pgrstErrors.invalidPreferences(preferences.invalid);
  }
  return preferences;
}

/** The `Preference-Applied` value for the preferences that took effect here (undefined for none). */
export function preferenceApplied(
  preferences: Preferences,
  kinds: readonly ("return" | "count" | "resolution" | "missing" | "handling" | "max-affected")[],
): string | undefined {
  const applied = kinds
    .filter((kind) =>
      kind === "max-affected" ? maxAffectedApplies(preferences) : preferences[kind] !== undefined
    )
    .map((kind) =>
      kind === "max-affected" ? `max-affected=${preferences.maxAffected}` : `${kind}=${preferences[kind]}`
    );
  return applied.length > 0 ? applied.join(", ") : undefined;
}

/** `max-affected` takes effect only with `handling=strict`, as in PostgREST. */
export function maxAffectedApplies(preferences: Preferences): boolean {
  return preferences.handling === "strict" && preferences.maxAffected !== undefined;
}

/** Rows to skip and at most how many to return (`undefined`: no limit). */
export interface RowRange {
  offset: number;
  limit?: number;
}

/**
 * The top-level range: the `Range` header (GET only, `items` unit, `first-[last]`) intersected with
 * `limit`/`offset`, capped by `max_rows` (supabase/config.toml `[api] max_rows`). A negative limit or an
 * inverted header range is PGRST103 (416).
 */
export function requestedRange(
  method: string,
  rangeHeader: string | null,
  limit: number | undefined,
  offset: number | undefined,
  maxRows: number | undefined,
): RowRange {
  if (limit !== undefined && limit < 0) {
    throw pgrstErrors.invalidRange("Limit should be greater than or equal to zero.");
  }
  let lower = Math.max(0, offset ?? 0);
  let upper = limit === undefined ? Infinity : lower + limit - 1;
  const header = method === "GET" ? rangeHeader?.trim().match(/^(?:items=)?(\d+)-(\d*)$/) : null;
  if (header) {
    const headerLower = Number(header[1]);
    const headerUpper = header[2] === "" ? Infinity : Number(header[2]);
    if (headerUpper < headerLower) {
      throw pgrstErrors.invalidRange(
        "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
      );
    }
    if (limit !== 0) {
      lower = Math.max(lower, headerLower);
      upper = Math.min(upper, headerUpper);
    }
  }
  if (limit === 0) return { offset: lower, limit: 0 };
  let count = upper === Infinity ? undefined : Math.max(0, upper - lower + 1);
  if (maxRows !== undefined) count = Math.min(count ?? maxRows, maxRows);
  return { offset: lower, limit: count };
}

/** `Content-Range: <first>-<last>/<total|*>` (`*` for the range when no rows, or when the total is 0). */
export function contentRange(first: number, last: number, total: number | undefined): string {
  const range = total !== 0 && first <= last ? `${first}-${last}` : "*";
  return `${range}/${total ?? "*"}`;
}

/** The status of a read: 206 when a known total has more rows than returned, 416 past the end, else 200. */
export function readStatus(first: number, rows: number, total: number | undefined): number {
  if (total === undefined) return 200;
  const last = first + rows - 1;
  if (first > total) return 416;
  if (1 + last - first < total) return 206;
  return 200;
}
