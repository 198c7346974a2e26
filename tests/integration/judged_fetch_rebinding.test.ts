/**
 * Connect where you judged (docs/url-policy.md): a judged request resolves its host once, through the
 * production resolver (`denoResolver` with `DNS_NAMESERVER` pointing at the fake DNS), judges every
 * address, and connects to a judged one, with the host name kept for TLS (certificate name, SNI) and `Host`.
 *
 * The fake DNS rebinds: its first answer for the name is 127.0.0.2, every later one 127.0.0.3, with TTL 0.
 * Tests may only send to loopback, so the policy here is narrowed (`allowAddress`): 127.0.0.2 stands for a
 * public address (allowed) and 127.0.0.3 for an inside one (refused) — the same verdicts that, with the
 * local switch off, a public first answer and 169.254.169.254 or 10.x afterwards would get. (The switch,
 * WEBHOOK_ALLOW_PRIVATE_TARGETS, allows every loopback address, so it cannot tell the two apart.) A TLS
 * receiver for `receiver.example.test` (certificate from the test CA in tests/fixtures/tls) listens on
 * 127.0.0.2, and a bare TCP listener on the same port of 127.0.0.3 counts every connection it is offered.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { denoResolver } from "../../supabase/functions/_shared/net/dns_resolver.ts";
import { createJudgedFetch } from "../../supabase/functions/_shared/net/judged_fetch.ts";
import { checkOutboundUrl, type OutboundPolicy } from "../../supabase/functions/_shared/net/url_policy.ts";
import { postWebhook } from "../../supabase/functions/_shared/alerts/webhook_sender.ts";
import { createRdapClient } from "../../supabase/functions/_shared/rdap/client.ts";
import { createHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const fixtures = new URL("../fixtures/tls/", import.meta.url);
const caCert = await Deno.readTextFile(new URL("ca.pem", fixtures));
const cert = await Deno.readTextFile(new URL("receiver.pem", fixtures));
const key = await Deno.readTextFile(new URL("receiver.key.pem", fixtures));

const NAME = "receiver.example.test";
const JUDGED = "127.0.0.2";
const REBOUND = "127.0.0.3";

interface Seen {
  method: string;
  path: string;
  host: string | null;
  body: string;
}

/** The TLS receiver on the judged address and a counting listener on the rebound one, on one port. */
async function startReceivers() {
  for (let attempt = 0;; attempt++) {
    const seen: Seen[] = [];
    const receiver = Deno.serve(
      { hostname: JUDGED, port: 0, cert, key, onListen: () => {} },
      async (request) => {
        const url = new URL(request.url);
        seen.push({
          method: request.method,
          path: url.pathname,
          host: request.headers.get("host"),
          body: await request.text(),
        });
        if (url.pathname.startsWith("/domain/")) {
          return Response.json({ objectClassName: "domain", ldhName: "x.test", status: ["active"] }, {
            headers: { "content-type": "application/rdap+json" },
          });
        }
        return new Response(null, { status: 204 });
      },
    );
    const port = receiver.addr.port;
    let rebound: Deno.Listener;
    try {
      rebound = Deno.listen({ hostname: REBOUND, port });
    } catch (error) {
      await receiver.shutdown();
      if (attempt < 5) continue;
      throw error;
    }
    let reboundConnections = 0;
    (async () => {
      for await (const connection of rebound) {
        reboundConnections++;
        connection.close();
      }
    })().catch(() => {});
    return {
      port,
      seen,
      reboundConnections: () => reboundConnections,
      close: async () => {
        rebound.close();
        await receiver.shutdown();
      },
    };
  }
}

async function setup() {
  const dns = await startFakeDns();
  const receivers = await startReceivers();
  const policy: OutboundPolicy = {
    allowPrivateTargets: false,
    resolve: denoResolver(dns.address),
    allowAddress: (address) => address === JUDGED,
  };
  const judgedFetch = createJudgedFetch({ caCerts: [caCert] });
  const queriesFor = (name: string) => dns.queries.filter((query) => query.name === name).length;
  return {
    dns,
    receivers,
    policy,
    judgedFetch,
    queriesFor,
    close: async () => {
      await receivers.close();
      await dns.close();
    },
  };
}

Deno.test(
  "a webhook is sent to the address its host was judged on; the rebound address sees no connection",
  options,
  async () => {
    const t = await setup();
    try {
      t.dns.setAddresses(NAME, { A: [[JUDGED], [REBOUND]] });
      const url = `https://${NAME}:${t.receivers.port}/hooks/abc`;

      const verdict = await checkOutboundUrl(url, t.policy);
      assert(verdict.verdict === "allowed", JSON.stringify(verdict));
      assertEquals(verdict.target.addresses, [{ address: JUDGED, family: 4 }]);
      assertEquals(t.queriesFor(NAME), 2, "one A and one AAAA query: the one resolution");

      const outcome = await postWebhook(
        verdict.target,
        '{"hello":"world"}',
        { "Content-Type": "application/json" },
        { connectMs: 3_000, totalMs: 10_000 },
        t.judgedFetch,
      );
      assertEquals(outcome, { kind: "delivered", httpStatus: 204 });
      assertEquals(t.receivers.seen, [{
        method: "POST",
        path: "/hooks/abc",
        host: `${NAME}:${t.receivers.port}`,
        body: '{"hello":"world"}',
      }], "TLS verified for the name, Host kept, the body delivered");
      assertEquals(t.queriesFor(NAME), 2, "sending asked DNS nothing more");
      assertEquals(t.receivers.reboundConnections(), 0, "the rebound address never saw a connection");

      // The name has rebound by now: judged again, it is refused.
      const again = await checkOutboundUrl(url, t.policy);
      assertEquals(again.verdict, "refused");
      assert(again.verdict === "refused" && !again.reason.includes(REBOUND), "the reason names no address");
      assertEquals(t.receivers.reboundConnections(), 0);
    } finally {
      await t.close();
    }
  },
);

Deno.test(
  "an answer that mixes an allowed and a refused address is refused before any connection",
  options,
  async () => {
    const t = await setup();
    try {
      t.dns.setAddresses(NAME, { A: [[JUDGED, REBOUND]] });
      const verdict = await checkOutboundUrl(`https://${NAME}:${t.receivers.port}/`, t.policy);
      assertEquals(verdict.verdict, "refused");
      assertEquals([t.receivers.seen.length, t.receivers.reboundConnections()], [0, 0]);
    } finally {
      await t.close();
    }
  },
);

Deno.test(
  "the certificate is checked for the URL's name, not the address: another name fails to connect",
  options,
  async () => {
    const t = await setup();
    try {
      t.dns.setAddresses("other.example.test", { A: [[JUDGED]] });
      const verdict = await checkOutboundUrl(`https://other.example.test:${t.receivers.port}/`, t.policy);
      assert(verdict.verdict === "allowed");
      const outcome = await postWebhook(
        verdict.target,
        "{}",
        {},
        { connectMs: 3_000, totalMs: 10_000 },
        t.judgedFetch,
      );
      assertEquals(outcome, { kind: "failed", httpStatus: null, error: "network_error" });
      assert(!JSON.stringify(outcome).includes("127.0.0."), "no address in the outcome");
      assertEquals(t.receivers.seen.length, 0);
    } finally {
      await t.close();
    }
  },
);

Deno.test(
  "an RDAP registrar link is asked at its judged address; the rebound address sees no connection",
  options,
  async () => {
    const t = await setup();
    try {
      t.dns.setAddresses(NAME, { A: [[JUDGED], [REBOUND]] });
      const client = createRdapClient({
        limiter: createHostLimiter({ ratePerSecond: 0, concurrency: 2 }),
        outbound: { ...t.policy, isListedServer: () => Promise.resolve(false) },
        timeoutMs: 5_000,
        judgedFetch: t.judgedFetch,
      });
      const lookup = await client.lookupUrl(`https://${NAME}:${t.receivers.port}/domain/x.test`);
      assertEquals(lookup.outcome, "found");
      assertEquals(t.receivers.seen.map((seen) => [seen.method, seen.path, seen.host]), [
        ["GET", "/domain/x.test", `${NAME}:${t.receivers.port}`],
      ]);
      assertEquals(t.queriesFor(NAME), 2);
      assertEquals(t.receivers.reboundConnections(), 0);
    } finally {
      await t.close();
    }
  },
);
