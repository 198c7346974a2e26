import { assertEquals } from "../support/assert.ts";
import { pageFrom } from "../../supabase/functions/_shared/watchlist/paging.ts";

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ domain_name: `d${i}.com` }));

Deno.test("a full page plus one row means more, and the cursor is the page's last name", () => {
  assertEquals(pageFrom(rows(4), 3), { domains: rows(3), next_cursor: "d2.com", has_more: true });
});

Deno.test("the last page has no cursor", () => {
  assertEquals(pageFrom(rows(3), 3), { domains: rows(3), next_cursor: null, has_more: false });
  assertEquals(pageFrom([], 3), { domains: [], next_cursor: null, has_more: false });
});
