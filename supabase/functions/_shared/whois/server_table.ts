/**
 * The WHOIS server table (`public.whois_servers`): which server answers for a suffix, and that server's
 * own phrasings as patterns. Rows are compiled once (a pattern that is not a valid regular expression
 * disables its row, so a typo can never make a name available) and looked up by the longest matching
 * suffix of whole labels, as the RDAP bootstrap is. The table is memoised in memory for a few minutes.
 */
import { asService, type TransactionRunner } from "../db/client.ts";

/** One row as stored. */
export interface WhoisServerRecord {
  suffix: string;
  host: string | null;
  port: number;
  queryFormat: string;
  canaryName: string | null;
  notFoundPattern: string | null;
  foundPattern: string | null;
  limitPattern: string | null;
  statusPattern: string | null;
  pendingDeleteStatuses: string[];
  registrarPattern: string | null;
  expirationPattern: string | null;
  encoding: "utf-8" | "latin-1";
  unsupportedReason: string | null;
  source: string;
}

/** A usable WHOIS route: the row's server and its compiled phrasings. */
export interface WhoisRoute {
  suffix: string;
  host: string;
  port: number;
  /** `host:port`: the politeness key and the `server` a check result names. */
  server: string;
  queryFormat: string;
  canaryName: string;
  notFound: RegExp;
  found: RegExp;
  limit: RegExp | null;
  status: RegExp | null;
  /** Lower case. */
  pendingDeleteStatuses: string[];
  registrar: RegExp | null;
  expiration: RegExp | null;
  encoding: "utf-8" | "latin-1";
}

/** A suffix whose registry offers no usable public WHOIS. */
export interface UnsupportedSuffix {
  suffix: string;
  reason: string;
}

export type WhoisEntry =
  | { kind: "route"; route: WhoisRoute }
  | { kind: "unsupported"; unsupported: UnsupportedSuffix };

/** Every pattern is matched line by line and without regard to case. */
export const PATTERN_FLAGS = "mi";

function compile(pattern: string | null, global = false): RegExp | null {
  if (pattern === null || pattern.trim() === "") return null;
  return new RegExp(pattern, global ? `${PATTERN_FLAGS}g` : PATTERN_FLAGS);
}

/** The row as a route or an unsupported suffix; null (and a log line) when a pattern does not compile. */
export function compileWhoisRow(record: WhoisServerRecord): WhoisEntry | null {
  const suffix = record.suffix.toLowerCase();
  if (record.host === null) {
    return { kind: "unsupported", unsupported: { suffix, reason: record.unsupportedReason ?? "no WHOIS" } };
  }
  try {
    const notFound = compile(record.notFoundPattern);
    const found = compile(record.foundPattern);
    if (notFound === null || found === null || record.canaryName === null) {
      throw new Error("a route needs a canary name and both the not-found and found patterns");
    }
    if (!record.queryFormat.includes("%s")) throw new Error("the query format has no %s");
    return {
      kind: "route",
      route: {
        suffix,
        host: record.host,
        port: record.port,
        server: `${record.host}:${record.port}`,
        queryFormat: record.queryFormat,
        canaryName: record.canaryName,
        notFound,
        found,
        limit: compile(record.limitPattern),
        status: compile(record.statusPattern, true),
        pendingDeleteStatuses: record.pendingDeleteStatuses.map((word) => word.trim().toLowerCase()),
        registrar: compile(record.registrarPattern),
        expiration: compile(record.expirationPattern),
        encoding: record.encoding,
      },
    };
  } catch (error) {
    console.error(`whois_servers row ${suffix} is disabled: ${(error as Error).message}`);
    return null;
  }
}

/**
 * The entry of the longest suffix of whole labels that the table lists, or null. A row covers the names
 * *under* its suffix, never the suffix itself: `com.ru` (a name registered under `.ru`) is read under the
 * `ru` row, `example.com.ru` under the `com.ru` row (a zone with its own server). Mirrored in SQL by
 * `private.whois_suffix_of` (parity: tests/integration/whois_rows.test.ts).
 */
export function findWhoisEntry(entries: Map<string, WhoisEntry>, domainName: string): WhoisEntry | null {
  const labels = domainName.toLowerCase().replace(/\.$/, "").split(".");
  for (let start = 1; start < labels.length; start++) {
    const entry = entries.get(labels.slice(start).join("."));
    if (entry !== undefined) return entry;
  }
  return null;
}

/** The suffix a WHOIS entry covers. */
export function entrySuffix(entry: WhoisEntry): string {
  return entry.kind === "route" ? entry.route.suffix : entry.unsupported.suffix;
}

/**
 * The zone rule (docs/whois.md "Zones with their own servers"): a second-level (or deeper) zone listed
 * without a usable server. Its names are refused when added and answer `unsupported_zone` in live checks,
 * since the TLD's server does not hold them. Mirrored in SQL by `private.whois_unsupported_zone`.
 */
export function unsupportedZone(entry: WhoisEntry | null): string | null {
  if (entry === null || entry.kind !== "unsupported") return null;
  return entry.unsupported.suffix.includes(".") ? entry.unsupported.suffix : null;
}

/** The query line for a name: the row's format with `%s` replaced, ended by CRLF (RFC 3912). */
export function whoisQueryLine(route: Pick<WhoisRoute, "queryFormat">, domainName: string): string {
  return `${route.queryFormat.replace("%s", domainName)}\r\n`;
}

export interface WhoisDirectory {
  /** The route or unsupported entry for `domainName`; null when the table has no row for its suffix. */
  entryFor(domainName: string): Promise<WhoisEntry | null>;
}

const MEMO_MS = 5 * 60_000;

/** A directory over `load`, memoised for `memoMs` (a failed load is not memoised). */
export function createWhoisDirectory(
  load: () => Promise<WhoisServerRecord[]>,
  options: { memoMs?: number; now?: () => number } = {},
): WhoisDirectory & { forget(): void } {
  const now = options.now ?? Date.now;
  const memoMs = options.memoMs ?? MEMO_MS;
  let memo: { at: number; entries: Map<string, WhoisEntry> } | undefined;
  let loading: Promise<Map<string, WhoisEntry>> | undefined;

  async function entries(): Promise<Map<string, WhoisEntry>> {
    if (memo && now() - memo.at < memoMs) return memo.entries;
    loading ??= load().then((records) => {
      const compiled = new Map<string, WhoisEntry>();
      for (const record of records) {
        const entry = compileWhoisRow(record);
        if (entry !== null) compiled.set(record.suffix.toLowerCase(), entry);
      }
      memo = { at: now(), entries: compiled };
      return compiled;
    }).finally(() => {
      loading = undefined;
    });
    return await loading;
  }

  return {
    entryFor: async (domainName) => findWhoisEntry(await entries(), domainName),
    forget() {
      memo = undefined;
    },
  };
}

interface WhoisServerRow {
  suffix: string;
  host: string | null;
  port: number;
  query_format: string;
  canary_name: string | null;
  not_found_pattern: string | null;
  found_pattern: string | null;
  limit_pattern: string | null;
  status_pattern: string | null;
  pending_delete_statuses: string[];
  registrar_pattern: string | null;
  expiration_pattern: string | null;
  encoding: string;
  unsupported_reason: string | null;
  source: string;
}

/** The enabled rows of `public.whois_servers`, as service_role. */
export function databaseWhoisRecords(run: TransactionRunner = asService): () => Promise<WhoisServerRecord[]> {
  return () =>
    run(async (tx) => {
      const rows = await tx<WhoisServerRow[]>`
        select suffix, host, port, query_format, canary_name, not_found_pattern, found_pattern, limit_pattern,
               status_pattern, pending_delete_statuses, registrar_pattern, expiration_pattern, encoding,
               unsupported_reason, source
        from public.whois_servers
        where enabled`;
      return rows.map(recordFromRow);
    });
}

export function recordFromRow(row: WhoisServerRow): WhoisServerRecord {
  return {
    suffix: row.suffix,
    host: row.host,
    port: row.port,
    queryFormat: row.query_format,
    canaryName: row.canary_name,
    notFoundPattern: row.not_found_pattern,
    foundPattern: row.found_pattern,
    limitPattern: row.limit_pattern,
    statusPattern: row.status_pattern,
    pendingDeleteStatuses: row.pending_delete_statuses ?? [],
    registrarPattern: row.registrar_pattern,
    expirationPattern: row.expiration_pattern,
    encoding: row.encoding === "latin-1" ? "latin-1" : "utf-8",
    unsupportedReason: row.unsupported_reason,
    source: row.source,
  };
}

let shared: ReturnType<typeof createWhoisDirectory> | undefined;

/** The process-wide directory over the database table. */
export function sharedWhoisDirectory(): WhoisDirectory {
  shared ??= createWhoisDirectory(databaseWhoisRecords());
  return shared;
}
