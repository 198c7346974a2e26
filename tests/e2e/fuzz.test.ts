/**
 * A few thousand malformed requests: none may produce a 5xx, every answer is a JSON error, and the
 * database is unchanged afterwards.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { publishedContract } from "../support/contract.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** Mulberry32: a small seeded generator so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const badNames = [
  "",
  " ",
  "com",
  "co.uk",
  "www.example.com",
  "a..b.com",
  "-a.com",
  "a-.com",
  "exa mple.com",
  "http://example.com",
  "example.com:80",
  "1.2.3.4",
  "x".repeat(64) + ".com",
  "example.notatld",
  "ex@mple.com",
  "💩",
  "\u0000.com",
  "a/b.com",
];
const junk: unknown[] = [null, true, 1, -1, 1.5, {}, [], "", "a", { domains: null }, [[["deep"]]]];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function malformedBody(rand: () => number): { body: BodyInit; type: string } {
  const kind = Math.floor(rand() * 8);
  switch (kind) {
    case 0:
      return { body: "{" + "x".repeat(Math.floor(rand() * 50)), type: "application/json" };
    case 1:
      return { body: JSON.stringify({ domains: pick(rand, junk) }), type: "application/json" };
    case 2: {
      const domains = [pick(rand, badNames), "valid-looking-name.com", pick(rand, junk)];
      return { body: JSON.stringify({ domains }), type: "application/json" };
    }
    case 3:
      return { body: JSON.stringify({ domains: [pick(rand, badNames)] }), type: "application/json" };
    case 4:
      return {
        body: JSON.stringify({ domains: ["fine.com"] }),
        type: pick(rand, ["text/plain", "", "text/json"]),
      };
    case 5:
      return {
        body: JSON.stringify({ domains: ["fine.com"], [pick(rand, ["x", "limit", "a"])]: 1 }),
        type: "application/json",
      };
    case 6:
      return {
        body: JSON.stringify({ domains: Array.from({ length: 501 }, (_, i) => `n${i}.com`) }),
        type: "application/json",
      };
    default:
      return {
        body: new Uint8Array(Array.from({ length: 40 }, () => Math.floor(rand() * 256))),
        type: "application/json",
      };
  }
}

function malformedRequest(rand: () => number, api: string, key: string): Request {
  const kind = Math.floor(rand() * 5);
  const headers = new Headers({ "x-api-key": key });
  if (kind === 0) {
    const { body, type } = malformedBody(rand);
    if (type) headers.set("content-type", type);
    return new Request(`${api}/domains`, { method: "POST", headers, body });
  }
  if (kind === 1) {
    const query = pick(rand, [
      "limit=0",
      "limit=201",
      "limit=abc",
      "limit=-5",
      "offset=-1",
      "offset=x",
      "offset=2&cursor=a.com",
      "limit=1e3",
      "cursor=" + "a".repeat(300),
      "limit=%00",
    ]);
    return new Request(`${api}/domains?${query}`, { headers });
  }
  if (kind === 2) {
    const name = encodeURIComponent(pick(rand, [...badNames.filter(Boolean), "not-on-the-list.com"]));
    return new Request(`${api}/domains/${name}`, { method: "DELETE", headers });
  }
  if (kind === 3) {
    const method = pick(rand, ["PUT", "PATCH", "DELETE"]);
    const path = pick(rand, ["/domains", "/nowhere", "/domains/a.com/extra", "/", "/check"]);
    return new Request(`${api}${path}`, { method, headers });
  }
  return new Request(`${api}/check/${encodeURIComponent(pick(rand, badNames.filter(Boolean)))}`, { headers });
}

Deno.test("fuzz: malformed requests never produce a 5xx or a write", options, async () => {
  const stack = await startStack();
  try {
    // Every answer must also be what the served OpenAPI document publishes for its operation and status.
    const contract = await publishedContract(stack.apiBase);
    const account = await stack.account("enterprise");
    const key = account.api_key!;
    const seed = Number(Deno.env.get("FUZZ_SEED") ?? 20261122);
    const rand = random(seed);
    const snapshot = async () => {
      const [row] = await stack.sql<{ entries: number; domains: number }[]>`
        select (select count(*)::int from public.watchlist_entries where user_id = ${account.user_id}) as entries,
               (select count(*)::int from public.domains) as domains`;
      return row;
    };
    const before = await snapshot();
    const total = 3000;
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < total; sent += 20) {
      const batch = Array.from({ length: 20 }, () => malformedRequest(rand, stack.apiBase, key));
      const responses = await Promise.all(batch.map(async (request) => {
        const response = await fetch(request);
        const text = await response.text();
        return { request, status: response.status, headers: response.headers, text };
      }));
      for (const { request, status, headers, text } of responses) {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        assert(
          status >= 400 && status < 500,
          `${request.method} ${request.url} gave ${status} (seed ${seed}): ${text}`,
        );
        const body = JSON.parse(text);
        assert(typeof body.error === "string" && typeof body.message === "string", text);
        contract.assertResponse(request.method, request.url, { status, headers, body });
      }
    }
    assertEquals(await snapshot(), before);
    console.log(`fuzz seed ${seed}: ${JSON.stringify(Object.fromEntries(statuses))}`);
  } finally {
    await stack.close();
  }
});
