import { assertEquals } from "../support/assert.ts";
import {
  createLiveCheck,
  isDecidedByRegistry,
  type LiveCheckStore,
} from "../../supabase/functions/_shared/availability/live_check.ts";
import type { CheckResult } from "../../supabase/functions/_shared/availability/check_domain.ts";

function result(domainName: string, unicodeName: string | null = null): CheckResult {
  return {
    domain_name: domainName,
    unicode_name: unicodeName,
    available: true,
    status: "available",
    checked_at: "2026-11-22T10:00:00.000Z",
    rdap: {
      server: "https://rdap.registry.test/",
      http_status: 404,
      status: [],
      registrar: null,
      registration_date: null,
      expiration_date: null,
      last_changed_date: null,
    },
    whois: null,
    dns: { delegated: false, nameservers: [], rcode: "NXDOMAIN" },
    reason: "rdap_not_found",
  };
}

function memoryStore() {
  const cache = new Map<string, CheckResult>();
  const saved: { result: CheckResult; cacheSeconds: number }[] = [];
  const store: LiveCheckStore = {
    cached: (name) => Promise.resolve(cache.get(name) ?? null),
    save: (checked, cacheSeconds) => {
      saved.push({ result: checked, cacheSeconds });
      if (cacheSeconds > 0) cache.set(checked.domain_name, checked);
      return Promise.resolve();
    },
  };
  return { store, cache, saved };
}

Deno.test("a miss checks, records and caches; the next call is served from the cache", async () => {
  const { store, saved } = memoryStore();
  let checks = 0;
  const live = createLiveCheck({
    check: (name, unicode) => (checks++, Promise.resolve({ result: result(name, unicode), evidence: null })),
    store,
    cacheSeconds: () => 30,
  });
  const first = await live("example.com", null, "acct");
  const second = await live("example.com", null, "acct");
  assertEquals(checks, 1);
  assertEquals(saved.map((entry) => entry.cacheSeconds), [30]);
  assertEquals(second, first);
});

Deno.test("concurrent checks of one name share one registry check", async () => {
  const { store } = memoryStore();
  let checks = 0;
  let finish: () => void = () => {};
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const live = createLiveCheck({
    check: async (name) => {
      checks++;
      await gate;
      return { result: result(name), evidence: null };
    },
    store,
    cacheSeconds: () => 30,
  });
  const pending = [
    live("example.com", null, "acct"),
    live("example.com", null, "acct"),
    live("other.com", null, "acct"),
  ];
  finish();
  await Promise.all(pending);
  assertEquals(checks, 2);
});

Deno.test("unicode_name follows the caller and is null when it equals the ASCII name", async () => {
  const { store } = memoryStore();
  const live = createLiveCheck({
    check: (name) => Promise.resolve({ result: result(name), evidence: null }),
    store,
    cacheSeconds: () => 30,
  });
  assertEquals((await live("xn--bcher-kva.com", "bücher.com", "acct")).unicode_name, "bücher.com");
  assertEquals((await live("xn--bcher-kva.com", "xn--bcher-kva.com", "acct")).unicode_name, null);
});

Deno.test("a failure to save is logged and the result still returned", async () => {
  let logged = "";
  const original = console.error;
  console.error = (message: string) => (logged = message);
  try {
    const live = createLiveCheck({
      check: (name) => Promise.resolve({ result: result(name), evidence: null }),
      store: { cached: () => Promise.resolve(null), save: () => Promise.reject(new Error("database down")) },
      cacheSeconds: () => 30,
    });
    assertEquals((await live("example.com", null, "acct")).status, "available");
    assertEquals(logged.includes("database down"), true);
  } finally {
    console.error = original;
  }
});

Deno.test("cache seconds 0: every call checks, results are still recorded", async () => {
  const { store, saved } = memoryStore();
  let checks = 0;
  const live = createLiveCheck({
    check: (name) => (checks++, Promise.resolve({ result: result(name), evidence: null })),
    store,
    cacheSeconds: () => 0,
  });
  await live("example.com", null, "acct");
  await live("example.com", null, "acct");
  assertEquals([checks, saved.length], [2, 2]);
});

Deno.test("a refused turn is not a check: answered, but neither recorded nor cached; the account is passed on", async () => {
  const { store, saved } = memoryStore();
  const accounts: string[] = [];
  const busy: CheckResult = {
    ...result("busy.com"),
    available: null,
    status: "unknown",
    reason: "rdap_host_busy",
  };
  const live = createLiveCheck({
    check: (_name, _unicode, account) => {
      accounts.push(account);
      return Promise.resolve({
        result: busy,
        evidence: null,
        refusal: { reason: "rdap_host_busy", until: null },
      });
    },
    store,
    cacheSeconds: () => 30,
  });
  const first = await live("busy.com", null, "acct-1");
  assertEquals(
    [first.reason, first.retry_after_seconds],
    ["rdap_host_busy", 8],
    "unknown, and when to ask again",
  );
  assertEquals((await live("busy.com", null, "acct-2")).reason, "rdap_host_busy");
  assertEquals(saved, [], "nothing recorded or cached");
  assertEquals(accounts, ["acct-1", "acct-2"], "each call asked again, for its own account");
});

Deno.test("only a result the registry decided may change a watched name (not dns_delegated, not unknown)", () => {
  const decided = result("x.com");
  assertEquals(isDecidedByRegistry(decided), true);
  assertEquals(isDecidedByRegistry({ ...decided, status: "registered", reason: "dns_delegated" }), false);
  assertEquals(isDecidedByRegistry({ ...decided, status: "unknown", reason: "rdap_timeout" }), false);
  assertEquals(
    isDecidedByRegistry({ ...decided, status: "registered", reason: "rdap_404_but_delegated" }),
    true,
  );
});

Deno.test("a refusal that DNS decided (registered) carries no retry time", async () => {
  const { store } = memoryStore();
  const delegated: CheckResult = {
    ...result("taken.com"),
    available: false,
    status: "registered",
    reason: "dns_delegated",
  };
  const live = createLiveCheck({
    check: () =>
      Promise.resolve({
        result: delegated,
        evidence: null,
        refusal: { reason: "rdap_host_busy", until: null },
      }),
    store,
    cacheSeconds: () => 30,
  });
  assertEquals((await live("taken.com", null, "acct")).retry_after_seconds, undefined);
});
