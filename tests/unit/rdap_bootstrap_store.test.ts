import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import {
  BootstrapUnavailableError,
  createBootstrapStore,
  memoryBootstrapStorage,
} from "../../supabase/functions/_shared/rdap/bootstrap_store.ts";
import type { ServerOverride } from "../../supabase/functions/_shared/rdap/bootstrap.ts";

const HOUR = 60 * 60_000;
const SOURCE = "https://bootstrap.test/dns.json";

function bootstrapDocument(publication: string, comUrl: string) {
  return {
    description: "test",
    publication,
    services: [[["com"], [comUrl]], [["org"], ["https://rdap.org-registry.test/"]]],
    version: "1.0",
  };
}

/** A fetch serving `document()` (or failing when it returns null), counting calls. */
function bootstrapFetch(document: () => unknown | null) {
  const calls: string[] = [];
  const fetchImpl = ((input: string | URL | Request) => {
    calls.push(String(input));
    const body = document();
    if (body === null) return Promise.resolve(new Response("unavailable", { status: 503 }));
    return Promise.resolve(Response.json(body));
  }) as typeof fetch;
  return { fetchImpl, calls };
}

function setup(options: { overrides?: ServerOverride[]; document?: () => unknown | null } = {}) {
  let time = Date.parse("2026-11-22T10:00:00Z");
  const storage = memoryBootstrapStorage(options.overrides ?? []);
  let loads = 0;
  const countingStorage = { ...storage, load: (url: string) => (loads++, storage.load(url)) };
  const served = bootstrapFetch(
    options.document ?? (() => bootstrapDocument("2026-01-30T00:00:01Z", "https://a.test/")),
  );
  let sourceUrl = SOURCE;
  const store = createBootstrapStore({
    storage: countingStorage,
    bootstrapUrl: () => sourceUrl,
    fetch: served.fetchImpl,
    now: () => time,
  });
  return {
    store,
    storage,
    fetches: served.calls,
    loads: () => loads,
    advance: (ms: number) => (time += ms),
    setSource: (url: string) => (sourceUrl = url),
  };
}

async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = () => {};
  try {
    return await work();
  } finally {
    console.error = original;
  }
}

Deno.test("the first use fetches the file, stores it, and answers", async () => {
  const { store, storage, fetches } = setup();
  assertEquals(await store.serversFor("example.com"), ["https://a.test/"]);
  assertEquals(await store.serversFor("example.de"), []);
  assertEquals(fetches, [SOURCE]);
  assertEquals(storage.copies.get(SOURCE)?.publication, "2026-01-30T00:00:01.000Z");
});

Deno.test("memoised for a few minutes, then read from storage, re-fetched after a day", async () => {
  const { store, fetches, loads, advance } = setup();
  await store.serversFor("example.com");
  await store.serversFor("example.org");
  assertEquals([fetches.length, loads()], [1, 1]);
  advance(10 * 60_000);
  await store.serversFor("example.com");
  assertEquals([fetches.length, loads()], [1, 2], "after the memo: storage, no fetch");
  advance(24 * HOUR);
  await store.serversFor("example.com");
  assertEquals(fetches.length, 2, "after a day: fetched again");
});

Deno.test("an older publication does not replace the stored copy", async () => {
  let document = bootstrapDocument("2026-01-30T00:00:01Z", "https://new.test/");
  const { store, storage, advance } = setup({ document: () => document });
  assertEquals(await store.serversFor("example.com"), ["https://new.test/"]);
  document = bootstrapDocument("2024-07-25T22:00:01Z", "https://old.test/");
  advance(25 * HOUR);
  assertEquals(await store.serversFor("example.com"), ["https://new.test/"]);
  const copy = storage.copies.get(SOURCE)!;
  assertEquals(copy.publication, "2026-01-30T00:00:01.000Z");
  assertEquals(copy.fetchedAt, "2026-11-23T11:00:00.000Z", "but the copy counts as checked");
});

Deno.test("a failed refresh keeps using the stored copy", async () => {
  let available = true;
  const { store, advance } = setup({
    document: () => available ? bootstrapDocument("2026-01-30T00:00:01Z", "https://a.test/") : null,
  });
  await store.serversFor("example.com");
  available = false;
  advance(25 * HOUR);
  assertEquals(await quietly(() => store.serversFor("example.com")), ["https://a.test/"]);
});

Deno.test("with no copy at all: unavailable, except for suffixes an override covers; retried after a minute", async () => {
  let available = false;
  const { store, fetches, advance } = setup({
    overrides: [{ suffix: "de", baseUrl: "https://rdap.de-registry.test/" }],
    document: () => available ? bootstrapDocument("2026-01-30T00:00:01Z", "https://a.test/") : null,
  });
  const error = await quietly(() => assertRejects(() => store.serversFor("example.com")));
  assert(error instanceof BootstrapUnavailableError);
  assertEquals(await store.serversFor("example.de"), ["https://rdap.de-registry.test/"]);
  assertEquals(fetches.length, 1, "no second fetch within the minute");
  available = true;
  advance(61_000);
  assertEquals(await store.serversFor("example.com"), ["https://a.test/"]);
});

Deno.test("overrides add TLDs, replace IANA's entry, or disable RDAP", async () => {
  const { store } = setup({
    overrides: [
      { suffix: "de", baseUrl: "https://rdap.de-registry.test/" },
      { suffix: "com", baseUrl: "https://rdap.other.test/" },
      { suffix: "org", baseUrl: null },
    ],
  });
  assertEquals(await store.serversFor("example.de"), ["https://rdap.de-registry.test/"]);
  assertEquals(await store.serversFor("example.com"), ["https://rdap.other.test/"]);
  assertEquals(await store.serversFor("example.org"), []);
});

Deno.test("concurrent first uses share one fetch; a new RDAP_BOOTSTRAP_URL is fetched on its own", async () => {
  const { store, fetches, setSource } = setup();
  await Promise.all([store.serversFor("a.com"), store.serversFor("b.com"), store.serversFor("c.org")]);
  assertEquals(fetches.length, 1);
  setSource("http://127.0.0.1:9/dns.json");
  await store.serversFor("a.com");
  assertEquals(fetches, [SOURCE, "http://127.0.0.1:9/dns.json"]);
});

Deno.test("a fetched file that is not a bootstrap is not stored", async () => {
  const { store, storage } = setup({ document: () => ({ hello: "world" }) });
  await quietly(() => assertRejects(() => store.serversFor("example.com")));
  assertEquals(storage.copies.size, 0);
});
