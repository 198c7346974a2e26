/**
 * Where the RDAP servers for a name come from: IANA's bootstrap file (fetched from `RDAP_BOOTSTRAP_URL`,
 * kept in `public.rdap_bootstrap_cache`, re-fetched once a day) plus the enabled rows of
 * `public.rdap_server_overrides` (shipped fallbacks for TLDs IANA omits, and the operator's overrides),
 * memoised in memory for a few minutes.
 *
 * If a refresh fails, the stored copy keeps being used. A fetched copy whose `publication` is older than
 * the stored one does not replace it (a stale mirror or CDN must not undo an update).
 */
import {
  type BootstrapRegistry,
  findRdapService,
  isSameOrNewerPublication,
  parseBootstrap,
  type RdapService,
  type ServerOverride,
  withOverrides,
} from "./bootstrap.ts";
import { asService, type TransactionRunner } from "../db/client.ts";
import { config } from "../config.ts";
import { errorForLog } from "../log_text.ts";

export interface StoredBootstrap {
  sourceUrl: string;
  /** The file's `publication`, ISO 8601, or null. */
  publication: string | null;
  document: unknown;
  /** When this copy was last fetched or confirmed as current (ISO 8601). */
  fetchedAt: string;
}

export interface BootstrapStorage {
  load(sourceUrl: string): Promise<StoredBootstrap | null>;
  save(copy: StoredBootstrap): Promise<void>;
  overrides(): Promise<ServerOverride[]>;
}

export interface ServerDirectory {
  /** Base URLs of the registry's RDAP servers for `domainName`, best first; empty when there is none. */
  serversFor(domainName: string): Promise<string[]>;
  /**
   * Is `url`'s origin (scheme, host, port) that of a server listed in the bootstrap or the server table?
   * Only such servers may be the target of a cross-host RDAP redirect (docs/url-policy.md).
   */
  isListedServer(url: string): Promise<boolean>;
  /** The matched suffix, its base URLs (empty: none) and canary name; null when no suffix is listed. */
  serviceFor(domainName: string): Promise<RdapService | null>;
}

export class BootstrapUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BootstrapUnavailableError";
  }
}

export interface BootstrapStoreOptions {
  storage: BootstrapStorage;
  bootstrapUrl: () => string;
  fetch?: typeof fetch;
  now?: () => number;
  refreshIntervalMs?: number;
  memoMs?: number;
  /** After a failed fetch with nothing stored, wait this long before fetching again. */
  retryAfterFailureMs?: number;
  fetchTimeoutMs?: number;
}

const DAY_MS = 24 * 60 * 60_000;
const MEMO_MS = 5 * 60_000;
const RETRY_AFTER_FAILURE_MS = 60_000;
const FETCH_TIMEOUT_MS = 15_000;

interface Memo {
  sourceUrl: string;
  loadedAt: number;
  /** IANA's services with overrides applied; null when no bootstrap copy could be had. */
  registry: BootstrapRegistry | null;
  overrides: BootstrapRegistry;
  /** Origins of every base URL listed in IANA's file or the override table. */
  listedOrigins: Set<string>;
}

export function createBootstrapStore(options: BootstrapStoreOptions): ServerDirectory & {
  /** Drops the in-memory copy (after an operator edited the overrides, or in tests). */
  forget(): void;
} {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const refreshIntervalMs = options.refreshIntervalMs ?? DAY_MS;
  const memoMs = options.memoMs ?? MEMO_MS;
  const retryAfterFailureMs = options.retryAfterFailureMs ?? RETRY_AFTER_FAILURE_MS;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? FETCH_TIMEOUT_MS;
  let memo: Memo | undefined;
  let loading: Promise<Memo> | undefined;

  async function fetchBootstrap(sourceUrl: string): Promise<StoredBootstrap> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), fetchTimeoutMs);
    try {
      const response = await fetchImpl(sourceUrl, {
        headers: { accept: "application/json" },
        signal: controller.signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`bootstrap fetch answered HTTP ${response.status}`);
      }
      const document = await response.json();
      const registry = parseBootstrap(document);
      return {
        sourceUrl,
        publication: registry.publication,
        document,
        fetchedAt: new Date(now()).toISOString(),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The copy to use: the stored one while fresh, else a fetched one (or the stored one if fetching fails). */
  async function currentCopy(sourceUrl: string): Promise<StoredBootstrap | null> {
    const stored = await options.storage.load(sourceUrl);
    if (stored && now() - Date.parse(stored.fetchedAt) < refreshIntervalMs) return stored;
    let fetched: StoredBootstrap;
    try {
      fetched = await fetchBootstrap(sourceUrl);
    } catch (error) {
      console.error(`RDAP bootstrap refresh failed: ${errorForLog(error)}`);
      return stored;
    }
    const keep = stored && !isSameOrNewerPublication(fetched.publication, stored.publication)
      ? { ...stored, fetchedAt: fetched.fetchedAt }
      : fetched;
    await options.storage.save(keep);
    return keep;
  }

  async function load(sourceUrl: string): Promise<Memo> {
    const [copy, overrides] = await Promise.all([currentCopy(sourceUrl), options.storage.overrides()]);
    const overridesOnly = withOverrides({ publication: null, services: new Map() }, overrides);
    let registry: BootstrapRegistry | null = null;
    if (copy) {
      try {
        registry = withOverrides(parseBootstrap(copy.document), overrides);
      } catch (error) {
        console.error(`stored RDAP bootstrap is unreadable: ${errorForLog(error)}`);
      }
    }
    const listedOrigins = new Set<string>();
    for (const services of [registry?.services, overridesOnly.services]) {
      for (const urls of services?.values() ?? []) {
        for (const url of urls) listedOrigins.add(new URL(url).origin);
      }
    }
    return { sourceUrl, loadedAt: now(), registry, overrides: overridesOnly, listedOrigins };
  }

  function isFresh(candidate: Memo | undefined, sourceUrl: string): candidate is Memo {
    if (!candidate || candidate.sourceUrl !== sourceUrl) return false;
    const age = now() - candidate.loadedAt;
    return age < (candidate.registry ? memoMs : retryAfterFailureMs);
  }

  async function currentMemo(): Promise<Memo> {
    const sourceUrl = options.bootstrapUrl();
    if (isFresh(memo, sourceUrl)) return memo;
    loading ??= load(sourceUrl).finally(() => {
      loading = undefined;
    });
    memo = await loading;
    return memo;
  }

  async function serviceFor(domainName: string): Promise<RdapService | null> {
    const current = await currentMemo();
    if (current.registry) return findRdapService(current.registry, domainName);
    // Without IANA's file only a row of the server table can answer; "no server" would be a guess.
    const listed = findRdapService(current.overrides, domainName);
    if (listed !== null) return listed;
    throw new BootstrapUnavailableError("no copy of the RDAP bootstrap could be loaded");
  }

  return {
    serviceFor,
    async serversFor(domainName) {
      return (await serviceFor(domainName))?.baseUrls ?? [];
    },
    async isListedServer(url) {
      let origin: string;
      try {
        origin = new URL(url).origin;
      } catch {
        return false;
      }
      return (await currentMemo()).listedOrigins.has(origin);
    },
    forget() {
      memo = undefined;
    },
  };
}

/** Storage in `public.rdap_bootstrap_cache` and `public.rdap_server_overrides`, as service_role. */
export function databaseBootstrapStorage(
  run: TransactionRunner = asService,
): BootstrapStorage {
  return {
    load: (sourceUrl) =>
      run(async (tx) => {
        const rows = await tx<{ publication: Date | null; document: unknown; fetched_at: Date }[]>`
          select publication, document, fetched_at
          from public.rdap_bootstrap_cache
          where source_url = ${sourceUrl}`;
        if (rows.length === 0) return null;
        return {
          sourceUrl,
          publication: rows[0].publication?.toISOString() ?? null,
          document: rows[0].document,
          fetchedAt: rows[0].fetched_at.toISOString(),
        };
      }),
    save: (copy) =>
      run(async (tx) => {
        await tx`
          insert into public.rdap_bootstrap_cache (source_url, publication, document, fetched_at)
          values (${copy.sourceUrl}, ${copy.publication}, ${
          JSON.stringify(copy.document)
        }::text::jsonb, ${copy.fetchedAt})
          on conflict (source_url) do update
            set publication = excluded.publication, document = excluded.document, fetched_at = excluded.fetched_at`;
      }),
    overrides: () =>
      run(async (tx) => {
        const rows = await tx<
          { suffix: string; base_url: string | null; canary_name: string | null; precedence: string }[]
        >`
          select suffix, base_url, canary_name, precedence
          from public.rdap_server_overrides
          where enabled`;
        return rows.map((row) => ({
          suffix: row.suffix,
          baseUrl: row.base_url,
          canaryName: row.canary_name,
          precedence: row.precedence === "fallback" ? "fallback" : "override",
        }));
      }),
  };
}

/** Storage in memory, for tests and tools: starts with the given overrides and no bootstrap copy. */
export function memoryBootstrapStorage(overrides: ServerOverride[] = []): BootstrapStorage & {
  copies: Map<string, StoredBootstrap>;
} {
  const copies = new Map<string, StoredBootstrap>();
  return {
    copies,
    load: (sourceUrl) => Promise.resolve(copies.get(sourceUrl) ?? null),
    save: (copy) => {
      copies.set(copy.sourceUrl, copy);
      return Promise.resolve();
    },
    overrides: () => Promise.resolve(overrides),
  };
}

let shared: ReturnType<typeof createBootstrapStore> | undefined;

/** The process-wide directory backed by the database and `RDAP_BOOTSTRAP_URL`. */
export function sharedBootstrapStore(): ServerDirectory {
  shared ??= createBootstrapStore({
    storage: databaseBootstrapStorage(),
    bootstrapUrl: config.rdapBootstrapUrl,
  });
  return shared;
}
