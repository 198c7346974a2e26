/**
 * One rule in two places: the database derives the unicode form of a stored A-label
 * (`private.domain_unicode_name`, IDNA ToUnicode over RFC 3492 Punycode) and the API's name normaliser uses
 * the WHATWG/Node `domainToUnicode`. For every name the API can store they agree; for A-labels only a direct
 * caller could craft (not valid IDNA, or decoding to controls, spaces or punctuation look-alikes) the
 * database shows no unicode form at all. Needs SUPABASE_DB_URL; fails without it.
 */
import { domainToUnicode } from "node:url";
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { normalizeDomainName } from "../../supabase/functions/_shared/domain/normalize.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

/** Names as users type them; each is normalised by the API, then derived by both sides. */
const typedNames = [
  "bücher.de",
  "münchen.рф",
  "中国.中國",
  "παράδειγμα.ελ",
  "ÄÖÜ.de",
  "straße.de",
  "ﬁnance.com",
  "日本語.jp",
  "mañana.es",
  "xn--bcher-kva.de",
  "café-crème.fr",
  "한국어.kr",
  "ثبت.ir",
  "example.com",
];

/** A-labels a direct caller could store; the database shows no unicode form for them. */
const craftedALabels = [
  "xn--a-qin.test", // U+202E right-to-left override
  "xn--evilcompaypal-966g.test", // U+2044 fraction slash
  "xn--ab-cja2992a.test", // zero-width space
  "xn--qi7ciaj2b.test", // full-width letters
  "xn--click-here-.test", // ASCII only
  "xn--abc.test", // not Punycode
  "xn--exmplex-6wa8569h.test", // ideographic space
];

Deno.test({
  name: "domain_unicode_name agrees with domainToUnicode on every name the API stores",
  ...options,
  fn: async () => {
    const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      for (const typed of typedNames) {
        const normalized = normalizeDomainName(typed);
        assert(normalized.ok, typed);
        const [{ derived }] = await sql<{ derived: string | null }[]>`
          select private.domain_unicode_name(${normalized.domainName}) as derived`;
        const unicode = domainToUnicode(normalized.domainName);
        assertEquals(derived, unicode === normalized.domainName ? null : unicode, typed);
        assertEquals(derived, normalized.unicodeName, typed);
      }
      for (const aLabel of craftedALabels) {
        const [{ derived }] = await sql<{ derived: string | null }[]>`
          select private.domain_unicode_name(${aLabel}) as derived`;
        assertEquals(derived, null, aLabel);
      }
    } finally {
      await sql.end();
    }
  },
});
