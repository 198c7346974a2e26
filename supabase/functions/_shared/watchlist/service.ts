/**
 * The watchlist operations, shared by REST and MCP. Each runs as the account (RLS applies) through one
 * SQL function; validation of names happens here, before anything is written.
 */
import { asAccount, asAccountStatement } from "../db/client.ts";
import { integerLiteral, nullableLiteral, textLiteral } from "../db/literals.ts";
import { normalizeDomainName } from "../domain/normalize.ts";
import { ApiError } from "../http/errors.ts";
import { inDatabase } from "../http/in_database.ts";
import { defaultPageSize, maxBatchSize } from "../contract/limits.ts";
import type {
  AddDomainsResponse,
  DomainStatus,
  ListWatchlistInput,
  RemoveDomainResponse,
  WatchlistDomain,
} from "../contract/schemas.ts";
import { type Page, pageFrom } from "./paging.ts";

// The results are the contract's response types (contract/schemas.ts), not written again here.
export type { WatchlistDomain };
export type AddDomainsResult = AddDomainsResponse;
export type ListOptions = ListWatchlistInput;

/** A moment as a page row holds it: a Date, or the API's ISO text already (`private.iso_timestamp`). */
type Moment = Date | string;

interface WatchlistRow {
  domain_name: string;
  unicode_name: string | null;
  /** The column's check constraint holds it to the contract's statuses. */
  status: DomainStatus;
  added_at: Moment;
  last_checked_at: Moment | null;
  status_changed_at: Moment | null;
  expires_at: Moment | null;
  registrar: string | null;
  tags: string[];
  note: string | null;
}

/**
 * Whose list an operation is about: the account's own, or, for an organization's API key
 * (docs/organizations.md), that organization's (acting as the member who made the key).
 */
export interface ListOwner {
  userId: string;
  organizationId?: string | null;
}

function ownerOf(owner: string | ListOwner): ListOwner {
  return typeof owner === "string" ? { userId: owner } : owner;
}

function iso(value: Moment | null): string | null {
  if (value === null) return null;
  return typeof value === "string" ? value : value.toISOString();
}

function toWatchlistDomain(row: WatchlistRow): WatchlistDomain {
  // Built key by key rather than with conditional spreads: this runs for every row of every page.
  const domain = { domain_name: row.domain_name } as WatchlistDomain;
  if (row.unicode_name && row.unicode_name !== row.domain_name) domain.unicode_name = row.unicode_name;
  domain.status = row.status;
  domain.added_at = iso(row.added_at)!;
  domain.last_checked_at = iso(row.last_checked_at);
  domain.status_changed_at = iso(row.status_changed_at);
  domain.expires_at = iso(row.expires_at);
  domain.registrar = row.registrar;
  // The account's own tags and note, only when set (docs/api.md).
  if (row.tags && row.tags.length > 0) domain.tags = row.tags;
  if (row.note) domain.note = row.note;
  return domain;
}

/** A page request after its rules are checked: the SQL to read it, and its limit. */
export interface ListStatement {
  /** The page as one SELECT without parameters, to run as the account (db/literals.ts). */
  statement: string;
  limit: number;
  /**
   * A personal list's page as the named arguments of `private.api_watchlist_page` (limit, offset, cursor):
   * `list_watchlist`'s own two queries, read for the account that the caller's admission found for its
   * verified credential (api/api_access.ts). Undefined for an organization's list.
   */
  pageArguments?: string;
}

/** A page row's columns (`WatchlistRow`) but the account's own tags and note. */
const pageColumns =
  "domain_name, unicode_name, status, added_at, last_checked_at, status_changed_at, expires_at, registrar";

/**
 * The page's statement (one SELECT without parameters, to run as the account: db/literals.ts), or a 400
 * when cursor and offset are combined.
 */
export function listWatchlistStatement(options: ListOptions, organization = false): ListStatement {
  if (options.offset !== undefined && options.cursor !== undefined) {
    throw new ApiError("invalid_request", "Use either offset or cursor paging, not both.", {
      details: [{ field: "cursor", message: "cannot be combined with offset" }],
    });
  }
  const limit = options.limit ?? defaultPageSize;
  const offset = options.cursor === undefined ? options.offset ?? 0 : null;
  const cursor = options.cursor ?? null;
  const limitSql = integerLiteral(limit);
  const offsetSql = nullableLiteral(offset, integerLiteral);
  const cursorSql = nullableLiteral(cursor, textLiteral);
  const positionalArguments = `${limitSql}, ${offsetSql}, ${cursorSql}`;
  if (organization) {
    // An organization key's request names its organization in the claims the admission set from the key.
    const organizationId = "(auth.jwt() ->> 'organization_id')::uuid";
    return {
      limit,
      statement: `select ${pageColumns}, null::text[] as tags, null::text as note
       from public.list_organization_watchlist(${organizationId}, ${positionalArguments})`,
    };
  }
  return {
    limit,
    statement: `select ${pageColumns}, tags, note from public.list_watchlist(${positionalArguments})`,
    pageArguments: `p_limit => ${limitSql}, p_offset => ${offsetSql}, p_cursor => ${cursorSql}`,
  };
}

/** The page built from the rows of a `listWatchlistStatement`. */
export function watchlistPageFrom(rows: unknown[], limit: number): Page<WatchlistDomain> {
  return pageFrom((rows as WatchlistRow[]).map(toWatchlistDomain), limit);
}

export function listWatchlist(
  owner: string | ListOwner,
  options: ListOptions,
): Promise<Page<WatchlistDomain>> {
  const { userId, organizationId } = ownerOf(owner);
  const { statement, limit } = listWatchlistStatement(options, Boolean(organizationId));
  return inDatabase(async () => {
    // One statement without parameters, so the whole transaction is one round trip (db/literals.ts).
    return watchlistPageFrom(
      await asAccountStatement<WatchlistRow>(userId, statement, organizationId),
      limit,
    );
  });
}

/** Validates every name first (any invalid name → 400 listing them, nothing written), then adds. */
export function addDomains(owner: string | ListOwner, names: unknown[]): Promise<AddDomainsResult> {
  const { userId, organizationId } = ownerOf(owner);
  if (names.length < 1 || names.length > maxBatchSize) {
    throw new ApiError("invalid_request", `Send between 1 and ${maxBatchSize} domain names.`, {
      details: [{ field: "domains", message: `must hold 1–${maxBatchSize} names, got ${names.length}` }],
    });
  }
  const domainNames: string[] = [];
  const invalid: { index: number; value: unknown; message: string }[] = [];
  names.forEach((value, index) => {
    const normalized = normalizeDomainName(value);
    if (normalized.ok) {
      domainNames.push(normalized.domainName);
    } else {
      invalid.push({
        index,
        value: typeof value === "string" ? value.slice(0, 300) : value,
        message: normalized.reason,
      });
    }
  });
  if (invalid.length > 0) {
    throw new ApiError(
      "invalid_request",
      `${invalid.length} of ${names.length} names are not registrable domain names; nothing was added.`,
      { details: invalid },
    );
  }
  return inDatabase(async () => {
    const [row] = await asAccount(
      userId,
      (tx) =>
        organizationId
          ? tx<AddDomainsResult[]>`
        select added, skipped_duplicates, rejected_over_limit, remaining_quota
        from public.add_organization_watchlist_domains(${organizationId}::uuid, ${domainNames}::text[])`
          : tx<AddDomainsResult[]>`
        select added, skipped_duplicates, rejected_over_limit, remaining_quota
        from public.add_watchlist_domains(${domainNames}::text[])`,
      organizationId,
    );
    return row;
  });
}

export function removeDomain(owner: string | ListOwner, name: string): Promise<RemoveDomainResponse> {
  const { userId, organizationId } = ownerOf(owner);
  const normalized = normalizeDomainName(name);
  if (!normalized.ok) {
    throw new ApiError("invalid_request", `"${name.slice(0, 300)}" ${normalized.reason}.`, {
      details: [{ field: "name", message: normalized.reason }],
    });
  }
  return inDatabase(async () => {
    const [row] = await asAccount(
      userId,
      (tx) =>
        organizationId
          ? tx<{ removed: boolean }[]>`
            select public.remove_organization_watchlist_domain(${organizationId}::uuid, ${normalized.domainName})
              as removed`
          : tx<
            { removed: boolean }[]
          >`select public.remove_watchlist_domain(${normalized.domainName}) as removed`,
      organizationId,
    );
    if (!row.removed) {
      const list = organizationId ? "the organization's watchlist" : "your watchlist";
      throw new ApiError("not_found", `${normalized.domainName} is not on ${list}.`);
    }
    return { removed: true, domain_name: normalized.domainName };
  });
}
