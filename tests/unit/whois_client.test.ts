/**
 * The WHOIS client over real TCP against the fake WHOIS server (and an injected connection for a reset):
 * one connection per query, the row's query line, `WHOIS_SERVER` as the target while politeness keys on the
 * row's host, the timeouts, the 64 KiB cap, and the check's reading of each answer.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startFakeWhois } from "../fakes/whois_server.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { denoResolver } from "../../supabase/functions/_shared/net/dns_resolver.ts";
import {
  createWhoisClient,
  parseHostPort,
  type WhoisClient,
  type WhoisConnect,
} from "../../supabase/functions/_shared/whois/client.ts";
import { compileWhoisRow, type WhoisRoute } from "../../supabase/functions/_shared/whois/server_table.ts";
import { createHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { checkWhois } from "../../supabase/functions/_shared/availability/whois_check.ts";
import {
  memoryServerProofStore,
  type ServerProofStore,
} from "../../supabase/functions/_shared/availability/server_proof.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

function itRoute(overrides: Partial<{ queryFormat: string; host: string }> = {}): WhoisRoute {
  const entry = compileWhoisRow({
    suffix: "it",
    host: overrides.host ?? "whois.nic.it",
    port: 43,
    queryFormat: overrides.queryFormat ?? "%s",
    canaryName: "nic.it",
    notFoundPattern: "^Status:\\s*AVAILABLE$",
    foundPattern: "^Status:\\s*(?!AVAILABLE\\s*$)\\S",
    limitPattern: "^(?:Service temporarily unavailable|Excessive querying)\\b.*$",
    statusPattern: "^Status:\\s*(.+)$",
    pendingDeleteStatuses: ["pendingdelete", "redemptionperiod"],
    registrarPattern: "^Registrar\\s*\\n\\s+Organization:\\s*(.+)$",
    expirationPattern: "^Expire Date:\\s*(.+)$",
    encoding: "utf-8",
    unsupportedReason: null,
    source: "test",
  });
  if (entry?.kind !== "route") throw new Error("test row does not compile");
  return entry.route;
}

function limiter() {
  return createHostLimiter({ ratePerSecond: 0, concurrency: 4 });
}

Deno.test("parseHostPort reads host:port and [v6]:port", () => {
  assertEquals(parseHostPort("127.0.0.1:4343"), { hostname: "127.0.0.1", port: 4343 });
  assertEquals(parseHostPort("[::1]:43"), { hostname: "::1", port: 43 });
  assertEquals(parseHostPort("whois.example"), null);
  assertEquals(parseHostPort("host:70000"), null);
});

Deno.test(
  "queries go to WHOIS_SERVER with the row's query line; politeness keys on the row's host",
  options,
  async () => {
    const fake = startFakeWhois();
    const keys: string[] = [];
    const base = limiter();
    const client = createWhoisClient({
      limiter: { ...base, acquire: (host, o) => (keys.push(host), base.acquire(host, o)) },
      connectTimeoutMs: 2_000,
      readTimeoutMs: 2_000,
      serverOverride: () => fake.address,
    });
    try {
      fake.set("taken.it", "registered");
      const lookup = await client.query(itRoute({ queryFormat: "%s/e" }), "taken.it");
      assertEquals(lookup.outcome, "answered");
      assertEquals(fake.queries.at(-1)?.line, "taken.it/e");
      assertEquals(keys, ["whois.nic.it:43"]);
    } finally {
      await fake.close();
    }
  },
);

Deno.test(
  "each failure is its own reason: timeout, refused, over 64 KiB, reset mid-answer",
  options,
  async () => {
    const fake = startFakeWhois();
    const client = (connect?: WhoisConnect, override = fake.address) =>
      createWhoisClient({
        limiter: limiter(),
        connectTimeoutMs: 500,
        readTimeoutMs: 300,
        serverOverride: () => override,
        connect,
      });
    try {
      fake.set("silent.it", "silent");
      fake.set("huge.it", "oversized");
      fake.set("empty.it", "empty");
      assertEquals(await client().query(itRoute(), "silent.it"), {
        outcome: "failed",
        reason: "whois_timeout",
        retryAt: null,
      });
      const huge = await client().query(itRoute(), "huge.it");
      assertEquals(huge.outcome === "failed" && huge.reason, "whois_too_large");
      const empty = await client().query(itRoute(), "empty.it");
      assert(empty.outcome === "answered" && empty.bytes.byteLength === 0);

      const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const closedPort = (closed.addr as Deno.NetAddr).port;
      closed.close();
      const refused = await client(undefined, `127.0.0.1:${closedPort}`).query(itRoute(), "x.it");
      assertEquals(refused.outcome === "failed" && refused.reason, "whois_network_error");

      let reads = 0;
      const resetting: WhoisConnect = () =>
        Promise.resolve({
          write: (data) => Promise.resolve(data.byteLength),
          read: (buffer) => {
            if (reads++ === 0) {
              buffer.set(new TextEncoder().encode("Domain: x.it\n"));
              return Promise.resolve(13);
            }
            return Promise.reject(new Error("connection reset by peer"));
          },
          close: () => {},
        });
      const reset = await client(resetting).query(itRoute(), "x.it");
      assertEquals(reset.outcome === "failed" && reset.reason, "whois_truncated");
    } finally {
      await fake.close();
    }
  },
);

Deno.test(
  "a check: not found counts only with a proven canary; a limit text pauses the host",
  options,
  async () => {
    const fake = startFakeWhois();
    const hosts = limiter();
    const deps = {
      client: createWhoisClient({
        limiter: hosts,
        connectTimeoutMs: 1_000,
        readTimeoutMs: 1_000,
        serverOverride: () => fake.address,
      }),
      limiter: hosts,
      proof: memoryServerProofStore(),
    };
    try {
      // The canary nic.it is not registered at the fake: the server is not proven.
      assertEquals(await checkWhois(deps, itRoute(), "free.it"), { kind: "unverified" });
      fake.set("nic.it", "registered");
      deps.proof = memoryServerProofStore();
      const free = await checkWhois(deps, itRoute(), "free.it");
      assertEquals(free.kind === "read" && free.reading.answer, "not_found");
      fake.set("gone.it", "pending_delete");
      const gone = await checkWhois(deps, itRoute(), "gone.it");
      assertEquals(gone.kind === "read" && gone.reading.answer, "pending_delete");
      assertEquals(gone.kind === "read" && gone.reading.statuses, ["pendingDelete", "redemptionPeriod"]);

      fake.set("busy.it", "rate_limited");
      const busy = await checkWhois(deps, itRoute(), "busy.it");
      assertEquals(busy.kind === "read" && busy.reading.answer, "rate_limited");
      assert(hosts.pausedUntil("whois.nic.it:43") !== null, "the limit text paused the row's host");
      const after = await checkWhois(deps, itRoute(), "free.it");
      assertEquals(after.kind === "refused" && after.reason, "whois_rate_limited", "not asked: a refusal");
    } finally {
      await fake.close();
    }
  },
);

Deno.test(
  "the row's host is resolved once and judged: a name that points inside gets no connection",
  options,
  async () => {
    const dns = await startFakeDns({});
    const connected: { hostname: string; port: number }[] = [];
    const answering: WhoisConnect = (target) => {
      connected.push(target);
      let sent = false;
      return Promise.resolve({
        write: (data) => Promise.resolve(data.byteLength),
        read: (buffer) => {
          if (sent) return Promise.resolve(null);
          sent = true;
          buffer.set(new TextEncoder().encode("Status: AVAILABLE\n"));
          return Promise.resolve(18);
        },
        close: () => {},
      });
    };
    const client = createWhoisClient({
      limiter: limiter(),
      connectTimeoutMs: 500,
      readTimeoutMs: 500,
      connect: answering,
      outbound: { allowPrivateTargets: false, resolve: denoResolver(dns.address) },
    });
    const errors: string[] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(" "));
    try {
      const inside: [string, { A?: string[][]; AAAA?: string[][] }][] = [
        ["loopback.whois.test", { A: [["127.0.0.1"]] }],
        ["private.whois.test", { A: [["10.1.2.3"]] }],
        ["metadata.whois.test", { A: [["169.254.169.254"]] }],
        ["ula.whois.test", { AAAA: [["fd00::1"]] }],
        ["mixed.whois.test", { A: [["93.184.216.34", "192.168.1.1"]] }],
      ];
      for (const [host, answers] of inside) {
        dns.setAddresses(host, answers);
        const lookup = await client.query(itRoute({ host }), "x.it");
        assertEquals(lookup, { outcome: "failed", reason: "whois_network_error", retryAt: null }, host);
      }
      const unresolved = await client.query(itRoute({ host: "nowhere.whois.test" }), "x.it");
      assertEquals(unresolved.outcome === "failed" && unresolved.reason, "whois_network_error");
      assertEquals(connected, [], "no connection to a name that points inside");
      for (const line of errors) {
        assert(!/\d+\.\d+\.\d+\.\d+|fd00/.test(line), `the log names no address: ${line}`);
      }

      // A public answer: the connection goes to that judged address (never the name again).
      dns.setAddresses("public.whois.test", { A: [["93.184.216.34"], ["10.9.9.9"]] });
      const answered = await client.query(itRoute({ host: "public.whois.test" }), "x.it");
      assertEquals(answered.outcome, "answered");
      assertEquals(connected, [{ hostname: "93.184.216.34", port: 43 }]);
    } finally {
      console.error = originalError;
      await dns.close();
    }
  },
);

Deno.test(
  "a live check: an unrecognised answer or a timeout backs nothing off; a limit text still pauses the host; " +
    "the poller's unrecognised answer to a name backs nothing off either, its timeout does",
  options,
  async () => {
    const fake = startFakeWhois();
    const hosts = createHostLimiter({ ratePerSecond: 0, concurrency: 1, failureThreshold: 1 });
    const deps = {
      client: createWhoisClient({
        limiter: hosts,
        connectTimeoutMs: 1_000,
        readTimeoutMs: 300,
        serverOverride: () => fake.address,
      }),
      limiter: hosts,
      proof: memoryServerProofStore(),
    };
    const live = { maxWaitMs: 1_000, liveAccount: "acct-1" };
    try {
      fake.set("odd.it", "unrecognized");
      fake.set("slow.it", "silent");
      const odd = await checkWhois(deps, itRoute(), "odd.it", live);
      assertEquals(odd.kind === "read" && odd.reading.answer, "unrecognized");
      assertEquals((await checkWhois(deps, itRoute(), "slow.it", live)).kind, "failed");
      assertEquals(hosts.pausedUntil("whois.nic.it:43"), null, "one failure would have backed it off");

      fake.set("busy.it", "rate_limited");
      await checkWhois(deps, itRoute(), "busy.it", live);
      assert(hosts.pausedUntil("whois.nic.it:43") !== null, "a live check's limit text pauses the host");
      const after = await checkWhois(deps, itRoute(), "free.it", live);
      assertEquals(after.kind === "refused" && after.reason, "whois_rate_limited");

      const poller = createHostLimiter({ ratePerSecond: 0, concurrency: 1, failureThreshold: 1 });
      const pollerDeps = {
        ...deps,
        limiter: poller,
        client: createWhoisClient({ ...clientOptions(fake), limiter: poller }),
      };
      // The poller's unrecognised answer to a name counts neither way (issue 40): only no answer does.
      for (let i = 0; i < 5; i++) await checkWhois(pollerDeps, itRoute(), "odd.it", { maxWaitMs: 1_000 });
      assertEquals(
        poller.pausedUntil("whois.nic.it:43"),
        null,
        "an unreadable answer to a name backs nothing off",
      );
      fake.set("huge.it", "oversized");
      for (let i = 0; i < 3; i++) await checkWhois(pollerDeps, itRoute(), "huge.it", { maxWaitMs: 1_000 });
      assertEquals(poller.pausedUntil("whois.nic.it:43"), null, "nor does an answer over 64 KiB");
      await checkWhois(pollerDeps, itRoute(), "slow.it", { maxWaitMs: 1_000 });
      assert(poller.pausedUntil("whois.nic.it:43") !== null, "the poller's timeout counts");
    } finally {
      await fake.close();
    }
  },
);

function clientOptions(fake: { address: string }) {
  return { connectTimeoutMs: 1_000, readTimeoutMs: 300, serverOverride: () => fake.address };
}

Deno.test(
  "an unreadable answer to the canary (the service's own question) counts against the host",
  options,
  async () => {
    const fake = startFakeWhois();
    const hosts = createHostLimiter({ ratePerSecond: 0, concurrency: 1, failureThreshold: 1 });
    const deps = {
      client: createWhoisClient({ ...clientOptions(fake), limiter: hosts }),
      limiter: hosts,
      proof: memoryServerProofStore(),
    };
    try {
      fake.set("nic.it", "unrecognized");
      // A "not found" needs the canary: its answer cannot be read, so the server stays unproven.
      const free = await checkWhois(deps, itRoute(), "free-name.it", { maxWaitMs: 1_000 });
      assertEquals(free.kind, "unverified");
      assert(hosts.pausedUntil("whois.nic.it:43") !== null, "the canary's unreadable answer counts");
    } finally {
      await fake.close();
    }
  },
);

Deno.test(
  "issue 40: a limit notice naming the registry's own domain, answering the canary, is inconclusive, not failed",
  async () => {
    const answers: Record<string, string> = {
      "free-name.it": "Domain: free-name.it\nStatus: AVAILABLE\n",
      "nic.it": "Excessive querying from your address, see the terms at nic.it\n",
    };
    const client: WhoisClient = {
      query: (_route, name) =>
        Promise.resolve({ outcome: "answered", bytes: new TextEncoder().encode(answers[name]) }),
    };
    const hosts = createHostLimiter({ ratePerSecond: 0, concurrency: 1, failureThreshold: 1 });
    const store = memoryServerProofStore();
    const outcomes: string[] = [];
    const proof: ServerProofStore = {
      claim: store.claim,
      record: (key, claimId, outcome, status, detail) => {
        outcomes.push(outcome);
        return store.record(key, claimId, outcome, status, detail);
      },
    };
    const result = await checkWhois({ client, limiter: hosts, proof }, itRoute(), "free-name.it");
    assertEquals(result.kind, "unverified");
    assertEquals(outcomes, ["inconclusive"], "a limit notice proves nothing either way");
    assert(hosts.pausedUntil("whois.nic.it:43") !== null, "the notice pauses the host");
  },
);
