/**
 * The functions' driver over TLS on the hosted runtime's Deno (2.1): `sslmode=require` encrypts, and Deno
 * 2.1's node:tls verifies the server's certificate whatever `rejectUnauthorized` says (edge-runtime's
 * `_tls_wrap.ts`: "rejectUnauthorized is always true in Deno"). So a server whose certificate a private
 * authority signed (Supabase's own root CA; here the test cluster's local CA) is reached only with that
 * authority in DB_SSL_ROOT_CERT.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseCaCertificate, tlsDatabaseUrl } from "../support/database.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "sslmode=require with the authority in DB_SSL_ROOT_CERT: the session is encrypted",
  options,
  async () => {
    const sql = postgres.connect(tlsDatabaseUrl(), { max: 1, sslRootCert: databaseCaCertificate() });
    try {
      const [row] = await sql<{ ssl: boolean; version: string }[]>`
      select ssl, version from pg_stat_ssl where pid = pg_backend_pid()`;
      assertEquals(row.ssl, true);
      assert(row.version.startsWith("TLSv1."), row.version);
    } finally {
      await sql.end({ timeout: 1 });
    }
  },
);

// The suite runs on Deno 2.1.4 (scripts/test.ts); newer Deno honours rejectUnauthorized: false.
Deno.test(
  "on Deno 2.1, sslmode=require without the authority is refused: the certificate is verified",
  options,
  async () => {
    assert(
      Deno.version.deno.startsWith("2.1."),
      `runs on the hosted runtime's Deno 2.1, not ${Deno.version.deno}`,
    );
    const sql = postgres.connect(tlsDatabaseUrl(), { max: 1, connectTimeoutMs: 3_000 });
    try {
      let failure = "";
      try {
        await sql`select 1`;
      } catch (error) {
        failure = String((error as Error).message ?? error);
      }
      assert(
        /certificate|UnknownIssuer/i.test(failure),
        `expected a certificate error, got: ${failure || "success"}`,
      );
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
  },
);
