import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { callChecked, publishedContract } from "../support/contract.ts";
import { startStack, type TestStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

function names(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}.com`);
}

function nextUtcMidnight(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

async function activeCount(stack: TestStack, userId: string): Promise<number> {
  const [row] = await stack.sql<{ count: number }[]>`
    select count(*)::int as count from public.watchlist_entries where user_id = ${userId} and deleted_at is null`;
  return row.count;
}

Deno.test("REST API end to end", options, async (t) => {
  const stack = await startStack();
  const api = stack.apiBase;
  try {
    // Every response below is checked against the schema the served OpenAPI document publishes for it.
    const contract = await publishedContract(api);
    await t.step("a missing, unknown or revoked key is 401 with a JSON error", async () => {
      const missing = await callChecked(contract, `${api}/domains`);
      assertEquals(missing.status, 401);
      assertEquals(missing.body.error, "unauthorized");
      assert(typeof missing.body.message === "string");
      const unknown = await callChecked(contract, `${api}/domains`, { apiKey: "dwl_" + "0".repeat(48) });
      assertEquals(unknown.status, 401);

      const account = await stack.account("pro");
      assertEquals((await callChecked(contract, `${api}/domains`, { apiKey: account.api_key! })).status, 200);
      await stack.sql`update public.api_keys set revoked_at = now() where user_id = ${account.user_id}`;
      const revoked = await callChecked(contract, `${api}/domains`, { apiKey: account.api_key! });
      assertEquals(revoked.status, 401);
      assertEquals(revoked.body.error, "unauthorized");
    });

    await t.step("a Free account is 403 upgrade_required", async () => {
      const free = await stack.account("free");
      assertEquals(free.api_key, null);
      // Free accounts cannot create keys; a key left from a downgrade must still be refused with 403.
      const legacyKey = `dwl_legacy_${crypto.randomUUID()}`;
      await stack.sql`
        insert into public.api_keys (user_id, name, prefix, key_hash)
        values (${free.user_id}, 'legacy', 'dwl_legacy00', encode(sha256(convert_to(${legacyKey}, 'UTF8')), 'hex'))`;
      const response = await callChecked(contract, `${api}/domains`, { apiKey: legacyKey });
      assertEquals(response.status, 403);
      assertEquals(response.body.error, "upgrade_required");
    });

    const pro = await stack.account("pro");
    const key = pro.api_key!;

    await t.step("add, list and remove, with rate-limit headers on every response", async () => {
      const added = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: key,
        json: { domains: ["Example.COM.", " bücher.de ", "example.com", "xn--bcher-kva.de"] },
      });
      assertEquals(added.status, 200);
      assertEquals(added.body, {
        added: 2,
        skipped_duplicates: 2,
        rejected_over_limit: 0,
        remaining_quota: 998,
      });
      assertEquals(added.headers.get("ratelimit-limit"), "1000");
      assert(Number(added.headers.get("ratelimit-remaining")) < 1000);
      assert(Number(added.headers.get("ratelimit-reset")) > 0);
      assert(added.headers.get("x-request-id"));

      const again = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: key,
        json: { domains: ["example.com"] },
      });
      assertEquals(again.body, {
        added: 0,
        skipped_duplicates: 1,
        rejected_over_limit: 0,
        remaining_quota: 998,
      });

      const list = await callChecked<
        { domains: Record<string, unknown>[]; has_more: boolean; next_cursor: null }
      >(
        contract,
        `${api}/domains`,
        { apiKey: key },
      );
      assertEquals(list.status, 200);
      assertEquals(list.body.domains.map((d) => d.domain_name), ["example.com", "xn--bcher-kva.de"]);
      assertEquals(list.body.domains[1].unicode_name, "bücher.de");
      assertEquals(list.body.domains[0].unicode_name, undefined);
      assertEquals(list.body.domains[0].status, "unknown");
      assertEquals(list.body.has_more, false);
      assertEquals(list.body.next_cursor, null);

      const removed = await callChecked(contract, `${api}/domains/B%C3%BCcher.de`, {
        method: "DELETE",
        apiKey: key,
      });
      assertEquals(removed.status, 200);
      assertEquals(removed.body, { removed: true, domain_name: "xn--bcher-kva.de" });
      const gone = await callChecked(contract, `${api}/domains/xn--bcher-kva.de`, {
        method: "DELETE",
        apiKey: key,
      });
      assertEquals(gone.status, 404);
      assertEquals(gone.body.error, "not_found");

      const restored = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: key,
        json: { domains: ["bücher.de"] },
      });
      assertEquals(restored.body.added, 1);
    });

    await t.step("invalid names are a 400 listing them, and nothing is written", async () => {
      const before = await activeCount(stack, pro.user_id);
      const response = await callChecked<{ error: string; message: string; details: { index: number }[] }>(
        contract,
        `${api}/domains`,
        {
          method: "POST",
          apiKey: key,
          json: { domains: ["fine-name.com", "www.example.com", "com", "co.uk", "a b.com"] },
        },
      );
      assertEquals(response.status, 400);
      assertEquals(response.body.error, "invalid_request");
      assertEquals(response.body.details.map((d) => d.index), [1, 2, 3, 4]);
      assertMatch(JSON.stringify(response.body.details[0]), /subdomain/);
      assertMatch(JSON.stringify(response.body.details[1]), /top-level/);
      assertEquals(await activeCount(stack, pro.user_id), before);
    });

    await t.step(
      "a name under a zone with its own WHOIS server is a 400 (unsupported_zone), nothing written",
      async () => {
        const before = await activeCount(stack, pro.user_id);
        const response = await callChecked<{ error: string; message: string }>(contract, `${api}/domains`, {
          method: "POST",
          apiKey: key,
          json: { domains: ["zone-test.cn", "zone-test.edu.cn"] },
        });
        assertEquals(response.status, 400);
        assertEquals(response.body.error, "invalid_request");
        assertMatch(response.body.message, /zone-test\.edu\.cn is under edu\.cn.*\(unsupported_zone\)/);
        assertEquals(await activeCount(stack, pro.user_id), before);
      },
    );

    await t.step("500 names are accepted, 501 and 0 are not", async () => {
      const account = await stack.account("pro");
      const five00 = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: account.api_key!,
        json: { domains: names(500, "batch") },
      });
      assertEquals(five00.status, 200);
      assertEquals(five00.body.added, 500);
      const five01 = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: account.api_key!,
        json: { domains: names(501, "more") },
      });
      assertEquals(five01.status, 400);
      const none = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey: account.api_key!,
        json: { domains: [] },
      });
      assertEquals(none.status, 400);
      assertEquals(await activeCount(stack, account.user_id), 500);
    });

    await t.step("the quota is applied in request order", async () => {
      const account = await stack.account("pro");
      const apiKey = account.api_key!;
      await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey,
        json: { domains: names(500, "fill-a") },
      });
      await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey,
        json: { domains: names(498, "fill-b") },
      });
      const edge = await callChecked(contract, `${api}/domains`, {
        method: "POST",
        apiKey,
        json: {
          domains: ["fill-a-0000.com", "edge-1.com", "edge-2.com", "edge-1.com", "edge-3.com", "edge-4.com"],
        },
      });
      assertEquals(edge.body, {
        added: 2,
        skipped_duplicates: 2,
        rejected_over_limit: 2,
        remaining_quota: 0,
      });
      const page = await callChecked<{ domains: { domain_name: string }[] }>(
        contract,
        `${api}/domains?cursor=edge-0.com&limit=5`,
        {
          apiKey,
        },
      );
      assertEquals(page.body.domains.slice(0, 2).map((d) => d.domain_name), ["edge-1.com", "edge-2.com"]);
      assertEquals(await activeCount(stack, account.user_id), 1000);
    });

    await t.step("both paging styles walk a 450-entry watchlist without gaps or repeats", async () => {
      const account = await stack.account("pro");
      const apiKey = account.api_key!;
      const all = names(450, "page");
      await callChecked(contract, `${api}/domains`, { method: "POST", apiKey, json: { domains: all } });

      const byCursor: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      for (;;) {
        const url: string = `${api}/domains?limit=200${cursor ? `&cursor=${cursor}` : ""}`;
        const page = await callChecked<
          { domains: { domain_name: string }[]; has_more: boolean; next_cursor: string }
        >(contract, url, { apiKey });
        assertEquals(page.status, 200);
        byCursor.push(...page.body.domains.map((d) => d.domain_name));
        pages++;
        if (!page.body.has_more) {
          assertEquals(page.body.next_cursor, null);
          break;
        }
        assertEquals(page.body.next_cursor, page.body.domains.at(-1)!.domain_name);
        cursor = page.body.next_cursor;
      }
      assertEquals(pages, 3);
      assertEquals(byCursor, all);

      const byOffset: string[] = [];
      for (let offset = 0;; offset += 100) {
        const page = await callChecked<
          { domains: { domain_name: string }[]; has_more: boolean; next_cursor: string }
        >(contract, `${api}/domains?limit=100&offset=${offset}`, { apiKey });
        byOffset.push(...page.body.domains.map((d) => d.domain_name));
        if (!page.body.has_more) break;
        assertEquals(page.body.next_cursor, page.body.domains.at(-1)!.domain_name);
      }
      assertEquals(byOffset, all);

      const defaultPage = await callChecked<{ domains: unknown[] }>(contract, `${api}/domains`, { apiKey });
      assertEquals(defaultPage.body.domains.length, 50);
    });

    await t.step("bad paging parameters are 400", async () => {
      for (
        const query of [
          "limit=0",
          "limit=201",
          "limit=abc",
          "offset=-1",
          "offset=1&cursor=a.com",
          "limit=1.5",
        ]
      ) {
        const response = await callChecked(contract, `${api}/domains?${query}`, { apiKey: key });
        assertEquals(response.status, 400, query);
        assertEquals(response.body.error, "invalid_request", query);
      }
    });

    await t.step("bad requests are clear 4xx JSON errors", async () => {
      const post = (body: BodyInit, type = "application/json") =>
        callChecked(contract, `${api}/domains`, {
          method: "POST",
          apiKey: key,
          body,
          headers: { "content-type": type },
        });
      assertEquals((await post("{not json")).status, 400);
      assertEquals((await post(JSON.stringify({ domains: ["a.com"] }), "text/plain")).status, 415);
      assertEquals((await post(JSON.stringify({ domains: "a.com" }))).status, 400);
      assertEquals((await post(JSON.stringify({ domains: [1, 2] }))).status, 400);
      assertEquals((await post(JSON.stringify({ domains: ["a.com"], extra: true }))).status, 400);
      assertEquals((await post(JSON.stringify([]))).status, 400);
      const big = JSON.stringify({ domains: ["x".repeat(1024 * 1024)] });
      const tooLarge = await post(big);
      assertEquals(tooLarge.status, 413);
      assertEquals(tooLarge.body.error, "payload_too_large");
      const unknownPath = await callChecked(contract, `${api}/nowhere`, { apiKey: key });
      assertEquals(unknownPath.status, 404);
      assertEquals(unknownPath.body.error, "not_found");
      const wrongMethod = await callChecked(contract, `${api}/domains`, { method: "PUT", apiKey: key });
      assertEquals(wrongMethod.status, 405);
      assertEquals(wrongMethod.headers.get("allow"), "GET, POST");
    });

    await t.step("an exhausted daily limit is 429 with reset_at at the next 00:00Z", async () => {
      const account = await stack.account("pro");
      await stack.sql`
        insert into public.api_request_counters (user_id, day, request_count)
        values (${account.user_id}, (now() at time zone 'utc')::date, 1000)`;
      const response = await callChecked(contract, `${api}/domains`, { apiKey: account.api_key! });
      assertEquals(response.status, 429);
      assertEquals(response.body.error, "rate_limited");
      assertEquals(response.body.reset_at, nextUtcMidnight());
      assertEquals(response.headers.get("ratelimit-remaining"), "0");
      assertEquals(response.headers.get("ratelimit-limit"), "1000");
      assert(Number(response.headers.get("retry-after")) > 0);
    });

    await t.step("the OpenAPI document describes the API", async () => {
      // deno-lint-ignore no-explicit-any -- walking a JSON document
      const doc = await callChecked<Record<string, any>>(contract, `${api}/openapi.json`);
      assertEquals(doc.status, 200);
      assertEquals(doc.body.openapi, "3.1.0");
      assertEquals(doc.body.components.securitySchemes.apiKey, {
        type: "apiKey",
        in: "header",
        name: "x-api-key",
      });
      assert(doc.body.paths["/domains"].post.requestBody);
      assertEquals(
        doc.body.paths["/domains"].post.requestBody.content["application/json"].schema.properties.domains
          .maxItems,
        500,
      );
      assert(doc.body.paths["/check/{domain}"].get.responses["429"]);
    });
  } finally {
    await stack.close();
  }
});
