/** Watchlist pages: query rules (docs/decisions.md) and the response built from `limit + 1` rows. Pure. */

export type PageRequest =
  | { limit: number; offset: number; cursor: null }
  | { limit: number; offset: null; cursor: string };

/** The shape of the contract's `listResponse` (contract/schemas.ts) for rows of type `T`. */
export interface Page<T> {
  domains: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Builds the page from the rows the database returned (at most `limit + 1`, ordered by name). */
export function pageFrom<T extends { domain_name: string }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const domains = hasMore ? rows.slice(0, limit) : rows;
  return {
    domains,
    next_cursor: hasMore ? domains[domains.length - 1].domain_name : null,
    has_more: hasMore,
  };
}
