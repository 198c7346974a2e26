/**
 * Runs the parser over every file of the shared RDAP corpus (`<repo>/../shared/rdap-corpus`), when it exists.
 * 200 bodies must parse with their dates, 404 bodies must read as "not found", bootstrap copies must resolve
 * com, org, dev and uk.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parseDomainResponse } from "../../supabase/functions/_shared/rdap/domain_response.ts";
import { parseRdapDate } from "../../supabase/functions/_shared/rdap/dates.ts";
import { findRdapServers, parseBootstrap } from "../../supabase/functions/_shared/rdap/bootstrap.ts";
import { createRdapClient } from "../../supabase/functions/_shared/rdap/client.ts";
import { createHostLimiter } from "../../supabase/functions/_shared/rdap/host_limiter.ts";
import { classify } from "../../supabase/functions/_shared/availability/classify.ts";

const corpusDir = new URL("../../../shared/rdap-corpus/", import.meta.url);

function corpusFiles(): string[] {
  try {
    return [...Deno.readDirSync(corpusDir)]
      .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

const files = corpusFiles();
const ignore = files.length === 0;
const read = (name: string) => Deno.readTextFileSync(new URL(name, corpusDir));

/** Looks a body up through the real client, served by a fetch that answers `status` with `body`. */
function throughClient(status: number, body: string) {
  const limiter = createHostLimiter({ ratePerSecond: 0, concurrency: 1 });
  const fetchImpl = (() =>
    Promise.resolve(
      new Response(body, { status, headers: { "content-type": "application/rdap+json" } }),
    )) as typeof fetch;
  return createRdapClient({
    limiter,
    timeoutMs: 1_000,
    fetch: fetchImpl,
    outbound: {
      allowPrivateTargets: false,
      resolve: () => Promise.resolve([]),
      isListedServer: () => Promise.resolve(false),
    },
  }).lookupDomain(
    "https://rdap.corpus.test/",
    "example.test",
  );
}

interface CorpusEvent {
  eventAction?: string;
  eventDate?: string;
}

Deno.test({
  name: "corpus: every 200 body parses as a domain, with its dates",
  ignore,
  fn: async () => {
    const bodies = files.filter((name) => /\.200[.]/.test(name));
    assert(bodies.length > 0);
    for (const name of bodies) {
      const text = read(name);
      const json = JSON.parse(text);
      const domain = parseDomainResponse(json);
      assert(domain !== null, `${name}: parsed`);
      assert(
        domain.ldhName !== null && /^[a-z0-9.-]+$/.test(domain.ldhName),
        `${name}: ldhName ${domain.ldhName}`,
      );

      const events: CorpusEvent[] = Array.isArray(json.events) ? json.events : [];
      for (const event of events) {
        const sentinel = /^\d{5,}-/.test(event.eventDate ?? "");
        assertEquals(parseRdapDate(event.eventDate) === null, sentinel, `${name}: date ${event.eventDate}`);
      }
      const has = (action: string) => events.some((event) => event.eventAction?.toLowerCase() === action);
      if (has("registration")) assert(domain.registrationDate !== null, `${name}: registration date`);
      if ((has("expiration") || has("soft expiration")) && !name.startsWith("SYNTHETIC")) {
        assert(domain.expirationDate !== null, `${name}: expiration date`);
      }
      if (has("last changed") || has("last update")) {
        assert(domain.lastChangedDate !== null, `${name}: last changed`);
      }

      const lookup = await throughClient(200, text);
      assertEquals(lookup.outcome, "found", `${name}: found through the client`);
    }
  },
});

Deno.test({
  name: "corpus: every 404 body (including the empty one) is 'not found'",
  ignore,
  fn: async () => {
    const bodies = files.filter((name) => /\.404[.]/.test(name));
    assert(bodies.length > 0);
    for (const name of bodies) {
      const lookup = await throughClient(404, read(name));
      assertEquals(lookup.outcome, "not_found", name);
    }
  },
});

Deno.test({
  name: "corpus: every bootstrap copy resolves com, org, dev and uk over https",
  ignore,
  fn: () => {
    const copies = files.filter((name) => name.startsWith("iana-dns-bootstrap"));
    assert(copies.length > 0);
    for (const name of copies) {
      const registry = parseBootstrap(JSON.parse(read(name)));
      assert(registry.publication !== null, `${name}: publication`);
      for (const domain of ["example.com", "example.org", "example.dev", "example.co.uk"]) {
        const servers = findRdapServers(registry, domain);
        assert(servers !== null && servers[0].startsWith("https://"), `${name}: ${domain} → ${servers}`);
      }
      for (
        const domain of ["example.de", "example.io", "example.co", "example.me", "example.us", "example.eu"]
      ) {
        assertEquals(findRdapServers(registry, domain), null, `${name}: ${domain} is not in IANA's file`);
      }
    }
  },
});

Deno.test({
  name: "corpus: the facts that matter in well-known captures",
  ignore: ignore || !files.includes("com-verisign-google.com.200.json"),
  fn: () => {
    const parse = (name: string) => parseDomainResponse(JSON.parse(read(name)))!;

    const verisign = parse("com-verisign-google.com.200.json");
    assertEquals(verisign.ldhName, "google.com");
    assertEquals(verisign.registrar, "MarkMonitor Inc.");
    assertEquals(verisign.expirationDate, "2028-09-14T04:00:00.000Z");
    assertEquals(verisign.registrarRdapUrl, "https://rdap.markmonitor.com/rdap/domain/GOOGLE.COM");

    const markmonitor = parse("registrar-markmonitor-google.com.200.json");
    assertEquals(markmonitor.expirationDate, "2028-09-13T07:00:00.000Z");
    assertEquals(markmonitor.lastChangedDate, "2019-09-09T15:39:04.000Z");
    assertEquals(markmonitor.registrar, "MarkMonitor Inc.");

    assertEquals(parse("is-isnic-mjoifjordur.is.200.json").expirationDate, "2025-12-12T00:00:00.000Z");
    assertEquals(parse("id-pandi-zulfa.id.200.json").registrationDate, "2017-09-24T19:25:32.000Z");
    assertEquals(parse("id-pandi-zulfa.id.200.json").registrarRdapUrl, null);
    assertEquals(parse("top-zdns-bitcoin.top.200.json").ldhName, "bitcoin.top");
    assertEquals(parse("xyz-centralnic-nic.xyz.200.json").registrarRdapUrl, null);
    assertEquals(parse("no-norid-norway.no.200.json").status, []);
    assertEquals(
      parse("org-pir-wikipedia.org.200.json").registrarRdapUrl,
      "https://rdap.markmonitor.com/rdap/domain/wikipedia.org",
    );
    assertEquals(parse("registrar-markmonitor-amazon.com.200.json").registrar, "MarkMonitor Inc.");

    const redemption = parse("SYNTHETIC-nomulus-redemption.lol.pending-delete-redemption.200.json");
    const answer = { outcome: "found" as const, url: "https://x.test/", httpStatus: 200, domain: redemption };
    assertEquals(classify(answer, { outcome: "not_delegated", rcode: "NXDOMAIN" }).status, "pending_delete");
  },
});
