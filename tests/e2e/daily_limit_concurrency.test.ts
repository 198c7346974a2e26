/** docs/decisions.md: 1,050 simultaneous requests on a fresh Pro day: exactly 1,000 successes, 50 × 429. */
import { assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "1,050 simultaneous API requests on a fresh Pro day: 1,000 succeed, 50 are 429",
  options,
  async () => {
    const stack = await startStack();
    try {
      const account = await stack.account("pro");
      const responses = await Promise.all(
        Array.from({ length: 1050 }, async () => {
          const response = await fetch(`${stack.apiBase}/domains?limit=1`, {
            headers: { "x-api-key": account.api_key! },
          });
          const body = await response.json();
          return { status: response.status, body, remaining: response.headers.get("ratelimit-remaining") };
        }),
      );
      const count = (status: number) => responses.filter((response) => response.status === status).length;
      assertEquals(
        { ok: count(200), limited: count(429), other: responses.length - count(200) - count(429) },
        {
          ok: 1000,
          limited: 50,
          other: 0,
        },
      );
      for (const response of responses.filter((r) => r.status === 429)) {
        assertEquals(response.body.error, "rate_limited");
        assertEquals(response.remaining, "0");
      }
      const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.remaining)).sort((
        a,
        b,
      ) => a - b);
      assertEquals(remaining, Array.from({ length: 1000 }, (_, i) => i), "each success saw its own count");
    } finally {
      await stack.close();
    }
  },
);
