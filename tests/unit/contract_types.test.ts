/** The services' result types are the contract's: these lines stop compiling if they ever part. */
import { assertEquals } from "../support/assert.ts";
import type { Page } from "../../supabase/functions/_shared/watchlist/paging.ts";
import type { ListResponse, WatchlistDomain } from "../../supabase/functions/_shared/contract/schemas.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

Deno.test("a watchlist page is the contract's list response", () => {
  const same: Same<Page<WatchlistDomain>, ListResponse> = true;
  assertEquals(same, true);
});
