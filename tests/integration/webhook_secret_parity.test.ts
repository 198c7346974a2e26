/**
 * One table of webhook secrets through both copies of the rule: the edge functions' `webhookSecretProblem`
 * and the database's `private.webhook_secret_problem` (which the app's functions and the table's trigger
 * use). Verdicts and wording must agree, and each verdict is the expected one: a `whsec_` secret is the
 * base64 of 24-64 bytes; any other secret is 16-256 characters (code points).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/stack.ts";
import { webhookSecretProblem } from "../../supabase/functions/_shared/alerts/webhook_secret.ts";

const base64Of = (bytes: number) => btoa(String.fromCharCode(...new Uint8Array(bytes).fill(0x5a)));

/** [label, secret, may be saved] */
export const SECRETS: [string, string | null, boolean][] = [
  ["no secret", null, true],
  ["16 characters", "0123456789abcdef", true],
  ["15 characters", "0123456789abcde", false],
  ["256 characters", "s".repeat(256), true],
  ["257 characters", "s".repeat(257), false],
  ["16 code points, 31 UTF-16 units", "🔑".repeat(15) + "x", true],
  ["15 code points with astral characters", "🔑".repeat(15), false],
  ["empty", "", false],
  ["whsec_ of 7 zero bytes (16 characters long)", "whsec_AAAAAAAAAA==", false],
  ["whsec_ of 23 bytes", `whsec_${base64Of(23)}`, false],
  ["whsec_ of 24 bytes", `whsec_${base64Of(24)}`, true],
  ["whsec_ of 32 bytes (what rotation generates)", `whsec_${base64Of(32)}`, true],
  ["whsec_ of 64 bytes", `whsec_${base64Of(64)}`, true],
  ["whsec_ of 65 bytes", `whsec_${base64Of(65)}`, false],
  ["whsec_ alone", "whsec_", false],
  ["whsec_ with text that is not base64", "whsec_not*base64*at-all__long-enough", false],
  ["whsec_ with base64url characters", `whsec_${base64Of(32).replace(/.$/, "_")}`, false],
  ["whsec_ of 25 bytes without its padding", `whsec_${base64Of(25).replace(/=+$/, "")}`, false],
  ["whsec_ with a line break", `whsec_${base64Of(24).slice(0, 16)}\n${base64Of(24).slice(16)}`, false],
  ["WHSEC_ is not the prefix (an ordinary secret)", "WHSEC_AAAAAAAAAA==", true],
];

Deno.test("the webhook secret rule in TypeScript and in SQL give the same verdict on every case", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const mismatches: string[] = [];
    for (const [label, secret, allowed] of SECRETS) {
      const ts = webhookSecretProblem(secret);
      const [row] = await sql<
        { problem: string | null }[]
      >`select private.webhook_secret_problem(${secret}) as problem`;
      if (ts !== row.problem) mismatches.push(`${label}: TS ${ts} / SQL ${row.problem}`);
      if ((ts === null) !== allowed) mismatches.push(`${label}: expected ${allowed ? "allowed" : "refused"}`);
    }
    assertEquals(mismatches, []);
  } finally {
    await sql.end();
  }
});
