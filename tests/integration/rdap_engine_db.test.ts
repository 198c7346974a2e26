/**
 * The database side of the RDAP engine (bootstrap cache, overrides, live-check cache, record_domain_check),
 * run inside one transaction that is rolled back. Needs SUPABASE_DB_URL (set by `deno task test`): without
 * it, or with a table missing, the tests fail; they never skip themselves.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import {
  createBootstrapStore,
  databaseBootstrapStorage,
} from "../../supabase/functions/_shared/rdap/bootstrap_store.ts";
import {
  createLiveCheck,
  databaseLiveCheckStore,
} from "../../supabase/functions/_shared/availability/live_check.ts";
import type { CheckResult } from "../../supabase/functions/_shared/availability/check_domain.ts";
import type { Transaction } from "../../supabase/functions/_shared/db/client.ts";
import { databaseUrl } from "../support/database.ts";

class Rollback extends Error {}

/** Runs `work` in a transaction that is always rolled back; `asService` runs a step as service_role. */
async function inRolledBackTransaction(
  work: (
    tx: Transaction,
    asService: <T>(step: (tx: Transaction) => Promise<T>) => Promise<T>,
  ) => Promise<void>,
): Promise<void> {
  const sql = postgres.connect(databaseUrl(), { max: 1, prepare: false, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      const asService = <T>(step: (inner: Transaction) => Promise<T>): Promise<T> =>
        tx.savepoint(async (savepoint) => {
          await savepoint`select set_config('role', 'service_role', true)`;
          try {
            return await step(savepoint);
          } finally {
            await savepoint`reset role`;
          }
        }) as Promise<T>;
      await work(tx, asService);
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  } finally {
    await sql.end();
  }
}

function availableResult(domainName: string, checkedAt: string): CheckResult {
  return {
    domain_name: domainName,
    unicode_name: null,
    available: true,
    status: "available",
    checked_at: checkedAt,
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

Deno.test({
  name: "database: the bootstrap copy and the overrides round-trip",
  fn: () =>
    inRolledBackTransaction(async (tx, asService) => {
      const storage = databaseBootstrapStorage(asService);
      const source = "https://bootstrap.db-test/dns.json";
      assertEquals(await storage.load(source), null);
      const document = { publication: "2026-01-30T00:00:01Z", services: [[["com"], ["https://a.test/"]]] };
      await storage.save({
        sourceUrl: source,
        publication: "2026-01-30T00:00:01.000Z",
        document,
        fetchedAt: "2026-11-22T10:00:00.000Z",
      });
      assertEquals(await storage.load(source), {
        sourceUrl: source,
        publication: "2026-01-30T00:00:01.000Z",
        document,
        fetchedAt: "2026-11-22T10:00:00.000Z",
      });
      await storage.save({
        sourceUrl: source,
        publication: null,
        document,
        fetchedAt: "2026-11-23T10:00:00.000Z",
      });
      assertEquals((await storage.load(source))?.fetchedAt, "2026-11-23T10:00:00.000Z");

      await tx`insert into public.rdap_server_overrides (suffix, base_url) values ('zz-db-test', null)`;
      const overrides = await storage.overrides();
      assert(overrides.some((row) => row.suffix === "zz-db-test" && row.baseUrl === null));
    }),
});

Deno.test({
  name: "database: a live check records a watched name's state and is cached",
  fn: () =>
    inRolledBackTransaction(async (tx, asService) => {
      const name = "rdap-db-test.test";
      await tx`insert into public.domains (name, next_check_at) values (${name}, now() + interval '1 day')`;
      let checks = 0;
      const live = createLiveCheck({
        check: (domainName) => {
          checks++;
          return Promise.resolve({
            result: availableResult(domainName, new Date().toISOString()),
            evidence: null,
          });
        },
        store: databaseLiveCheckStore(asService),
        cacheSeconds: () => 30,
      });
      const first = await live(name, null, "acct");
      const second = await live(name, null, "acct");
      assertEquals(checks, 1, "the second call came from the cache");
      assertEquals(second, first);

      const [row] = await tx`
        select status, last_checked_at, status_changed_at, consecutive_failures, next_check_at
        from public.domains where name = ${name}`;
      assertEquals(row.status, "available");
      assertEquals(row.last_checked_at.toISOString(), first.checked_at);
      assertEquals(row.status_changed_at.toISOString(), first.checked_at);
      assertEquals(
        row.next_check_at.getTime() - Date.parse(first.checked_at),
        60 * 60_000,
        "the poller's check planned in a day comes earlier, to the hour an available name calls for",
      );
      assertEquals(row.consecutive_failures, 0);

      await tx`update public.live_check_cache set expires_at = now() - interval '1 second' where domain_name = ${name}`;
      await live(name, null, "acct");
      assertEquals(checks, 2, "an expired entry is checked again");

      await live("not-watched.test", null, "acct");
      const [unwatched] =
        await tx`select count(*)::int as n from public.domains where name = 'not-watched.test'`;
      assertEquals(unwatched.n, 0, "a name nobody watches gets no domains row");
    }),
});

Deno.test({
  name: "database: the shipped server list resolves io, co, de, me and us over https, each with a canary",
  fn: () =>
    inRolledBackTransaction(async (_tx, asService) => {
      const storage = databaseBootstrapStorage(asService);
      // A bootstrap that lists com and, to show that it wins, de.
      const document = {
        publication: "2026-01-30T00:00:01Z",
        services: [[["com"], ["https://rdap.com.test/"]], [["de"], ["https://rdap.iana-listed.test/"]]],
      };
      const source = "https://bootstrap.shipped-list.test/dns.json";
      await storage.save({
        sourceUrl: source,
        publication: null,
        document,
        fetchedAt: new Date().toISOString(),
      });
      const store = createBootstrapStore({ storage, bootstrapUrl: () => source });
      for (const tld of ["io", "co", "me", "us"]) {
        const service = await store.serviceFor(`example.${tld}`);
        assert(service !== null, tld);
        assertEquals(service.suffix, tld);
        assertEquals(service.baseUrls.length, 1, tld);
        assert(service.baseUrls[0].startsWith("https://"), service.baseUrls[0]);
        assert(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(service.canaryName), service.canaryName);
      }
      assertEquals(await store.serviceFor("example.de"), {
        suffix: "de",
        baseUrls: ["https://rdap.iana-listed.test/"],
        canaryName: "denic.de",
      }, "the bootstrap wins where it lists a TLD; the row's canary still applies");
      const overrides = await storage.overrides();
      assertEquals((await store.serviceFor("example.com"))?.canaryName, "example.com");
      for (const row of overrides.filter((o) => o.precedence === "fallback" && o.baseUrl !== null)) {
        assert(row.baseUrl?.startsWith("https://"), row.suffix);
      }
    }),
});
