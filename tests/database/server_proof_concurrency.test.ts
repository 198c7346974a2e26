/**
 * Canary proofs are shared across isolates through the database: however many checks need a server's
 * proof at once, from separate connections, exactly one asks the canary per renewal.
 *
 * Needs SUPABASE_DB_URL (set by `deno task test`; fails without it).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import {
  databaseServerProofStore,
  isServerProven,
  type ServerKey,
} from "../../supabase/functions/_shared/availability/server_proof.ts";
import type { RdapClient, RdapLookup } from "../../supabase/functions/_shared/rdap/client.ts";
import type { TransactionRunner } from "../../supabase/functions/_shared/db/client.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

function serviceRunner(sql: postgres.Sql): TransactionRunner {
  return <T>(work: (tx: postgres.TransactionSql) => Promise<T>) =>
    sql.begin(async (tx) => {
      await tx`select set_config('role', 'service_role', true)`;
      return await work(tx);
    }) as Promise<T>;
}

/** An RDAP client whose canary answers after `delayMs` with `answer`, counting the requests. */
function countingClient(
  answer: "found" | "not_found",
  delayMs: number,
): RdapClient & { canaryRequests: number } {
  const client = {
    canaryRequests: 0,
    async lookupDomain(baseUrl: string, domainName: string): Promise<RdapLookup> {
      client.canaryRequests++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const url = `${baseUrl}domain/${domainName}`;
      if (answer === "not_found") return { outcome: "not_found", url, httpStatus: 404 };
      return {
        outcome: "found",
        url,
        httpStatus: 200,
        domain: {
          ldhName: domainName,
          status: ["active"],
          registrar: null,
          registrationDate: null,
          expirationDate: null,
          lastChangedDate: null,
          registrarRdapUrl: null,
        },
      } as RdapLookup;
    },
    lookupUrl(): Promise<RdapLookup> {
      throw new Error("not used");
    },
  };
  return client;
}

Deno.test({
  name: "claim_rdap_server_proof: 40 parallel callers, exactly one claim",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 40, onnotice: () => {}, idle_timeout: 5 });
    const server = `https://proof-${crypto.randomUUID()}.test/`;
    try {
      const rows = await Promise.all(
        Array.from({ length: 40 }, () =>
          serviceRunner(sql)((tx) =>
            tx<{ claim_id: string | null }[]>`
              select claim_id from private.claim_rdap_server_proof(${server}, 'zz', 'nic.zz', 60)`
          )),
      );
      assertEquals(rows.filter(([row]) => row.claim_id !== null).length, 1);
    } finally {
      await sql`delete from public.rdap_server_proofs where server_url = ${server}`;
      await sql.end();
    }
  },
});

Deno.test({
  name: "isServerProven across 20 'isolates': the canary is asked once, and all see the proof",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 20, onnotice: () => {}, idle_timeout: 5 });
    const key: ServerKey = {
      server: `https://proof-${crypto.randomUUID()}.test/`,
      suffix: "zz",
      canaryName: "nic.zz",
    };
    try {
      const client = countingClient("found", 300);
      const results = await Promise.all(
        Array.from(
          { length: 20 },
          () => isServerProven(databaseServerProofStore(serviceRunner(sql)), client, key, { pollMs: 50 }),
        ),
      );
      assertEquals(results, results.map(() => true));
      assertEquals(client.canaryRequests, 1);
      // Within the renewal period: no canary at all.
      await isServerProven(databaseServerProofStore(serviceRunner(sql)), client, key);
      assertEquals(client.canaryRequests, 1);

      const liar = countingClient("not_found", 100);
      const liarKey = { ...key, suffix: "yy", canaryName: "nic.yy" };
      const liarResults = await Promise.all(
        Array.from(
          { length: 20 },
          () => isServerProven(databaseServerProofStore(serviceRunner(sql)), liar, liarKey, { pollMs: 50 }),
        ),
      );
      assertEquals(liarResults, liarResults.map(() => false));
      assertEquals(liar.canaryRequests, 1);
    } finally {
      await sql`delete from public.rdap_server_proofs where server_url = ${key.server}`;
      await sql.end();
    }
  },
});
